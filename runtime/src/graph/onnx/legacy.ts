// Nodes of opsets before 7 (and 8 for the variadic Max/Min/Sum/Mean), rewritten into the form the mappings import.
// Those opsets spelled broadcasting with attributes: `broadcast = 1` lets B match A's dims from `axis` on (or its
// trailing dims), and `consumed_inputs` (before opset 6) was a memory hint with no effect on values. Once B is reshaped
// so NumPy broadcasting lines it up the same way, and the hints are dropped, the node means what opset 7 says.

import { reshape } from '../../generated/api/reshape.ts';
import type { Tensor } from '../../tensor.ts';
import type { OnnxNode } from './proto.ts';

/** Binary ops whose opset-1/6 forms carry `broadcast` and `axis`. */
const BROADCASTING = new Set([
  'Add',
  'Sub',
  'Mul',
  'Div',
  'Pow',
  'And',
  'Or',
  'Xor',
  'Equal',
  'Greater',
  'Less',
  'PRelu',
]);
/** Ops whose pre-7 forms differ only by attributes with no effect on the values of an inference run. */
const HINTS_ONLY: Readonly<Record<string, { readonly until: number; readonly drop: readonly string[] }>> = {
  Gemm: { until: 7, drop: ['broadcast'] },
  BatchNormalization: { until: 7, drop: ['is_test', 'consumed_inputs'] },
  Max: { until: 8, drop: ['consumed_inputs'] },
  Min: { until: 8, drop: ['consumed_inputs'] },
  Sum: { until: 8, drop: ['consumed_inputs'] },
  Mean: { until: 8, drop: ['consumed_inputs'] },
};

export interface Upgraded {
  readonly node: OnnxNode;
  /** The opset whose mapping now imports the node. */
  readonly opset: number;
  /** Values the rewrite computed (a reshaped B), by the names the rewritten node reads them under. */
  readonly values: ReadonlyMap<string, Tensor>;
}

/** The node in its opset-7 (or 8) form, or null when it needs no rewrite. */
export function upgradeLegacy(
  node: OnnxNode,
  opset: number,
  read: (name: string) => Tensor | undefined,
): Upgraded | null {
  const attr = (name: string) => node.attrs.find((a) => a.name === name)?.value;
  if (opset < 7 && BROADCASTING.has(node.opType)) {
    const attrs = node.attrs.filter((a) => !['broadcast', 'axis', 'consumed_inputs'].includes(a.name));
    const values = new Map<string, Tensor>();
    const inputs = [...node.inputs];
    const a = read(inputs[0] ?? '');
    const b = read(inputs[1] ?? '');
    // PRelu before 7 has no broadcast attribute: a slope with one value per channel applies along axis 1.
    const perChannel =
      node.opType === 'PRelu' && a && b && b.shape.length === 1 && a.shape.length > 2 && b.shape[0] === a.shape[1];
    if ((attr('broadcast') === 1 || perChannel) && a && b && b.shape.length < a.shape.length) {
      const rank = a.shape.length;
      const axis = perChannel ? 1 : ((attr('axis') as number | undefined) ?? rank - b.shape.length);
      const at = axis < 0 ? axis + rank : axis;
      if (at < 0 || at + b.shape.length > rank)
        throw new Error(`broadcast axis ${axis} does not fit B's rank ${b.shape.length} into A's rank ${rank}`);
      const shape = [...Array(at).fill(1), ...b.shape, ...Array(rank - at - b.shape.length).fill(1)];
      const name = `${inputs[1]}#broadcast${at}`;
      values.set(name, reshape(b, shape));
      inputs[1] = name;
    }
    return { node: { ...node, inputs, attrs }, opset: 7, values };
  }
  const hints = HINTS_ONLY[node.opType];
  if (hints && opset < hints.until) {
    // BatchNormalization before 7 had `spatial`, whose default (1) is what every later form computes.
    const attrs = node.attrs.filter((a) => !hints.drop.includes(a.name));
    return { node: { ...node, attrs }, opset: hints.until, values: new Map() };
  }
  return null;
}
