// The tiled WebGPU matrix product behind matmul, matmul_nt, matmul_tn and dense: transposes are strides, so all share one pipeline (dense adds a bias).

import { broadcastStrides, sizeOf } from '../../shape.ts';
import type { Tensor, TensorType } from '../../tensor.ts';
import type { GpuContext } from './device.ts';
import { requireGpu } from './dialect.ts';
import { F16_PACK } from './f16.ts';
import { allFloat32, MAX_RANK, Params, paramsWgsl, pipelineKey } from './kernel.ts';
import { allocGpu, gpuBuffer } from './storage.ts';

const TILE = 16;
/** The blocked pipeline's output tile: BLOCK × BLOCK per workgroup (shared out as `Blocking` says). */
const BLOCK = 64;
/**
 * On a GPU, from this many output elements on (and both sides at least BLOCK), the blocked pipeline serves: it reads
 * each staged value once per four products instead of once per product, but has 16 times fewer workgroups to spread
 * (see blockedProduct).
 */
export const BLOCKED_FROM = 1 << 18;
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

/**
 * Bindings, uniforms and the helpers both pipelines share. `half`: every operand and the output are float16, bound as
 * `array<f16>` (the device has shader-f16); values are read into f32, summed in f32, and rounded once at the store by
 * f16_bits, as the float32 kernel between casts would round them, so both give the same bits.
 */
const header = (bias: boolean, epi?: MatrixEpilogue, half = false) => {
  const extra = epi?.inputs ?? 0;
  const outBinding = (bias ? 3 : 2) + extra;
  const el = half ? 'f16' : 'f32';
  const halfHelpers = half
    ? `enable f16;\n${F16_PACK}\nfn to_half(v: f32) -> f16 { return bitcast<vec2<f16>>(f16_bits(v)).x; }\n`
    : '';
  return `${halfHelpers}${epi?.helpers ? `${epi.helpers}\n` : ''}@group(0) @binding(0) var<storage, read> a: array<${el}>;
@group(0) @binding(1) var<storage, read> b: array<${el}>;
${bias ? `@group(0) @binding(2) var<storage, read> bias: array<${el}>;\n` : ''}${Array.from({ length: extra }, (_, k) => `@group(0) @binding(${(bias ? 3 : 2) + k}) var<storage, read> e${k}: array<f32>;\n`).join('')}@group(0) @binding(${outBinding}) var<storage, read_write> out: array<${el}>;
${paramsWgsl(outBinding + 1, WORDS)}
// The batch index (workgroup z) decodes into each operand's own, possibly broadcast, matrix offset.
fn batch_offsets(z: u32) -> vec2<u32> {
  var rem = z;
  var off = vec2<u32>(0u, 0u);
  for (var d = pu(3u); d > 0u; d--) {
    let size = pu(${BATCH}u + d - 1u);
    let c = rem % size;
    rem = rem / size;
    off += c * vec2<u32>(pu(${BATCH + MAX_RANK}u + d - 1u), pu(${BATCH + 2 * MAX_RANK}u + d - 1u));
  }
  return off;
}`;
};

/**
 * WGSL storing `value` (the product at row, col of batch z): plus bias[col] (dense), then the fused epilogue; `half`
 * rounds the f32 result to float16 once.
 */
const store = (value: string, bias: boolean, epi?: MatrixEpilogue, half = false) => {
  const product = `${value}${bias ? (half ? ' + f32(bias[col])' : ' + bias[col]') : ''}`;
  if (half) return `let o = wg.z * M * N + row * N + col;\nout[o] = to_half(${product});`;
  return `let o = wg.z * M * N + row * N + col;
${epi ? `let prod = ${product};\n${epi.body}\nout[o] = res;` : `out[o] = ${product};`}`;
};

/** An operand element read as f32 (float16 is exact in f32). */
const load = (half: boolean, array: string, index: string) => (half ? `f32(${array}[${index}])` : `${array}[${index}]`);

// With a bias (dense) the epilogue adds bias[col], so the product and the add are one launch.
const source = (bias: boolean, epi?: MatrixEpilogue, half = false) => `${header(bias, epi, half)}
var<workgroup> tileA: array<array<f32, ${TILE}>, ${TILE}>;
var<workgroup> tileB: array<array<f32, ${TILE}>, ${TILE}>;

@compute @workgroup_size(${TILE}, ${TILE})
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let M = pu(0u);
  let N = pu(1u);
  let K = pu(2u);
  let row = wg.y * ${TILE}u + lid.y;
  let col = wg.x * ${TILE}u + lid.x;
  let offs = batch_offsets(wg.z);
  let offA = offs.x;
  let offB = offs.y;
  var acc = 0.0;
  for (var t = 0u; t < K; t += ${TILE}u) {
    // Every invocation must reach the barriers, so out-of-range ones load zeros instead of returning early.
    let ka = t + lid.x;
    var va = 0.0;
    if (row < M && ka < K) { va = ${load(half, 'a', 'offA + row * pu(4u) + ka * pu(5u)')}; }
    tileA[lid.y][lid.x] = va;
    let kb = t + lid.y;
    var vb = 0.0;
    if (kb < K && col < N) { vb = ${load(half, 'b', 'offB + kb * pu(6u) + col * pu(7u)')}; }
    tileB[lid.y][lid.x] = vb;
    workgroupBarrier();
    for (var k = 0u; k < ${TILE}u; k++) { acc += tileA[lid.y][k] * tileB[k][lid.x]; }
    workgroupBarrier();
  }
  if (row < M && col < N) {
${store('acc', bias, epi, half)}
  }
}`;

/**
 * How the blocked product shares its BLOCK × BLOCK output tile out: `reg` × `reg` outputs per invocation, `side` ×
 * `side` invocations per workgroup (reg · side = BLOCK). A GPU takes 4 × 4 outputs each on 16 × 16 invocations; an
 * adapter that emulates one on the CPU (llvmpipe, SwiftShader) runs a workgroup's invocations as SIMD lanes of a few
 * threads, where each barrier switches between them, so it takes 8 × 8 outputs each on 8 × 8 invocations (half the
 * time of the GPU's shape at 256³ on llvmpipe).
 */
interface Blocking {
  readonly reg: number;
  readonly side: number;
}
const GPU_BLOCKING: Blocking = { reg: 4, side: 16 };
const SOFTWARE_BLOCKING: Blocking = { reg: 8, side: 8 };

/**
 * The blocked product: a workgroup computes a BLOCK × BLOCK tile, each invocation reg × reg outputs (rows lid.y +
 * side·i, columns lid.x + side·j), from BLOCK × 16 slices of A and 16 × BLOCK slices of B staged in workgroup memory.
 * Each output sums over k in the same order as the 16 × 16 pipeline.
 */
const blockedSource = (bias: boolean, epi: MatrixEpilogue | undefined, half: boolean, { reg, side }: Blocking) => {
  const invocations = side * side;
  return `${header(bias, epi, half)}
var<workgroup> tileA: array<array<f32, ${BLOCK}>, ${TILE}>;
var<workgroup> tileB: array<array<f32, ${BLOCK}>, ${TILE}>;

@compute @workgroup_size(${side}, ${side})
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  let M = pu(0u);
  let N = pu(1u);
  let K = pu(2u);
  let row0 = wg.y * ${BLOCK}u;
  let col0 = wg.x * ${BLOCK}u;
  let offs = batch_offsets(wg.z);
  var acc: array<array<f32, ${reg}>, ${reg}>;
  for (var t = 0u; t < K; t += ${TILE}u) {
    // ${BLOCK * TILE} values of each operand, ${(BLOCK * TILE) / invocations} per invocation; out of range ones stage zeros (every
    // invocation must reach the barriers).
    for (var s = 0u; s < ${(BLOCK * TILE) / invocations}u; s++) {
      let e = li + s * ${invocations}u;
      let r = e / ${TILE}u;
      let ka = t + e % ${TILE}u;
      var va = 0.0;
      if (row0 + r < M && ka < K) { va = ${load(half, 'a', 'offs.x + (row0 + r) * pu(4u) + ka * pu(5u)')}; }
      tileA[e % ${TILE}u][r] = va;
      let c = e % ${BLOCK}u;
      let kb = t + e / ${BLOCK}u;
      var vb = 0.0;
      if (kb < K && col0 + c < N) { vb = ${load(half, 'b', 'offs.y + kb * pu(6u) + (col0 + c) * pu(7u)')}; }
      tileB[e / ${BLOCK}u][c] = vb;
    }
    workgroupBarrier();
    for (var k = 0u; k < ${TILE}u; k++) {
      var av: array<f32, ${reg}>;
      var bv: array<f32, ${reg}>;
      for (var i = 0u; i < ${reg}u; i++) {
        av[i] = tileA[k][lid.y + ${side}u * i];
        bv[i] = tileB[k][lid.x + ${side}u * i];
      }
      for (var i = 0u; i < ${reg}u; i++) {
        for (var j = 0u; j < ${reg}u; j++) { acc[i][j] += av[i] * bv[j]; }
      }
    }
    workgroupBarrier();
  }
  for (var i = 0u; i < ${reg}u; i++) {
    for (var j = 0u; j < ${reg}u; j++) {
      let row = row0 + lid.y + ${side}u * i;
      let col = col0 + lid.x + ${side}u * j;
      if (row < M && col < N) {
${store('acc[i][j]', bias, epi, half)}
      }
    }
  }
}`;
};

/** The blocked product's shape on this adapter. */
const blockingOf = (gpu: GpuContext): Blocking => (gpu.info.software ? SOFTWARE_BLOCKING : GPU_BLOCKING);

const pipelineFor = (gpu: GpuContext, bias: boolean, epi?: MatrixEpilogue, blocked = false, half = false) => {
  const blocking = blockingOf(gpu);
  return gpu.pipelines.getPipelineSync(
    pipelineKey(
      bias ? 'matrix_product_bias' : 'matrix_product',
      half ? 'f16' : 'f32',
      ...(blocked ? [`b${BLOCK}r${blocking.reg}`] : []),
      ...(epi ? [epi.key] : []),
    ),
    () => (blocked ? blockedSource(bias, epi, half, blocking) : source(bias, epi, half)),
  );
};

/**
 * Whether an m × n product over `count` batches runs on the blocked pipeline. A GPU takes it from BLOCKED_FROM
 * outputs on, where its 16 times fewer workgroups still fill the GPU. An adapter emulated on the CPU runs a few
 * workgroups at a time whatever their number, so every product at least half a block wide on both sides takes it
 * (on llvmpipe at 48 × 64 × 256 it takes a third of the 16 × 16 pipeline's time; at 128 × 10 they are even).
 */
export function blockedProduct(software: boolean, m: number, n: number, count: number): boolean {
  if (software) return m >= BLOCK / 2 && n >= BLOCK / 2;
  return m >= BLOCK && n >= BLOCK && m * n * count >= BLOCKED_FROM;
}

/**
 * Whether a product runs on its operands as they are: all float32, or all float16 where the device has shader-f16
 * (bound as array<f16>, no casts around the kernel). Otherwise build() declines and float16 takes the float32 kernel
 * between casts (widen.ts).
 */
const nativeTypes = (gpu: GpuContext, out: TensorType, ...inputs: Tensor[]): 'f32' | 'f16' | null =>
  allFloat32(out, ...inputs)
    ? 'f32'
    : gpu.hasF16 && out.dtype === 'float16' && inputs.every((t) => t.dtype === 'float16')
      ? 'f16'
      : null;

/** build() of a matrix product reading A and/or B transposed. */
export function matrixProductBuilder(transposeA: boolean, transposeB: boolean) {
  return (_attrs: unknown, out: TensorType, inputs: { readonly a: Tensor; readonly b: Tensor }) => {
    const gpu = requireGpu();
    const types = nativeTypes(gpu, out, inputs.a, inputs.b);
    if (!types) return null;
    pipelineFor(gpu, false, undefined, false, types === 'f16');
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
  const types = nativeTypes(gpu, out, inputs.x, inputs.w, inputs.b);
  if (!types) return null;
  pipelineFor(gpu, true, undefined, false, types === 'f16');
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
    gpu.pool.encoder().clearBuffer(gpuBuffer(result));
    gpu.pool.encoded();
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
  const blocked = blockedProduct(gpu.info.software, m, n, count);
  const tile = blocked ? BLOCK : TILE;
  // float16 operands reach here only where the device binds them as f16 (nativeTypes); a fused epilogue reads f32.
  const half = kout.dtype === 'float16' && !epilogue;
  gpu.pipelines.dispatch({
    pipeline: pipelineFor(gpu, Boolean(bias), epilogue?.def, blocked, half),
    buffers: [
      gpuBuffer(a),
      gpuBuffer(b),
      ...(bias ? [gpuBuffer(bias)] : []),
      ...(epilogue?.inputs ?? []).map(gpuBuffer),
      gpuBuffer(result),
    ],
    uniforms,
    workgroups: [Math.ceil(n / tile), Math.ceil(m / tile), count],
    label: bias ? 'dense' : 'matrix_product',
  });
  return result;
}
