// FromRelay: Relay text (functions, typed params, calls with attrs, lets, tuples, constants) converts through the generated converters.

import { describe, expect, it } from 'vitest';
import { ops, randomUniform } from '../../runtime/src/index.ts';
import { execute, fromRelay, parseRelay, printGraph } from '../../runtime/src/graph/index.ts';

const mlp = `#[version = "0.0.5"]
def @main(%x: Tensor[(2, 3), float32], %w: Tensor[(3, 4), float32], %b: Tensor[(4,), float32]) -> (Tensor[(2, 4), float32], Tensor[(2, 1), float32]) {
  %0 = nn.matmul(%x, %w);
  %1 = add(%0, %b);
  let %y: Tensor[(2, 4), float32] = nn.relu(%1);
  %2 = multiply(%y, 2f);
  %3 = (%2, nn.softmax(%2, axis=-1));
  (%3.1, sum(%3.0, axis=[1], keepdims=True))
}`;

describe('FromRelay', () => {
  it('converts a function with lets, tuples, attrs and constants', () => {
    const g = fromRelay(mlp);
    expect(printGraph(g)).toBe(
      [
        'fn (%x: Tensor[(2, 3), float32], %w: Tensor[(3, 4), float32], %b: Tensor[(4,), float32]) {',
        '  %0 = raf.op.matmul(%x, %w);',
        '  %1 = raf.op.add(%0, %b);',
        '  %2 = raf.op.relu(%1);',
        '  %3 = raf.op.multiply(%2, 2f);',
        '  %4 = raf.op.softmax(%3, -1);',
        '  %5 = raf.op.sum(%3, [1], True);',
        '  (%4, %5)',
        '}',
      ].join('\n'),
    );
    const [x, w, b] = [
      randomUniform([2, 3], { seed: 1 }),
      randomUniform([3, 4], { seed: 2 }),
      randomUniform([4], { seed: 3 }),
    ];
    const [p, s] = execute(g, [x, w, b]);
    const h = ops.multiply(ops.relu(ops.add(ops.matmul(x, w), b)), 2);
    expect(Array.from(p!.dataSync())).toEqual(Array.from(ops.softmax(h, -1).dataSync()));
    expect(Array.from(s!.dataSync())).toEqual(Array.from(ops.sum(h, [1], true).dataSync()));
  });

  it('accepts the fn form and float64 params', () => {
    const g = fromRelay('fn (%a: Tensor[(3,), float64]) {\n  negative(exp(%a))\n}');
    const a = randomUniform([3], { seed: 4, dtype: 'float64' });
    expect(Array.from(execute(g, [a])[0]!.dataSync())).toEqual(Array.from(ops.negative(ops.exp(a)).dataSync()));
  });

  it("reads an omitted attr as Relay's default, not ours", () => {
    // Relay's reductions drop the reduced axes unless told otherwise, and LeakyReluAttrs' alpha is 0.25.
    const g = fromRelay('fn (%x: Tensor[(3, 4), float32]) {\n  (sum(%x, axis=[1]), argmax(%x), nn.leaky_relu(%x))\n}');
    const x = randomUniform([3, 4], { seed: 5, low: -1, high: 1 });
    const [s, a, l] = execute(g, [x]);
    expect([...s!.shape]).toEqual([3]);
    expect([...a!.shape]).toEqual([]);
    expect(Array.from(l!.dataSync())).toEqual(Array.from(ops.leakyRelu(x, 0.25).dataSync()));
  });

  it('names an unknown op and where it is', () => {
    expect(() => fromRelay('fn (%x: Tensor[(1, 2), float32]) {\n  %0 = nn.relu(%x);\n  nn.frobnicate(%0)\n}')).toThrow(
      "FromRelay 3:3: unknown op 'nn.frobnicate'",
    );
  });

  it('names the position of a syntax error and of a bad attr', () => {
    expect(() => parseRelay('fn (%x: Tensor[(2), float32]) {\n  nn.relu(%x;\n}')).toThrow(
      "2:13: expected ',' between arguments, found ';'",
    );
    expect(() => fromRelay('fn (%x: Tensor[(2, 2), float32]) {\n  nn.softmax(%x, axis=5)\n}')).toThrow(
      "FromRelay 2:3: nn.softmax: raf.op.softmax (argument 'axis'): invalid axis = 5 on ndim = 2",
    );
  });
});
