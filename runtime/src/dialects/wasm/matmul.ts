// The wasm matrix product behind matmul, matmul_nt and matmul_tn: batch-broadcast on the JavaScript side, one call per matrix.

import { sizeOf, stridesOf, type Shape } from '../../shape.ts';
import type { Tensor, TensorType } from '../../tensor.ts';
import { callArena, wasm } from './module.ts';
import { inPtr, outBlock, widthOf } from './support.ts';
import { threadedMatmul } from './threads/index.ts';

/** out[..., m, n] = sum_k A[..., m, k] · B[..., k, n], reading A or B transposed through strides (no copy). */
export function wasmMatrixProduct(
  a: Tensor,
  b: Tensor,
  out: TensorType,
  transposeA: boolean,
  transposeB: boolean,
): Tensor {
  const width = widthOf(out.dtype)!;
  const w = wasm();
  const ar = a.shape.length;
  const br = b.shape.length;
  const [m, k] = transposeA ? [a.shape[ar - 1]!, a.shape[ar - 2]!] : [a.shape[ar - 2]!, a.shape[ar - 1]!];
  const n = transposeB ? b.shape[br - 2]! : b.shape[br - 1]!;
  const [aRow, aCol] = transposeA ? [1, m] : [k, 1];
  const [bRow, bCol] = transposeB ? [1, k] : [n, 1];
  const batch = out.shape.slice(0, -2);
  const aOffsets = batchOffsets(a.shape.slice(0, -2), batch, m * k);
  const bOffsets = batchOffsets(b.shape.slice(0, -2), batch, k * n);
  const bytes = width === 'f32' ? 4 : 8;
  const arena = callArena();
  const pa = inPtr(arena, width, a);
  const pb = inPtr(arena, width, b);
  const c = outBlock(arena, width, out);
  const pc = c.ptr;
  const scratchBytes = w.matmul_scratch_bytes();
  const scratch = width === 'f32' ? arena.alloc(scratchBytes) : 0;
  for (let t = 0; t < aOffsets.length; t++) {
    const ap = pa + aOffsets[t]! * bytes;
    const bp = pb + bOffsets[t]! * bytes;
    const cp = pc + t * m * n * bytes;
    // Opt-in threads (threads/index.ts) split the rows when on and the product is large.
    if (threadedMatmul(arena, width, ap, aRow, aCol, bp, bRow, bCol, cp, m, n, k, scratch, scratchBytes)) continue;
    if (width === 'f32') w.matmul_f32(ap, aRow, aCol, bp, bRow, bCol, cp, m, n, k, scratch);
    else w.matmul_f64(ap, aRow, aCol, bp, bRow, bCol, cp, m, n, k);
  }
  return c.tensor();
}

/** For each index of the broadcast batch shape, the element offset of this operand's matrix (size-1 axes repeat). */
function batchOffsets(own: Shape, batch: Shape, matrixSize: number): number[] {
  const ownStrides = stridesOf(own);
  const lead = batch.length - own.length;
  const offsets: number[] = [];
  const count = sizeOf(batch);
  const index = new Array<number>(batch.length).fill(0);
  for (let t = 0; t < count; t++) {
    let off = 0;
    for (let d = 0; d < own.length; d++) if (own[d] !== 1) off += index[d + lead]! * ownStrides[d]!;
    offsets.push(off * matrixSize);
    for (let d = batch.length - 1; d >= 0 && ++index[d]! === batch[d]!; d--) index[d] = 0;
  }
  return offsets;
}
