// Where the ort dialect is chosen: the heavy ops sit above wasm (level 15) and decline calls below a work threshold;
// every other op sits below cpu (level 10), so it runs in onnxruntime only under withDialect(['ort', ...]).

export const ORT_DIALECT = 'ort';

/** Above wasm: onnxruntime's kernels win on these once a call is large enough. */
export const ORT_HEAVY_LEVEL = 16;
/** Below cpu: reached only when pinned. */
export const ORT_PINNED_LEVEL = 5;

/**
 * Elements read and written (inputs + outputs) from which a heavy op's call goes to onnxruntime. Sessions run on as
 * many threads as raf-op's own kernels (one by default; kernel.ts `sessionOptions`), so the thresholds compare one
 * thread with one thread, by CPU time, interleaved in one process (ort vs wasm, both pinned; 2-core machine under
 * load, 2026-12-06): matmul loses at 96³ (28k elements; 3.7×), 128³ (49k; 1.3×) and 192³ (111k; 1.14×) and wins at
 * 256³ (197k; `npm run bench -- --filter "matmul 256³"`: 0.41 vs 1.07 ms); dense and batch_matmul take matmul's
 * threshold. conv2d 3×3 depends on the shape more than on the work: it loses at 16×32² (35k; 1.9×) and 24×74×32
 * (119k; 2.3×), ties or wins narrowly at 32×32² (75k; 0.95), 48×34×16 (73k; 0.78) and 64×56² (438k; 0.87), so only
 * the largest calls go (conv_transpose takes conv2d's threshold, not measured apart). With onnxruntime's default of a
 * thread per core these crossovers were 4–6× lower (matmul from 96², conv2d from 32×32²), which on a busy machine sent
 * calls to onnxruntime that then ran several times slower than wasm. lstm loses at T8 B1 I16 H16 (2.3k) and wins from
 * T16 B1 I64 H64 (35k); gru wins from T32 B4 I128 H128 (132k) (measured with two threads, not yet rerun). max_pool2d
 * with a 3×3 window, stride 2, pad 1 wins from 24×74×32 (0.064 vs 0.43 ms) to 64×56² (0.79×), while a 2×2 window of
 * stride 2, which the wasm kernel takes two columns at a time, loses 3.4× and 7× at those sizes: see ortDeclines.
 * The integer products of quantized models (matmul_integer, qlinear_matmul; conv_integer, qlinear_conv) take matmul's
 * and conv2d's thresholds, not measured apart; in graph mode they count towards a region's work with the rest
 * (ort-regions.ts). Left pinned-only: avg_pool2d, layer_norm, softmax. Calls below a threshold stay in wasm.
 */
const MIN_WORK: Readonly<Record<string, number>> = {
  matmul: 150_000,
  batch_matmul: 150_000,
  dense: 150_000,
  matmul_integer: 150_000,
  qlinear_matmul: 150_000,
  conv2d: 30_000,
  conv_integer: 30_000,
  qlinear_conv: 30_000,
  conv_transpose: 400_000,
  lstm: 20_000,
  gru: 100_000,
  max_pool2d: 20_000,
};

/**
 * Multiply-adds per output element from which a conv2d call may go to onnxruntime: (input channels / groups) × kh × kw,
 * read off the weight's shape [cout, cin/groups, kh, kw]. See MIN_WORK's comment for the measurements.
 */
export const CONV_MIN_DEPTH = 256;

/**
 * Calls of a heavy op that stay in wasm whatever their work, where its kernel has a fast path onnxruntime's lacks or
 * onnxruntime's per-call reorder to its blocked layout outweighs its faster arithmetic: max_pool2d with a window two
 * columns wide taken two at a time (kernel [*, 2], stride [*, 2]); conv2d whose output elements each take fewer than
 * CONV_MIN_DEPTH multiply-adds (depthwise, narrow groups, 3×3 over fewer than 29 channels, 1×1 over fewer than 256);
 * grouped conv_transpose. `shape` gives a tensor arg's shape (undefined where the call has none).
 */
export function ortDeclines(
  op: string,
  attrs: Readonly<Record<string, unknown>>,
  shape: (arg: string) => readonly number[] | undefined = () => undefined,
): boolean {
  if (op === 'conv2d') {
    const w = shape('w');
    return w !== undefined && w.length === 4 && w[1]! * w[2]! * w[3]! < CONV_MIN_DEPTH;
  }
  if (op === 'conv_transpose') return ((attrs.groups as number | undefined) ?? 1) !== 1;
  if (op !== 'max_pool2d') return false;
  const kernel = attrs.kernel as readonly number[] | undefined;
  const stride = (attrs.stride as readonly number[] | undefined) ?? [1, 1];
  return kernel?.[1] === 2 && stride[1] === 2;
}

export function ortLevel(op: string): number {
  return op in MIN_WORK ? ORT_HEAVY_LEVEL : ORT_PINNED_LEVEL;
}

/** The work threshold of a heavy op, or undefined for an op the dialect serves only when pinned. */
export function ortMinWork(op: string): number | undefined {
  return MIN_WORK[op];
}
