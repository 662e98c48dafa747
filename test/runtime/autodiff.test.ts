// Eager autodiff: what the tape keeps, gradients of broadcast inputs, grad(), and gradcheck against analytic values.

import { describe, expect, it } from 'vitest';
import { backward, grad, gradcheck, ops, randomUniform, tensor, type Tensor } from '../../runtime/src/index.ts';

describe('the tape keeps only what the spec saves', () => {
  it("softmax's node holds y (and its axis), not x", () => {
    const x = tensor([[1, 2, 3]], { dtype: 'float64' }).requireGrad();
    const y = ops.softmax(x);
    expect(Object.keys(y.node!.saved).sort()).toEqual(['axis', 'y']);
    expect(y.node!.saved.y).toBe(y);
    expect(Object.values(y.node!.saved)).not.toContain(x);
  });
  it('exp keeps its output, log keeps its input, add keeps nothing', () => {
    const x = tensor([1, 2], { dtype: 'float64' }).requireGrad();
    expect(Object.keys(ops.exp(x).node!.saved)).toEqual(['y']);
    expect(Object.keys(ops.log(x).node!.saved)).toEqual(['x']);
    expect(Object.keys(ops.add(x, x).node!.saved)).toEqual([]);
  });
  it('records nothing when no input requires grad', () => {
    expect(ops.exp(tensor([1, 2])).node).toBeUndefined();
  });
});

describe('gradients', () => {
  it('softmax: matches the closed form y * (w - sum(w * y))', () => {
    const xv = [0.5, -1, 2];
    const w = [1, 2, -1];
    const x = tensor(xv, { dtype: 'float64' }).requireGrad();
    const y = ops.softmax(x);
    backward(ops.sum(ops.multiply(y, tensor(w, { dtype: 'float64' }))));
    const e = xv.map(Math.exp);
    const s = e.reduce((a, b) => a + b);
    const yv = e.map((v) => v / s);
    const dot = yv.reduce((a, v, i) => a + v * w[i]!, 0);
    const expected = yv.map((v, i) => v * (w[i]! - dot));
    Array.from(x.grad!.dataSync()).forEach((g, i) => expect(g).toBeCloseTo(expected[i]!, 12));
  });

  it('broadcast inputs get gradients summed back to their own shape', () => {
    const a = tensor(
      [
        [1, 2, 3],
        [4, 5, 6],
      ],
      { dtype: 'float64' },
    );
    const b = tensor([10, 20, 30], { dtype: 'float64' });
    const [ga, gb] = grad((a, b) => ops.multiply(a, b))(a, b);
    expect(ga!.shape).toEqual([2, 3]);
    expect(Array.from(ga!.dataSync())).toEqual([10, 20, 30, 10, 20, 30]);
    expect(gb!.shape).toEqual([3]);
    expect(Array.from(gb!.dataSync())).toEqual([5, 7, 9]);
  });

  it('accumulates over every use of a tensor', () => {
    const [g] = grad((x) => ops.add(ops.multiply(x, x), x))(tensor([3], { dtype: 'float64' }));
    expect(g!.item()).toBe(7); // d(x² + x) = 2x + 1
  });

  it('relu has the derived gradient: 1 above zero, 0 below', () => {
    const [g] = grad((x) => ops.relu(x))(tensor([-2, -0.5, 0.5, 3], { dtype: 'float64' }));
    expect(Array.from(g!.dataSync())).toEqual([0, 0, 1, 1]);
  });

  it('gradcheck passes for a composite function and catches a wrong gradient', () => {
    const x = randomUniform([3, 4], { dtype: 'float64', seed: 3 });
    const w = randomUniform([4, 2], { dtype: 'float64', seed: 4 });
    const f = (x: Tensor, w: Tensor) => ops.logSoftmax(ops.matmul(ops.exp(x), w), 0);
    expect(gradcheck(f, [x, w])).toEqual([]);
    // x * (a detached copy of x): the tape sees d/dx = x, the true derivative of x² is 2x.
    const wrong = (x: Tensor) => ops.multiply(x, tensor(x.dataSync(), { dtype: 'float64', shape: x.shape }));
    expect(gradcheck(wrong, [x]).length).toBeGreaterThan(0);
  });
});
