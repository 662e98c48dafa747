// Where the ort dialect is chosen: the heavy ops sit above wasm (level 15) and decline calls below a work threshold;
// every other op sits below cpu (level 10), so it runs in onnxruntime only under withDialect(['ort', ...]).

export const ORT_DIALECT = 'ort';

/** Above wasm: onnxruntime's kernels win on these once a call is large enough. */
export const ORT_HEAVY_LEVEL = 16;
/** Below cpu: reached only when pinned. */
export const ORT_PINNED_LEVEL = 5;

/**
 * Elements read and written (inputs + outputs) from which a heavy op's call goes to onnxruntime, set from
 * `npm run bench -- --filter "ort "` (ort vs wasm, both pinned, same run; figures in docs/runtime.md): matmul ties at
 * 64² (3·64² = 12k elements) and wins from 96² (28k); conv2d 3×3 loses at 8×16² (4.7k), ties at 16×32² (35k) and wins
 * from 32×32² (75k). dense and batch_matmul take matmul's threshold, conv_transpose conv2d's (not measured apart).
 * Calls below stay in wasm. Other ops (pooling, RNNs, norms, softmax) were not measured: they are pinned-only.
 */
const MIN_WORK: Readonly<Record<string, number>> = {
  matmul: 20_000,
  batch_matmul: 20_000,
  dense: 20_000,
  conv2d: 36_000,
  conv_transpose: 36_000,
};

export function ortLevel(op: string): number {
  return op in MIN_WORK ? ORT_HEAVY_LEVEL : ORT_PINNED_LEVEL;
}

/** The work threshold of a heavy op, or undefined for an op the dialect serves only when pinned. */
export function ortMinWork(op: string): number | undefined {
  return MIN_WORK[op];
}
