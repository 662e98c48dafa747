// WebGPU kernel of raf.op.lstm (specs/nn/lstm.yaml): one dispatch per time step, one invocation per (direction, batch
// entry, hidden unit) computing its four gates (i, o, f, c) from the previous step's state buffer [h | c] into a fresh
// one; steps past a batch entry's sequence length carry the state and write zeros to Y. Float32 only.
// raf-op-ignores: hidden_size (the output type, checked against r by the rule, already carries it)

import type { LstmKernel } from '../../../generated/bridge/lstm.ts';
import type { Tensor } from '../../../tensor.ts';
import { requireGpu } from '../dialect.ts';
import { allFloat32, launch, MAIN_1D, paramsWgsl, pipelineKey, type WebGpuBuilder } from '../kernel.ts';
import { ACTIVATIONS_WGSL, packState, STEP_PROLOGUE, STEP_WORDS, stepParams, unpackState } from '../rnn.ts';
import { allocGpu } from '../storage.ts';

const SOURCE = `@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> w: array<f32>;
@group(0) @binding(2) var<storage, read> r: array<f32>;
@group(0) @binding(3) var<storage, read> b: array<f32>;
@group(0) @binding(4) var<storage, read> lens: array<i32>;
@group(0) @binding(5) var<storage, read> st: array<f32>;
@group(0) @binding(6) var<storage, read_write> y: array<f32>;
@group(0) @binding(7) var<storage, read_write> nst: array<f32>;
${paramsWgsl(8, STEP_WORDS)}
${ACTIVATIONS_WGSL}
${MAIN_1D} {
  ${STEP_PROLOGUE}
  if (s >= L) {
    nst[base + j] = st[base + j];
    nst[SZ + base + j] = st[SZ + base + j];
    y[((s * dirs + d) * B + n) * H + j] = 0.0;
    return;
  }
  let G = 4u * H;
  var acc = array<f32, 4>(0.0, 0.0, 0.0, 0.0);
  for (var g = 0u; g < 4u; g++) {
    let row = d * G + g * H + j;
    var a = 0.0;
    if (pu(7u) != 0u) { a = b[d * 2u * G + g * H + j] + b[d * 2u * G + G + g * H + j]; }
    let xo = (t * B + n) * I;
    for (var k = 0u; k < I; k++) { a += x[xo + k] * w[row * I + k]; }
    for (var k = 0u; k < H; k++) { a += st[base + k] * r[row * H + k]; }
    acc[g] = a;
  }
  let c = sigm(acc[2]) * st[SZ + base + j] + sigm(acc[0]) * tanh_(acc[3]);
  let h = sigm(acc[1]) * tanh_(c);
  nst[base + j] = h;
  nst[SZ + base + j] = c;
  y[((t * dirs + d) * B + n) * H + j] = h;
}`;

export const lstmWebgpu: WebGpuBuilder<LstmKernel> = (_attrs, outs, { x, w, r, b, initial_h, initial_c }) => {
  const gpu = requireGpu();
  if (!outs.every((o) => allFloat32(o, x, w, r, b, initial_h, initial_c))) return null;
  const pipeline = gpu.pipelines.getPipelineSync(pipelineKey('lstm', 'f32'), () => SOURCE);
  return ({ x, w, r, b, sequence_lens, initial_h, initial_c }, { direction }, kouts): Tensor[] => {
    const [y, yh, yc] = kouts.map((o) => allocGpu(gpu, o)) as [Tensor, Tensor, Tensor];
    const [T, dirs, B, H] = y.shape as [number, number, number, number];
    const size = dirs * B * H;
    let st = packState(gpu, size, 2, x, initial_h, initial_c);
    for (let s = 0; s < T; s++) {
      const next = allocGpu(gpu, { shape: [2 * size], dtype: 'float32' });
      const params = stepParams(T, B, x.shape[2]!, H, dirs, s, direction === 'reverse', !!b, !!sequence_lens);
      launch(gpu, pipeline, [x, w, r, b ?? x, sequence_lens ?? x, st, y, next], params, size, 'lstm');
      st.dispose();
      st = next;
    }
    unpackState(gpu, st, yh, yc);
    st.dispose();
    return [y, yh, yc];
  };
};
