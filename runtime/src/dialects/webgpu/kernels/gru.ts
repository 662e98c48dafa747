// WebGPU kernel of raf.op.gru (specs/nn/gru.yaml): two dispatches per time step, one invocation per (direction, batch
// entry, hidden unit) each. The first computes the update and reset gates z and r, r ⊙ h and the input side of the
// candidate into a scratch buffer; the second, which needs every unit's r ⊙ h, the candidate and the new state.
// Steps past a batch entry's sequence length carry the state and write zeros to Y. Float32 only.
// raf-op-ignores: hidden_size (the output type, checked against r by the rule, already carries it)

import type { GruKernel } from '../../../generated/bridge/gru.ts';
import type { Tensor } from '../../../tensor.ts';
import { requireGpu } from '../dialect.ts';
import { allFloat32, launch, MAIN_1D, paramsWgsl, pipelineKey, type WebGpuBuilder } from '../kernel.ts';
import { ACTIVATIONS_WGSL, packState, STEP_PROLOGUE, STEP_WORDS, stepParams } from '../rnn.ts';
import { allocGpu } from '../storage.ts';

const GATES = `@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> w: array<f32>;
@group(0) @binding(2) var<storage, read> r: array<f32>;
@group(0) @binding(3) var<storage, read> b: array<f32>;
@group(0) @binding(4) var<storage, read> lens: array<i32>;
@group(0) @binding(5) var<storage, read> st: array<f32>;
@group(0) @binding(6) var<storage, read_write> scr: array<f32>;
${paramsWgsl(7, STEP_WORDS)}
${ACTIVATIONS_WGSL}
${MAIN_1D} {
  ${STEP_PROLOGUE}
  if (s >= L) { return; }
  let G = 3u * H;
  let xo = (t * B + n) * I;
  var acc = array<f32, 3>(0.0, 0.0, 0.0);
  for (var g = 0u; g < 3u; g++) {
    let row = d * G + g * H + j;
    var a = 0.0;
    if (pu(7u) != 0u) {
      a = b[d * 2u * G + g * H + j];
      if (g < 2u) { a += b[d * 2u * G + G + g * H + j]; }
    }
    for (var k = 0u; k < I; k++) { a += x[xo + k] * w[row * I + k]; }
    if (g < 2u) { for (var k = 0u; k < H; k++) { a += st[base + k] * r[row * H + k]; } }
    acc[g] = a;
  }
  let rg = sigm(acc[1]);
  scr[i] = sigm(acc[0]);
  scr[SZ + i] = rg;
  scr[2u * SZ + i] = rg * st[i];
  scr[3u * SZ + i] = acc[2];
}`;

const STATE = `@group(0) @binding(0) var<storage, read> r: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read> lens: array<i32>;
@group(0) @binding(3) var<storage, read> st: array<f32>;
@group(0) @binding(4) var<storage, read> scr: array<f32>;
@group(0) @binding(5) var<storage, read_write> y: array<f32>;
@group(0) @binding(6) var<storage, read_write> nst: array<f32>;
${paramsWgsl(7, STEP_WORDS)}
${ACTIVATIONS_WGSL}
${MAIN_1D} {
  ${STEP_PROLOGUE}
  if (s >= L) {
    nst[i] = st[i];
    y[((s * dirs + d) * B + n) * H + j] = 0.0;
    return;
  }
  let G = 3u * H;
  let row = d * G + 2u * H + j;
  var rec = 0.0;
  if (pu(7u) != 0u) { rec = b[d * 2u * G + G + 2u * H + j]; }
  let linearBeforeReset = pu(9u) != 0u;
  // linear_before_reset: r ⊙ (h · Rhᵀ + Rbh); otherwise (r ⊙ h) · Rhᵀ + Rbh.
  let src0 = select(2u * SZ + base, base, linearBeforeReset);
  for (var k = 0u; k < H; k++) {
    let v = select(scr[src0 + k], st[src0 + k], linearBeforeReset);
    rec += v * r[row * H + k];
  }
  let z = scr[i];
  let cand = tanh_(scr[3u * SZ + i] + select(rec, scr[SZ + i] * rec, linearBeforeReset));
  let h = (1.0 - z) * cand + z * st[i];
  nst[i] = h;
  y[((t * dirs + d) * B + n) * H + j] = h;
}`;

export const gruWebgpu: WebGpuBuilder<GruKernel> = (_attrs, outs, { x, w, r, b, initial_h }) => {
  const gpu = requireGpu();
  if (!outs.every((o) => allFloat32(o, x, w, r, b, initial_h))) return null;
  const gates = gpu.pipelines.getPipelineSync(pipelineKey('gru_gates', 'f32'), () => GATES);
  const state = gpu.pipelines.getPipelineSync(pipelineKey('gru_state', 'f32'), () => STATE);
  return ({ x, w, r, b, sequence_lens, initial_h }, { direction, linear_before_reset }, kouts): Tensor[] => {
    const y = allocGpu(gpu, kouts[0]!);
    const yh = allocGpu(gpu, kouts[1]!);
    const [T, dirs, B, H] = y.shape as [number, number, number, number];
    const size = dirs * B * H;
    const scratch = allocGpu(gpu, { shape: [4 * size], dtype: 'float32' });
    let st = packState(gpu, size, 1, x, initial_h, null);
    for (let s = 0; s < T; s++) {
      const next = s === T - 1 ? yh : allocGpu(gpu, { shape: [size], dtype: 'float32' });
      const params = stepParams(
        T,
        B,
        x.shape[2]!,
        H,
        dirs,
        s,
        direction === 'reverse',
        !!b,
        !!sequence_lens,
        linear_before_reset ? 1 : 0,
      );
      const [bb, lens] = [b ?? x, sequence_lens ?? x];
      launch(gpu, gates, [x, w, r, bb, lens, st, scratch], params, size, 'gru_gates');
      launch(gpu, state, [r, bb, lens, st, scratch, y, next], params, size, 'gru_state');
      st.dispose();
      st = next;
    }
    if (st !== yh) st.dispose();
    scratch.dispose();
    return [y, yh];
  };
};
