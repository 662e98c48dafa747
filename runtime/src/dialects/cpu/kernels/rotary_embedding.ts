// CPU kernel of raf.op.rotary_embedding (specs/nn/rotary_embedding.yaml): each head's first rot features rotated
// pairwise (halves, or adjacent pairs when interleaved) by the caches' row for its position; the rest copied.

import type { RotaryEmbeddingKernel } from '../../../generated/bridge/rotary_embedding.ts';
import { OpError } from '../../../errors.ts';
import { rotaryLayout } from '../../../ops/rotary_embedding.rule.ts';
import { allocOut, finish } from '../support.ts';

export const rotaryEmbeddingCpu: RotaryEmbeddingKernel = (
  { x, cos_cache, sin_cache, position_ids },
  { interleaved, num_heads, rotary_dim },
  out,
) => {
  const y = allocOut(out);
  const xs = x.dataSync();
  const ys = y.dataSync();
  const cs = cos_cache.dataSync();
  const ss = sin_cache.dataSync();
  const ids = position_ids ? position_ids.dataSync() : null;
  const { batch, heads, seq, headSize, rot } = rotaryLayout(x.shape, num_heads, rotary_dim);
  const half = rot / 2;
  const rows = cos_cache.shape[0]!;
  // Element (b, h, s, d): 4-D x is (batch, heads, seq, head_size), 3-D x is (batch, seq, heads · head_size).
  const four = x.shape.length === 4;
  for (let b = 0; b < batch; b++) {
    for (let s = 0; s < seq; s++) {
      let row = b * seq + s;
      if (ids) {
        const p = ids[row]!;
        if (p < 0 || p >= rows)
          throw new OpError('rotary_embedding', `position ${p} is outside the caches' ${rows} rows`, 'position_ids');
        row = p;
      }
      const c0 = row * half;
      for (let h = 0; h < heads; h++) {
        const base = four ? ((b * heads + h) * seq + s) * headSize : (b * seq + s) * heads * headSize + h * headSize;
        for (let i = 0; i < half; i++) {
          const [i1, i2] = interleaved ? [base + 2 * i, base + 2 * i + 1] : [base + i, base + i + half];
          const [x1, x2, c, sn] = [xs[i1]!, xs[i2]!, cs[c0 + i]!, ss[c0 + i]!];
          ys[i1] = c * x1 - sn * x2;
          ys[i2] = sn * x1 + c * x2;
        }
        for (let d = rot; d < headSize; d++) ys[base + d] = xs[base + d]!;
      }
    }
  }
  return finish(y);
};
