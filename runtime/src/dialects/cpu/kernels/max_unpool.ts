// CPU kernel of raf.op.max_unpool (specs/nn/max_unpool.yaml): zeros, then each x value written at its flat index. The
// indices address the pooled input's shape ((in - 1) * stride + kernel - pads per axis, as max_pool gave them); a
// larger output_shape pads that at the end of each spatial axis, as ONNX's reference does. An index outside the
// inferred shape is an OpError, never a silent drop.
// raf-op-ignores: output_shape (the output type the rule gives already encodes it)

import type { MaxUnpoolKernel } from '../../../generated/bridge/max_unpool.ts';
import { OpError } from '../../../errors.ts';
import { allocOut, finish } from '../support.ts';

export const maxUnpoolCpu: MaxUnpoolKernel = ({ x, indices }, { kernel, stride, padding }, out) => {
  const y = allocOut(out);
  const rank = x.shape.length - 2;
  const inferred = x.shape
    .slice(2)
    .map((d, i) => (d - 1) * (stride?.[i] ?? 1) + kernel[i]! - (padding?.[i] ?? 0) - (padding?.[i + rank] ?? 0));
  const outDims = out.shape.slice(2);
  if (inferred.some((d, i) => d > outDims[i]!))
    throw new OpError(
      'max_unpool',
      `[${outDims.join(', ')}] is smaller than the unpooled size [${inferred.join(', ')}]`,
      'output_shape',
    );
  const inPlane = inferred.reduce((p, d) => p * d, 1);
  const outPlane = outDims.reduce((p, d) => p * d, 1);
  const total = x.shape[0]! * x.shape[1]! * inPlane;
  const xv = x.dataSync();
  const iv = indices.dataSync();
  const yv = y.dataSync();
  for (let i = 0; i < xv.length; i++) {
    const at = Number(iv[i]);
    if (!Number.isInteger(at) || at < 0 || at >= total)
      throw new OpError(
        'max_unpool',
        `index ${at} at position ${i} is outside the ${total} unpooled elements`,
        'indices',
      );
    // Re-address the index from the inferred shape to the (end-padded) output shape.
    const plane = Math.floor(at / inPlane);
    let rest = at - plane * inPlane;
    let off = 0;
    let mult = 1;
    for (let a = rank - 1; a >= 0; a--) {
      off += (rest % inferred[a]!) * mult;
      rest = Math.floor(rest / inferred[a]!);
      mult *= outDims[a]!;
    }
    yv[plane * outPlane + off] = xv[i]!;
  }
  return finish(y);
};
