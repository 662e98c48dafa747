// ONNX's narrow element types (float8 in four flavours, float8e8m0, float4e2m1, int4, uint4, int2, uint2), held in
// carrier dtypes (runtime/src/formats.ts): bit patterns decode to the values the ONNX spec and the OCP float8 paper
// give; raf.op.round_to_format agrees with the hand-written reference (test/references/round_to_format.ts) on every
// value of each format, every tie between neighbours and the points beside them, overflow, infinities and NaN; ONNX's
// packing round-trips; and imported models with int4 weights (the QDQ form of onnxruntime's 4-bit quantizer) and
// int4 or float8 outputs agree with onnxruntime-node and with float64 references.

import { describe, expect, it } from 'vitest';
import { ops, tensor } from '../../runtime/src/index.ts';
import { loadOnnx } from '../../runtime/src/graph/onnx/session.ts';
import {
  NARROW_FORMATS,
  carrierOf,
  decodeFormat,
  formatBits,
  packFormat,
  unpackFormat,
  type NarrowFormat,
} from '../../runtime/src/formats.ts';
import { reference } from '../references/round_to_format.ts';
import { buildModel, type ModelSpec } from '../support/onnx-proto.ts';
import { runOnnxModel, toFloat64 } from '../support/onnx-oracle.ts';
import { lcgValues } from '../support/reference.ts';

describe('narrow formats: bit patterns', () => {
  // [format, bits, value] from the ONNX spec's tables and the OCP 8-bit floating point specification.
  const anchors: [NarrowFormat, number, number][] = [
    ['float8e4m3fn', 0x38, 1],
    ['float8e4m3fn', 0x7e, 448],
    ['float8e4m3fn', 0xfe, -448],
    ['float8e4m3fn', 0x01, 2 ** -9],
    ['float8e4m3fn', 0x08, 2 ** -6],
    ['float8e4m3fn', 0x7f, NaN],
    ['float8e4m3fnuz', 0x40, 1],
    ['float8e4m3fnuz', 0x7f, 240],
    ['float8e4m3fnuz', 0x01, 2 ** -10],
    ['float8e4m3fnuz', 0x80, NaN],
    ['float8e5m2', 0x3c, 1],
    ['float8e5m2', 0x7b, 57344],
    ['float8e5m2', 0x01, 2 ** -16],
    ['float8e5m2', 0x7c, Infinity],
    ['float8e5m2', 0xfc, -Infinity],
    ['float8e5m2', 0x7d, NaN],
    ['float8e5m2fnuz', 0x40, 1],
    ['float8e5m2fnuz', 0x7f, 57344],
    ['float8e5m2fnuz', 0x01, 2 ** -17],
    ['float8e5m2fnuz', 0x80, NaN],
    ['float8e8m0', 0x7f, 1],
    ['float8e8m0', 0x00, 2 ** -127],
    ['float8e8m0', 0xfe, 2 ** 127],
    ['float8e8m0', 0xff, NaN],
    ['float4e2m1', 0x1, 0.5],
    ['float4e2m1', 0x2, 1],
    ['float4e2m1', 0x7, 6],
    ['float4e2m1', 0xf, -6],
    ['int4', 0x7, 7],
    ['int4', 0x8, -8],
    ['int4', 0xf, -1],
    ['uint4', 0xf, 15],
    ['int2', 0x1, 1],
    ['int2', 0x2, -2],
    ['int2', 0x3, -1],
    ['uint2', 0x3, 3],
  ];
  it.each(anchors)('%s bits 0x%s', (f, bits, value) => {
    expect(decodeFormat(f, bits)).toBe(value);
  });

  it.each([...NARROW_FORMATS])('%s packs and unpacks ONNX bytes (odd lengths padded)', (f) => {
    const n = 2 ** formatBits(f);
    for (const length of [n, n - 1, 3]) {
      const values = Array.from({ length }, (_, i) => decodeFormat(f, (i * 7 + 3) % n));
      const bytes = packFormat(f, values);
      expect(bytes.length).toBe(Math.ceil((length * formatBits(f)) / 8));
      const back = Array.from(unpackFormat(f, bytes, length));
      expect(back.map(String)).toEqual(values.map((v) => String(Math.fround(v))));
    }
  });
});

/** Inputs that reach every rounding rule: each value, each tie between neighbours and the points just beside it. */
function probes(f: NarrowFormat): number[] {
  const n = 2 ** formatBits(f);
  const values = [...new Set(Array.from({ length: n }, (_, b) => decodeFormat(f, b)).filter(Number.isFinite))].sort(
    (a, b) => a - b,
  );
  const out = [...values, NaN, Infinity, -Infinity, -0, 1e9, -1e9];
  for (let i = 0; i + 1 < values.length; i++) {
    const mid = (values[i]! + values[i + 1]!) / 2;
    const step = (values[i + 1]! - values[i]!) / 64;
    out.push(mid, mid + step, mid - step);
  }
  // Past the largest value: ties and points beyond it.
  const top = values[values.length - 1]!;
  const ulp = top - values[values.length - 2]!;
  out.push(top + ulp / 2, top + ulp / 4, top + ulp, -(top + ulp / 2), -(top + ulp));
  // Integer formats also take fractions and values past their range (truncated, then wrapped).
  if (f.includes('int')) out.push(2.7, -2.7, 17, -17, 255, -256, 1e6 + 0.5);
  return out.map(Math.fround);
}

describe('raf.op.round_to_format agrees with the float64 reference', () => {
  for (const f of NARROW_FORMATS)
    for (const saturate of [true, false])
      for (const round_mode of f === 'float8e8m0' ? ['up', 'down', 'nearest'] : ['up'])
        it(`${f}, saturate ${saturate}${f === 'float8e8m0' ? `, ${round_mode}` : ''}`, () => {
          const inputs = probes(f);
          // e8m0 reads float32 exponents: its probes stay normal float32 numbers (ONNX leaves subnormals aside).
          const xs = f === 'float8e8m0' ? inputs.filter((v) => !(Math.abs(v) < 2 ** -126)) : inputs;
          const x = tensor(xs, { dtype: 'float32' });
          const got = ops.roundToFormat(x, f, saturate, round_mode);
          expect(got.dtype).toBe(carrierOf(f));
          const want = reference({ x }, { format: f, saturate, round_mode });
          expect(Array.from(got.dataSync() as ArrayLike<number>).map(String)).toEqual(
            want.map((v) => String(Math.fround(v))),
          );
        });

  it('refuses a format it does not know, naming the argument', () => {
    expect(() => ops.roundToFormat(tensor([1]), 'int3')).toThrow(/round_to_format.*format/);
  });
});

// ---- imported models ----

const INT4 = 22;
const UINT4 = 21;
const FLOAT8E4M3FN = 17;

/** int4 codes from a seeded generator, with every code -8..7 present. */
function codes(n: number, seed: number, lo: number, hi: number): number[] {
  return lcgValues(n, seed).map((v, i) => (i < hi - lo + 1 ? lo + i : Math.floor(((v + 1) / 2) * (hi - lo + 1)) + lo));
}

describe('imported models with narrow types', () => {
  it('QDQ int4 weights, blocked along K (onnxruntime 4-bit quantizer), against onnxruntime and float64', async () => {
    const [M, K, N, B] = [3, 32, 8, 16];
    const w = codes(K * N, 5, -8, 7);
    const zp = codes((K / B) * N, 6, -8, 7);
    const scale = lcgValues((K / B) * N, 7).map((v) => Math.fround(0.01 + Math.abs(v) * 0.05));
    const x = lcgValues(M * K, 8).map(Math.fround);
    const spec: ModelSpec = {
      nodes: [
        { op: 'DequantizeLinear', inputs: ['w', 'scale', 'zp'], outputs: ['wf'], attrs: { axis: 0, block_size: B } },
        { op: 'MatMul', inputs: ['x', 'wf'], outputs: ['y'] },
      ],
      inputs: [{ name: 'x', dtype: 'float32', shape: [M, K] }],
      outputs: [{ name: 'y', dtype: 'float32', shape: [M, N] }],
      initializers: [
        { name: 'w', dtype: 'int8', shape: [K, N], data: Array.from(packFormat('int4', w)), elemType: INT4 },
        { name: 'zp', dtype: 'int8', shape: [K / B, N], data: Array.from(packFormat('int4', zp)), elemType: INT4 },
        { name: 'scale', dtype: 'float32', shape: [K / B, N], data: scale },
      ],
      opset: 21,
    };
    const model = buildModel(spec);
    const got = loadOnnx(model).run({ x: tensor(x, { shape: [M, K] }) }).y!;
    // float64: y[m][n] = Σk x[m][k] · (w[k][n] - zp[k/B][n]) · scale[k/B][n].
    const want = Array.from({ length: M * N }, (_, i) => {
      const [m, n] = [Math.floor(i / N), i % N];
      let s = 0;
      for (let k = 0; k < K; k++) {
        const b = Math.floor(k / B) * N + n;
        s += x[m * K + k]! * (w[k * N + n]! - zp[b]!) * scale[b]!;
      }
      return s;
    });
    const ort = toFloat64(
      (await runOnnxModel(model, { x: { dtype: 'float32', shape: [M, K], data: Float32Array.from(x) } }))[0]!,
    );
    const values = Array.from(got.dataSync() as Float32Array);
    for (let i = 0; i < want.length; i++) {
      expect(Math.abs(values[i]! - want[i]!)).toBeLessThan(1e-5 * (1 + Math.abs(want[i]!)));
      expect(Math.abs(values[i]! - ort[i]!)).toBeLessThan(1e-5 * (1 + Math.abs(ort[i]!)));
    }
  });

  it('an int4 output (QuantizeLinear per axis) is its int8 carrier holding the saturated codes', () => {
    const x = lcgValues(12, 9).map((v) => Math.fround(v * 3));
    const scale = [0.25, 0.5, 0.125];
    const model = buildModel({
      nodes: [{ op: 'QuantizeLinear', inputs: ['x', 'scale', 'zp'], outputs: ['q'], attrs: { axis: 1 } }],
      inputs: [{ name: 'x', dtype: 'float32', shape: [4, 3] }],
      outputs: [{ name: 'q', dtype: 'int8', elemType: INT4, shape: [4, 3] }],
      initializers: [
        { name: 'scale', dtype: 'float32', shape: [3], data: scale },
        { name: 'zp', dtype: 'int8', shape: [3], data: Array.from(packFormat('int4', [1, 0, -1])), elemType: INT4 },
      ],
      opset: 21,
    });
    const session = loadOnnx(model);
    expect(session.model.outputs[0]!.format).toBe('int4');
    const q = session.run({ x: tensor(x, { shape: [4, 3] }) }).q!;
    expect(q.dtype).toBe('int8');
    const zp = [1, 0, -1];
    const want = x.map((v, i) => {
      const r = Math.fround(v / scale[i % 3]!);
      const even = Math.round(r) - (Math.abs(r % 1) === 0.5 && Math.round(r) % 2 !== 0 ? 1 : 0);
      return Math.min(7, Math.max(-8, even + zp[i % 3]!));
    });
    expect(Array.from(q.dataSync() as Int8Array)).toEqual(want);
  });

  it('float8 weights dequantized per axis, and a uint4 input, against onnxruntime and float64', async () => {
    const w = [448, -0.5, 2 ** -9, 3.5, -240, 1, 0.875, -6].map(Math.fround);
    const u = [0, 15, 7, 3, 9, 1, 12, 5];
    const uInit = {
      name: 'u',
      dtype: 'uint8' as const,
      shape: [2, 4],
      data: Array.from(packFormat('uint4', u)),
      elemType: UINT4,
    };
    // u is the model's input here, and an initializer for onnxruntime-node, whose JavaScript tensors have no uint4.
    const build = (uIsInput: boolean) =>
      buildModel({
        nodes: [
          { op: 'DequantizeLinear', inputs: ['w', 'ws'], outputs: ['wf'], attrs: { axis: 1 } },
          { op: 'DequantizeLinear', inputs: ['u', 'us', 'uz'], outputs: ['uf'] },
          { op: 'Mul', inputs: ['wf', 'uf'], outputs: ['y'] },
        ],
        inputs: uIsInput ? [{ name: 'u', dtype: 'uint8', elemType: UINT4, shape: [2, 4] }] : [],
        outputs: [{ name: 'y', dtype: 'float32', shape: [2, 4] }],
        initializers: [
          {
            name: 'w',
            dtype: 'uint8',
            shape: [2, 4],
            data: Array.from(packFormat('float8e4m3fn', w)),
            elemType: FLOAT8E4M3FN,
          },
          { name: 'ws', dtype: 'float32', shape: [4], data: [0.5, 2, 0.25, 1] },
          { name: 'us', dtype: 'float32', shape: [], data: [0.1] },
          { name: 'uz', dtype: 'uint8', shape: [], data: Array.from(packFormat('uint4', [3])), elemType: UINT4 },
          ...(uIsInput ? [] : [uInit]),
        ],
        opset: 21,
      });
    const got = Array.from(
      loadOnnx(build(true))
        .run({ u: tensor(u, { dtype: 'uint8', shape: [2, 4] }) })
        .y!.dataSync(),
    );
    const ortY = Array.from(toFloat64((await runOnnxModel(build(false), {}))[0]!));
    const scales = [0.5, 2, 0.25, 1];
    const want = w.map((v, i) =>
      Math.fround(Math.fround(v * scales[i % 4]!) * Math.fround((u[i]! - 3) * Math.fround(0.1))),
    );
    expect(got).toEqual(want);
    expect(got).toEqual(ortY);
  });

  it('refuses an input value its narrow type does not have, naming the input', () => {
    const model = buildModel({
      nodes: [{ op: 'Cast', inputs: ['u'], outputs: ['y'], attrs: { to: 1 } }],
      inputs: [{ name: 'u', dtype: 'int8', elemType: INT4, shape: [3] }],
      outputs: [{ name: 'y', dtype: 'float32', shape: [3] }],
      opset: 21,
    });
    const session = loadOnnx(model);
    expect(() => session.run({ u: tensor([1, 9, 2], { dtype: 'int8' }) })).toThrow(
      /input 'u' is ONNX int4 \(held in int8\): element 1 is 9, not a int4 value/,
    );
    expect(() => session.run({ u: tensor([1, 2, 3], { dtype: 'float32' }) })).toThrow(
      /holds it in int8|in int8; it was given float32/,
    );
    expect(Array.from(session.run({ u: tensor([1, -8, 7], { dtype: 'int8' }) }).y!.dataSync())).toEqual([1, -8, 7]);
  });
});
