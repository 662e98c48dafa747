// ONNX's training-domain Gradient (runtime/src/graph/onnx/forms-contrib.ts): the derivatives of a value of the graph
// with respect to others, at the node's inputs, against closed forms computed here in float64. onnxruntime-node has
// no kernel for it, so the closed forms are the reference.

import { describe, expect, it } from 'vitest';
import { randomUniform, type Tensor } from '../../runtime/src/index.ts';
import { execute } from '../../runtime/src/graph/index.ts';
import { fromOnnx } from '../../runtime/src/graph/frontends/from-onnx.ts';
import { buildModel, type NodeSpec } from '../support/onnx-proto.ts';
import { assertAllClose } from '../support/assert.ts';

const TRAINING = 'ai.onnx.preview.training';
const [N, K, M] = [3, 4, 5];
const rnd = (shape: number[], seed: number) => randomUniform(shape, { seed, low: -1, high: 1 });
const f64 = (t: Tensor) => Array.from(t.dataSync() as ArrayLike<number>);

/** x [N, K], w [K, M], z [N, M]; h = tanh(x · w) in float64. */
function forward(x: number[], w: number[], z: number[]) {
  const h = new Array<number>(N * M).fill(0);
  for (let i = 0; i < N; i++)
    for (let j = 0; j < M; j++) {
      let s = 0;
      for (let k = 0; k < K; k++) s += x[i * K + k]! * w[k * M + j]!;
      h[i * M + j] = Math.tanh(s);
    }
  // d(sum(h · z)) / d(x · w), elementwise.
  const dPre = h.map((v, i) => (1 - v * v) * z[i]!);
  const dW = new Array<number>(K * M).fill(0);
  const dX = new Array<number>(N * K).fill(0);
  for (let i = 0; i < N; i++)
    for (let j = 0; j < M; j++)
      for (let k = 0; k < K; k++) {
        dW[k * M + j] += x[i * K + k]! * dPre[i * M + j]!;
        dX[i * K + k] += w[k * M + j]! * dPre[i * M + j]!;
      }
  return { h, dW, dX };
}

const model = (nodes: NodeSpec[], inputs: [string, number[]][], outputs: string[]) =>
  buildModel({
    nodes,
    inputs: inputs.map(([name, shape]) => ({ name, dtype: 'float32' as const, shape })),
    outputs: outputs.map((name) => ({ name })),
    opset: [
      { domain: '', version: 17 },
      { domain: TRAINING, version: 1 },
    ],
  });

const body: NodeSpec[] = [
  { op: 'MatMul', inputs: ['x', 'w'], outputs: ['p'] },
  { op: 'Tanh', inputs: ['p'], outputs: ['h'] },
  { op: 'Mul', inputs: ['h', 'z'], outputs: ['hz'] },
  { op: 'ReduceSum', inputs: ['hz'], outputs: ['y'], attrs: { keepdims: 0 } },
];

describe('ai.onnx.preview.training.Gradient', () => {
  const [x, w, z] = [rnd([N, K], 1), rnd([K, M], 2), rnd([N, M], 3)];
  const want = forward(f64(x), f64(w), f64(z));

  it('differentiates a scalar through MatMul, Tanh and Mul, with zs held', () => {
    const g = fromOnnx(
      model(
        [
          ...body,
          {
            op: 'Gradient',
            domain: TRAINING,
            inputs: ['w', 'x', 'z'],
            outputs: ['dw', 'dx'],
            attrs: { xs: ['w', 'x'], zs: ['z'], y: 'y' },
          },
        ],
        [
          ['x', [N, K]],
          ['w', [K, M]],
          ['z', [N, M]],
        ],
        ['y', 'dw', 'dx'],
      ),
    );
    const [y, dw, dx] = execute(g, [x, w, z]);
    assertAllClose(f64(y!), [want.h.reduce((s, v, i) => s + v * f64(z)[i]!, 0)], { atol: 1e-5, rtol: 1e-5 });
    assertAllClose(f64(dw!), want.dW, { atol: 1e-5, rtol: 1e-5 });
    assertAllClose(f64(dx!), want.dX, { atol: 1e-5, rtol: 1e-5 });
  });

  it('seeds a non-scalar y with ones (the gradient of its sum)', () => {
    const g = fromOnnx(
      model(
        [
          ...body.slice(0, 3),
          { op: 'Gradient', domain: TRAINING, inputs: ['w'], outputs: ['dw'], attrs: { xs: ['w'], y: 'hz' } },
        ],
        [
          ['x', [N, K]],
          ['w', [K, M]],
          ['z', [N, M]],
        ],
        ['dw'],
      ),
    );
    assertAllClose(f64(execute(g, [x, w, z])[0]!), want.dW, { atol: 1e-5, rtol: 1e-5 });
  });

  it('differentiates by an intermediate value, at the value the node is given', () => {
    // y2 = sum(h · h · z): dy2/dh = 2 · h · z, taken at h1 rather than at the h the graph computes.
    const h1 = rnd([N, M], 4);
    const g = fromOnnx(
      model(
        [
          ...body.slice(0, 2),
          { op: 'Mul', inputs: ['h', 'h'], outputs: ['hh'] },
          { op: 'Mul', inputs: ['hh', 'z'], outputs: ['hhz'] },
          { op: 'ReduceSum', inputs: ['hhz'], outputs: ['y2'], attrs: { keepdims: 0 } },
          {
            op: 'Gradient',
            domain: TRAINING,
            inputs: ['h1', 'z'],
            outputs: ['dh'],
            attrs: { xs: ['h'], zs: ['z'], y: 'y2' },
          },
        ],
        [
          ['x', [N, K]],
          ['w', [K, M]],
          ['z', [N, M]],
          ['h1', [N, M]],
        ],
        ['dh'],
      ),
    );
    const dh = f64(execute(g, [x, w, z, h1])[0]!);
    assertAllClose(
      dh,
      f64(h1).map((v, i) => 2 * v * f64(z)[i]!),
      { atol: 1e-6, rtol: 1e-6 },
    );
  });

  it('refuses an integer xs naming it', () => {
    const bytes = buildModel({
      nodes: [
        { op: 'Add', inputs: ['a', 'b'], outputs: ['c'] },
        { op: 'Gradient', domain: TRAINING, inputs: ['a'], outputs: ['da'], attrs: { xs: ['a'], y: 'c' } },
      ],
      inputs: [
        { name: 'a', dtype: 'int32', shape: [2] },
        { name: 'b', dtype: 'int32', shape: [2] },
      ],
      outputs: [{ name: 'da' }],
      opset: [
        { domain: '', version: 17 },
        { domain: TRAINING, version: 1 },
      ],
    });
    expect(() => fromOnnx(bytes)).toThrow(/Gradient's xs 'a' is int32; only float values have gradients/);
  });
});
