// Hand-written output rule of raf.op.attention (specs/nn/attention.yaml): 4-D q, k, v with q's heads a multiple of
// k's; the mask bool or q's float dtype, broadcasting to (batch, q_heads, q_seq, <= kv_seq); nonpad_kv_seqlen (batch).

import { sameDtype } from '../checks.ts';
import { isFloat, isInteger } from '../dtype.ts';
import { OpError } from '../errors.ts';
import { formatShape, shapesEqual } from '../shape.ts';
import type { TensorType } from '../tensor.ts';
import type { AttentionArgs } from '../generated/schema/attention.ts';

export function attentionRule<T extends TensorType>(args: AttentionArgs<T>): TensorType {
  const op = 'attention';
  const dtype = sameDtype(op, { q: args.q, k: args.k, v: args.v });
  if (!isFloat(dtype)) throw new OpError(op, `must be a float tensor, got ${dtype}`, 'q');
  for (const name of ['q', 'k', 'v'] as const)
    if (args[name].shape.length !== 4)
      throw new OpError(op, `must be 4-D (batch, heads, seq, head_size), got ${formatShape(args[name].shape)}`, name);
  const [b, hq, sq, d] = args.q.shape as [number, number, number, number];
  const [, hkv, skv] = args.k.shape as [number, number, number, number];
  if (!hkv || hq % hkv) throw new OpError(op, `q's ${hq} heads are not a multiple of k's ${hkv}`, 'k');
  if (!shapesEqual(args.k.shape, [b, hkv, skv, d]))
    throw new OpError(op, `must be ${formatShape([b, hkv, skv, d])}, got ${formatShape(args.k.shape)}`, 'k');
  const dv = args.v.shape[3]!;
  if (!shapesEqual(args.v.shape, [b, hkv, skv, dv]))
    throw new OpError(op, `must be ${formatShape([b, hkv, skv, dv])}, got ${formatShape(args.v.shape)}`, 'v');
  const mask = args.attn_mask;
  if (mask) {
    if (mask.dtype !== 'bool' && mask.dtype !== dtype)
      throw new OpError(op, `must be bool or ${dtype} (q's dtype), got ${mask.dtype}`, 'attn_mask');
    const full = [b, hq, sq, skv];
    const m = mask.shape;
    const fits =
      m.length >= 1 &&
      m.length <= 4 &&
      m[m.length - 1]! <= skv &&
      m.slice(0, -1).every((dim, i) => dim === 1 || dim === full[4 - m.length + i]);
    if (!fits)
      throw new OpError(
        op,
        `must broadcast to ${formatShape(full)} (its last axis at most ${skv}), got ${formatShape(m)}`,
        'attn_mask',
      );
  }
  const lens = args.nonpad_kv_seqlen;
  if (lens) {
    if (!isInteger(lens.dtype))
      throw new OpError(op, `must be an integer tensor, got ${lens.dtype}`, 'nonpad_kv_seqlen');
    if (!shapesEqual(lens.shape, [b]))
      throw new OpError(op, `must be [${b}], got ${formatShape(lens.shape)}`, 'nonpad_kv_seqlen');
    if (args.past_len) throw new OpError(op, 'cannot be combined with past_len (a cache)', 'nonpad_kv_seqlen');
  }
  return { shape: [b, hq, sq, dv], dtype };
}
