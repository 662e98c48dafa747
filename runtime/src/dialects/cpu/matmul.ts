// The CPU matrix product behind matmul, matmul_nt and matmul_tn: batch-broadcast, i-k-j loop order.

import type { Tensor, TensorType } from '../../tensor.ts';
import { isInteger, isWide, type Storage } from '../../dtype.ts';
import { OpError } from '../../errors.ts';
import { broadcastShapes, sizeOf, stridesOf, type Shape } from '../../shape.ts';
import { allocOut, finish } from './support.ts';

/** The largest magnitude among the values (0 for none). */
function maxAbs(xs: Storage): number {
  let m = 0;
  for (let i = 0; i < xs.length; i++) m = Math.max(m, Math.abs(xs[i]!));
  return m;
}

/**
 * Whether an integer product must wrap exactly: when its float64 sums could pass 2^53 (k · max|A| · max|B|), a
 * fixed-width result (int32, uint32, int16, ...) accumulates with Math.imul modulo 2^32, whose low bits are exact;
 * an int64/uint64 one is refused, naming the op, since its exact value cannot be kept.
 */
function integerWrap(op: string, a: Storage, b: Storage, k: number, out: TensorType): boolean {
  if (!isInteger(out.dtype)) return false;
  if (k * maxAbs(a) * maxAbs(b) <= Number.MAX_SAFE_INTEGER) return false;
  if (isWide(out.dtype))
    throw new OpError(
      op,
      `an ${out.dtype} product whose partial sums may pass 2^53 cannot be computed exactly (raf-op stores ${out.dtype} ` +
        'exactly only within ±(2^53 - 1) and refuses rather than rounds)',
      'out',
    );
  return true;
}

/** out[..., m, n] = sum_k A[..., m, k] * B[..., k, n], reading A or B transposed when asked. */
export function matrixProduct(
  a: Tensor,
  b: Tensor,
  out: TensorType,
  transposeA: boolean,
  transposeB: boolean,
  op = 'matmul',
): Tensor {
  const y = allocOut(out);
  const as = a.dataSync();
  const bs = b.dataSync();
  const ys = y.dataSync();
  const ar = a.shape.length;
  const br = b.shape.length;
  const [m, k] = transposeA ? [a.shape[ar - 1]!, a.shape[ar - 2]!] : [a.shape[ar - 2]!, a.shape[ar - 1]!];
  const n = transposeB ? b.shape[br - 2]! : b.shape[br - 1]!;
  // Strides of one matrix: row step and column step in the stored layout.
  const [aRow, aCol] = transposeA ? [1, m] : [k, 1];
  const [bRow, bCol] = transposeB ? [1, k] : [n, 1];
  const batch = out.shape.slice(0, -2);
  const aOffsets = batchOffsets(a.shape.slice(0, -2), batch, m * k);
  const bOffsets = batchOffsets(b.shape.slice(0, -2), batch, k * n);
  const row = new Float64Array(n);
  const wrap = integerWrap(op, as, bs, k, out);
  for (let t = 0; t < aOffsets.length; t++) {
    const ao = aOffsets[t]!;
    const bo = bOffsets[t]!;
    const yo = t * m * n;
    for (let i = 0; i < m; i++) {
      row.fill(0);
      for (let p = 0; p < k; p++) {
        const av = as[ao + i * aRow + p * aCol]!;
        if (av === 0) continue;
        const bBase = bo + p * bRow;
        if (wrap) for (let j = 0; j < n; j++) row[j] = (row[j]! + Math.imul(av, bs[bBase + j * bCol]!)) | 0;
        else for (let j = 0; j < n; j++) row[j]! += av * bs[bBase + j * bCol]!;
      }
      for (let j = 0; j < n; j++) ys[yo + i * n + j] = row[j]!;
    }
  }
  return finish(y);
}

/** For each batch index of the broadcast batch shape, the element offset of that operand's matrix. */
function batchOffsets(own: Shape, batch: Shape, matrixSize: number): Int32Array {
  const count = sizeOf(batch);
  const offsets = new Int32Array(count);
  const full = broadcastShapes(own, batch)!;
  const ownStrides = stridesOf(own);
  const lead = full.length - own.length;
  const batchStrides = stridesOf(batch);
  for (let t = 0; t < count; t++) {
    let off = 0;
    for (let d = 0; d < own.length; d++) {
      const idx = Math.floor(t / batchStrides[d + lead]!) % batch[d + lead]!;
      off += (own[d] === 1 ? 0 : idx) * ownStrides[d]!;
    }
    offsets[t] = off * matrixSize;
  }
  return offsets;
}
