// CPU kernel of raf.op.zeros_like (specs/tensor/zeros_like.yaml): a fresh output is already zeros.

import type { ZerosLikeKernel } from '../../../generated/bridge/zeros_like.ts';
import { allocOut } from '../support.ts';

export const zerosLikeCpu: ZerosLikeKernel = (_inputs, _attrs, out) => allocOut(out);
