// Entry of the wasm dialect's module (AssemblyScript): hand-tuned kernels, the generated elementwise ones, and the heap base.

export {
  matmul_batch_f32,
  matmul_cols_f32,
  matmul_f32,
  matmul_f64,
  matmul_few_columns,
  matmul_scratch_bytes,
} from './matmul';
export { softmax_f32, softmax_f64 } from './softmax';
export { reduce_f32, reduce_f64 } from './reduce';
export {
  col2im_f32,
  conv2d_dw_f32,
  conv2d_f32,
  conv_few_f32,
  conv_few_part_f32,
  conv_frames_f32,
  conv_frames_part_f32,
  conv_thread,
  im2col_f32,
  im2col_f64,
  pad_planes_f32,
} from './conv';
export {
  wino3_in_f32,
  wino3_out_f32,
  wino33_in_f32,
  wino33_out_f32,
  wino43_out_f32,
  wino44_in_f32,
  wino44_out_f32,
} from './winograd';
export { layer_norm_f32, layer_norm_f64 } from './layer_norm';
export { bias_act_cols_f32, bias_act_planes_f32 } from './epilogue';
export { rows_thread } from './rows';
export { gather_f32, gather_f64 } from './gather';
export { avg_pool2d_f32, global_avg_f32, max_pool2d_f32 } from './pool';
export { gru_cell_f32, gru_reset_f32, lstm_cell_f32, rnn_pack_f32, rnn_step_f32 } from './rnn';
export { int8_gemm_i16, int8_quantize_u8_f32, int8_range_f32, int8_rows_i16 } from './int8';
export { adam_f32, adam_f64, lans_f32, lans_f64, sgd_f32, sgd_f64 } from './optim';
export * from '../../../generated/dialects/wasm/as/index';

/** First free byte after static data: the JavaScript side lays tensors out from here. */
export function heap_base(): usize {
  return __heap_base;
}

/** 1 in build/raf-relaxed.wasm (compiled with relaxed SIMD: fused multiply-add), 0 in build/raf.wasm. */
export function relaxed_simd(): i32 {
  return ASC_FEATURE_RELAXED_SIMD ? 1 : 0;
}
