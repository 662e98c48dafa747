// What an OnnxSession keeps between the conversions of one model at several input signatures: every value FromOnnx
// computes at import from initializers and Constant nodes alone (decoded weights, transposed or folded ones, constant
// index tables). Those values do not depend on the inputs' shapes or values, so a conversion at a new signature reuses
// them (same tensors, so the executor's copies of them in wasm memory are reused too) and only converts again the
// nodes that read an input, an input's shape, or a value computed from one.

import type { Device } from '../../device.ts';
import { keepAlive, Tensor } from '../../tensor.ts';
import { isKnownValue, type ImportValue } from './containers.ts';
import { isOnnxGraph, type OnnxNode, type OnnxTensor } from './proto.ts';

/** Ops whose value is drawn anew at each import: never shared between conversions. */
const DRAWN = /^(Random|Bernoulli$|Multinomial$)/;

export class OnnxImportCache {
  /** Signature-independent values by ONNX name (the model's main graph only). */
  private readonly known = new Map<string, Tensor>();
  /** Nodes converted from cached values instead of computed, over all conversions (what tests read). */
  reused = 0;

  constructor(
    readonly device: Device,
    readonly float16: 'float32' | 'float16',
  ) {}

  /** An initializer's tensor: decoded on first use, the same tensor afterwards. */
  initializer(t: OnnxTensor, decode: (t: OnnxTensor) => Tensor): Tensor {
    let v = this.known.get(t.name);
    if (!v) this.known.set(t.name, (v = keepAlive(decode(t))));
    return v;
  }

  /** Sets a node's outputs from the cache when an earlier conversion computed them; whether it did. */
  reuse(node: OnnxNode, values: Map<string, ImportValue>): boolean {
    const outs = node.outputs.filter(Boolean);
    if (!outs.length || !outs.every((o) => this.known.has(o))) return false;
    for (const o of outs) values.set(o, this.known.get(o)!);
    this.reused++;
    return true;
  }

  /** Keeps a converted node's outputs when the node read only signature-independent values. */
  store(node: OnnxNode, values: ReadonlyMap<string, ImportValue>): void {
    if (DRAWN.test(node.opType)) return;
    if (node.attrs.some((a) => isOnnxGraph(a.value) || (Array.isArray(a.value) && a.value.some(isOnnxGraph)))) return;
    if (!node.inputs.every((name) => !name || this.known.has(name))) return;
    const outs = node.outputs.filter(Boolean).map((o) => [o, values.get(o)] as const);
    if (!outs.every(([, v]) => v instanceof Tensor && isKnownValue(v))) return;
    for (const [o, v] of outs) this.known.set(o, keepAlive(v as Tensor));
  }
}
