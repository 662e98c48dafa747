// Shared pieces of the WebGPU LSTM and GRU kernels (kernels/lstm.ts, kernels/gru.ts): the recurrent state lives in
// GPU buffers [parts, dirs, B, H] (h, and c for LSTM) that each time step's dispatch reads and a fresh one writes, so
// no invocation reads a value another of the same dispatch writes. Float32 only.

import type { Tensor } from '../../tensor.ts';
import type { GpuContext } from './device.ts';
import { FLAT_INDEX, launch, MAIN_1D, Params, paramsWgsl, pipelineKey } from './kernel.ts';
import { allocGpu } from './storage.ts';

/** Numerically safe activations (WGSL's tanh may overflow through exp on some implementations). */
export const ACTIVATIONS_WGSL = `fn sigm(v: f32) -> f32 { return 1.0 / (1.0 + exp(-v)); }
fn tanh_(v: f32) -> f32 { let e = exp(-2.0 * abs(v)); let t = (1.0 - e) / (1.0 + e); return select(-t, t, v >= 0.0); }`;

/**
 * The step kernels' common prologue: (d, n, j) from the flat index over [dirs, B, H], the batch entry's length L
 * and the time step t this step s visits (L - 1 - s when the direction runs backwards). Uniform words: 0 T, 1 B,
 * 2 I, 3 H, 4 dirs, 5 s, 6 reverse, 7 has b, 8 has sequence_lens.
 */
export const STEP_PROLOGUE = `${FLAT_INDEX}
  let T = pu(0u); let B = pu(1u); let I = pu(2u); let H = pu(3u); let dirs = pu(4u); let s = pu(5u);
  let SZ = dirs * B * H;
  if (i >= SZ) { return; }
  let j = i % H;
  let n = (i / H) % B;
  let d = i / (H * B);
  var L = T;
  if (pu(8u) != 0u) { L = min(u32(max(lens[n], 0)), T); }
  let base = (d * B + n) * H;
  let reverse = pu(6u) != 0u || d == 1u;
  let t = select(s, L - 1u - s, reverse);`;

export const STEP_WORDS = 10;

export function stepParams(
  T: number,
  B: number,
  I: number,
  H: number,
  dirs: number,
  s: number,
  reverse: boolean,
  hasB: boolean,
  hasLens: boolean,
  extra = 0,
): Uint32Array {
  return new Params()
    .u32(T)
    .u32(B)
    .u32(I)
    .u32(H)
    .u32(dirs)
    .u32(s)
    .u32(reverse ? 1 : 0)
    .u32(hasB ? 1 : 0)
    .u32(hasLens ? 1 : 0)
    .u32(extra)
    .data(STEP_WORDS);
}

const PACK = `@group(0) @binding(0) var<storage, read> h0: array<f32>;
@group(0) @binding(1) var<storage, read> c0: array<f32>;
@group(0) @binding(2) var<storage, read_write> st: array<f32>;
${paramsWgsl(3, 4)}
${MAIN_1D} {
  ${FLAT_INDEX}
  let SZ = pu(0u);
  if (i >= SZ * pu(3u)) { return; }
  if (i < SZ) { st[i] = select(0.0, h0[i], pu(1u) != 0u); } else { st[i] = select(0.0, c0[i - SZ], pu(2u) != 0u); }
}`;

const UNPACK = `@group(0) @binding(0) var<storage, read> st: array<f32>;
@group(0) @binding(1) var<storage, read_write> yh: array<f32>;
@group(0) @binding(2) var<storage, read_write> yc: array<f32>;
${paramsWgsl(3, 4)}
${MAIN_1D} {
  ${FLAT_INDEX}
  let SZ = pu(0u);
  if (i >= SZ) { return; }
  yh[i] = st[i];
  yc[i] = st[SZ + i];
}`;

/** A state buffer [parts · dirs · B · H] holding the initial states (zeros where absent). */
export function packState(
  gpu: GpuContext,
  size: number,
  parts: number,
  placeholder: Tensor,
  h0: Tensor | null,
  c0: Tensor | null,
): Tensor {
  const pipeline = gpu.pipelines.getPipelineSync(pipelineKey('rnn_pack', 'f32'), () => PACK);
  const st = allocGpu(gpu, { shape: [parts * size], dtype: 'float32' });
  const params = new Params()
    .u32(size)
    .u32(h0 ? 1 : 0)
    .u32(c0 ? 1 : 0)
    .u32(parts)
    .data(4);
  launch(gpu, pipeline, [h0 ?? placeholder, c0 ?? placeholder, st], params, parts * size, 'rnn_pack');
  return st;
}

/** Copies an LSTM state buffer's halves into Y_h and Y_c. */
export function unpackState(gpu: GpuContext, st: Tensor, yh: Tensor, yc: Tensor): void {
  const pipeline = gpu.pipelines.getPipelineSync(pipelineKey('rnn_unpack', 'f32'), () => UNPACK);
  launch(gpu, pipeline, [st, yh, yc], new Params().u32(yh.size).data(4), yh.size, 'rnn_unpack');
}
