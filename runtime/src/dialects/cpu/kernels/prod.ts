// CPU kernel of raf.op.prod (specs/reduce/prod.yaml): multiplies in float64; a fixed-width integer result (int32,
// uint32, int16, ...) multiplies with Math.imul instead, whose low 32 bits are exact however large the product grows
// (a float64 running product beyond 2^53 would lose the low bits the store's wrapping keeps).
// raf-op-ignores: keepdims (the output type already has the kept size-1 axes; the flat layout is the same)

import type { ProdKernel } from '../../../generated/bridge/prod.ts';
import { isInteger, isWide } from '../../../dtype.ts';
import { foldReduce } from '../reduce.ts';

const times = (a: number, v: number) => a * v;

export const prodCpu: ProdKernel = ({ x }, { axis }, out) =>
  foldReduce(x, axis, out, 1, isInteger(out.dtype) && !isWide(out.dtype) ? Math.imul : times);
