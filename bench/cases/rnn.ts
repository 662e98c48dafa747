// Cases: one LSTM and one GRU layer as single ops (raf.op.lstm / raf.op.gru) against onnxruntime's LSTM and GRU nodes,
// at silero VAD's shape (one step of 128 units, called once per audio chunk) and over a longer sequence.

import { ops, type Tensor } from '../../runtime/src/index.ts';
import { defineCase, type BenchCase } from '../case.ts';
import { data, onnx } from '../peers.ts';
import { input, raf } from '../raf.ts';

interface Shape {
  readonly T: number;
  readonly B: number;
  readonly I: number;
  readonly H: number;
}

function rnnCase(kind: 'lstm' | 'gru', { T, B, I, H }: Shape): BenchCase {
  const G = (kind === 'lstm' ? 4 : 3) * H;
  const states = kind === 'lstm' ? ['h0', 'c0'] : ['h0'];
  const shapes: Record<string, number[]> = {
    x: [T, B, I],
    w: [1, G, I],
    r: [1, G, H],
    b: [1, 2 * G],
    h0: [1, B, H],
    c0: [1, B, H],
  };
  const size = (s: readonly number[]) => s.reduce((a, d) => a * d, 1);
  const values = Object.fromEntries(
    Object.entries(shapes).map(([k, s], i) => [k, data(size(s), 11 + i).map((v) => v * 0.3)]),
  );
  const build = () => {
    const t = Object.fromEntries(Object.entries(shapes).map(([k, s]) => [k, input(s, values[k]!)])) as Record<
      string,
      Tensor
    >;
    return () =>
      kind === 'lstm'
        ? ops.lstm(t.x!, t.w!, t.r!, H, t.b!, null, t.h0!, t.c0!)
        : ops.gru(t.x!, t.w!, t.r!, H, t.b!, null, t.h0!, 'forward', true);
  };
  const names = ['x', 'w', 'r', 'b', ...states];
  return defineCase({
    name: `${kind} T=${T} B=${B} H=${H}`,
    what: `one ${kind.toUpperCase()} layer, x [${T}, ${B}, ${I}], hidden ${H}, with biases and initial state${kind === 'gru' ? ', linear_before_reset' : ''}`,
    group: 'kernels',
    impls: {
      'raf-op': raf(kind, build),
      'raf-op cpu': raf(kind, build, ['cpu']),
      onnxruntime: onnx(
        {
          nodes: [
            {
              op: kind.toUpperCase(),
              inputs: ['x', 'w', 'r', 'b', '', ...states],
              outputs: kind === 'lstm' ? ['y', 'yh', 'yc'] : ['y', 'yh'],
              attrs: { hidden_size: H, ...(kind === 'gru' ? { linear_before_reset: 1 } : {}) },
            },
          ],
          inputs: names.map((name) => ({ name, dtype: 'float32' as const, shape: shapes[name]! })),
          outputs: (kind === 'lstm' ? ['y', 'yh', 'yc'] : ['y', 'yh']).map((name) => ({ name })),
          opset: 14,
        },
        () => Object.fromEntries(names.map((k) => [k, { dims: shapes[k]!, data: values[k]! }])),
      ),
    },
  });
}

export default [
  rnnCase('lstm', { T: 1, B: 1, I: 128, H: 128 }),
  rnnCase('lstm', { T: 64, B: 4, I: 64, H: 128 }),
  rnnCase('gru', { T: 64, B: 4, I: 64, H: 128 }),
];
