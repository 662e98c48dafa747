// Proves the ONNX Runtime oracle (and the hand-written ONNX protobuf subset) against values computed independently in plain JS.
import { afterAll, describe, expect, it } from 'vitest';
import protobuf from 'protobufjs';
import {
  oracleCacheSize,
  releaseOracleSessions,
  runOnnxModel,
  runOnnxOp,
  toFloat64,
  type OracleTensor,
} from './onnx-oracle.ts';
import { buildModel, buildSingleNodeModel, decodeModel, tensorFromProto } from './onnx-proto.ts';

afterAll(() => releaseOracleSessions());

function f64(shape: number[], data: number[]): OracleTensor {
  return { dtype: 'float64', shape, data: Float64Array.from(data) };
}

function expectClose(actual: ArrayLike<number>, expected: ArrayLike<number>, tol: number): void {
  expect(actual.length).toBe(expected.length);
  for (let i = 0; i < expected.length; i++) {
    const e = expected[i]!;
    const a = actual[i]!;
    if (Math.abs(a - e) > tol * Math.max(1, Math.abs(e))) {
      throw new Error(`element ${i}: got ${a}, expected ${e} (tol ${tol})`);
    }
  }
}

// Row-major [.., m, k] x [k, n] reference, with the batch on the left operand only.
function matmulRef(
  a: number[],
  b: number[],
  batch: number,
  m: number,
  k: number,
  n: number,
  bBatched: boolean,
): number[] {
  const out: number[] = [];
  for (let p = 0; p < batch; p++) {
    const bOff = bBatched ? p * k * n : 0;
    for (let i = 0; i < m; i++) {
      for (let j = 0; j < n; j++) {
        let s = 0;
        for (let t = 0; t < k; t++) s += a[p * m * k + i * k + t]! * b[bOff + t * n + j]!;
        out.push(s);
      }
    }
  }
  return out;
}

const seq = (n: number, scale = 0.25, shift = -1) => Array.from({ length: n }, (_, i) => i * scale + shift);

describe('runOnnxOp', () => {
  it('Softmax axis=-1 on float64 matches a hand loop', async () => {
    const x = [1, 2, 3, -1, 0.5, 4];
    const [y] = await runOnnxOp({ op: 'Softmax', attrs: { axis: -1 }, inputs: [f64([2, 3], x)] });
    const ref: number[] = [];
    for (let r = 0; r < 2; r++) {
      const row = x.slice(r * 3, r * 3 + 3);
      const m = Math.max(...row);
      const e = row.map((v) => Math.exp(v - m));
      const s = e.reduce((a, b) => a + b, 0);
      ref.push(...e.map((v) => v / s));
    }
    expect(y!.dtype).toBe('float64');
    expect(y!.shape).toEqual([2, 3]);
    expect(y!.data).toBeInstanceOf(Float64Array);
    expectClose(y!.data as Float64Array, ref, 1e-14);
  });

  it('LogSoftmax matches log of softmax', async () => {
    const x = [0.3, -2, 5, 1, 1, 1];
    const [y] = await runOnnxOp({ op: 'LogSoftmax', attrs: { axis: 1 }, inputs: [f64([2, 3], x)] });
    const ref: number[] = [];
    for (let r = 0; r < 2; r++) {
      const row = x.slice(r * 3, r * 3 + 3);
      const m = Math.max(...row);
      const lse = m + Math.log(row.reduce((a, v) => a + Math.exp(v - m), 0));
      ref.push(...row.map((v) => v - lse));
    }
    expectClose(y!.data as Float64Array, ref, 1e-14);
  });

  it('Add broadcasts [2,3] + [3]', async () => {
    const a = [1, 2, 3, 4, 5, 6];
    const b = [10, 20, 30];
    const [y] = await runOnnxOp({ op: 'Add', inputs: [f64([2, 3], a), f64([3], b)] });
    expect(y!.shape).toEqual([2, 3]);
    expect(Array.from(y!.data as Float64Array)).toEqual([11, 22, 33, 14, 25, 36]);
  });

  it('ReduceSum (opset 13) with axes input and keepdims 0', async () => {
    const x = seq(6, 1, 1); // 1..6
    const [y] = await runOnnxOp({
      op: 'ReduceSum',
      opset: 13,
      attrs: { keepdims: 0 },
      inputs: [f64([2, 3], x), { dtype: 'int64', shape: [1], data: BigInt64Array.from([1n]) }],
    });
    expect(y!.shape).toEqual([2]);
    expect(Array.from(y!.data as Float64Array)).toEqual([6, 15]);
  });

  it('ReduceSum with axes omitted reduces everything', async () => {
    const x = seq(6, 1, 1);
    const [flat] = await runOnnxOp({ op: 'ReduceSum', attrs: { keepdims: false }, inputs: [f64([2, 3], x), null] });
    expect(flat!.shape).toEqual([]);
    expect(Array.from(flat!.data as Float64Array)).toEqual([21]);
    const [kept] = await runOnnxOp({ op: 'ReduceSum', inputs: [f64([2, 3], x)] });
    expect(kept!.shape).toEqual([1, 1]);
    expect(Array.from(kept!.data as Float64Array)).toEqual([21]);
  });

  it('MatMul [2,3,4] x [4,5] and [2,3,4] x [2,4,5]', async () => {
    const a = seq(24, 0.125, -1.5);
    const b = seq(20, -0.1, 1);
    const [y] = await runOnnxOp({ op: 'MatMul', inputs: [f64([2, 3, 4], a), f64([4, 5], b)] });
    expect(y!.shape).toEqual([2, 3, 5]);
    expectClose(y!.data as Float64Array, matmulRef(a, b, 2, 3, 4, 5, false), 1e-13);

    const b2 = seq(40, 0.05, -1);
    const [z] = await runOnnxOp({ op: 'MatMul', inputs: [f64([2, 3, 4], a), f64([2, 4, 5], b2)] });
    expect(z!.shape).toEqual([2, 3, 5]);
    expectClose(z!.data as Float64Array, matmulRef(a, b2, 2, 3, 4, 5, true), 1e-13);
  });

  it('Shape returns int64 as BigInt64Array', async () => {
    const [s] = await runOnnxOp({ op: 'Shape', inputs: [f64([2, 3, 4], seq(24))] });
    expect(s!.dtype).toBe('int64');
    expect(s!.shape).toEqual([3]);
    expect(s!.data).toBeInstanceOf(BigInt64Array);
    expect(Array.from(s!.data as BigInt64Array)).toEqual([2n, 3n, 4n]);
    expect(Array.from(toFloat64(s!))).toEqual([2, 3, 4]);
  });

  it('Relu and Exp elementwise', async () => {
    const x = [-2, -0.5, 0, 0.5, 2, 3];
    const [r] = await runOnnxOp({ op: 'Relu', inputs: [f64([2, 3], x)] });
    expect(Array.from(r!.data as Float64Array)).toEqual(x.map((v) => Math.max(0, v)));
    const [e] = await runOnnxOp({ op: 'Exp', inputs: [f64([6], x)] });
    expectClose(e!.data as Float64Array, x.map(Math.exp), 1e-15);
  });

  it('float32 inputs give float32 outputs', async () => {
    const a = [0.1, 0.2, 0.3, 1.5, -2.25, 7];
    const b = [0.7, -0.3, 1e-3];
    const [y] = await runOnnxOp({
      op: 'Add',
      inputs: [
        { dtype: 'float32', shape: [2, 3], data: Float32Array.from(a) },
        { dtype: 'float32', shape: [3], data: b },
      ],
    });
    expect(y!.dtype).toBe('float32');
    expect(y!.data).toBeInstanceOf(Float32Array);
    const ref = a.map((v, i) => Math.fround(Math.fround(v) + Math.fround(b[i % 3]!)));
    expect(Array.from(y!.data as Float32Array)).toEqual(ref);

    const [e] = await runOnnxOp({ op: 'Exp', inputs: [{ dtype: 'float32', shape: [6], data: a }] });
    expectClose(
      e!.data as Float32Array,
      a.map((v) => Math.exp(Math.fround(v))),
      1e-6,
    );
  });

  it('float attributes need the wrapper when integral; null skips a middle input', async () => {
    const x = [-1, -0.5, 0, 2];
    const [y] = await runOnnxOp({ op: 'LeakyRelu', attrs: { alpha: { float: 2 } }, inputs: [f64([4], x)] });
    expect(Array.from(y!.data as Float64Array)).toEqual([-2, -1, 0, 2]);
    // Clip(x, min="", max=1): only the upper bound applies.
    const [c] = await runOnnxOp({ op: 'Clip', inputs: [f64([4], x), null, f64([], [1])] });
    expect(Array.from(c!.data as Float64Array)).toEqual([-1, -0.5, 0, 1]);
  });

  it('multiple outputs and bool outputs', async () => {
    const [vals, idx] = await runOnnxOp({
      op: 'TopK',
      outputs: 2,
      inputs: [f64([5], [3, 1, 4, 1, 5]), { dtype: 'int64', shape: [1], data: [2] }],
    });
    expect(Array.from(vals!.data as Float64Array)).toEqual([5, 4]);
    expect(Array.from(idx!.data as BigInt64Array)).toEqual([4n, 2n]);
    const [eq] = await runOnnxOp({ op: 'Equal', inputs: [f64([3], [1, 2, 3]), f64([3], [1, 0, 3])] });
    expect(eq!.dtype).toBe('bool');
    expect(Array.from(eq!.data as Uint8Array)).toEqual([1, 0, 1]);
  });

  it('INT64_MAX given as a JS number saturates instead of wrapping', async () => {
    const x = f64([4], [1, 2, 3, 4]);
    const i64 = (v: number) => ({ dtype: 'int64' as const, shape: [1], data: [v] });
    const [a] = await runOnnxOp({ op: 'Slice', inputs: [x, i64(1), i64(9223372036854775807)] });
    expect(Array.from(a!.data as Float64Array)).toEqual([2, 3, 4]);
    // Opset 9 Slice takes ends as an INTS attribute, exercising the attribute path.
    const [b] = await runOnnxOp({
      op: 'Slice',
      opset: 9,
      attrs: { starts: [1], ends: [9223372036854775807] },
      inputs: [x],
    });
    expect(Array.from(b!.data as Float64Array)).toEqual([2, 3, 4]);
  });

  it('caches sessions for identical models', async () => {
    const spec = { op: 'Neg', inputs: [f64([3], [1, 2, 3])] };
    await runOnnxOp(spec);
    const n = oracleCacheSize();
    const [y] = await runOnnxOp({ op: 'Neg', inputs: [f64([3], [4, 5, 6])] });
    expect(oracleCacheSize()).toBe(n);
    expect(Array.from(y!.data as Float64Array)).toEqual([-4, -5, -6]);
  });

  it('surfaces ORT errors (wrong attribute type)', async () => {
    // A plain integral number becomes an INT attribute, which LeakyRelu must reject.
    await expect(runOnnxOp({ op: 'LeakyRelu', attrs: { alpha: 2 }, inputs: [f64([1], [1])] })).rejects.toThrow();
  });
});

describe('buildModel', () => {
  it('2-node MatMul -> Relu model with an initializer', async () => {
    const x = seq(6, 0.5, -1.2); // [2,3]
    const w = seq(12, -0.3, 1.1); // [3,4]
    const model = buildModel({
      nodes: [
        { op: 'MatMul', inputs: ['x', 'w'], outputs: ['h'] },
        { op: 'Relu', inputs: ['h'], outputs: ['y'] },
      ],
      inputs: [{ name: 'x', dtype: 'float64', shape: ['batch', 3] }],
      outputs: [{ name: 'y', dtype: 'float64', shape: ['batch', 4] }],
      initializers: [{ name: 'w', dtype: 'float64', shape: [3, 4], data: w }],
    });
    const [y] = await runOnnxModel(model, { x: f64([2, 3], x) }, ['y']);
    const ref = matmulRef(x, w, 1, 2, 3, 4, false).map((v) => Math.max(0, v));
    expect(y!.shape).toEqual([2, 4]);
    expectClose(y!.data as Float64Array, ref, 1e-14);
    expect(ref.some((v) => v === 0) && ref.some((v) => v > 0)).toBe(true);
  });

  it('writes the ONNX field numbers at the top level of ModelProto', () => {
    const bytes = buildSingleNodeModel({ op: 'Relu', inputs: [f64([2], [1, 2])] });
    const reader = protobuf.Reader.create(bytes);
    const fields = new Set<number>();
    while (reader.pos < reader.len) {
      const tag = reader.uint32();
      fields.add(tag >>> 3);
      reader.skipType(tag & 7);
    }
    // ir_version=1, producer_name=2, graph=7, opset_import=8.
    expect([...fields].sort((a, b) => a - b)).toEqual([1, 2, 7, 8]);
  });

  it('round-trips through decodeModel, keeping int64 exact via raw_data', () => {
    const big = BigInt64Array.from([9223372036854775807n, -9223372036854775808n, 5n]);
    const bytes = buildModel({
      nodes: [
        { op: 'Identity', inputs: ['c'], outputs: ['y'], attrs: { s: 'hi', fs: { floats: [0.5, 1] }, is: [1, 2] } },
      ],
      inputs: [],
      outputs: [{ name: 'y' }],
      initializers: [{ name: 'c', dtype: 'int64', shape: [3], data: big }],
      opset: 13,
    });
    const m = decodeModel(bytes);
    expect(m.irVersion).toBe(7);
    expect(m.opsetImport).toEqual([{ domain: '', version: 13 }]);
    const node = m.graph.node[0];
    expect(node.opType).toBe('Identity');
    const attrs = Object.fromEntries(node.attribute.map((a: any) => [a.name, a]));
    expect(new TextDecoder().decode(attrs.s.s)).toBe('hi');
    expect(attrs.s.type).toBe(3);
    expect(attrs.fs.floats).toEqual([0.5, 1]);
    expect(attrs.fs.type).toBe(6);
    expect(attrs.is.ints).toEqual([1, 2]);
    expect(attrs.is.type).toBe(7);
    const t = tensorFromProto(m.graph.initializer[0]);
    expect(t.dtype).toBe('int64');
    expect(t.shape).toEqual([3]);
    expect(Array.from(t.data as BigInt64Array)).toEqual(Array.from(big));
  });
});
