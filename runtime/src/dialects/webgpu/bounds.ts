// Index bounds on WebGPU, with the CPU's errors: take, embedding, nll_loss, cross_entropy and their backwards.
//
// Indices uploaded from the CPU are checked before dispatch, from the host copy their storage keeps. Indices computed
// on the GPU are read back alongside the result: the result's read() (data(), toArray(), to('cpu')) waits for them and
// fails with the CPU's OpError when one is out of range. The kernels themselves never read out of bounds (an
// out-of-range index contributes nothing), so nothing else is touched meanwhile.

import { OpError } from '../../errors.ts';
import type { Tensor } from '../../tensor.ts';
import { GpuStorage } from './storage.ts';

function checkOnGpu(indices: Tensor, result: Tensor, check: (values: ArrayLike<number>) => void): void {
  const s = indices.storage;
  if (s instanceof GpuStorage && s.host) return check(s.host);
  if (!(s instanceof GpuStorage)) return check(indices.dataSync());
  // Started now, so the copy is queued before anything could reuse the indices' buffer.
  const pending = indices.data().then(check);
  if (result.storage instanceof GpuStorage) result.storage.deferCheck(pending);
}

/** take/embedding: indices along an axis of length `len`, negative ones counting from the end (the CPU's rule). */
export function checkTakeIndices(op: string, indices: Tensor, len: number, result: Tensor): void {
  checkOnGpu(indices, result, (idx) => {
    for (let j = 0; j < idx.length; j++) {
      const k = idx[j]! < 0 ? idx[j]! + len : idx[j]!;
      if (k < 0 || k >= len)
        throw new OpError(op, `index ${idx[j]} is out of range for axis of size ${len}`, 'indices');
    }
  });
}

/** nll_loss/cross_entropy: one class index in [0, classes) per row (the CPU's rule and wording). */
export function checkClassTargets(op: string, target: Tensor, classes: number, result: Tensor): void {
  checkOnGpu(target, result, (t) => {
    for (let n = 0; n < t.length; n++) {
      if (t[n]! < 0 || t[n]! >= classes)
        throw new OpError(op, `class index ${t[n]} at position ${n} is outside [0, ${classes})`, 'target');
    }
  });
}

/** scatter_nd: rows of k indices into x's leading axes `dims`, each in [-dim, dim) (the CPU's rule and wording). */
export function checkIndexRows(op: string, indices: Tensor, dims: readonly number[], result: Tensor): void {
  checkOnGpu(indices, result, (idx) => {
    for (let j = 0; j < idx.length; j++) {
      const len = dims[j % dims.length]!;
      if (idx[j]! < -len || idx[j]! >= len)
        throw new OpError(op, `index ${idx[j]} is out of range for axis of size ${len}`, 'indices');
    }
  });
}
