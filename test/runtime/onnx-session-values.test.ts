// OnnxSession.runValues: models whose inputs and outputs are ONNX sequences and optionals, fed and returned as
// OnnxSequence and OnnxOptional; each signature (how many tensors a sequence holds, whether an optional holds one)
// converts once. Checked against values computed here in plain JavaScript.

import { describe, expect, it } from 'vitest';
import { tensor, Tensor } from '../../runtime/src/index.ts';
import { loadOnnx, OnnxOptional, OnnxSequence } from '../../runtime/src/onnx.ts';
import { buildModel } from '../support/onnx-proto.ts';

/** One sequence input's items summed (ConcatFromSequence, ReduceSum), the sequence with `extra` inserted at the front,
 * and whether the optional input holds a tensor. */
const model = buildModel({
  nodes: [
    { op: 'ConcatFromSequence', inputs: ['seq'], outputs: ['all'], attrs: { axis: 0, new_axis: 1 } },
    { op: 'ReduceSum', inputs: ['all', 'axes'], outputs: ['sum'], attrs: { keepdims: 0 } },
    { op: 'SequenceInsert', inputs: ['seq', 'extra', 'zero'], outputs: ['longer'] },
    { op: 'OptionalHasElement', inputs: ['maybe'], outputs: ['has'] },
  ],
  inputs: [
    { name: 'seq', dtype: 'float32', shape: [2], kind: 'sequence' },
    { name: 'extra', dtype: 'float32', shape: [2] },
    { name: 'maybe', dtype: 'float32', shape: [3], kind: 'optional' },
  ],
  outputs: [
    { name: 'sum', dtype: 'float32' },
    { name: 'longer', dtype: 'float32', kind: 'sequence' },
    { name: 'has', dtype: 'bool' },
  ],
  initializers: [
    { name: 'axes', dtype: 'int64', shape: [1], data: [0] },
    { name: 'zero', dtype: 'int64', shape: [], data: [0] },
  ],
  opset: 18,
});

const vec = (values: number[]) => tensor(values, { shape: [values.length] });

describe('OnnxSession.runValues', () => {
  it('feeds and returns sequences and optionals, converting once per number of items', () => {
    const session = loadOnnx(model);
    for (const items of [
      [vec([1, 2]), vec([3, 4]), vec([5, 6])],
      [vec([0.5, -1])],
      [vec([1, 2]), vec([3, 4]), vec([5, 6])],
    ]) {
      for (const maybe of [new OnnxOptional(vec([7, 8, 9])), new OnnxOptional(null)]) {
        const out = session.runValues({ seq: new OnnxSequence(items), extra: vec([-1, -2]), maybe });
        const sum = [0, 1].map((j) => items.reduce((s, t) => s + (t.dataSync()[j] as number), 0));
        expect(Array.from((out.sum as Tensor).dataSync())).toEqual(sum);
        const longer = out.longer as OnnxSequence;
        expect(longer).toBeInstanceOf(OnnxSequence);
        expect(longer.items.map((t) => Array.from(t.dataSync()))).toEqual([
          [-1, -2],
          ...items.map((t) => Array.from(t.dataSync())),
        ]);
        expect(Array.from((out.has as Tensor).dataSync())).toEqual([maybe.value ? 1 : 0]);
      }
    }
    // Three items, one item; each with and without the optional's tensor.
    expect(session.specializations).toBe(4);
  });

  it('refuses run() and a value of the wrong kind, naming the input', () => {
    const session = loadOnnx(model);
    expect(() => session.run({ seq: vec([1, 2]), extra: vec([1, 2]), maybe: vec([1, 2, 3]) })).toThrow(
      /OnnxSession.run: the model's 'seq' is an ONNX sequence or optional; run it with runValues/,
    );
    expect(() => session.runValues({ seq: vec([1, 2]), extra: vec([1, 2]), maybe: new OnnxOptional(null) })).toThrow(
      /input 'seq' is an ONNX sequence; feed an OnnxSequence/,
    );
  });
});
