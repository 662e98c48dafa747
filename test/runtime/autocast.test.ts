// AutoCast: casts follow each op's generated cast rule; which ops run in float16, where casts sit, and float16-level agreement with float32.

import { describe, expect, it } from 'vitest';
import { ops, randomUniform, tensor, type Tensor } from '../../runtime/src/index.ts';
import { autoCast, execute, precisionReport, printGraph, trace } from '../../runtime/src/graph/index.ts';
import { assertAllClose } from '../support/assert.ts';

const spec = (name: string, shape: number[]) => ({ name, shape, dtype: 'float32' as const });
const F16_TOL = { atol: 2e-2, rtol: 2e-2 };

describe('AutoCast', () => {
  const net = (x: Tensor, w1: Tensor, b1: Tensor, w2: Tensor, b2: Tensor) =>
    ops.softmax(ops.add(ops.matmul(ops.relu(ops.add(ops.matmul(x, w1), b1)), w2), b2), -1);
  const params = [spec('x', [4, 8]), spec('w1', [8, 16]), spec('b1', [16]), spec('w2', [16, 3]), spec('b2', [3])];
  const inputs = () => params.map((p, i) => randomUniform(p.shape, { seed: 40 + i }));

  it('runs matmul (always) and the infer ops after it in float16, softmax (never) in float32', () => {
    const g = autoCast(trace(net, params));
    expect(precisionReport(g)).toEqual({
      casts: 6,
      ops: [
        { op: 'matmul', dtype: 'float16' },
        { op: 'add', dtype: 'float16' },
        { op: 'relu', dtype: 'float16' },
        { op: 'matmul', dtype: 'float16' },
        { op: 'add', dtype: 'float16' },
        { op: 'softmax', dtype: 'float32' },
      ],
    });
    expect(printGraph(g)).toBe(
      [
        'fn (%x: Tensor[(4, 8), float32], %w1: Tensor[(8, 16), float32], %b1: Tensor[(16,), float32], %w2: Tensor[(16, 3), float32], %b2: Tensor[(3,), float32]) {',
        '  %0 = raf.op.cast(%x, "float16");',
        '  %1 = raf.op.cast(%w1, "float16");',
        '  %2 = raf.op.matmul(%0, %1);',
        '  %3 = raf.op.cast(%b1, "float16");',
        '  %4 = raf.op.add(%2, %3);',
        '  %5 = raf.op.relu(%4);',
        '  %6 = raf.op.cast(%w2, "float16");',
        '  %7 = raf.op.matmul(%5, %6);',
        '  %8 = raf.op.cast(%b2, "float16");',
        '  %9 = raf.op.add(%7, %8);',
        '  %10 = raf.op.cast(%9, "float32");',
        '  %11 = raf.op.softmax(%10, -1);',
        '  %11',
        '}',
      ].join('\n'),
    );
  });

  it('stays within float16 tolerance of float32, and the float16 values are float16-representable', () => {
    const xs = inputs();
    const g = trace(net, params);
    const amp = autoCast(g);
    const [full] = execute(g, xs);
    const [half] = execute(amp, xs);
    expect(half!.dtype).toBe('float32');
    assertAllClose(Array.from(half!.dataSync()), Array.from(full!.dataSync()), F16_TOL, 'AMP vs float32');
    const h = execute(
      trace((x: Tensor, w: Tensor) => ops.matmul(x, w), [params[0]!, params[1]!]),
      [xs[0]!, xs[1]!],
    )[0]!;
    const h16 = execute(
      autoCast(
        trace((x: Tensor, w: Tensor) => ops.matmul(x, w), [params[0]!, params[1]!]),
        { restoreOutputs: false },
      ),
      [xs[0]!, xs[1]!],
    )[0]!;
    expect(h16.dtype).toBe('float16');
    for (const v of h16.dataSync()) expect(Math.fround(v)).toBe(v);
    assertAllClose(Array.from(h16.dataSync()), Array.from(h.dataSync()), F16_TOL, 'float16 matmul');
  });

  it('casts each value once per dtype and reads the float32 original instead of casting back', () => {
    const f = (x: Tensor, w: Tensor, w2: Tensor) =>
      ops.add(ops.add(ops.softmax(ops.matmul(x, w), -1), ops.exp(ops.matmul(x, w2))), ops.softmax(x, -1));
    const g = autoCast(trace(f, [spec('x', [3, 3]), spec('w', [3, 3]), spec('w2', [3, 3])]));
    const text = printGraph(g);
    // x, w, w2 to float16; the two matmul results back to float32; softmax(x) reads %x itself.
    expect(precisionReport(g).casts).toBe(5);
    expect(text.match(/raf\.op\.cast\(%x, "float16"\)/g)).toHaveLength(1);
    expect(text).toContain('raf.op.softmax(%x, -1)');
    const xs = [0, 1, 2].map((i) => randomUniform([3, 3], { seed: 60 + i }));
    assertAllClose(
      Array.from(execute(g, xs)[0]!.dataSync()),
      Array.from(f(xs[0]!, xs[1]!, xs[2]!).dataSync()),
      F16_TOL,
      'AMP vs float32',
    );
  });

  it('folds casts of constants into float16 constants', () => {
    const w = randomUniform([8, 2], { seed: 70 });
    const g = autoCast(trace((x: Tensor) => ops.matmul(x, w), [spec('x', [4, 8])]));
    expect(printGraph(g)).toContain('raf.op.matmul(%0, meta[Constant](Tensor[(8, 2), float16]))');
    expect(precisionReport(g).casts).toBe(2);
  });

  it('stores float16 on the CPU rounded to the nearest float16', () => {
    const t = ops.cast(tensor([0.1, 1 / 3, 65504, 70000], { dtype: 'float32' }), 'float16');
    expect(Array.from(t.dataSync())).toEqual([0.0999755859375, 0.333251953125, 65504, Infinity]);
  });
});
