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
 * From the same bench (shared 2-core machine): lstm loses at T8 B1 I16 H16 (2.3k; ort 0.068 ms, wasm 0.041), wins at
 * T16 B1 I64 H64 (35k; 0.065 vs 0.076) and T32 B4 I128 H128 (0.63 vs 1.25); gru loses at T8 and T16 (27k; 0.173 vs
 * 0.141) and wins at T32 (132k; 0.71 vs 0.92); max_pool2d 3×3 stride 2 loses at 8×16² (2.6k) and wins from 16×32²
 * (20k; 0.050 vs 0.085) up to 64×56² (0.11 vs 1.39). Left pinned-only (wasm won in a first, noisier measurement, not
 * yet rerun with the bench): avg_pool2d, layer_norm, softmax. Calls below a threshold stay in wasm.
 */
const MIN_WORK: Readonly<Record<string, number>> = {
  matmul: 20_000,
  batch_matmul: 20_000,
  dense: 20_000,
  conv2d: 36_000,
  conv_transpose: 36_000,
  lstm: 20_000,
  gru: 100_000,
  max_pool2d: 20_000,
};

export function ortLevel(op: string): number {
  return op in MIN_WORK ? ORT_HEAVY_LEVEL : ORT_PINNED_LEVEL;
}

/** The work threshold of a heavy op, or undefined for an op the dialect serves only when pinned. */
export function ortMinWork(op: string): number | undefined {
  return MIN_WORK[op];
}
