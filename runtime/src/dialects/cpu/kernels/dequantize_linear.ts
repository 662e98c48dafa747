// CPU kernel of raf.op.dequantize_linear (specs/quant/dequantize_linear.yaml): y = (x - x_zero_point) * x_scale. The
// difference is exact (an integer), converted to float32 and multiplied in float32 (float16 scales too, as onnxruntime
// and ONNX's reference compute), then rounded to the output dtype.
// raf-op-ignores: output_dtype (the output type the rule gives already says it)

import type { DequantizeLinearKernel } from '../../../generated/bridge/dequantize_linear.ts';
import { layoutIndex, quantLayout } from '../../../ops/quant.ts';
import { allocOut, finish } from '../support.ts';

const OP = 'dequantize_linear';

export const dequantizeLinearCpu: DequantizeLinearKernel = (
  { x, x_scale, x_zero_point: zp },
  { axis, block_size },
  out,
) => {
  const sIdx = layoutIndex(quantLayout(OP, 'x_scale', x.shape, x_scale.shape, axis, block_size), x.shape);
  const zIdx = zp ? layoutIndex(quantLayout(OP, 'x_zero_point', x.shape, zp.shape, axis, block_size), x.shape) : null;
  const round: (v: number) => number = x_scale.dtype === 'float64' ? (v) => v : Math.fround;
  const y = allocOut(out);
  const yv = y.dataSync();
  const xv = x.dataSync();
  const sv = x_scale.dataSync();
  const zv = zp ? zp.dataSync() : null;
  if (!sIdx && !zIdx) {
    // Per tensor (the common case: embeddings, activations): the same arithmetic with the parameters hoisted.
    const s = sv[0]!;
    const z = zv ? zv[0]! : 0;
    if (
      yv instanceof Float32Array &&
      x_scale.dtype === 'float32' &&
      (xv instanceof Uint8Array || xv instanceof Int8Array)
    ) {
      // 8-bit x: x - z is an integer of at most 9 bits and s a float32, so their product in float64 is exact and
      // the Float32Array store rounds it once, as the float32 multiplication does.
      dequantize8(xv, z, s, yv);
      return finish(y);
    }
    for (let i = 0; i < xv.length; i++) yv[i] = round(round(xv[i]! - z) * s);
    return finish(y);
  }
  for (let i = 0; i < xv.length; i++) {
    const d = round(xv[i]! - (zv ? zv[zIdx ? zIdx[i]! : 0]! : 0));
    yv[i] = round(d * sv[sIdx ? sIdx[i]! : 0]!);
  }
  return finish(y);
};

function dequantize8(xv: Uint8Array | Int8Array, z: number, s: number, yv: Float32Array): void {
  for (let i = 0; i < xv.length; i++) yv[i] = (xv[i]! - z) * s;
}
