// AutoDiff pass: the backward graph built from the generated gradient registrations matches eager autodiff and central differences.

import { describe, expect, it } from 'vitest';
import { grad, ops, randomUniform, tensor, type Tensor } from '../../runtime/src/index.ts';
import { autodiff, execute, printGraph, trace } from '../../runtime/src/graph/index.ts';
import { assertAllClose } from '../support/assert.ts';

type Fn = (...xs: Tensor[]) => Tensor;

/** Central differences of sum(f(...)) with respect to input k, through the forward graph (not the tape). */
function numericGrad(run: (xs: Tensor[]) => Tensor, xs: Tensor[], k: number, eps = 1e-6): number[] {
  const base = Float64Array.from(xs[k]!.dataSync());
  const at = (v: Float64Array) => {
    const ys = xs.map((x, i) => (i === k ? tensor(v, { dtype: 'float64', shape: x.shape }) : x));
    return Array.from(run(ys).dataSync()).reduce((a, b) => a + b, 0);
  };
  return Array.from(base, (_, j) => {
    const p = Float64Array.from(base);
    const m = Float64Array.from(base);
    p[j]! += eps;
    m[j]! -= eps;
    return (at(p) - at(m)) / (2 * eps);
  });
}

const cases: readonly [string, Fn, number[][]][] = [
  [
    'broadcast add, multiply, log_softmax, sum',
    (x, b) => ops.sum(ops.logSoftmax(ops.multiply(ops.add(x, b), x), -1)),
    [[2, 3], [3]],
  ],
  [
    'matmul, relu, softmax (a shared value used twice)',
    (x, w) => {
      const h = ops.relu(ops.matmul(x, w));
      return ops.multiply(ops.softmax(h, 0), h);
    },
    [
      [3, 4],
      [4, 2],
    ],
  ],
  [
    'divide, exp, negative, reshape, sum over an axis',
    (a, b) => ops.sum(ops.reshape(ops.divide(ops.exp(ops.negative(a)), ops.add(ops.multiply(b, b), 1)), [6]), [0]),
    [
      [2, 3],
      [2, 1],
    ],
  ],
];

describe('AutoDiff pass', () => {
  it.each(cases)('%s: gradients equal eager mode and central differences', (_name, f, shapes) => {
    const xs = shapes.map((s, i) => randomUniform(s, { dtype: 'float64', seed: 10 + i, low: 0.2, high: 1.5 }));
    const forward = trace(f, xs);
    const backward = autodiff(forward, { seed: 'ones' });
    const [y, ...gs] = execute(backward, xs);
    expect(Array.from(y!.dataSync())).toEqual(Array.from(f(...xs).dataSync()));
    const eager = grad(f)(...xs);
    gs.forEach((g, k) => {
      assertAllClose(
        Array.from(g.dataSync()),
        Array.from(eager[k]!.dataSync()),
        { atol: 1e-12, rtol: 1e-12 },
        `d/dx${k} vs eager`,
      );
      const numeric = numericGrad((ys) => execute(forward, ys)[0]!, xs, k);
      assertAllClose(Array.from(g.dataSync()), numeric, { atol: 1e-5, rtol: 1e-3 }, `d/dx${k} vs central differences`);
    });
  });

  it('takes dy as a parameter and emits the backward ops of the specs', () => {
    const g = trace((x: Tensor) => ops.softmax(x, -1), [{ name: 'x', shape: [2, 3], dtype: 'float64' }]);
    const b = autodiff(g);
    expect(printGraph(b)).toBe(
      [
        'fn (%x: Tensor[(2, 3), float64], %dy: Tensor[(2, 3), float64]) {',
        '  %0 = raf.op.softmax(%x, -1);',
        '  %1 = raf.op.softmax_dx(%0, %dy, -1);',
        '  (%0, %1)',
        '}',
      ].join('\n'),
    );
    const x = randomUniform([2, 3], { dtype: 'float64', seed: 1 });
    const dy = randomUniform([2, 3], { dtype: 'float64', seed: 2 });
    const [, dx] = execute(b, [x, dy]);
    const eager = grad((x) => ops.sum(ops.multiply(ops.softmax(x, -1), dy)))(x);
    assertAllClose(Array.from(dx!.dataSync()), Array.from(eager[0]!.dataSync()), { atol: 1e-12, rtol: 1e-12 }, 'vjp');
  });

  it('differentiates a graph with several outputs: one seed per output, gradients of the weighted sum', () => {
    // x is also returned as is, so its gradient gets that output's seed directly.
    const f = (x: Tensor, w: Tensor) =>
      [ops.softmax(ops.matmul(x, w), -1), ops.sum(ops.multiply(x, x), [1]), x] as const;
    const g = trace(
      (x: Tensor, w: Tensor) => [...f(x, w)],
      [
        { name: 'x', shape: [2, 3], dtype: 'float64' },
        { name: 'w', shape: [3, 4], dtype: 'float64' },
      ],
    );
    const b = autodiff(g);
    expect(b.params.map((p) => p.hint)).toEqual(['x', 'w', 'dy0', 'dy1', 'dy2']);
    const [x, w] = [
      randomUniform([2, 3], { dtype: 'float64', seed: 3 }),
      randomUniform([3, 4], { dtype: 'float64', seed: 4 }),
    ];
    const dys = [
      randomUniform([2, 4], { dtype: 'float64', seed: 5 }),
      randomUniform([2], { dtype: 'float64', seed: 6 }),
      randomUniform([2, 3], { dtype: 'float64', seed: 7 }),
    ];
    const out = execute(b, [x, w, ...dys]);
    expect(out).toHaveLength(5);
    f(x, w).forEach((y, k) => expect(Array.from(out[k]!.dataSync())).toEqual(Array.from(y.dataSync())));
    const weighted = (x: Tensor, w: Tensor) =>
      f(x, w)
        .map((y, k) => ops.sum(ops.multiply(y, dys[k]!)))
        .reduce((a, c) => ops.add(a, c));
    const eager = grad(weighted)(x, w);
    [out[3]!, out[4]!].forEach((gk, k) =>
      assertAllClose(
        Array.from(gk.dataSync()),
        Array.from(eager[k]!.dataSync()),
        { atol: 1e-12, rtol: 1e-12 },
        `d/dx${k} vs eager`,
      ),
    );
    // Seeded with ones, the gradients are those of the plain sum of every output.
    const ones = execute(autodiff(g, { seed: 'ones' }), [x, w]);
    const summed = grad((x: Tensor, w: Tensor) =>
      f(x, w)
        .map((y) => ops.sum(y))
        .reduce((a, c) => ops.add(a, c)),
    )(x, w);
    [ones[3]!, ones[4]!].forEach((gk, k) =>
      assertAllClose(
        Array.from(gk.dataSync()),
        Array.from(summed[k]!.dataSync()),
        { atol: 1e-12, rtol: 1e-12 },
        `d/dx${k} (ones) vs eager`,
      ),
    );
  });

  it('sums the gradient of a broadcast input back to its shape', () => {
    const g = trace(
      (x: Tensor, b: Tensor) => ops.add(x, b),
      [
        { name: 'x', shape: [2, 3], dtype: 'float64' },
        { name: 'b', shape: [3], dtype: 'float64' },
      ],
    );
    const text = printGraph(autodiff(g, { wrt: [1] }));
    expect(text).toContain('raf.op.sum(%dy, [0], True)');
    expect(text).toContain('raf.op.reshape(%1, [3])');
  });
});
