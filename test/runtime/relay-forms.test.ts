// Relay ops that raf-op imports as compositions of its own ops (runtime/src/relay-forms.ts), each in a small program
// as TVM prints it, against the independent float64 interpreter (test/support/relay-reference.ts), which defines each
// op directly from TVM's semantics. Random inputs as the corpus test draws them (floats in [-1, 1), ints in [0, 10)).

import { describe, expect, it } from 'vitest';
import { fromRelay } from '../../runtime/src/graph/frontends/from-relay.ts';
import { checkSource } from '../support/relay-corpus.ts';

const V = '#[version = "0.0.5"]\n';
const f32 = (shape: string) => `Tensor[(${shape}), float32]`;
const i32 = (shape: string) => `Tensor[(${shape}), int32]`;
const i8 = (shape: string) => `Tensor[(${shape}), int8]`;
const u8 = (shape: string) => `Tensor[(${shape}), uint8]`;

const PROGRAMS: readonly (readonly [string, string])[] = [
  ['nn.batch_flatten', `def @main(%x: ${f32('2, 3, 4')}) { nn.batch_flatten(%x) }`],
  ['nn.dropout (inference)', `def @main(%x: ${f32('2, 5')}) { %0 = nn.dropout(%x, rate=0.5f); %0.0 }`],
  ['nn.prelu', `def @main(%x: ${f32('2, 3, 4')}, %a: ${f32('3')}) { nn.prelu(%x, %a, axis=1) }`],
  ['nn.prelu on the last axis', `def @main(%x: ${f32('2, 3, 4')}, %a: ${f32('4')}) { nn.prelu(%x, %a, axis=-1) }`],
  [
    'zeros, ones and full',
    `def @main(%x: ${f32('2, 3')}) { %0 = add(%x, ones(shape=[2, 3], dtype="float32")); %1 = add(%0, zeros(shape=[3], dtype="float32")); multiply(%1, full(2.5f, shape=[2, 3], dtype="float32")) }`,
  ],
  ['full_like', `def @main(%x: ${f32('2, 3')}) { add(%x, full_like(%x, 1.5f)) }`],
  ['broadcast_to', `def @main(%x: ${f32('3, 1')}) { broadcast_to(%x, shape=[2, 3, 4]) }`],
  ['stack', `def @main(%x: ${f32('2, 3')}, %y: ${f32('2, 3')}) { stack((%x, %y), axis=1) }`],
  ['not_equal', `def @main(%x: ${i32('6')}, %y: ${i32('6')}) { not_equal(%x, %y) }`],
  ['floor_divide of ints across zero', `def @main(%x: ${i32('8')}) { floor_divide(subtract(%x, 5), 3) }`],
  ['floor_divide of floats', `def @main(%x: ${f32('8')}, %y: ${f32('8')}) { floor_divide(%x, add(%y, 2f)) }`],
  ['mod (the sign of the dividend)', `def @main(%x: ${i32('8')}) { mod(subtract(%x, 5), 3) }`],
  [
    'log2, log10 and trunc',
    `def @main(%x: ${f32('6')}) { %0 = add(%x, 2f); %1 = add(log2(%0), log10(%0)); add(%1, trunc(multiply(%x, 3f))) }`,
  ],
  ['isfinite', `def @main(%x: ${f32('6')}) { isfinite(divide(%x, subtract(%x, %x))) }`],
  ['arange', `def @main(%x: ${f32('5')}) { add(%x, arange(1f, 3.5f, 0.5f, dtype="float32")) }`],
  ['shape_of', `def @main(%x: ${f32('2, 3, 4')}) { shape_of(%x, dtype="int32") }`],
  [
    'cast_like and reshape_like',
    `def @main(%x: ${f32('2, 6')}, %y: ${i32('3, 4')}) { cast_like(reshape_like(multiply(%x, 10f), %y), %y) }`,
  ],
  ['reverse', `def @main(%x: ${f32('2, 3, 4')}) { reverse(%x, axis=1) }`],
  ['repeat', `def @main(%x: ${f32('2, 3')}) { repeat(%x, repeats=2, axis=-1) }`],
  [
    'variance (unbiased)',
    `def @main(%x: ${f32('2, 5')}) { %0 = mean(%x, axis=[1], keepdims=True); variance(%x, %0, axis=[1], keepdims=True, unbiased=True) }`,
  ],
  ['nn.l2_normalize', `def @main(%x: ${f32('2, 3, 4')}) { nn.l2_normalize(%x, eps=1e-10f, axis=[1]) }`],
  [
    'nn.instance_norm',
    `def @main(%x: ${f32('2, 3, 4, 4')}, %g: ${f32('3')}, %b: ${f32('3')}) { nn.instance_norm(%x, %g, %b, epsilon=1e-05f) }`,
  ],
  [
    'nn.group_norm',
    `def @main(%x: ${f32('2, 4, 3, 3')}, %g: ${f32('4')}, %b: ${f32('4')}) { nn.group_norm(%x, %g, %b, num_groups=2, epsilon=1e-05f) }`,
  ],
  [
    'nn.adaptive_avg_pool2d (uneven windows)',
    `def @main(%x: ${f32('1, 2, 7, 5')}) { nn.adaptive_avg_pool2d(%x, output_size=[3, 2]) }`,
  ],
  [
    'nn.adaptive_avg_pool2d NHWC to 1×1',
    `def @main(%x: ${f32('2, 4, 4, 3')}) { nn.adaptive_avg_pool2d(%x, output_size=[1, 1], layout="NHWC") }`,
  ],
  [
    'nn.adaptive_max_pool2d (uneven windows)',
    `def @main(%x: ${f32('1, 2, 7, 5')}) { nn.adaptive_max_pool2d(%x, output_size=[3, 2]) }`,
  ],
  [
    'nn.adaptive_max_pool2d NHWC to 2×2',
    `def @main(%x: ${f32('2, 5, 4, 3')}) { nn.adaptive_max_pool2d(%x, output_size=[2], layout="NHWC") }`,
  ],
  [
    'nn.max_pool3d (strides, padding on both sides, ceil_mode)',
    `def @main(%x: ${f32('1, 2, 5, 6, 5')}) { nn.max_pool3d(%x, pool_size=[2, 3, 2], strides=[2, 2, 2], padding=[0, 1, 0], ceil_mode=True) }`,
  ],
  [
    'nn.avg_pool3d NDHWC, six paddings, count_include_pad',
    `def @main(%x: ${f32('1, 4, 5, 3, 2')}) { nn.avg_pool3d(%x, pool_size=[2, 2, 2], strides=[1, 2, 1], padding=[1, 0, 1, 0, 1, 1], layout="NDHWC", count_include_pad=True) }`,
  ],
  [
    'nn.avg_pool3d without count_include_pad',
    `def @main(%x: ${f32('2, 1, 4, 4, 4')}) { nn.avg_pool3d(%x, pool_size=[3, 3, 3], strides=[2, 2, 2], padding=[1, 1, 1]) }`,
  ],
  [
    'scatter_elements (update, on axis 1; repeated indices keep the last)',
    `def @main(%x: ${f32('3, 5')}, %i: ${i32('3, 4')}, %u: ${f32('3, 4')}) { scatter_elements(%x, mod(%i, 5), %u, axis=1) }`,
  ],
  [
    'scatter_elements (add, on axis 0)',
    `def @main(%x: ${f32('4, 3')}, %i: ${i32('5, 3')}, %u: ${f32('5, 3')}) { scatter_elements(%x, mod(%i, 4), %u, axis=0, reduction="add") }`,
  ],
  [
    'nn.nll_loss (mean over weights, an ignored class)',
    `def @main(%p: ${f32('6, 10')}, %t: ${i32('6')}, %w: ${f32('10')}) { nn.nll_loss(%p, %t, add(abs(%w), 1f), reduction="mean", ignore_index=3) }`,
  ],
  [
    'nn.nll_loss (none)',
    `def @main(%p: ${f32('6, 10')}, %t: ${i32('6')}, %w: ${f32('10')}) { nn.nll_loss(%p, %t, %w, reduction="none", ignore_index=-100) }`,
  ],
  [
    'slice_like (every axis, and given axes)',
    `def @main(%x: ${f32('4, 5, 6')}, %y: ${f32('2, 3')}, %z: ${f32('1, 1, 4')}) { (slice_like(%x, %y), slice_like(%x, %z, axes=[2])) }`,
  ],
  [
    'nn.adaptive_avg_pool1d and nn.adaptive_max_pool1d',
    `def @main(%x: ${f32('2, 3, 7')}) { (nn.adaptive_avg_pool1d(%x, output_size=[3]), nn.adaptive_max_pool1d(%x, output_size=[4])) }`,
  ],
  [
    'nn.adaptive_max_pool1d NWC',
    `def @main(%x: ${f32('2, 5, 3')}) { nn.adaptive_max_pool1d(%x, output_size=[2], layout="NWC") }`,
  ],
  [
    'meshgrid ij and xy',
    `def @main(%a: ${f32('3')}, %b: ${f32('4')}, %c: ${f32('2')}) { %0 = meshgrid((%a, %b, %c), indexing="ij"); %1 = meshgrid((%a, %b), indexing="xy"); (%0.0, %0.1, %0.2, %1.0, %1.1) }`,
  ],
  [
    'unravel_index',
    `def @main(%i: ${i32('5')}, %z: ${f32('3, 4, 5')}) { unravel_index(mod(multiply(%i, 7), 60), shape_of(%z, dtype="int32")) }`,
  ],
  [
    'nn.space_to_batch_nd with paddings, then nn.batch_to_space_nd with crops',
    `def @main(%x: ${f32('2, 3, 5, 2')}) { %0 = nn.space_to_batch_nd(%x, block_shape=[2, 3], paddings=[[1, 0], [0, 1]], pad_value=0.5f); (%0, nn.batch_to_space_nd(%0, block_shape=[2, 3], crops=[[1, 0], [0, 1]])) }`,
  ],
  [
    'nn.batch_to_space_nd of one spatial axis',
    `def @main(%x: ${f32('6, 2, 3')}) { nn.batch_to_space_nd(%x, block_shape=[3], crops=[[1, 2]]) }`,
  ],
  [
    'image.resize1d linear half_pixel and cubic align_corners',
    `def @main(%x: ${f32('1, 2, 6')}) { (image.resize1d(%x, size=[9], method="linear", coordinate_transformation_mode="half_pixel"), image.resize1d(%x, size=[4], method="cubic", coordinate_transformation_mode="align_corners", cubic_alpha=-0.75f)) }`,
  ],
  [
    'image.resize1d nearest NWC',
    `def @main(%x: ${f32('2, 5, 3')}) { image.resize1d(%x, size=[8], layout="NWC", method="nearest_neighbor", coordinate_transformation_mode="asymmetric", rounding_method="floor") }`,
  ],
  [
    'image.affine_grid, then image.grid_sample (bilinear, zeros) of it',
    `def @main(%x: ${f32('2, 3, 5, 6')}, %t: ${f32('2, 2, 3')}) { %0 = image.affine_grid(multiply(%t, 1.2f), target_shape=[4, 7]); (%0, image.grid_sample(%x, %0, method="bilinear", padding_mode="zeros", align_corners=True)) }`,
  ],
  [
    'image.grid_sample (bilinear, border, not align_corners)',
    `def @main(%x: ${f32('1, 2, 4, 5')}, %g: ${f32('1, 2, 3, 3')}) { image.grid_sample(%x, multiply(%g, 1.3f), method="bilinear", padding_mode="border", align_corners=False) }`,
  ],
  [
    'image.resize3d linear half_pixel, and nearest NDHWC',
    `def @main(%x: ${f32('1, 2, 3, 4, 5')}, %y: ${f32('1, 3, 2, 4, 2')}) { (image.resize3d(%x, size=[5, 3, 7], method="linear", coordinate_transformation_mode="half_pixel"), image.resize3d(%y, size=[6, 3, 8], layout="NDHWC", method="nearest_neighbor", coordinate_transformation_mode="asymmetric", rounding_method="round")) }`,
  ],
  [
    'nn.conv1d_transpose (stride, padding, output_padding, dilation)',
    `def @main(%x: ${f32('2, 3, 5')}, %w: ${f32('3, 4, 3')}) { nn.conv1d_transpose(%x, %w, channels=4, kernel_size=[3], strides=[2], padding=[1, 0], output_padding=[1], dilation=[2]) }`,
  ],
  [
    'nn.conv1d_transpose OIW, groups 1',
    `def @main(%x: ${f32('1, 2, 6')}, %w: ${f32('5, 2, 2')}) { nn.conv1d_transpose(%x, %w, channels=5, kernel_size=[2], kernel_layout="OIW") }`,
  ],
  [
    'nn.adaptive_avg_pool3d and nn.adaptive_max_pool3d (uneven windows, NDHWC)',
    `def @main(%x: ${f32('1, 2, 5, 4, 7')}, %y: ${f32('2, 3, 4, 5, 2')}) { (nn.adaptive_avg_pool3d(%x, output_size=[2, 3, 3]), nn.adaptive_max_pool3d(%y, output_size=[2], layout="NDHWC")) }`,
  ],
  [
    'invert_permutation (of an argsort)',
    `def @main(%x: ${f32('7')}) { invert_permutation(argsort(%x, axis=0, is_ascend=True, dtype="int32")) }`,
  ],
  [
    'reverse_sequence (batch 0, sequence 1; and batch 2, sequence 0)',
    `def @main(%x: ${f32('3, 5, 2')}, %l: ${i32('3')}, %y: ${f32('4, 2, 3')}, %m: ${i32('3')}) { (reverse_sequence(%x, add(mod(%l, 5), 1), seq_axis=1, batch_axis=0), reverse_sequence(%y, mod(%m, 5), seq_axis=0, batch_axis=2)) }`,
  ],
  [
    'nn.dilate (two axes, a fill value)',
    `def @main(%x: ${f32('2, 3, 4')}) { nn.dilate(%x, strides=[1, 3, 2], dilation_value=0.5f) }`,
  ],
  [
    'matrix_set_diag (wide and tall batches of matrices)',
    `def @main(%x: ${f32('2, 3, 5')}, %d: ${f32('2, 3')}, %y: ${f32('4, 2')}, %e: ${f32('2')}) { (matrix_set_diag(%x, %d, k1=0, k2=0, super_diag_right_align=False, sub_diag_right_align=True), matrix_set_diag(%y, %e)) }`,
  ],
  [
    'nn.upsampling3d trilinear and nearest',
    `def @main(%x: ${f32('1, 2, 2, 3, 2')}) { (nn.upsampling3d(%x, scale_d=2f, scale_h=1.5f, scale_w=2f, method="trilinear", coordinate_transformation_mode="half_pixel"), nn.upsampling3d(%x, scale_d=2f, scale_h=2f, scale_w=3f, method="nearest_neighbor", coordinate_transformation_mode="asymmetric")) }`,
  ],
  ['reinterpret float32 as int32', `def @main(%x: ${f32('2, 3')}) { reinterpret(%x, dtype="int32") }`],
  [
    'reinterpret int32 as float32',
    `def @main(%x: ${i32('6')}) { reinterpret(multiply(%x, 1000000), dtype="float32") }`,
  ],
  ['nn.depth_to_space DCR', `def @main(%x: ${f32('1, 8, 2, 3')}) { nn.depth_to_space(%x, block_size=2) }`],
  ['nn.depth_to_space CRD', `def @main(%x: ${f32('1, 8, 2, 3')}) { nn.depth_to_space(%x, block_size=2, mode="CRD") }`],
  ['nn.space_to_depth', `def @main(%x: ${f32('1, 2, 4, 6')}) { nn.space_to_depth(%x, block_size=2) }`],
  [
    'topk (both, descending)',
    `def @main(%x: ${f32('3, 6')}) { %0 = topk(%x, k=3, axis=-1, ret_type="both", is_ascend=False, dtype="int32"); (%0.0, %0.1) }`,
  ],
  [
    'topk (indices, ascending, axis 0)',
    `def @main(%x: ${f32('5, 2')}) { topk(%x, k=2, axis=0, ret_type="indices", is_ascend=True, dtype="int32") }`,
  ],
  ['one_hot', `def @main(%i: ${i32('2, 3')}) { one_hot(%i, 1f, 0f, depth=10, axis=-1, dtype="float32") }`],
  ['one_hot on axis 0', `def @main(%i: ${i32('4')}) { one_hot(%i, 3f, -1f, depth=10, axis=0, dtype="float32") }`],
  [
    'image.resize2d linear half_pixel',
    `def @main(%x: ${f32('1, 2, 4, 5')}) { image.resize2d(%x, size=[7, 3], roi=[0f, 0f, 0f, 0f], method="linear", coordinate_transformation_mode="half_pixel", rounding_method="", cubic_alpha=-0.5f, cubic_exclude=0, extrapolation_value=0f) }`,
  ],
  [
    'image.resize2d nearest asymmetric (floor)',
    `def @main(%x: ${f32('1, 2, 3, 5')}) { image.resize2d(%x, size=[7, 4], method="nearest_neighbor", coordinate_transformation_mode="asymmetric") }`,
  ],
  [
    'image.resize2d nearest align_corners (round)',
    `def @main(%x: ${f32('1, 1, 4, 4')}) { image.resize2d(%x, size=[7, 6], method="nearest_neighbor", coordinate_transformation_mode="align_corners") }`,
  ],
  [
    'image.resize2d cubic, NHWC, exclude outside',
    `def @main(%x: ${f32('1, 4, 5, 2')}) { image.resize2d(%x, size=[6, 9], layout="NHWC", method="cubic", coordinate_transformation_mode="half_pixel", cubic_alpha=-0.5f, cubic_exclude=1) }`,
  ],
  [
    'image.resize2d linear pytorch_half_pixel down',
    `def @main(%x: ${f32('1, 2, 6, 6')}) { image.resize2d(%x, size=[4, 1], method="linear", coordinate_transformation_mode="pytorch_half_pixel") }`,
  ],
  [
    'nn.upsampling nearest ×2',
    `def @main(%x: ${f32('1, 2, 3, 4')}) { nn.upsampling(%x, scale_h=2f, scale_w=2f, method="nearest_neighbor") }`,
  ],
  [
    'nn.upsampling bilinear align_corners',
    `def @main(%x: ${f32('1, 2, 3, 4')}) { nn.upsampling(%x, scale_h=2f, scale_w=1.5f, method="bilinear", align_corners=True) }`,
  ],
  [
    'fast_exp, fast_tanh and nn.fast_softmax',
    `def @main(%x: ${f32('2, 5')}) { %0 = add(fast_exp(%x), fast_tanh(%x)); nn.fast_softmax(%0, axis=-1) }`,
  ],
  [
    'nn.conv1d',
    `def @main(%x: ${f32('2, 3, 9')}, %w: ${f32('4, 3, 3')}) { nn.conv1d(%x, %w, strides=[2], padding=[1, 2], dilation=[1], channels=4, kernel_size=[3]) }`,
  ],
  [
    'nn.max_pool1d and nn.avg_pool1d',
    `def @main(%x: ${f32('2, 3, 9')}) { %0 = nn.max_pool1d(%x, pool_size=[3], strides=[2], padding=[1, 1]); %1 = nn.avg_pool1d(%x, pool_size=[3], strides=[2], padding=[1, 1], count_include_pad=True); add(%0, %1) }`,
  ],
  [
    'annotation markers pass values through',
    `def @main(%x: ${f32('2, 3')}) { %0 = annotation.compiler_begin(%x, compiler="dnnl"); %1 = nn.relu(%0); %2 = annotation.checkpoint(%1); annotation.compiler_end(%2, compiler="dnnl") }`,
  ],
  [
    'isinf, all and any',
    `def @main(%x: ${f32('3, 4')}) { %0 = isinf(divide(%x, subtract(%x, %x))); %1 = all(greater(%x, -2f), axis=[1]); %2 = any(%0, axis=[0], keepdims=True, exclude=True); (%1, %2) }`,
  ],
  [
    'collapse_sum_to and broadcast_to_like',
    `def @main(%x: ${f32('2, 3, 4')}, %y: ${f32('3, 1')}) { %0 = collapse_sum_to(%x, shape=[3, 1]); broadcast_to_like(%0, %x) }`,
  ],
  ['ndarray_size', `def @main(%x: ${f32('2, 3, 4')}) { ndarray_size(%x, dtype="int32") }`],
  [
    'sort and argsort',
    `def @main(%x: ${f32('3, 5')}) { (sort(%x, axis=1, is_ascend=True), argsort(%x, axis=0, is_ascend=False, dtype="int32")) }`,
  ],
  ['nn.lrn', `def @main(%x: ${f32('1, 7, 2, 2')}) { nn.lrn(%x, size=5, axis=1, bias=2f, alpha=0.0001f, beta=0.75f) }`],
  ['trilu', `def @main(%x: ${f32('2, 4, 5')}) { (trilu(%x, 1, upper=True), trilu(%x, -1, upper=False)) }`],
  [
    'sequence_mask',
    `def @main(%x: ${f32('5, 3, 2')}, %n: ${i32('3')}) { sequence_mask(%x, %n, mask_value=-1f, axis=0) }`,
  ],
  [
    'nn.cross_entropy (and with logits)',
    `def @main(%x: ${f32('3, 4')}, %y: ${f32('3, 4')}) { %0 = add(%x, 2f); (nn.cross_entropy(%0, %y), nn.cross_entropy_with_logits(%x, %y)) }`,
  ],
  [
    'dyn.reshape and dyn.broadcast_to with constant shapes',
    `def @main(%x: ${f32('2, 6')}, %y: ${f32('3, 4')}, %z: ${f32('2, 3, 4')}) { %0 = dyn.reshape(%x, shape_of(%y)); dyn.broadcast_to(%0, shape_of(%z)) }`,
  ],
  [
    'dyn.zeros, dyn.ones, dyn.topk and dyn.one_hot',
    `def @main(%x: ${f32('3, 5')}, %i: ${i32('4')}) { %0 = add(%x, dyn.ones(shape_of(%x), dtype="float32")); %1 = add(%0, dyn.zeros(shape_of(%x), dtype="float32")); (dyn.topk(%1, 2, axis=1, ret_type="values", is_ascend=False, dtype="int32"), dyn.one_hot(%i, 1f, 0f, 10, axis=-1, dtype="float32")) }`,
  ],
  [
    'nn.mirror_pad REFLECT and SYMMETRIC',
    `def @main(%x: ${f32('2, 3, 4')}) { (nn.mirror_pad(%x, pad_width=[[0, 0], [2, 1], [1, 3]], mode="REFLECT"), nn.mirror_pad(%x, pad_width=[[1, 1], [3, 0], [0, 4]], mode="SYMMETRIC")) }`,
  ],
  ['gather_nd', `def @main(%x: ${f32('10, 10, 5')}, %i: ${i32('2, 3, 2')}) { gather_nd(%x, %i) }`],
  [
    'nn.conv2d_transpose',
    `def @main(%x: ${f32('1, 2, 3, 3')}, %w: ${f32('2, 3, 3, 3')}) { nn.conv2d_transpose(%x, %w, channels=3, kernel_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1], output_padding=[1, 1]) }`,
  ],
  [
    'nn.conv2d_transpose grouped',
    `def @main(%x: ${f32('1, 4, 3, 3')}, %w: ${f32('4, 1, 2, 2')}) { nn.conv2d_transpose(%x, %w, channels=2, kernel_size=[2, 2], groups=2) }`,
  ],
  ['nn.fifo_buffer', `def @main(%x: ${f32('2, 3, 4')}, %b: ${f32('2, 5, 4')}) { nn.fifo_buffer(%x, %b, axis=1) }`],
  [
    'searchsorted (left and right, 1-D and batched sequences)',
    `def @main(%s: ${f32('2, 6')}, %v: ${f32('2, 5')}, %i: ${i32('7')}, %w: ${i32('3, 4')}) { %0 = sort(%s, axis=1, is_ascend=True); %1 = sort(%i, axis=0, is_ascend=True); (searchsorted(%0, %v, right=False, dtype="int32"), searchsorted(%1, %w, right=True, dtype="int64")) }`,
  ],
  [
    'adv_index (two broadcast index tensors)',
    `def @main(%x: ${f32('5, 4, 3')}, %i: ${i32('2, 1')}, %j: ${i32('3')}) { adv_index((%x, mod(%i, 5), mod(%j, 4))) }`,
  ],
  [
    'scatter_nd (update and add)',
    `def @main(%x: ${f32('4, 5, 2')}, %i: ${i32('2, 3')}, %u: ${f32('3, 2')}, %k: ${i32('1, 6')}, %v: ${f32('6, 5, 2')}) { %0 = stack((mod(%i, 4), mod(%i, 5)), axis=0); %1 = take(%0, 0, axis=1); %2 = scatter_nd(%x, %1, %u, mode="update"); scatter_nd(%2, mod(%k, 4), %v, mode="add") }`,
  ],
  [
    'sparse_to_dense (tuples and a 1-D output)',
    `def @main(%i: ${i32('3, 2')}, %v: ${f32('3')}, %k: ${i32('4')}, %w: ${i32('4')}) { %0 = sparse_to_dense(mod(%i, stack((3, 4), axis=0)), %v, 0.5f, output_shape=[3, 4]); %1 = sparse_to_dense(mod(%k, 6), %w, 7, output_shape=[6]); (%0, %1) }`,
  ],
  [
    'strided_set',
    `def @main(%x: ${f32('5, 6')}, %v: ${f32('2, 2')}) { strided_set(%x, %v, stack((1, 0), axis=0), stack((5, 6), axis=0), stack((2, 3), axis=0)) }`,
  ],
  [
    'sliding_window',
    `def @main(%x: ${f32('2, 3, 7, 6')}) { sliding_window(%x, axis=1, window_shape=[2, 3, 2], strides=[1, 2, 3]) }`,
  ],
  [
    'nn.contrib_dense_pack (NC4n)',
    `def @main(%x: ${f32('3, 5')}, %w: ${f32('2, 5, 4')}) { nn.contrib_dense_pack(%x, %w, units=8, weight_layout="NC4n") }`,
  ],
  [
    'nn.conv2d_backward_weight (strided, padded, grouped)',
    `def @main(%dy: ${f32('2, 4, 3, 3')}, %x: ${f32('2, 2, 6, 6')}) { nn.conv2d_backward_weight(%dy, %x, strides=[2, 2], padding=[1, 1, 1, 1], groups=2, channels=4, kernel_size=[3, 3]) }`,
  ],
  [
    'nn.avg_pool2d_grad and nn.max_pool2d_grad',
    `def @main(%dy: ${f32('1, 2, 3, 3')}, %x: ${f32('1, 2, 6, 6')}) { (nn.avg_pool2d_grad(%dy, %x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1], count_include_pad=False), nn.max_pool2d_grad(%dy, %x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1])) }`,
  ],
  [
    'nn.conv3d (strided, padded, grouped; NDHWC with DHWIO)',
    `def @main(%x: ${f32('1, 4, 5, 6, 5')}, %w: ${f32('4, 2, 3, 2, 3')}, %y: ${f32('1, 4, 5, 4, 2')}, %v: ${f32('2, 3, 2, 2, 3')}) { (nn.conv3d(%x, %w, strides=[2, 1, 2], padding=[1, 0, 1], groups=2, channels=4, kernel_size=[3, 2, 3]), nn.conv3d(%y, %v, padding=[1, 1, 0, 0, 1, 1], kernel_size=[2, 3, 2], data_layout="NDHWC", kernel_layout="DHWIO")) }`,
  ],
  [
    'vision.multibox_prior (sizes, ratios, steps; clipped)',
    `def @main(%x: ${f32('1, 3, 4, 5')}) { (vision.multibox_prior(%x, sizes=[0.3f, 0.5f], ratios=[1f, 2f, 0.5f], steps=[-1f, -1f], offsets=[0.5f, 0.5f]), vision.multibox_prior(%x, sizes=[0.8f], ratios=[1f, 3f], steps=[0.2f, 0.25f], offsets=[0.5f, 0.5f], clip=True)) }`,
  ],
  [
    'relay.op.annotation.simulated_quantize',
    `def @main(%x: ${f32('4, 5')}) { relay.op.annotation.simulated_quantize(multiply(%x, 3f), 0.125f, -8f, 7f, kind=1, sign=True, rounding="round") }`,
  ],
  [
    'nn.contrib_conv2d_NCHWc and nn.contrib_depthwise_conv2d_NCHWc',
    `def @main(%x: ${f32('1, 2, 5, 5, 2')}, %w: ${f32('2, 2, 3, 3, 2, 3')}, %d: ${f32('1, 1, 5, 5, 4')}, %v: ${f32('1, 1, 3, 3, 1, 4')}) { (nn.contrib_conv2d_NCHWc(%x, %w, padding=[1, 1, 1, 1], channels=6, kernel_size=[3, 3], data_layout="NCHW2c", kernel_layout="OIHW2i3o", out_layout="NCHW3c"), nn.contrib_depthwise_conv2d_NCHWc(%d, %v, strides=[2, 2], padding=[1, 1, 1, 1], groups=4, channels=4, kernel_size=[3, 3], data_layout="NCHW4c", kernel_layout="OIHW1i4o", out_layout="NCHW4c")) }`,
  ],
  ['vision.yolo_reorg', `def @main(%x: ${f32('1, 8, 4, 6')}) { vision.yolo_reorg(%x, stride=2) }`],
  [
    'vision.roi_align (avg; adaptive and fixed sampling)',
    `def @main(%x: ${f32('2, 3, 8, 9')}, %r: ${f32('4, 4')}, %b: ${i32('4, 1')}) { %0 = multiply(add(%r, 1f), 4f); %1 = concatenate((cast(mod(%b, 2), dtype="float32"), %0), axis=1); (vision.roi_align(%x, %1, pooled_size=[2, 3], spatial_scale=0.5f, sample_ratio=-1), vision.roi_align(%x, %1, pooled_size=[3, 2], spatial_scale=1f, sample_ratio=2)) }`,
  ],
  [
    'round (ties away from zero, as llvm.round), and resize nearest with round on ties',
    `def @main(%x: ${f32('12')}, %y: ${f32('1, 1, 3, 3')}) { (round(divide(floor(multiply(%x, 8f)), 2f)), image.resize2d(%y, size=[5, 5], roi=[0f, 0f, 0f, 0f], method="nearest_neighbor", coordinate_transformation_mode="align_corners", rounding_method="round")) }`,
  ],
  [
    'qnn.quantize (per tensor, and per axis into uint8) and qnn.dequantize',
    `def @main(%x: ${f32('3, 4')}, %q: ${i8('3, 4')}) { %0 = qnn.quantize(%x, 0.0078125f, 3, out_dtype="int8"); %1 = qnn.quantize(multiply(%x, 3f), stack((0.01f, 0.02f, 0.005f, 0.1f), axis=0), stack((128, 100, 0, 7), axis=0), axis=1, out_dtype="uint8"); %2 = qnn.dequantize(subtract(multiply(%q, 25i8), 100i8), 0.05f, -2); (%0, %1, %2) }`,
  ],
  [
    'qnn.requantize: UPWARD and TONEAREST (ties) in int64, float32 and float64 compute, per channel, int32 and uint8 outputs',
    `def @main(%a: ${i32('3, 4')}) { %0 = subtract(multiply(%a, 997), 4500); %1 = qnn.requantize(%0, 0.0123f, 0, 0.37f, -5, out_dtype="int8"); %2 = qnn.requantize(%0, 0.0123f, 3, 0.37f, 5, rounding="TONEAREST", out_dtype="int8"); %3 = qnn.requantize(%0, 0.0123f, 0, 0.37f, 10, compute_dtype="float32", out_dtype="uint8"); %4 = qnn.requantize(%0, stack((0.01f, 0.002f, 0.03f, 0.5f), axis=0), 0, 0.4f, 0, axis=1, out_dtype="int32"); %5 = qnn.requantize(%0, 2.5f, 0, 0.01f, 0, out_dtype="int32"); %6 = subtract(%a, 5); %7 = qnn.requantize(%6, 0.5f, 0, 1f, 0, out_dtype="int8"); %8 = qnn.requantize(%6, 0.5f, 0, 1f, 0, rounding="TONEAREST", out_dtype="int8"); %9 = qnn.requantize(%6, 0.5f, 0, 1f, 0, rounding="TONEAREST", compute_dtype="float64", out_dtype="int8"); (%1, %2, %3, %4, %5, %7, %8, %9) }`,
  ],
  [
    'qnn.add, qnn.subtract and qnn.mul (different scales, a skipped requantize, broadcasting)',
    `def @main(%x: ${i8('2, 5')}, %y: ${i8('5')}) { %0 = subtract(multiply(%x, 20i8), 90i8); %1 = subtract(multiply(%y, 13i8), 60i8); (qnn.add(%0, %1, 0.02f, 3, 0.035f, -4, 0.05f, 1), qnn.subtract(%0, %1, 0.05f, 1, 0.035f, -4, 0.05f, 1), qnn.mul(%0, %1, 0.02f, 3, 0.035f, -4, 0.04f, 2)) }`,
  ],
  [
    'qnn.concatenate (one input already at the output parameters)',
    `def @main(%x: ${u8('2, 3')}, %y: ${u8('2, 2')}) { %0 = multiply(%x, 25u8); %1 = multiply(%y, 27u8); qnn.concatenate((%0, %1), (0.1f, 0.07f), (10, 128), 0.1f, 10, axis=1) }`,
  ],
  [
    'qnn.dense (per-channel kernel zero points), qnn.batch_matmul and qnn.conv2d (padded, NCHW and NHWC)',
    `def @main(%x: ${u8('3, 6')}, %w: ${i8('4, 6')}, %a: ${i8('2, 3, 5')}, %b: ${i8('2, 4, 5')}, %c: ${u8('1, 2, 5, 5')}, %k: ${i8('3, 2, 3, 3')}, %d: ${u8('1, 5, 5, 2')}, %h: ${i8('3, 3, 2, 3')}) { %0 = qnn.dense(multiply(%x, 25u8), subtract(multiply(%w, 20i8), 90i8), 128, stack((0, 3, -2, 1), axis=0), 0.1f, 0.2f, units=4, out_dtype="int32"); %1 = qnn.batch_matmul(subtract(%a, 4i8), subtract(%b, 5i8), 2, -1, 0.1f, 0.1f, out_dtype="int32"); %2 = qnn.conv2d(multiply(%c, 25u8), subtract(%k, 5i8), 100, 1, 0.1f, 0.2f, padding=[1, 1, 1, 1], channels=3, kernel_size=[3, 3], out_dtype="int32"); %3 = qnn.conv2d(multiply(%d, 25u8), subtract(%h, 5i8), 120, 0, 0.1f, 0.2f, padding=[1, 0, 1, 2], channels=3, kernel_size=[3, 3], data_layout="NHWC", kernel_layout="HWIO", out_dtype="int32"); (%0, %1, %2, %3) }`,
  ],
  [
    'qnn.simulated_quantize and qnn.simulated_dequantize (per channel)',
    `def @main(%x: ${f32('2, 3')}) { %0 = qnn.simulated_quantize(multiply(%x, 2f), 1, stack((0.01f, 0.02f, 0.05f), axis=0), stack((3, -2, 0), axis=0), axis=1); qnn.simulated_dequantize(%0, 1, stack((0.01f, 0.02f, 0.05f), axis=0), stack((3, -2, 0), axis=0), axis=1) }`,
  ],
  [
    'fixed_point_multiply and fixed_point_multiply_per_axis',
    `def @main(%a: ${i32('3, 4')}) { %0 = subtract(multiply(%a, 123457), 600000); (fixed_point_multiply(%0, multiplier=1518500250, shift=-3), fixed_point_multiply(%0, multiplier=1073741824, shift=2), fixed_point_multiply_per_axis(%0, stack((1518500250, 1073741824, 2000000000, 1234567890), axis=0), stack((0, 2, 1, 0), axis=0), stack((5, 0, 0, 12), axis=0), is_lshift_required=True, is_rshift_required=True, axes=[1])) }`,
  ],
  [
    'reshape with codes -2, -3 and -4, and contrib_reverse_reshape',
    `def @main(%x: ${f32('2, 3, 4, 5')}) { %0 = reshape(%x, newshape=[-3, -2]); %1 = reshape(%x, newshape=[0, -4, 3, -1, -3]); %2 = reshape(%x, newshape=[2, -1, 0]); (%0, %1, %2, contrib_reverse_reshape(%x, newshape=[-1, 0]), contrib_reverse_reshape(%x, newshape=[0, -1])) }`,
  ],
  [
    'qnn.leaky_relu, qnn.avg_pool2d (NCHW padded, NHWC) and qnn.conv2d_transpose',
    `def @main(%x: ${i8('1, 2, 5, 5')}, %y: ${u8('1, 4, 4, 3')}, %w: ${i8('2, 3, 3, 3')}) { %0 = subtract(multiply(%x, 25i8), 110i8); %1 = qnn.leaky_relu(%0, 0.05f, 3, 0.04f, -2, alpha=0.1f); %2 = qnn.avg_pool2d(%0, 0.05f, 3, 0.07f, 1, pool_size=[3, 3], strides=[2, 2], padding=[1, 1], layout="NCHW"); %3 = qnn.avg_pool2d(multiply(%y, 25u8), 0.1f, 128, 0.1f, 128, pool_size=[2, 2], strides=[1, 1], padding=[0, 0], layout="NHWC", count_include_pad=True); %4 = qnn.conv2d_transpose(%0, subtract(%w, 5i8), 3, 1, 0.05f, 0.2f, channels=3, kernel_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1], out_dtype="int32"); (%1, %2, %3, %4) }`,
  ],
  [
    'image.dilation2d (NCHW padded and dilated, NHWC strided)',
    `def @main(%x: ${f32('1, 2, 6, 7')}, %w: ${f32('2, 3, 2')}, %y: ${f32('1, 7, 6, 2')}, %v: ${f32('2, 3, 2')}) { (image.dilation2d(%x, %w, padding=[1, 0, 2, 1], dilations=[2, 1]), image.dilation2d(%y, %v, strides=[2, 2], data_layout="NHWC", kernel_layout="HWI")) }`,
  ],
  [
    'dft and its inverse, and stft (onesided, normalized)',
    `def @main(%re: ${f32('3, 8')}, %im: ${f32('3, 8')}, %s: ${f32('2, 40')}, %w: ${f32('16')}) { %0 = dft(%re, %im, inverse=False); %1 = dft(%re, %im, inverse=True); (%0.0, %0.1, %1.0, %1.1, stft(%s, %w, n_fft=16, hop_length=5, win_length=16, normalized=True, onesided=True)) }`,
  ],
  [
    'image.crop_and_resize (bilinear NCHW and nearest NHWC, boxes reaching outside the image)',
    `def @main(%x: ${f32('2, 3, 6, 7')}, %b: ${f32('4, 4')}, %i: ${i32('4')}, %y: ${f32('2, 5, 6, 2')}) { %0 = multiply(%b, 0.7f); %1 = add(%0, 0.35f); %2 = mod(%i, 2); (image.crop_and_resize(%x, %1, %2, crop_size=[4, 5], method="bilinear", extrapolation_value=-2f), image.crop_and_resize(%y, %1, %2, crop_size=[3, 3], layout="NHWC", method="nearest_neighbor")) }`,
  ],
  [
    'nn.conv3d_transpose (strided, padded, output_padding)',
    `def @main(%x: ${f32('1, 2, 3, 4, 3')}, %w: ${f32('2, 3, 3, 2, 3')}) { (nn.conv3d_transpose(%x, %w, channels=3, kernel_size=[3, 2, 3], strides=[2, 1, 2], padding=[1, 0, 1], output_padding=[1, 0, 0]), nn.conv3d_transpose(%x, %w, channels=3, kernel_size=[3, 2, 3])) }`,
  ],
  [
    'nn.sparse_dense (CSR, and BSR with sparse_lhs)',
    `def @main(%d: ${f32('3, 6')}, %v: ${f32('5')}, %b: ${f32('3, 2, 3')}, %e: ${f32('4, 6')}) { (nn.sparse_dense(%d, %v, stack((0, 5, 2, 1, 2), axis=0), stack((0, 2, 2, 5), axis=0)), nn.sparse_dense(%e, %b, stack((1, 0, 1), axis=0), stack((0, 1, 3), axis=0), sparse_lhs=True)) }`,
  ],
  [
    'nn.deformable_conv2d (two deformable groups, padded, offsets reaching outside the image)',
    `def @main(%x: ${f32('1, 4, 5, 6')}, %o: ${f32('1, 36, 5, 6')}, %w: ${f32('3, 4, 3, 3')}) { nn.deformable_conv2d(%x, multiply(%o, 1.7f), %w, padding=[1, 1], deformable_groups=2, channels=3, kernel_size=[3, 3]) }`,
  ],
];

describe('Relay ops imported as compositions (relay-forms.ts)', () => {
  it.each(PROGRAMS)('%s agrees with the float64 interpreter', (name, body) => {
    const o = checkSource(name, V + body);
    expect(o.error ?? 'agrees').toBe('agrees');
  });

  it('refuses an attr a form does not read, naming the op and the attr', () => {
    expect(() => fromRelay(`${V}def @main(%x: ${f32('2, 3')}) { nn.batch_flatten(%x, axis=1) }`)).toThrow(
      /nn\.batch_flatten: has no attr 'axis'/,
    );
    expect(() =>
      fromRelay(`${V}def @main(%x: ${f32('1, 4, 2, 2')}) { nn.depth_to_space(%x, block_size=2, layout="NCHW4c") }`),
    ).toThrow(/nn\.depth_to_space: layout 'NCHW4c' is not supported/);
    // A dyn.* shape computed from a graph input cannot become a static shape.
    expect(() => fromRelay(`${V}def @main(%x: ${f32('2, 3')}, %s: ${i32('2')}) { dyn.reshape(%x, %s) }`)).toThrow(
      /dyn\.reshape: newshape must be known when converting/,
    );
    // TVM's ceil_mode keeps a window that starts in the end padding, which raf-op's pools (as ONNX's) drop.
    expect(() =>
      fromRelay(
        `${V}def @main(%x: ${f32('1, 2, 5, 6, 5')}) { nn.max_pool3d(%x, pool_size=[2, 2, 2], strides=[2, 2, 2], padding=[1, 1, 1], ceil_mode=True) }`,
      ),
    ).toThrow(/nn\.max_pool3d: ceil_mode adds a window starting in the end padding of spatial axis 0/);
  });
});
