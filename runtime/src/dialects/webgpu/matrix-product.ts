// The tiled WebGPU matrix product behind matmul, matmul_nt, matmul_tn and dense: transposes are strides, so all share one pipeline (dense adds a bias).

import { broadcastStrides, sizeOf } from '../../shape.ts';
import type { Tensor, TensorType } from '../../tensor.ts';
import type { GpuContext } from './device.ts';
import { requireGpu } from './dialect.ts';
import { allFloat32, MAX_RANK, Params, paramsWgsl, pipelineKey } from './kernel.ts';
import { allocGpu, gpuBuffer } from './storage.ts';

const TILE = 16;
const BATCH = 8; // words: M, N, K, batch rank, a row/col step, b row/col step; then batch shape and strides
const WORDS = BATCH + 3 * MAX_RANK;

/**
 * A fused group's elementwise epilogue (graph mode): WGSL statements that read the product as `prod` and the flat
 * output index as `o`, read extra inputs bound as `e0`, `e1`, ..., and set `res`. Its pipeline is its own.
 */
export interface MatrixEpilogue {
  /** Names the pipeline; unique per epilogue source. */
  readonly key: string;
  readonly inputs: number;
  readonly body: string;
  /** WGSL functions the body calls, placed before the kernel. */
  readonly helpers?: string;
}

// With a bias (dense) the epilogue adds bias[col], so the product and the add are one launch.
const source = (bias: boolean, epi?: MatrixEpilogue) => {
  const extra = epi?.inputs ?? 0;
  const outBinding = (bias ? 3 : 2) + extra;
  const product = `acc${bias ? ' + bias[col]' : ''}`;
  return `${epi?.helpers ? `${epi.helpers}\n` : ''}@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
${bias ? '@group(0) @binding(2) var<storage, read> bias: array<f32>;\n' : ''}${Array.from({ length: extra }, (_, k) => `@group(0) @binding(${(bias ? 3 : 2) + k}) var<storage, read> e${k}: array<f32>;\n`).join('')}@group(0) @binding(${outBinding}) var<storage, read_write> out: array<f32>;
${paramsWgsl(outBinding + 1, WORDS)}
var<workgroup> tileA: array<array<f32, ${TILE}>, ${TILE}>;
var<workgroup> tileB: array<array<f32, ${TILE}>, ${TILE}>;

@compute @workgroup_size(${TILE}, ${TILE})
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let M = pu(0u);
  let N = pu(1u);
  let K = pu(2u);
  let row = wg.y * ${TILE}u + lid.y;
  let col = wg.x * ${TILE}u + lid.x;
  // The batch index (workgroup z) decodes into each operand's own, possibly broadcast, matrix offset.
  var rem = wg.z;
  var offA = 0u;
  var offB = 0u;
  for (var d = pu(3u); d > 0u; d--) {
    let size = pu(${BATCH}u + d - 1u);
    let c = rem % size;
    rem = rem / size;
    offA += c * pu(${BATCH + MAX_RANK}u + d - 1u);
    offB += c * pu(${BATCH + 2 * MAX_RANK}u + d - 1u);
  }
  var acc = 0.0;
  for (var t = 0u; t < K; t += ${TILE}u) {
    // Every invocation must reach the barriers, so out-of-range ones load zeros instead of returning early.
    let ka = t + lid.x;
    var va = 0.0;
    if (row < M && ka < K) { va = a[offA + row * pu(4u) + ka * pu(5u)]; }
    tileA[lid.y][lid.x] = va;
    let kb = t + lid.y;
    var vb = 0.0;
    if (kb < K && col < N) { vb = b[offB + kb * pu(6u) + col * pu(7u)]; }
    tileB[lid.y][lid.x] = vb;
    workgroupBarrier();
    for (var k = 0u; k < ${TILE}u; k++) { acc += tileA[lid.y][k] * tileB[k][lid.x]; }
    workgroupBarrier();
  }
  if (row < M && col < N) {
    let o = wg.z * M * N + row * N + col;
${epi ? `    let prod = ${product};\n${epi.body}\n    out[o] = res;` : `    out[o] = ${product};`}
  }
}`;
};

const pipelineFor = (gpu: GpuContext, bias: boolean, epi?: MatrixEpilogue) =>
  gpu.pipelines.getPipelineSync(
    pipelineKey(bias ? 'matrix_product_bias' : 'matrix_product', 'f32', ...(epi ? [epi.key] : [])),
    () => source(bias, epi),
  );

/** build() of a matrix product reading A and/or B transposed. */
export function matrixProductBuilder(transposeA: boolean, transposeB: boolean) {
  return (_attrs: unknown, out: TensorType, inputs: { readonly a: Tensor; readonly b: Tensor }) => {
    const gpu = requireGpu();
    if (!allFloat32(out, inputs.a, inputs.b)) return null;
    pipelineFor(gpu, false);
    return ({ a, b }: { readonly a: Tensor; readonly b: Tensor }, _kattrs: unknown, kout: TensorType): Tensor =>
      matrixProduct(gpu, a, b, kout, transposeA, transposeB);
  };
}

/** build() of dense: x · wᵀ + b, b one value per output column. */
export function denseBuilder(
  _attrs: unknown,
  out: TensorType,
  inputs: { readonly x: Tensor; readonly w: Tensor; readonly b: Tensor },
) {
  const gpu = requireGpu();
  if (!allFloat32(out, inputs.x, inputs.w, inputs.b)) return null;
  pipelineFor(gpu, true);
  return (
    { x, w, b }: { readonly x: Tensor; readonly w: Tensor; readonly b: Tensor },
    _kattrs: unknown,
    kout: TensorType,
  ): Tensor => matrixProduct(gpu, x, w, kout, false, true, b);
}

/** a · b (either read transposed), batch axes broadcast, plus bias[col] when given, then a fused epilogue when given. */
export function matrixProduct(
  gpu: GpuContext,
  a: Tensor,
  b: Tensor,
  kout: TensorType,
  transposeA: boolean,
  transposeB: boolean,
  bias?: Tensor,
  epilogue?: { readonly def: MatrixEpilogue; readonly inputs: readonly Tensor[] },
): Tensor {
  const ar = a.shape.length;
  const br = b.shape.length;
  const [m, k] = transposeA ? [a.shape[ar - 1]!, a.shape[ar - 2]!] : [a.shape[ar - 2]!, a.shape[ar - 1]!];
  const n = transposeB ? b.shape[br - 2]! : b.shape[br - 1]!;
  const [aRow, aCol] = transposeA ? [1, m] : [k, 1];
  const [bRow, bCol] = transposeB ? [1, k] : [n, 1];
  const batch = kout.shape.slice(0, -2);
  const aStrides = broadcastStrides(a.shape.slice(0, -2), batch).map((s) => s * m * k);
  const bStrides = broadcastStrides(b.shape.slice(0, -2), batch).map((s) => s * k * n);
  const result = allocGpu(gpu, kout);
  const count = sizeOf(batch);
  if (m * n * count === 0) return result;
  if (k === 0 && !bias && !epilogue) {
    // No products to sum: the pooled buffer holds stale data, so clear it. (With a bias or an epilogue the shader
    // runs on its empty sum, which is already right.)
    const enc = gpu.device.createCommandEncoder();
    enc.clearBuffer(gpuBuffer(result));
    gpu.device.queue.submit([enc.finish()]);
    return result;
  }
  const uniforms = new Params()
    .u32(m)
    .u32(n)
    .u32(k)
    .u32(batch.length)
    .u32(aRow)
    .u32(aCol)
    .u32(bRow)
    .u32(bCol)
    .dims(batch)
    .dims(aStrides)
    .dims(bStrides)
    .data(WORDS);
  gpu.pipelines.dispatch({
    pipeline: pipelineFor(gpu, Boolean(bias), epilogue?.def),
    buffers: [
      gpuBuffer(a),
      gpuBuffer(b),
      ...(bias ? [gpuBuffer(bias)] : []),
      ...(epilogue?.inputs ?? []).map(gpuBuffer),
      gpuBuffer(result),
    ],
    uniforms,
    workgroups: [Math.ceil(n / TILE), Math.ceil(m / TILE), count],
    label: bias ? 'dense' : 'matrix_product',
  });
  return result;
}
