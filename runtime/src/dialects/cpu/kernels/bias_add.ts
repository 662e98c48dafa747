// CPU kernel of raf.op.bias_add (specs/nn/bias_add.yaml): b[c] is added to every element whose coordinate on axis is c.

import type { BiasAddKernel } from '../../../generated/bridge/bias_add.ts';
import { normalizeAxis, sizeOf } from '../../../shape.ts';
import { allocOut, finish } from '../support.ts';

export const biasAddCpu: BiasAddKernel = ({ x, b }, { axis }, out) => {
  const y = allocOut(out);
  const xs = x.dataSync();
  const bs = b.dataSync();
  const ys = y.dataSync();
  const a = normalizeAxis(axis, x.shape.length);
  const inner = sizeOf(x.shape.slice(a + 1));
  const c = x.shape[a]!;
  for (let i = 0; i < ys.length; i++) ys[i] = xs[i]! + bs[Math.floor(i / inner) % c]!;
  return finish(y);
};
