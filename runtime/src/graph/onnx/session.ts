// OnnxSession: an imported ONNX model run as onnxruntime's InferenceSession is, by input name, at any input shape its
// graph allows: the model is decoded once and converted once per input signature (shapes, dtypes, and the values of
// integer scalar inputs such as a sample rate, which fold like constants), then that graph is reused.

import { CPU, type Device } from '../../device.ts';
import { cast } from '../../generated/api/cast.ts';
import type { Tensor } from '../../tensor.ts';
import { execute } from '../executor.ts';
import { fromOnnx } from '../frontends/from-onnx.ts';
import type { Graph } from '../ir.ts';
import { decodeOnnx, type OnnxModel } from './proto.ts';

export interface OnnxSessionOptions {
  readonly device?: Device;
  /** Passes applied to each converted graph before it runs (fuseOps, autoCast...). */
  readonly passes?: readonly ((g: Graph) => Graph)[];
}

export class OnnxSession {
  readonly model: OnnxModel;
  /** The model's inputs that are not initializers, in order, with their ONNX names. */
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  private readonly graphs = new Map<string, Graph>();

  constructor(
    model: Uint8Array | OnnxModel,
    private readonly opts: OnnxSessionOptions = {},
  ) {
    this.model = model instanceof Uint8Array ? decodeOnnx(model) : model;
    const inits = new Set(this.model.initializers.map((t) => t.name));
    this.inputNames = this.model.inputs.filter((i) => !inits.has(i.name)).map((i) => i.name);
    this.outputNames = this.model.outputs.map((o) => o.name);
  }

  /** How many graphs have been converted so far (one per input signature). */
  get specializations(): number {
    return this.graphs.size;
  }

  /** The graph for feeds like these, converted on first use. */
  graphFor(feeds: Readonly<Record<string, Tensor>>): Graph {
    const missing = this.inputNames.filter((n) => !(n in feeds));
    if (missing.length) throw new Error(`OnnxSession.run: missing input(s) ${missing.map((n) => `'${n}'`).join(', ')}`);
    const extra = Object.keys(feeds).filter((n) => !this.inputNames.includes(n));
    if (extra.length) throw new Error(`OnnxSession.run: unknown input(s) ${extra.map((n) => `'${n}'`).join(', ')}`);
    const folded = this.inputNames.filter((n) => isIntScalar(feeds[n]!));
    const key = this.inputNames
      .map((n) => {
        const t = feeds[n]!;
        const value = folded.includes(n) ? `=${(t.dataSync() as ArrayLike<number>)[0]}` : '';
        return `${n}:${t.dtype}[${t.shape.join(',')}]${value}`;
      })
      .join(';');
    let g = this.graphs.get(key);
    if (!g) {
      g = fromOnnx(this.model, {
        device: this.opts.device ?? CPU,
        shapes: Object.fromEntries(this.inputNames.map((n) => [n, feeds[n]!.shape])),
        constants: Object.fromEntries(folded.map((n) => [n, feeds[n]!])),
      });
      for (const p of this.opts.passes ?? []) g = p(g);
      this.graphs.set(key, g);
    }
    return g;
  }

  /** Runs the model: ONNX input name → tensor in, ONNX output name → tensor out. */
  run(feeds: Readonly<Record<string, Tensor>>): Record<string, Tensor> {
    const g = this.graphFor(feeds);
    const args = g.params.map((p) => {
      const t = feeds[p.hint!]!;
      return t.dtype === p.type.dtype ? t : cast(t, p.type.dtype);
    });
    const outs = execute(g, args);
    return Object.fromEntries(this.outputNames.map((n, i) => [n, outs[i]!]));
  }
}

function isIntScalar(t: Tensor): boolean {
  return (t.dtype === 'int32' || t.dtype === 'int64' || t.dtype === 'bool') && t.size <= 1;
}

/** Decodes an ONNX model for `run` by name, as onnxruntime's InferenceSession.create does. */
export function loadOnnx(model: Uint8Array | OnnxModel, opts: OnnxSessionOptions = {}): OnnxSession {
  return new OnnxSession(model, opts);
}
