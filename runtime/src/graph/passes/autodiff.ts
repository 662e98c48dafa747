// AutoDiff pass: builds the backward graph by running each op's generated gradient registration on symbolic tensors, as the eager tape runs it on values.

import { call, invoke } from '../../dispatch.ts';
import type { GradContext } from '../../registry.ts';
import { broadcastAxes, formatShape, shapesEqual } from '../../shape.ts';
import { full, placeOn, Tensor, type TensorType } from '../../tensor.ts';
import { definedVars, eliminateDeadCode, mkVar, type Atom, type CallNode, type Graph, type Var } from '../ir.ts';
import { Recorder, replay } from '../trace.ts';

export interface AutodiffOptions {
  /** Parameters to differentiate (indices); default all float params. */
  readonly wrt?: readonly number[];
  /**
   * `'param'` (default) adds one seed parameter per output after the graph's own, RAF-style (`%dy`, or `%dy0`, `%dy1`...
   * for several outputs); `'ones'` seeds every output with ones (the gradient of the sum of all outputs).
   */
  readonly seed?: 'param' | 'ones';
}

/**
 * From `g` (outputs y0..yk), a graph returning `(y0..yk, dL/dp...)` for L = Σ sum(dyi · yi): the forward calls, then
 * for each call in reverse the calls its gradient registration makes, gradients of broadcast inputs summed back to
 * the input's shape and gradients of shared values added, exactly as in eager mode.
 */
export function autodiff(g: Graph, opts: AutodiffOptions = {}): Graph {
  if (!g.outputs.length) throw new Error('autodiff: the graph has no outputs');
  const wrt = opts.wrt ?? g.params.map((_, i) => i).filter((i) => g.params[i]!.type.dtype.startsWith('float'));
  const rec = new Recorder();
  const params = g.params.map((p) => mkVar(p.type, p.device, p.hint));
  const typeOf = (a: Atom): TensorType => (a.kind === 'var' ? a.type : a.value);
  // One seed per output; a single output keeps the plain name %dy.
  const dyVars =
    opts.seed === 'ones'
      ? null
      : g.outputs.map((y, k) =>
          mkVar(typeOf(y), y.kind === 'var' ? y.device : y.value.device, g.outputs.length === 1 ? 'dy' : `dy${k}`),
        );
  const env = replay(
    g,
    rec,
    params.map((p) => rec.tensorOf(p)),
    (op, args) => invoke(op, args),
  );
  const value = (a: Atom): Tensor => (a.kind === 'var' ? env.get(a)! : a.value);

  const grads = new Map<Var, Tensor>();
  const accumulate = (v: Var, gi: Tensor) => {
    const prev = grads.get(v);
    grads.set(v, prev ? (call('add', [prev, gi]) as Tensor) : gi);
  };
  rec.run(() => {
    // A constant output has no gradient to send; one var returned twice gets both seeds.
    g.outputs.forEach((y, k) => {
      if (y.kind !== 'var') return;
      // The seed lives where the output does (a loss on WebGPU gets a WebGPU seed).
      accumulate(y, dyVars ? rec.tensorOf(dyVars[k]!) : placeOn(full(y.type.shape, 1, y.type.dtype), y.device));
    });
    for (let i = g.nodes.length - 1; i >= 0; i--) {
      const n = g.nodes[i] as CallNode;
      const outs = definedVars(n);
      const dys = outs.map((v) => grads.get(v));
      const gd = n.op.grad;
      if (!gd || dys.every((d) => !d)) continue;
      // As on the tape: a tuple op's backward gets one dy per output, zeros for outputs nothing differentiated read.
      const dy =
        n.out.kind === 'tuple'
          ? outs.map((v, k) => dys[k] ?? placeOn(full(v.type.shape, 0, v.type.dtype), v.device))
          : dys[0]!;
      const fields = n.op.schema.fields;
      const ctx: Record<string, unknown> = { dy };
      fields.forEach((f, k) => {
        if (!n.op.tensorArgs.includes(f.name)) ctx[f.name] = n.args[k];
      });
      const valueOf = (a: unknown): unknown =>
        Array.isArray(a) ? a.map(valueOf) : a === null ? null : value(a as Atom);
      for (const s of gd.saves) {
        ctx[s] =
          s === 'y'
            ? n.out.kind === 'tuple'
              ? outs.map((v) => env.get(v))
              : env.get(n.out)
            : valueOf(n.args[fields.findIndex((f) => f.name === s)]);
      }
      const result = gd.fn(ctx as GradContext);
      const send = (name: string, a: Atom | null, gi: Tensor | null | undefined) => {
        if (!a || a.kind !== 'var' || !gi) return;
        accumulate(a, fitToShape(n.op.name, name, gi, a.type));
      };
      for (const name of gd.inputs) {
        const a = n.args[fields.findIndex((f) => f.name === name)] as Atom | readonly Atom[] | null;
        const gi = result[name];
        // A Tensor[] input gets a list of gradients, one per element.
        if (Array.isArray(a))
          (a as readonly Atom[]).forEach((x, k) =>
            send(`${name}[${k}]`, x, (gi as readonly (Tensor | null)[] | null | undefined)?.[k]),
          );
        else send(name, a as Atom | null, gi as Tensor | null | undefined);
      }
    }
  });
  const outputs: Atom[] = g.outputs.map((y) => (value(y) === undefined ? y : rec.atomOf(value(y))));
  for (const i of wrt) {
    const p = g.params[i]!;
    const gp = grads.get(p);
    outputs.push(rec.atomOf(gp ?? full(p.type.shape, 0, p.type.dtype)));
  }
  // Outputs that are inputs of the new graph map back through the recorder's own vars.
  return eliminateDeadCode({ params: dyVars ? [...params, ...dyVars] : params, nodes: rec.nodes, outputs });
}

/** Sums a gradient over the axes its input was broadcast along (TVM's collapse_sum_like). */
function fitToShape(op: string, arg: string, g: Tensor, to: TensorType): Tensor {
  if (shapesEqual(g.shape, to.shape)) return g;
  const axes = broadcastAxes(to.shape, g.shape);
  if (g.shape.length < to.shape.length || axes.length === 0) {
    throw new Error(
      `autodiff: gradient of raf.op.${op} for '${arg}' has shape ${formatShape(g.shape)}, input has ${formatShape(to.shape)}`,
    );
  }
  return call('reshape', [call('sum', [g, axes, true]), [...to.shape]]) as Tensor;
}
