// Model: a class whose `forward` is traced once per input signature and then run by the executor (RAF's `@raf.model.trace`).

import { shapesEqual } from '../shape.ts';
import type { Tensor } from '../tensor.ts';
import { execute } from './executor.ts';
import type { Graph } from './ir.ts';
import { paramNames, trace } from './trace.ts';

export abstract class Model {
  /** Base-op calls on its inputs; traced, never run eagerly by `call`. */
  abstract forward(...xs: Tensor[]): Tensor | readonly Tensor[];

  /** Passes applied to each traced graph before it runs (autoCast, fuseOps, ...). */
  protected passes: readonly ((g: Graph) => Graph)[] = [];
  private readonly graphs: { key: readonly Tensor[]; graph: Graph }[] = [];

  /** The graph for inputs like `xs` (traced and passed on first use, then reused for equal shapes, dtypes and devices). */
  graph(...xs: Tensor[]): Graph {
    const hit = this.graphs.find((e) =>
      e.key.every(
        (k, i) => k.dtype === xs[i]!.dtype && k.device === xs[i]!.device && shapesEqual(k.shape, xs[i]!.shape),
      ),
    );
    if (hit && hit.key.length === xs.length) return hit.graph;
    let g = trace((...ys) => this.forward(...ys), xs, { names: paramNames(this.forward, xs.length) });
    for (const p of this.passes) g = p(g);
    this.graphs.push({ key: xs, graph: g });
    return g;
  }

  /** Runs the graph of `forward`; one output comes back as a tensor, several as an array. */
  call(...xs: Tensor[]): Tensor | Tensor[] {
    const out = execute(this.graph(...xs), xs);
    return out.length === 1 ? out[0]! : out;
  }
}
