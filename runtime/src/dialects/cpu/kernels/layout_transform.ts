// CPU kernel of raf.op.layout_transform (specs/tensor/layout_transform.yaml): the transpose kernel with the permutation
// the layouts give.

import type { LayoutTransformKernel } from '../../../generated/bridge/layout_transform.ts';
import { layoutPermutation } from '../../../ops/layout_transform.rule.ts';
import { transposeCpu } from './transpose.ts';

export const layoutTransformCpu: LayoutTransformKernel = ({ x }, { src_layout, dst_layout }, out) =>
  transposeCpu({ x }, { axes: layoutPermutation(src_layout, dst_layout, x.shape.length) }, out);
