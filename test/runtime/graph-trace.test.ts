// Trace, printer, type inference and executor: the graph of a function prints in the seeds' style and runs to eager mode's values.

import { describe, expect, it } from 'vitest';
import { ops, randomUniform, tensor, type Tensor } from '../../runtime/src/index.ts';
import { checkTypes, execute, inferTypes, Model, printGraph, trace } from '../../runtime/src/graph/index.ts';
import { autoCast } from '../../runtime/src/graph/passes/autocast.ts';

const spec = (name: string, shape: number[], dtype: 'float32' | 'float64' = 'float32') => ({ name, shape, dtype });

describe('trace and print', () => {
  it('records base-op calls with their parsed args, constants inline', () => {
    const g = trace((x: Tensor) => ops.softmax(ops.add(ops.exp(x), 1), -1), [spec('x', [2, 3])]);
    expect(printGraph(g)).toBe(
      [
        'fn (%x: Tensor[(2, 3), float32]) {',
        '  %0 = raf.op.exp(%x);',
        '  %1 = raf.op.add(%0, 1f);',
        '  %2 = raf.op.softmax(%1, -1);',
        '  %2',
        '}',
      ].join('\n'),
    );
  });

  it('prints defaults, lists, None and tuples of outputs; host ops are static', () => {
    const g = trace(
      (x: Tensor) => {
        const s = ops.sum(x, [1], true);
        return [ops.reshape(s, ops.shape(x).slice(0, 1) as number[]), ops.sum(x)];
      },
      [spec('x', [4, 5], 'float64')],
    );
    expect(printGraph(g)).toBe(
      [
        'fn (%x: Tensor[(4, 5), float64]) {',
        '  %0 = raf.op.sum(%x, [1], True);',
        '  %1 = raf.op.reshape(%0, [4]);',
        '  %2 = raf.op.sum(%x, None, False);',
        '  (%1, %2)',
        '}',
      ].join('\n'),
    );
  });

  it('rejects reading a traced value', () => {
    expect(() => trace((x: Tensor) => ops.exp(x).dataSync() as unknown as Tensor, [spec('x', [2])])).toThrow(
      'has no data yet',
    );
  });
});

describe('type inference', () => {
  it('agrees with the types recorded while tracing', () => {
    const g = trace(
      (a: Tensor, b: Tensor) => ops.sum(ops.matmul(ops.relu(a), b), [0]),
      [spec('a', [3, 4]), spec('b', [4, 5])],
    );
    expect(checkTypes(g)).toEqual([]);
    expect(printGraph(inferTypes(g), { types: true })).toContain(
      '%1 = raf.op.matmul(%0, %b); /* Tensor[(3, 5), float32] */',
    );
  });

  it('re-types everything downstream when a pass changes a dtype', () => {
    const g = autoCast(
      trace((a: Tensor, b: Tensor) => ops.relu(ops.matmul(a, b)), [spec('a', [3, 4]), spec('b', [4, 5])]),
      { restoreOutputs: false },
    );
    const typed = printGraph(inferTypes(g), { types: true });
    expect(typed).toContain('raf.op.matmul(%0, %1); /* Tensor[(3, 5), float16] */');
    expect(typed).toContain('raf.op.relu(%2); /* Tensor[(3, 5), float16] */');
  });

  it('reports a type error with the op and argument', () => {
    const g = trace((a: Tensor, b: Tensor) => ops.add(a, b), [spec('a', [3]), spec('b', [3])]);
    const bad = { ...g, params: [g.params[0]!, { ...g.params[1]!, type: { shape: [4], dtype: 'float32' as const } }] };
    const rebound = {
      ...bad,
      nodes: g.nodes.map((n) => (n.kind === 'call' ? { ...n, args: [bad.params[0], bad.params[1]] } : n)),
    };
    expect(() => inferTypes(rebound)).toThrow('raf.op.add');
  });
});

describe('executor (graph mode) against eager mode', () => {
  const f = (x: Tensor, w: Tensor) => ops.logSoftmax(ops.add(ops.matmul(x, w), ops.multiply(x, 0.5)), 1);
  it('gives the same values for a small network', () => {
    const x = randomUniform([3, 3], { seed: 1, dtype: 'float64' });
    const w = randomUniform([3, 3], { seed: 2, dtype: 'float64' });
    const [got] = execute(trace(f, [x, w]), [x, w]);
    expect(Array.from(got!.dataSync())).toEqual(Array.from(f(x, w).dataSync()));
  });

  it('checks inputs against the traced types', () => {
    const x = randomUniform([3, 3], { seed: 1 });
    const g = trace(f, [x, x]);
    expect(() => execute(g, [x, tensor([1, 2, 3])])).toThrow('was traced for Tensor[(3, 3), float32]');
  });

  it('Model traces forward once per input signature', () => {
    class Mlp extends Model {
      constructor(readonly w: Tensor) {
        super();
      }
      forward(x: Tensor) {
        return ops.relu(ops.matmul(x, this.w));
      }
    }
    const m = new Mlp(randomUniform([4, 2], { seed: 3 }));
    const x = randomUniform([5, 4], { seed: 4 });
    const y = m.call(x) as Tensor;
    expect(Array.from(y.dataSync())).toEqual(Array.from(m.forward(x).dataSync()));
    expect(m.graph(randomUniform([5, 4], { seed: 5 }))).toBe(m.graph(x));
    expect(m.graph(randomUniform([2, 4], { seed: 5 }))).not.toBe(m.graph(x));
    expect(printGraph(m.graph(x))).toContain('raf.op.matmul(%x, meta[Constant](Tensor[(4, 2), float32]))');
  });
});
