// Wasm kernel of raf.op.layer_norm (specs/nn/layer_norm.yaml): one SIMD pass for the moments, one to normalize, per row.

import type { LayerNormKernel } from '../../../generated/bridge/layer_norm.ts';
import { sizeOf } from '../../../shape.ts';
import { callArena, wasm } from '../module.ts';
import { allocFor, inPtr, outBlock, widthOf, writeTensor } from '../support.ts';

export const layerNormWasm: LayerNormKernel = ({ x, scale, bias }, { axis, epsilon }, out) => {
  const width = widthOf(out.dtype)!;
  const normalized = x.shape.slice(axis);
  const d = sizeOf(normalized);
  const rows = d === 0 ? 0 : x.size / d;
  const arena = callArena();
  const px = inPtr(arena, width, x);
  // Scale and bias are broadcast to one row here, so the kernel reads them at the row's own offsets.
  const ps = allocFor(arena, width, d);
  const pb = allocFor(arena, width, d);
  const y = outBlock(arena, width, out);
  writeTensor(arena, width, ps, scale, normalized);
  writeTensor(arena, width, pb, bias, normalized);
  wasm()[`layer_norm_${width}`](px, ps, pb, y.ptr, rows, d, epsilon);
  return y.tensor();
};
