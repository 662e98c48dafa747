// Wasm kernel of raf.op.batch_norm (specs/nn/batch_norm.yaml): the CPU kernel's loop over wasm memory, so the tensor
// between two convolutions never leaves it.

import type { BatchNormKernel } from '../../../generated/bridge/batch_norm.ts';
import { batchNormLoop } from '../../cpu/kernels/batch_norm.ts';
import { aroundAxis } from '../../cpu/support.ts';
import { overWasmMemory } from '../support.ts';

export const batchNormWasm: BatchNormKernel = ({ x, scale, bias, mean, variance }, { axis, epsilon }, out) => {
  // The per-channel parameters are read first: they are small, and reading them allocates nothing in wasm memory.
  const params = [scale.dataSync(), bias.dataSync(), mean.dataSync(), variance.dataSync()] as const;
  return overWasmMemory(x, out, (xs, ys) =>
    batchNormLoop(xs, ys, [...params], { ...aroundAxis(x.shape, axis), epsilon }),
  );
};
