// Malformed ONNX models: each is refused by FromOnnx with an error naming what is wrong (the node, the value, the
// initializer), never a raw decoder RangeError; and ONNX's ReduceSum keeps its input dtype where raf.op.sum widens.

import { describe, expect, it } from 'vitest';
import { fromOnnx } from '../../runtime/src/onnx.ts';
import { execute, tensor, type Tensor } from '../../runtime/src/index.ts';
import { buildModel, buildSingleNodeModel, ModelProto } from '../support/onnx-proto.ts';

function refusal(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    const message = (e as Error).message;
    expect(message).not.toMatch(/^\s+at /m); // no stack trace in the message
    expect(e).not.toBeInstanceOf(RangeError);
    return message;
  }
  throw new Error('expected a refusal');
}

const io = {
  inputs: [{ name: 'x', dtype: 'float32' as const, shape: [2] }],
  outputs: [{ name: 'y', dtype: 'float32' as const, shape: [2] }],
};
const addW = buildModel({
  ...io,
  initializers: [{ name: 'w', dtype: 'float32', shape: [2], data: [1, 2] }],
  nodes: [{ op: 'Add', inputs: ['x', 'w'], outputs: ['y'] }],
});

/** addW with its initializer's data given as a float_data list of `values` instead of raw bytes. */
function withFloatData(values: number[]): Uint8Array {
  const m = ModelProto.toObject(ModelProto.decode(addW)) as { graph: { initializer: Record<string, unknown>[] } };
  const w = m.graph.initializer[0]!;
  delete w.rawData;
  w.floatData = values;
  return ModelProto.encode(ModelProto.fromObject(m)).finish();
}

describe('malformed bytes', () => {
  it('empty bytes', () => {
    expect(refusal(() => fromOnnx(new Uint8Array(0)))).toBe('FromOnnx: the model is empty (0 bytes)');
  });

  it.each([1, 5, 20, 52])('a valid model cut to %i bytes', (keep) => {
    expect(refusal(() => fromOnnx(addW.subarray(0, keep)))).toMatch(
      new RegExp(
        `^FromOnnx: these ${keep} bytes (are not an ONNX model \\(.*\\); the file may be truncated|decode to a model with no graph)`,
      ),
    );
  });

  it('random bytes (a fixed linear congruential sequence)', () => {
    const bytes = new Uint8Array(64);
    let s = 7;
    for (let i = 0; i < bytes.length; i++) {
      s = (Math.imul(s, 1103515245) + 12345) >>> 0;
      bytes[i] = s >>> 24;
    }
    expect(refusal(() => fromOnnx(bytes))).toMatch(
      /^FromOnnx: these 64 bytes (are not an ONNX model|decode to a model with no graph)/,
    );
  });

  it('the unchanged model imports and runs (the cases above differ only in the damage)', () => {
    const [y] = execute(fromOnnx(addW), [tensor([10, 20], { dtype: 'float32', shape: [2] })]);
    expect(Array.from(y!.dataSync())).toEqual([11, 22]);
  });
});

describe('malformed models', () => {
  it('an opset newer than any raf-op knows', () => {
    const m = buildModel({ ...io, opset: 99, nodes: [{ op: 'Relu', inputs: ['x'], outputs: ['y'] }] });
    expect(refusal(() => fromOnnx(m))).toBe(
      "FromOnnx: the model imports ONNX opset 99; raf-op's mappings know opsets up to 27 (ONNX 1.22)",
    );
  });

  it('two nodes writing one value, naming both', () => {
    const m = buildModel({
      ...io,
      nodes: [
        { op: 'Relu', inputs: ['x'], outputs: ['y'] },
        { op: 'Neg', inputs: ['x'], outputs: ['y'] },
      ],
    });
    expect(refusal(() => fromOnnx(m))).toBe(
      "FromOnnx value 'y' is written by two nodes, node 0 ('n0_Relu', Relu) and node 1 ('n1_Neg', Neg); ONNX values have one producer",
    );
  });

  it('a node writing a graph input or an initializer (not reported as a cycle)', () => {
    const overInput = buildModel({
      ...io,
      nodes: [
        { op: 'Relu', inputs: ['x'], outputs: ['x'] },
        { op: 'Neg', inputs: ['x'], outputs: ['y'] },
      ],
    });
    expect(refusal(() => fromOnnx(overInput))).toBe(
      "FromOnnx value 'x' is a graph input and is also written by node 0 ('n0_Relu', Relu); ONNX values have one producer (rename the node's output)",
    );
    const overInit = buildModel({
      ...io,
      initializers: [{ name: 'w', dtype: 'float32', shape: [2], data: [1, 2] }],
      nodes: [
        { op: 'Add', inputs: ['x', 'w'], outputs: ['w'] },
        { op: 'Neg', inputs: ['w'], outputs: ['y'] },
      ],
    });
    expect(refusal(() => fromOnnx(overInit))).toMatch(
      /^FromOnnx value 'w' is an initializer and is also written by node 0/,
    );
  });

  it('an initializer whose raw data is shorter than its dims, naming it', () => {
    const m = ModelProto.toObject(ModelProto.decode(addW)) as { graph: { initializer: { rawData: Uint8Array }[] } };
    m.graph.initializer[0]!.rawData = m.graph.initializer[0]!.rawData.slice(0, 4);
    expect(refusal(() => fromOnnx(ModelProto.encode(ModelProto.fromObject(m)).finish()))).toBe(
      "FromOnnx: tensor 'w' has 4 bytes of raw data, its shape [2] needs 8",
    );
  });

  it('an initializer whose float_data is shorter than its dims, naming it', () => {
    expect(refusal(() => fromOnnx(withFloatData([1])))).toBe(
      "FromOnnx: tensor 'w' holds 1 value, its shape [2] needs 2; the model is malformed or was cut short",
    );
    expect(refusal(() => fromOnnx(withFloatData([])))).toBe(
      "FromOnnx: tensor 'w' holds 0 values, its shape [2] needs 2; its data may be stored outside the model (external data), which FromOnnx does not read",
    );
    // The same initializer with the right count imports.
    const [y] = execute(fromOnnx(withFloatData([1, 2])), [tensor([10, 20], { dtype: 'float32', shape: [2] })]);
    expect(Array.from(y!.dataSync())).toEqual([11, 22]);
  });
});

// ONNX's ReduceSum (opset 13) has one type variable T for input and output: an int32 sum stays int32, wrapping modulo
// 2^32 as a 32-bit accumulator does. raf.op.sum widens to int64 as NumPy does; the import casts back.
describe("ONNX ReduceSum keeps ONNX's dtype", () => {
  it('int32 in, int32 out, wrapping as ONNX does', () => {
    const x = { dtype: 'int32' as const, shape: [2], data: [2 ** 31 - 1, 1] };
    const g = fromOnnx(buildSingleNodeModel({ op: 'ReduceSum', opset: 13, inputs: [x], attrs: { keepdims: 0 } }));
    const [y] = execute(g, [tensor(x.data, { dtype: 'int32', shape: [2] })]) as Tensor[];
    expect(y!.dtype).toBe('int32');
    // 2^31 - 1 + 1 = 2^31, which int32 holds as -2^31.
    expect(Array.from(y!.dataSync())).toEqual([-(2 ** 31)]);
  });
});
