// FromOnnxOptions.float32 'float64': a float32 model imported with every float value widened computes in float64, so
// it agrees with a float64 reference of the same (float32-valued) weights to float64 rounding, where the float32
// import is only float32-close. The fine-tuning test (test/train/bert-finetune.test.ts) runs BERT this way.

import { describe, expect, it } from 'vitest';
import { tensor } from '../../runtime/src/index.ts';
import { execute, fromOnnx } from '../../runtime/src/graph/index.ts';
import { buildModel } from '../support/onnx-proto.ts';

// y = Softmax((x · W + b) · s), s a Constant node's value_float; Mean and InvStdDev of a LayerNormalization too.
const W = [0.31, -1.7, 0.45, 2.2, -0.93, 1.15];
const B = [0.1, -0.27];
const S = 1.3;
const bytes = buildModel({
  opset: 17,
  nodes: [
    { op: 'MatMul', inputs: ['x', 'W'], outputs: ['h'] },
    { op: 'Add', inputs: ['h', 'b'], outputs: ['z'] },
    { op: 'Constant', inputs: [], outputs: ['s'], attrs: { value_float: S } },
    { op: 'Mul', inputs: ['z', 's'], outputs: ['u'] },
    { op: 'Softmax', inputs: ['u'], outputs: ['y'], attrs: { axis: -1 } },
    { op: 'LayerNormalization', inputs: ['u', 'g', 'b'], outputs: ['n', 'mean', 'inv'], attrs: { axis: -1 } },
  ],
  inputs: [{ name: 'x', dtype: 'float32', shape: [2, 3] }],
  outputs: [{ name: 'y' }, { name: 'n' }, { name: 'mean' }, { name: 'inv' }],
  initializers: [
    { name: 'W', dtype: 'float32', shape: [3, 2], data: W },
    { name: 'b', dtype: 'float32', shape: [2], data: B },
    { name: 'g', dtype: 'float32', shape: [2], data: [1, 1] },
  ],
});

const X = [
  [0.7, -1.2, 0.33],
  [1.9, 0.05, -0.6],
];

/** The model in float64 from the float32 values it holds (the input fed as float64): y, and each row's mean of u. */
function reference(): { y: number[]; mean: number[] } {
  const f = Math.fround;
  const y: number[] = [];
  const mean: number[] = [];
  for (const row of X) {
    const u = [0, 1].map((j) => (row.reduce((acc, v, k) => acc + v * f(W[k * 2 + j]!), 0) + f(B[j]!)) * f(S));
    const m = Math.max(...u);
    const e = u.map((v) => Math.exp(v - m));
    const sum = e[0]! + e[1]!;
    y.push(...e.map((v) => v / sum));
    mean.push((u[0]! + u[1]!) / 2);
  }
  return { y, mean };
}

describe("fromOnnx with float32: 'float64'", () => {
  it('widens weights, inputs and constants, computes in float64, and matches a float64 reference to 1e-14', () => {
    const g = fromOnnx(bytes, { float32: 'float64' });
    expect(g.params[0]!.type.dtype).toBe('float64');
    const [y, n, mean, inv] = execute(g, [tensor(X, { dtype: 'float64' })]);
    for (const t of [y, n, mean, inv]) expect(t!.dtype).toBe('float64');
    const want = reference();
    const got = Array.from(y!.dataSync());
    got.forEach((v, i) => expect(Math.abs(v - want.y[i]!), `y[${i}]`).toBeLessThan(1e-14));
    Array.from(mean!.dataSync()).forEach((v, i) =>
      expect(Math.abs(v - want.mean[i]!), `mean[${i}]`).toBeLessThan(1e-14),
    );
    // The default float32 import is float32-close only: its error is far above float64's.
    const [y32] = execute(fromOnnx(bytes), [tensor(X, { dtype: 'float32' })]);
    expect(y32!.dtype).toBe('float32');
    const err32 = Math.max(...Array.from(y32!.dataSync()).map((v, i) => Math.abs(v - want.y[i]!)));
    expect(err32).toBeGreaterThan(1e-10);
    expect(err32).toBeLessThan(1e-6);
  });
});
