// CPU kernel of raf.op.negative_log_likelihood_loss (specs/nn/negative_log_likelihood_loss.yaml), and the loss step
// softmax_cross_entropy_loss shares: sums in float64.

import type { NegativeLogLikelihoodLossKernel } from '../../../generated/bridge/negative_log_likelihood_loss.ts';
import { OpError } from '../../../errors.ts';
import type { Tensor, TensorType } from '../../../tensor.ts';
import { allocOut, finish } from '../support.ts';

/**
 * The loss of log-probabilities `lp` laid out as x [N, C, inner...] into `out`: -lp[n, t, i] * w[t] per position,
 * then reduced. A target outside [0, C) that is not ignore_index is an OpError naming `op`.
 */
export function nllInto(
  op: string,
  lp: ArrayLike<number>,
  shape: readonly number[],
  target: ArrayLike<number>,
  weight: ArrayLike<number> | null,
  reduction: string,
  ignore: number | null,
  out: { [i: number]: number },
): void {
  const [N, C] = [shape[0]!, shape[1]!];
  const inner = shape.slice(2).reduce((p, d) => p * d, 1);
  let sum = 0;
  let den = 0;
  for (let n = 0; n < N; n++) {
    for (let i = 0; i < inner; i++) {
      const k = n * inner + i;
      const t = target[k]!;
      let v = 0;
      if (ignore === null || t !== ignore) {
        if (!(t >= 0 && t < C))
          throw new OpError(op, `class index ${t} at position ${k} is outside [0, ${C})`, 'target');
        const w = weight ? weight[t]! : 1;
        v = -lp[(n * C + t) * inner + i]! * w;
        den += w;
      }
      if (reduction === 'none') out[k] = v;
      else sum += v;
    }
  }
  if (reduction === 'sum') out[0] = sum;
  else if (reduction === 'mean') out[0] = sum / den;
}

export function nllLossOut(
  op: string,
  lp: ArrayLike<number>,
  x: Tensor,
  target: Tensor,
  weight: Tensor | null,
  reduction: string,
  ignore: number | null,
  out: TensorType,
): Tensor {
  const y = allocOut(out);
  nllInto(op, lp, x.shape, target.dataSync(), weight ? weight.dataSync() : null, reduction, ignore, y.dataSync());
  return finish(y);
}

export const negativeLogLikelihoodLossCpu: NegativeLogLikelihoodLossKernel = (
  { x, target, weight },
  { reduction, ignore_index },
  out,
) => nllLossOut('negative_log_likelihood_loss', x.dataSync(), x, target, weight, reduction, ignore_index, out);
