// Classification losses over logits or log-probabilities x [N, C] with int32 class targets: nll_loss, cross_entropy and their backwards.

import type { Tensor, TensorType } from '../../tensor.ts';
import type { GpuContext } from './device.ts';
import { requireGpu } from './dialect.ts';
import { FLAT_INDEX, launch, MAIN_1D, Params, paramsWgsl, pipelineKey } from './kernel.ts';
import { checkClassTargets } from './bounds.ts';
import { guarded } from './indexed.ts';
import { allocGpu } from './storage.ts';

const WORDS = 3; // rows N, classes C, softmax (1 for cross_entropy, 0 for nll_loss)

// Targets are range-checked by bounds.ts (before dispatch, or with the result's readback); in the kernel an
// out-of-range class contributes nothing instead of reading another row.
const prelude = (binding: number) => `${paramsWgsl(binding, WORDS)}
fn class_of(n: u32) -> u32 {
  let t = tgt[n];
  return select(u32(t), 0xffffffffu, t < 0 || t >= i32(pu(1u)));
}
// log Σ exp over row n, shifted by the row maximum so no exp overflows.
fn row_lse(n: u32) -> f32 {
  let c = pu(1u);
  var m = x[n * c];
  for (var k = 1u; k < c; k++) { m = max(m, x[n * c + k]); }
  var s = 0.0;
  for (var k = 0u; k < c; k++) { s += exp(x[n * c + k] - m); }
  return m + log(s);
}`;

// One invocation per row writes that row's loss; the mean is then a single-invocation sum, so the row loop
// (the expensive part for cross_entropy) runs in parallel without atomics.
// The target buffer is named tgt in WGSL, where `target` is a reserved word.
const ROWS = `@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> tgt: array<i32>;
@group(0) @binding(2) var<storage, read_write> rows: array<f32>;
${prelude(3)}
${MAIN_1D} {
  ${FLAT_INDEX}
  if (i >= pu(0u)) { return; }
  let t = class_of(i);
  var loss = 0.0;
  if (pu(2u) != 0u) { loss = row_lse(i); }
  if (t != 0xffffffffu) { loss -= x[i * pu(1u) + t]; }
  rows[i] = loss;
}`;

const MEAN = `@group(0) @binding(0) var<storage, read> rows: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
${paramsWgsl(2, WORDS)}
${MAIN_1D} {
  ${FLAT_INDEX}
  if (i > 0u) { return; }
  var s = 0.0;
  for (var n = 0u; n < pu(0u); n++) { s += rows[n]; }
  out[0] = s / f32(pu(0u));
}`;

// d/dx of the mean loss: g = dy / N per row, times softmax(x) for cross_entropy, minus g at the target class.
// One invocation per row so its log-sum-exp is computed once, not once per element.
const DX = `@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> tgt: array<i32>;
@group(0) @binding(2) var<storage, read> dy: array<f32>;
@group(0) @binding(3) var<storage, read_write> dx: array<f32>;
${prelude(4)}
${MAIN_1D} {
  ${FLAT_INDEX}
  let n = pu(0u);
  if (i >= n) { return; }
  let c = pu(1u);
  let g = dy[0] / f32(n);
  let t = class_of(i);
  let softmax = pu(2u) != 0u;
  var lse = 0.0;
  if (softmax) { lse = row_lse(i); }
  for (var k = 0u; k < c; k++) {
    var v = 0.0;
    if (softmax) { v = exp(x[i * c + k] - lse) * g; }
    if (k == t) { v -= g; }
    dx[i * c + k] = v;
  }
}`;

export type LossKind = 'nll_loss' | 'cross_entropy';

const params = (x: Tensor, kind: LossKind) =>
  new Params()
    .u32(x.shape[0]!)
    .u32(x.shape[1]!)
    .u32(kind === 'cross_entropy' ? 1 : 0)
    .data(WORDS);

/** build() half: null unless x (and dy) are float32 and the targets int32 (or int64, held as i32). */
export function lossBuilder(
  kind: LossKind,
  out: TensorType,
  x: TensorType,
  target: TensorType,
  dy?: TensorType,
): GpuContext | null {
  const gpu = requireGpu();
  if (
    out.dtype !== 'float32' ||
    x.dtype !== 'float32' ||
    (target.dtype !== 'int32' && target.dtype !== 'int64') ||
    (dy && dy.dtype !== 'float32')
  )
    return null;
  if (dy) gpu.pipelines.getPipelineSync(pipelineKey('loss_dx', 'f32,i32'), () => DX);
  else {
    gpu.pipelines.getPipelineSync(pipelineKey('loss_rows', 'f32,i32'), () => ROWS);
    gpu.pipelines.getPipelineSync(pipelineKey('loss_mean', 'f32'), () => MEAN);
  }
  return gpu;
}

/** The mean loss, a scalar. */
export function loss(gpu: GpuContext, kind: LossKind, x: Tensor, target: Tensor, out: TensorType): Tensor {
  const rowsPipeline = gpu.pipelines.getPipelineSync(pipelineKey('loss_rows', 'f32,i32'), () => ROWS);
  const meanPipeline = gpu.pipelines.getPipelineSync(pipelineKey('loss_mean', 'f32'), () => MEAN);
  const result = allocGpu(gpu, out);
  guarded(result, () => checkClassTargets(kind, target, x.shape[1]!, result));
  const n = x.shape[0]!;
  const rows = allocGpu(gpu, { shape: [n], dtype: 'float32' });
  const uniforms = params(x, kind);
  launch(gpu, rowsPipeline, [x, target, rows], uniforms, n, kind);
  // A second launch because invocations of one launch cannot wait for each other's writes (no global barrier).
  launch(gpu, meanPipeline, [rows, result], uniforms, 1, `${kind} mean`);
  // Queue order: the mean launch above has been submitted, so the scratch buffer can go back to the pool now.
  rows.dispose();
  return result;
}

/** dx of the mean loss for seed dy (a scalar). */
export function lossDx(
  gpu: GpuContext,
  kind: LossKind,
  x: Tensor,
  target: Tensor,
  dy: Tensor,
  out: TensorType,
): Tensor {
  const pipeline = gpu.pipelines.getPipelineSync(pipelineKey('loss_dx', 'f32,i32'), () => DX);
  const result = allocGpu(gpu, out);
  guarded(result, () => checkClassTargets(`${kind}_dx`, target, x.shape[1]!, result));
  launch(gpu, pipeline, [x, target, dy, result], params(x, kind), x.shape[0]!, `${kind}_dx`);
  return result;
}
