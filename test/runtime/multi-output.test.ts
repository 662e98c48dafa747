// Tensor[] inputs and tuple outputs through the core: the tape, gradcheck, graph mode (trace, print, execute, autodiff) and the frontends.

import { describe, expect, it } from 'vitest';
import { backward, gradcheck, ops, randomUniform, tensor, Tensor, valueAndGrad } from '../../runtime/src/index.ts';
import { autodiff, execute, fromOnnx, fromRelay, printGraph, trace } from '../../runtime/src/graph/index.ts';
import { buildModel } from '../support/onnx-proto.ts';
import { runOnnxModel, toFloat64 } from '../support/onnx-oracle.ts';
import { assertAllClose } from '../support/assert.ts';

const f64 = (shape: number[], seed: number) => randomUniform(shape, { dtype: 'float64', seed, low: -1, high: 1 });
const values = (t: Tensor) => Array.from(t.dataSync());

describe('tuple outputs on the tape', () => {
  it('gives each split output its own gradient, and zeros to outputs nothing used', () => {
    const x = f64([6, 2], 1).requireGrad();
    const [a, b, c] = ops.split(x, 3, 0);
    // a is used twice, b scaled, c never: dx rows are 2, 3 and 0 (the zeros the backward gets for c).
    backward(ops.sum(ops.add(ops.add(a!, a!), ops.multiply(b!, 3))));
    expect(values(x.grad!)).toEqual([2, 2, 2, 2, 3, 3, 3, 3, 0, 0, 0, 0]);
    expect(c!.requiresGrad).toBe(true);
  });

  it('back-propagates from several roots with one seed each', () => {
    const x = f64([4], 2);
    const { grads } = valueAndGrad((t) => ops.split(t, [1, 3]), undefined, [
      tensor([5], { dtype: 'float64' }),
      tensor([6, 7], { dtype: 'float64' }),
      tensor([8], { dtype: 'float64' }),
    ])(x);
    expect(values(grads[0]!)).toEqual([5, 6, 7, 8]);
  });

  it('passes gradcheck through concatenate → split, with the outputs used unequally', () => {
    const a = f64([2, 3], 3);
    const b = f64([2, 2], 4);
    const f = (p: Tensor, q: Tensor) => {
      const [l, m, r] = ops.split(ops.concatenate([ops.exp(p), q, p], 1), [1, 4], 1);
      return [ops.multiply(l!, ops.sum(m!, [1], true)), ops.tanh(r!)];
    };
    expect(gradcheck(f, [a, b]).slice(0, 3)).toEqual([]);
  });

  it('gives a Tensor[] input one gradient per element (null where one needs none)', () => {
    const a = f64([2, 2], 5).requireGrad();
    const k = f64([1, 2], 6); // does not require grad: it gets no gradient, a does
    backward(ops.sum(ops.multiply(ops.concatenate([a, k], 0), ops.concatenate([k, k, k], 0))));
    expect(values(a.grad!)).toEqual([...values(k), ...values(k)]);
    expect(k.grad).toBeUndefined();
  });

  it('rejects mismatched and empty lists with the op and argument named', () => {
    expect(() => ops.concatenate([f64([2, 3], 1), f64([3, 3], 2)], 1)).toThrow(
      "raf.op.concatenate (argument 'xs'): xs[1] has shape [3, 3], which does not fit xs[0] [2, 3] outside axis 1",
    );
    expect(() => ops.concatenate([])).toThrow('needs at least one tensor');
    expect(() => ops.split(f64([5], 1), 2)).toThrow('cannot cut an axis of length 5 into 2 equal sections');
  });
});

describe('tuple values in graph mode', () => {
  const f = (x: Tensor, y: Tensor) => {
    const [p, q] = ops.split(x, 2, 1);
    return ops.add(ops.concatenate([q!, y], 0), ops.concatenate([p!, y], 0));
  };
  const x = f64([2, 4], 7);
  const y = f64([1, 2], 8);

  it('prints a tuple binding and its projections, and executes it like eager mode', () => {
    const g = trace(f, [x, y]);
    expect(printGraph(g, { types: true })).toBe(
      [
        'fn (%x: Tensor[(2, 4), float64], %y: Tensor[(1, 2), float64]) {',
        '  %0 = raf.op.split(%x, 2, 1); /* (Tensor[(2, 2), float64], Tensor[(2, 2), float64]) */',
        '  %1 = raf.op.concatenate([%0.1, %y], 0); /* Tensor[(3, 2), float64] */',
        '  %2 = raf.op.concatenate([%0.0, %y], 0); /* Tensor[(3, 2), float64] */',
        '  %3 = raf.op.add(%1, %2); /* Tensor[(3, 2), float64] */',
        '  %3',
        '}',
      ].join('\n'),
    );
    expect(values(execute(g, [x, y])[0]!)).toEqual(values(f(x, y)));
  });

  it('returns a tuple op’s outputs from a graph', () => {
    const g = trace((t: Tensor) => ops.split(t, [1]), [x]);
    expect(printGraph(g).split('\n').slice(1, 3)).toEqual(['  %0 = raf.op.split(%t, [1], 0);', '  (%0.0, %0.1)']);
    expect(execute(g, [x]).map(values)).toEqual(ops.split(x, [1]).map(values));
  });

  it('differentiates through a tuple (AutoDiff pass) as the tape does', () => {
    const g = autodiff(trace(f, [x, y]), { seed: 'ones' });
    const [, dx, dy] = execute(g, [x, y]);
    const { grads } = valueAndGrad(f)(x, y);
    expect(values(dx!)).toEqual(values(grads[0]!));
    expect(values(dy!)).toEqual(values(grads[1]!));
  });
});

describe('frontends', () => {
  it('FromRelay: concatenate takes a tuple, split returns one', () => {
    const g = fromRelay(`#[version = "0.0.5"]
def @main(%a: Tensor[(2, 3), float32], %b: Tensor[(2, 1), float32]) {
  %0 = concatenate((%a, %b), axis=1);
  %1 = split(%0, indices_or_sections=[1, 3], axis=1);
  (%1.2, %1.0)
}`);
    const a = randomUniform([2, 3], { seed: 1 });
    const b = randomUniform([2, 1], { seed: 2 });
    const [last, first] = execute(g, [a, b]);
    expect(values(first!)).toEqual([a.dataSync()[0], a.dataSync()[3]]);
    expect(values(last!)).toEqual([b.dataSync()[0], b.dataSync()[1]]);
  });

  it('FromOnnx: variadic Concat and a three-way Split (sizes, and equal sections) match onnxruntime', async () => {
    const info = (name: string, shape: number[]) => ({ name, dtype: 'float32' as const, shape });
    const bytes = buildModel({
      opset: 13,
      inputs: [info('x', [2, 3]), info('y', [2, 1]), info('z', [2, 2])],
      outputs: [info('s0', [2, 1]), info('s1', [2, 4]), info('s2', [2, 1]), info('h0', [1, 6]), info('h1', [1, 6])],
      initializers: [{ name: 'sizes', dtype: 'int64', shape: [3], data: [1, 4, 1] }],
      nodes: [
        { op: 'Concat', inputs: ['x', 'y', 'z'], outputs: ['c'], attrs: { axis: 1 } },
        { op: 'Split', inputs: ['c', 'sizes'], outputs: ['s0', 's1', 's2'], attrs: { axis: 1 } },
        { op: 'Split', inputs: ['c'], outputs: ['h0', 'h1'], attrs: { axis: 0 } },
      ],
    });
    const feeds = [
      randomUniform([2, 3], { seed: 3 }),
      randomUniform([2, 1], { seed: 4 }),
      randomUniform([2, 2], { seed: 5 }),
    ];
    const g = fromOnnx(bytes);
    const ours = execute(g, feeds);
    const theirs = await runOnnxModel(
      bytes,
      Object.fromEntries(
        ['x', 'y', 'z'].map((k, i) => [
          k,
          { dtype: 'float32', shape: [...feeds[i]!.shape], data: feeds[i]!.dataSync() as Float32Array },
        ]),
      ),
    );
    expect(ours.length).toBe(5);
    ours.forEach((t, i) => {
      expect([...t.shape]).toEqual(theirs[i]!.shape);
      assertAllClose(values(t), Array.from(toFloat64(theirs[i]!)), { atol: 0, rtol: 0 }, `output ${i} vs onnxruntime`);
    });
  });
});
