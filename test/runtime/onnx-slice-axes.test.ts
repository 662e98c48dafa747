// ONNX Slice with its axes out of order, as tf2onnx writes them (MLSD's decoder: axes [0, 2, 3, 1]): starts, ends and
// steps pair with the axes as given. Against onnxruntime-node on one-node models.

import { describe, it } from 'vitest';
import { randomUniform } from '../../runtime/src/index.ts';
import { agree } from '../support/onnx-agree.ts';

const ints = (name: string, data: number[]) => ({ name, dtype: 'int64' as const, shape: [data.length], data });

describe('ONNX Slice with unordered axes against onnxruntime-node', () => {
  it.each([
    [[0, 2, 3, 1], [0, 0, 0, 7], [2 ** 31 - 1, 2 ** 31 - 1, 2 ** 31 - 1, 8], null],
    [[1, 0], [3, 0], [9, 1], null],
    [
      [3, -3],
      [1, 15],
      [4, 2],
      [1, -4],
    ],
  ])('axes %j', async (axes, starts, ends, steps) => {
    const x = randomUniform([1, 16, 4, 4], { seed: 60 });
    const inits = [
      ints('starts', starts),
      ints('ends', ends),
      ints('axes', axes),
      ...(steps ? [ints('steps', steps)] : []),
    ];
    await agree(
      { op: 'Slice', inputs: ['x', 'starts', 'ends', 'axes', ...(steps ? ['steps'] : [])], outputs: ['y'] },
      { x },
      inits,
      { opset: 13 },
    );
  });
});
