// WebGPU kernel of raf.op.gather_elements_dx (specs/tensor/gather_elements_dx.yaml): dy summed per gathered position.

import type { GatherElementsDxKernel } from '../../../generated/bridge/gather_elements_dx.ts';
import { gatherElementsDx, gatherElementsDxBuilder } from '../elements.ts';
import type { WebGpuBuilder } from '../kernel.ts';
import { checkElementGrad } from '../../../ops/gather_elements.rule.ts';

export const gatherElementsDxWebgpu: WebGpuBuilder<GatherElementsDxKernel> = (_attrs, out, { indices, dy }) => {
  const gpu = gatherElementsDxBuilder(indices, dy, out);
  return (
    gpu &&
    (({ x, indices, dy }, { axis }, kout) => {
      checkElementGrad(x, indices, dy, axis);
      return gatherElementsDx(gpu, x, indices, dy, axis, kout);
    })
  );
};
