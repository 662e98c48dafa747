// Import forms of runtime/src/graph/onnx/forms-extra.ts against onnxruntime-node, beyond what ONNX's backend suite
// covers: 3-D ConvTranspose with strides, pads, dilations, groups, output_padding, auto_pad and output_shape; LSTM
// with peepholes in every direction with sequence lengths; Pow of mixed dtypes; Split into uneven chunks; Gelu's tanh
// form; BatchNormalization's training mode; TensorScatter; MatMul of vectors; the window functions and MelWeightMatrix.

import { describe, expect, it } from 'vitest';
import { randomUniform, tensor } from '../../runtime/src/index.ts';
import { loadOnnx } from '../../runtime/src/graph/onnx/session.ts';
import { buildSingleNodeModel, singleNodeIoNames, type AttrValue } from '../support/onnx-proto.ts';
import { runOnnxModel, type OracleTensor } from '../support/onnx-oracle.ts';
import { assertAllClose } from '../support/assert.ts';

const floats = (shape: number[], seed: number, low = -2, high = 2): OracleTensor => ({
  dtype: 'float32',
  shape,
  data: Float32Array.from(randomUniform(shape, { seed, low, high }).dataSync()),
});
const int64 = (values: number[], shape = [values.length]): OracleTensor => ({
  dtype: 'int64',
  shape,
  data: BigInt64Array.from(values.map(BigInt)),
});

/** Runs one node in onnxruntime and through loadOnnx; compares every output (values, shape, dtype). */
async function compare(
  op: string,
  inputs: (OracleTensor | null)[],
  attrs: Record<string, AttrValue>,
  outputs = 1,
  opset = 17,
  tol = { atol: 1e-5, rtol: 1e-4 },
) {
  const spec = { op, opset, inputs, attrs, outputs };
  const model = buildSingleNodeModel(spec as Parameters<typeof buildSingleNodeModel>[0]);
  const names = singleNodeIoNames(spec as Parameters<typeof singleNodeIoNames>[0]);
  const given = inputs.map((t, i) => [names.inputs[i]!, t] as const).filter(([n, t]) => n && t);
  const want = await runOnnxModel(model, Object.fromEntries(given as [string, OracleTensor][]));
  const ours = loadOnnx(model).run(
    Object.fromEntries(
      given.map(([n, t]) => [
        n,
        tensor(t!.data instanceof BigInt64Array ? Array.from(t!.data, Number) : (t!.data as ArrayLike<number>), {
          dtype: t!.dtype,
          shape: t!.shape,
        }),
      ]),
    ),
  );
  names.outputs.forEach((n, i) => {
    const got = ours[n]!;
    expect(got.shape).toEqual(want[i]!.shape);
    expect(got.dtype).toBe(want[i]!.dtype);
    assertAllClose(got.dataSync() as ArrayLike<number>, Array.from(want[i]!.data as ArrayLike<number>, Number), tol);
  });
}

describe('ONNX import forms of forms-extra.ts vs onnxruntime', () => {
  it('ConvTranspose 3-D with strides, asymmetric pads, dilations, groups and output_padding', async () => {
    await compare('ConvTranspose', [floats([2, 4, 3, 4, 3], 1), floats([4, 3, 2, 3, 2], 2), floats([6], 3)], {
      strides: [2, 1, 3],
      pads: [1, 0, 1, 0, 1, 0],
      dilations: [1, 2, 1],
      group: 2,
      output_padding: [1, 0, 2],
    });
  });
  it('ConvTranspose 3-D with auto_pad and with output_shape', async () => {
    for (const auto_pad of ['SAME_UPPER', 'SAME_LOWER', 'VALID'])
      await compare('ConvTranspose', [floats([1, 2, 3, 3, 2], 4), floats([2, 1, 3, 2, 2], 5)], {
        strides: [2, 2, 1],
        auto_pad,
      });
    await compare('ConvTranspose', [floats([1, 2, 3, 3, 2], 6), floats([2, 2, 3, 2, 2], 7)], {
      strides: [2, 2, 2],
      output_shape: [8, 7, 5],
    });
  });
  it('LSTM with peepholes, bias, initial state and sequence lengths, in every direction', async () => {
    const lens: OracleTensor = { dtype: 'int32', shape: [3], data: Int32Array.from([4, 2, 3]) };
    for (const direction of ['forward', 'reverse', 'bidirectional']) {
      const D = direction === 'bidirectional' ? 2 : 1;
      await compare(
        'LSTM',
        [
          floats([4, 3, 2], 8),
          floats([D, 12, 2], 9),
          floats([D, 12, 3], 10),
          floats([D, 24], 11),
          lens,
          floats([D, 3, 3], 12),
          floats([D, 3, 3], 13),
          floats([D, 9], 14),
        ],
        { hidden_size: 3, direction },
        3,
      );
    }
    // Without sequence lengths and initial state.
    await compare(
      'LSTM',
      [floats([3, 2, 2], 15), floats([1, 8, 2], 16), floats([1, 8, 2], 17), null, null, null, null, floats([1, 6], 18)],
      { hidden_size: 2 },
      3,
    );
  });
  it('Pow of mixed dtypes has the base dtype', async () => {
    const ints: OracleTensor = { dtype: 'int32', shape: [5], data: Int32Array.from([-3, 0, 2, 5, 7]) };
    const exps: OracleTensor = { dtype: 'float32', shape: [5], data: Float32Array.from([2, 1.5, 0.5, 2.5, -1]) };
    await compare('Pow', [ints, exps], {}, 1, 15);
    await compare('Pow', [floats([2, 3], 19, 0.5, 2), int64([3, -2, 0])], {}, 1, 15);
    await compare(
      'Pow',
      [int64([2, -3, 4]), { dtype: 'int32', shape: [3], data: Int32Array.from([3, 3, 0]) }],
      {},
      1,
      15,
    );
  });
  it('Split into num_outputs uneven chunks (opset 18)', async () => {
    await compare('Split', [floats([7, 2], 20)], { num_outputs: 4 }, 4, 18);
    await compare('Split', [floats([2, 8], 21)], { num_outputs: 3, axis: -1 }, 3, 18);
  });
  it("Gelu approximate = 'tanh'", async () => {
    await compare('Gelu', [floats([3, 5], 22, -4, 4)], { approximate: 'tanh' }, 1, 20);
  });
  it('BatchNormalization training mode gives Y and the running statistics', async () => {
    await compare(
      'BatchNormalization',
      [floats([2, 3, 4, 2], 23), floats([3], 24), floats([3], 25), floats([3], 26), floats([3], 27, 0.5, 2)],
      { training_mode: 1, momentum: 0.7, epsilon: 1e-3 },
      3,
      15,
      { atol: 1e-4, rtol: 1e-3 },
    );
  });
  it('MatMul with 1-D operands (NumPy promotion)', async () => {
    await compare('MatMul', [floats([3], 28), floats([2, 3, 4], 29)], {}, 1, 13);
    await compare('MatMul', [floats([2, 3, 4], 30), floats([4], 31)], {}, 1, 13);
    await compare('MatMul', [floats([4], 32), floats([4], 33)], {}, 1, 13);
  });
  it('HannWindow, HammingWindow, BlackmanWindow: periodic, symmetric, float64 output', async () => {
    for (const op of ['HannWindow', 'HammingWindow', 'BlackmanWindow'])
      for (const periodic of [0, 1])
        for (const output_datatype of [1, 11])
          await compare(op, [int64([9], [])], { periodic, output_datatype }, 1, 17, { atol: 1e-6, rtol: 1e-5 });
  });
  it('MelWeightMatrix', async () => {
    const f = (v: number): OracleTensor => ({ dtype: 'float32', shape: [], data: Float32Array.from([v]) });
    await compare(
      'MelWeightMatrix',
      [int64([10], []), int64([64], []), int64([16000], []), f(100), f(6000)],
      {},
      1,
      17,
    );
  });
  it('TensorScatter, linear and circular (opset 24)', async () => {
    for (const mode of ['linear', 'circular'])
      await compare(
        'TensorScatter',
        [floats([2, 3, 6, 2], 34), floats([2, 3, 3, 2], 35), int64(mode === 'linear' ? [1, 3] : [4, 5])],
        { mode },
        1,
        24,
      );
  });
});

describe('ONNX DFT against a float64 DFT computed here', () => {
  /** Σ_n x_n e^(∓2πikn/L) over the first L values (zero-padded), for each of `bins` k; divided by L when inverse. */
  function reference(re: number[], im: number[], L: number, bins: number, inverse: boolean): [number[], number[]] {
    const out: [number[], number[]] = [[], []];
    for (let k = 0; k < bins; k++) {
      let [sr, si] = [0, 0];
      for (let n = 0; n < L; n++) {
        const [xr, xi] = [re[n] ?? 0, im[n] ?? 0];
        const a = ((inverse ? 2 : -2) * Math.PI * k * n) / L;
        sr += xr * Math.cos(a) - xi * Math.sin(a);
        si += xr * Math.sin(a) + xi * Math.cos(a);
      }
      out[0].push(inverse ? sr / L : sr);
      out[1].push(inverse ? si / L : si);
    }
    return out;
  }

  it('zero-pads and cuts to dft_length, along axis 1, forward and inverse, real and complex, onesided', async () => {
    const [B, N] = [2, 9];
    for (const [length, complex, inverse, onesided] of [
      [12, true, false, false],
      [7, true, true, false],
      [12, false, false, true],
      [9, false, true, false],
    ] as const) {
      const c = complex ? 2 : 1;
      const x = floats([B, N, 3, c], 60 + length);
      const ours = loadOnnx(
        buildSingleNodeModel({
          op: 'DFT',
          opset: 17,
          inputs: [x, int64([length], [])],
          attrs: { axis: 1, inverse: inverse ? 1 : 0, onesided: onesided ? 1 : 0 },
        }),
      );
      const names = singleNodeIoNames({ op: 'DFT', opset: 17, inputs: [x, int64([length], [])] });
      const out = ours.run({
        [names.inputs[0]!]: tensor(Array.from(x.data as Float32Array), { shape: x.shape }),
        [names.inputs[1]!]: tensor([length], { dtype: 'int64', shape: [] }),
      })[names.outputs[0]!]!;
      const bins = onesided ? Math.floor(length / 2) + 1 : length;
      expect([...out.shape]).toEqual([B, bins, 3, 2]);
      const got = out.dataSync() as Float32Array;
      const data = x.data as Float32Array;
      for (let b = 0; b < B; b++)
        for (let j = 0; j < 3; j++) {
          const at = (n: number, part: number) => data[((b * N + n) * 3 + j) * c + part]!;
          const re = Array.from({ length: Math.min(N, length) }, (_, n) => at(n, 0));
          const im = Array.from({ length: Math.min(N, length) }, (_, n) => (complex ? at(n, 1) : 0));
          const [wr, wi] = reference(re, im, length, bins, inverse);
          const mine = (k: number, part: number) => got[((b * bins + k) * 3 + j) * 2 + part]!;
          assertAllClose(
            Array.from({ length: bins }, (_, k) => [mine(k, 0), mine(k, 1)]).flat(),
            wr.map((v, k) => [v, wi[k]!]).flat(),
            { atol: 1e-5, rtol: 1e-5 },
            `DFT length ${length}`,
          );
        }
    }
  });
});
