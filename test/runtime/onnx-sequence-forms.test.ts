// FromOnnx's sequence and optional values, Scan and Loop (forms-sequence.ts, containers.ts, Loop in forms.ts) on models
// built here with positions, split forms, axes, directions and opsets the backend suite leaves out: each runs through
// loadOnnx and in onnxruntime-node, and every output must agree in dtype, shape and value (exactly for integers).

import { describe, expect, it } from 'vitest';
import { loadOnnx, randomUniform, tensor, type Tensor } from '../../runtime/src/index.ts';
import { buildModel, type ModelSpec, type NodeSpec, type SubgraphSpec } from '../support/onnx-proto.ts';
import { runOnnxModel, toFloat64, type OracleTensor } from '../support/onnx-oracle.ts';
import { assertAllClose } from '../support/assert.ts';

type Feed = { dtype: 'float32' | 'int64' | 'int32' | 'bool'; shape: number[]; data: number[] };

const rand = (shape: number[], seed: number): Feed => ({
  dtype: 'float32',
  shape,
  data: Array.from(randomUniform(shape, { seed, low: -2, high: 2 }).dataSync()),
});
const i64 = (data: number[], shape = [data.length]): Feed => ({ dtype: 'int64', shape, data });
const i32 = (data: number[], shape = [data.length]): Feed => ({ dtype: 'int32', shape, data });

function oracleFeed(f: Feed): OracleTensor {
  if (f.dtype === 'int64') return { dtype: 'int64', shape: f.shape, data: BigInt64Array.from(f.data.map(BigInt)) };
  if (f.dtype === 'int32') return { dtype: 'int32', shape: f.shape, data: Int32Array.from(f.data) };
  if (f.dtype === 'bool') return { dtype: 'bool', shape: f.shape, data: Uint8Array.from(f.data) };
  return { dtype: 'float32', shape: f.shape, data: Float32Array.from(f.data) };
}

interface Case {
  nodes: NodeSpec[];
  inputs: Record<string, Feed>;
  consts?: Record<string, Feed>;
  outputs: string[];
  opset: number;
}

function modelOf(c: Case): Uint8Array {
  const spec: ModelSpec = {
    nodes: c.nodes,
    inputs: Object.entries(c.inputs).map(([name, f]) => ({ name, dtype: f.dtype, shape: f.shape })),
    outputs: c.outputs.map((name) => ({ name })),
    initializers: Object.entries(c.consts ?? {}).map(([name, f]) => ({ name, ...f })),
    opset: c.opset,
  };
  return buildModel(spec);
}

const feedsOf = (c: Case): Record<string, Tensor> =>
  Object.fromEntries(Object.entries(c.inputs).map(([n, f]) => [n, tensor(f.data, { dtype: f.dtype, shape: f.shape })]));

async function agree(c: Case): Promise<void> {
  const bytes = modelOf(c);
  const theirs = await runOnnxModel(
    bytes,
    Object.fromEntries(Object.entries(c.inputs).map(([n, f]) => [n, oracleFeed(f)])),
    c.outputs,
  );
  const ours = loadOnnx(bytes).run(feedsOf(c));
  c.outputs.forEach((name, k) => {
    const t: Tensor = ours[name]!;
    expect(t.dtype, `output '${name}' dtype`).toBe(theirs[k]!.dtype);
    expect([...t.shape], `output '${name}' shape`).toEqual(theirs[k]!.shape);
    const tol = t.dtype === 'float32' ? 1e-5 : 0;
    assertAllClose(
      Array.from(t.dataSync()),
      Array.from(toFloat64(theirs[k]!)),
      { atol: tol, rtol: tol },
      `output '${name}'`,
    );
  });
}

const node = (op: string, inputs: string[], outputs: string[], attrs?: NodeSpec['attrs']): NodeSpec => ({
  op,
  inputs,
  outputs,
  attrs,
});

describe('FromOnnx sequences vs onnxruntime', () => {
  it('construct, insert at a negative position, erase the last, read from the back, length', async () => {
    await agree({
      opset: 12,
      inputs: { x: rand([2, 3], 1), y: rand([4, 3], 2), z: rand([1, 3], 3) },
      consts: { p_ins: i64([-1], []), p_at: i32([-2], []), p_at2: i64([0], []) },
      nodes: [
        node('SequenceConstruct', ['x', 'y'], ['s1']),
        node('SequenceInsert', ['s1', 'z', 'p_ins'], ['s2']), // [x, z, y]
        node('SequenceInsert', ['s2', 'x'], ['s3']), // [x, z, y, x]
        node('SequenceErase', ['s3'], ['s4']), // [x, z, y]
        node('SequenceAt', ['s4', 'p_at'], ['a']), // z
        node('SequenceAt', ['s4', 'p_at2'], ['b']), // x
        node('SequenceLength', ['s4'], ['n']),
        node('ConcatFromSequence', ['s4'], ['c'], { axis: 0 }),
      ],
      outputs: ['a', 'b', 'n', 'c'],
    });
  });

  it('SequenceEmpty of int64, inserts and a stack along a new last axis', async () => {
    await agree({
      opset: 11,
      inputs: { x: i64([1, -2, 3]), y: i64([40, 50, -60]) },
      consts: { front: i64([0], []) },
      nodes: [
        node('SequenceEmpty', [], ['e'], { dtype: 7 }),
        node('SequenceInsert', ['e', 'x'], ['s1']),
        node('SequenceInsert', ['s1', 'y', 'front'], ['s2']),
        node('ConcatFromSequence', ['s2'], ['c'], { axis: -1, new_axis: 1 }),
        node('SequenceLength', ['s2'], ['n']),
      ],
      outputs: ['c', 'n'],
    });
  });

  it('SplitToSequence by a scalar size that leaves a shorter last chunk', async () => {
    await agree({
      opset: 11,
      inputs: { x: rand([3, 5], 4) },
      consts: { split: i64([2], []), last: i64([-1], []) },
      nodes: [
        node('SplitToSequence', ['x', 'split'], ['s'], { axis: 1 }),
        node('SequenceAt', ['s', 'last'], ['tail']),
        node('SequenceLength', ['s'], ['n']),
        node('ConcatFromSequence', ['s'], ['back'], { axis: -1 }),
      ],
      outputs: ['tail', 'n', 'back'],
    });
  });

  it('SplitToSequence by int32 lengths on a negative axis (keepdims is ignored)', async () => {
    await agree({
      opset: 11,
      inputs: { x: rand([2, 6], 5) },
      consts: { split: i32([1, 0, 3, 2]), one: i64([1], []), two: i64([2], []) },
      nodes: [
        node('SplitToSequence', ['x', 'split'], ['s'], { axis: -1, keepdims: 0 }),
        node('SequenceAt', ['s', 'one'], ['empty']),
        node('SequenceAt', ['s', 'two'], ['mid']),
        node('SequenceLength', ['s'], ['n']),
      ],
      outputs: ['empty', 'mid', 'n'],
    });
  });

  it('SplitToSequence without split, keepdims 0, restacked on another axis', async () => {
    await agree({
      opset: 11,
      inputs: { x: rand([3, 2, 4], 6) },
      nodes: [
        node('SplitToSequence', ['x'], ['s'], { axis: 1, keepdims: 0 }),
        node('ConcatFromSequence', ['s'], ['y'], { axis: 2, new_axis: 1 }),
        node('SplitToSequence', ['x'], ['k'], { axis: -1 }),
        node('ConcatFromSequence', ['k'], ['z'], { axis: 0 }),
      ],
      outputs: ['y', 'z'],
    });
  });

  it('SequenceMap over a sequence and a tensor, with two results', async () => {
    const body: SubgraphSpec = {
      inputs: [
        { name: 'e', dtype: 'float32', shape: [2, null] },
        { name: 't', dtype: 'float32', shape: [2, 1] },
      ],
      nodes: [node('Add', ['e', 't'], ['sum']), node('Shape', ['e'], ['shape'])],
      outputs: [
        { name: 'sum', dtype: 'float32', shape: [2, null] },
        { name: 'shape', dtype: 'int64', shape: [2] },
      ],
    };
    await agree({
      opset: 17,
      inputs: { x: rand([2, 5], 7), t: rand([2, 1], 8) },
      consts: { split: i64([2, 3]) },
      nodes: [
        node('SplitToSequence', ['x', 'split'], ['s'], { axis: 1 }),
        node('SequenceMap', ['s', 't'], ['sums', 'shapes'], { body: { graph: body } }),
        node('ConcatFromSequence', ['sums'], ['y'], { axis: 1 }),
        node('ConcatFromSequence', ['shapes'], ['shp'], { axis: 0, new_axis: 1 }),
      ],
      outputs: ['y', 'shp'],
    });
  });
});

describe('FromOnnx optionals vs onnxruntime', () => {
  it('Optional of a tensor: has an element, gets it back', async () => {
    await agree({
      opset: 18,
      inputs: { x: rand([3], 9) },
      nodes: [
        node('Optional', ['x'], ['o']),
        node('OptionalHasElement', ['o'], ['has']),
        node('OptionalGetElement', ['o'], ['y']),
        node('OptionalHasElement', ['x'], ['has_t']),
      ],
      outputs: ['has', 'y', 'has_t'],
    });
  });

  it('Optional of a sequence', async () => {
    await agree({
      opset: 18,
      inputs: { x: rand([2], 10), y: rand([2], 11) },
      nodes: [
        node('SequenceConstruct', ['x', 'y'], ['s']),
        node('Optional', ['s'], ['o']),
        node('OptionalGetElement', ['o'], ['s2']),
        node('ConcatFromSequence', ['s2'], ['c'], { axis: 0, new_axis: 1 }),
        node('OptionalHasElement', ['o'], ['has']),
      ],
      outputs: ['c', 'has'],
    });
  });
});

describe('FromOnnx Scan vs onnxruntime', () => {
  const sumBody = (shape: number[]): SubgraphSpec => ({
    inputs: [
      { name: 'acc', dtype: 'float32', shape },
      { name: 'a', dtype: 'float32', shape },
      { name: 'b', dtype: 'float32', shape },
    ],
    nodes: [node('Add', ['acc', 'a'], ['t']), node('Mul', ['t', 'b'], ['acc_out']), node('Sub', ['a', 'b'], ['d'])],
    outputs: [
      { name: 'acc_out', dtype: 'float32', shape },
      { name: 'd', dtype: 'float32', shape },
      { name: 't', dtype: 'float32', shape },
    ],
  });

  it.each([16, 11, 9])('opset %i: input axes and directions, output axes and directions', async (opset) => {
    await agree({
      opset,
      // a scanned along axis 1 (length 4), b along axis 0 in reverse.
      inputs: { init: rand([3], 12), a: rand([3, 4], 13), b: rand([4, 3], 14) },
      nodes: [
        node('Scan', ['init', 'a', 'b'], ['final', 'ds', 'ts'], {
          body: { graph: sumBody([3]) },
          num_scan_inputs: 2,
          scan_input_axes: [1, 0],
          scan_input_directions: [0, 1],
          scan_output_axes: opset >= 11 ? [-1, 0] : [1, 0],
          scan_output_directions: [1, 0],
        }),
      ],
      outputs: ['final', 'ds', 'ts'],
    });
  });

  it('opset 8: a batch axis, a reversed scan input, full sequence_lens', async () => {
    await agree({
      opset: 8,
      inputs: { init: rand([2, 3], 15), a: rand([2, 4, 3], 16), b: rand([2, 4, 3], 17) },
      consts: { lens: i64([4, 4]) },
      nodes: [
        node('Scan', ['lens', 'init', 'a', 'b'], ['final', 'ds', 'ts'], {
          body: { graph: sumBody([3]) },
          num_scan_inputs: 2,
          directions: [1, 0],
        }),
      ],
      outputs: ['final', 'ds', 'ts'],
    });
  });
  it.each([
    [
      [4, 2, 1],
      [0, 0],
    ],
    [
      [1, 3, 4],
      [1, 0],
    ],
  ])(
    'opset 8: sequence_lens %j shorter than the scan (directions %j), outputs zero past them',
    async (lens, directions) => {
      await agree({
        opset: 8,
        inputs: { init: rand([3, 3], 24), a: rand([3, 4, 3], 25), b: rand([3, 4, 3], 26) },
        consts: { lens: i64(lens) },
        nodes: [
          node('Scan', ['lens', 'init', 'a', 'b'], ['final', 'ds', 'ts'], {
            body: { graph: sumBody([3]) },
            num_scan_inputs: 2,
            directions,
          }),
        ],
        outputs: ['final', 'ds', 'ts'],
      });
    },
  );
});

describe('FromOnnx Loop vs onnxruntime', () => {
  it('the iteration number is int64: added to int64 values and scanned out', async () => {
    const body: SubgraphSpec = {
      inputs: [
        { name: 'i', dtype: 'int64', shape: [] },
        { name: 'c', dtype: 'bool', shape: [] },
        { name: 'acc', dtype: 'int64', shape: [2] },
      ],
      nodes: [
        node('Identity', ['c'], ['c_out']),
        node('Add', ['acc', 'i'], ['acc_out']),
        node('Mul', ['i', 'i'], ['sq']),
      ],
      outputs: [
        { name: 'c_out', dtype: 'bool', shape: [] },
        { name: 'acc_out', dtype: 'int64', shape: [2] },
        { name: 'sq', dtype: 'int64', shape: [] },
      ],
    };
    await agree({
      opset: 13,
      inputs: { acc: i64([10, -3]) },
      consts: { M: i64([4], []) },
      nodes: [node('Loop', ['M', '', 'acc'], ['acc_final', 'squares'], { body: { graph: body } })],
      outputs: ['acc_final', 'squares'],
    });
  });

  it('zero iterations: the carried value unchanged, scan outputs empty in the declared shape', async () => {
    const body: SubgraphSpec = {
      inputs: [
        { name: 'i', dtype: 'int64', shape: [] },
        { name: 'c', dtype: 'bool', shape: [] },
        { name: 'x', dtype: 'float32', shape: [3] },
      ],
      nodes: [node('Identity', ['c'], ['c_out']), node('Neg', ['x'], ['x_out']), node('Identity', ['x'], ['y'])],
      outputs: [
        { name: 'c_out', dtype: 'bool', shape: [] },
        { name: 'x_out', dtype: 'float32', shape: [3] },
        { name: 'y', dtype: 'float32', shape: [3] },
      ],
    };
    await agree({
      opset: 13,
      inputs: { x: rand([3], 18) },
      consts: { M: i64([0], []) },
      nodes: [node('Loop', ['M', '', 'x'], ['x_final', 'ys'], { body: { graph: body } })],
      outputs: ['x_final', 'ys'],
    });
  });

  it('a sequence carried through the iterations', async () => {
    const body: SubgraphSpec = {
      inputs: [{ name: 'i', dtype: 'int64', shape: [] }, { name: 'c', dtype: 'bool', shape: [] }, { name: 's' }],
      nodes: [
        node('Identity', ['c'], ['c_out']),
        node('Cast', ['i'], ['f'], { to: 1 }),
        node('Mul', ['x', 'f'], ['xi']),
        node('SequenceInsert', ['s', 'xi'], ['s_out']),
      ],
      outputs: [{ name: 'c_out', dtype: 'bool', shape: [] }, { name: 's_out' }],
    };
    await agree({
      opset: 13,
      inputs: { x: rand([2], 19) },
      consts: { M: i64([3], []) },
      nodes: [
        node('SequenceEmpty', [], ['e']),
        node('Loop', ['M', '', 'e'], ['s'], { body: { graph: body } }),
        node('ConcatFromSequence', ['s'], ['y'], { axis: 0, new_axis: 1 }),
      ],
      outputs: ['y'],
    });
  });
});

describe('FromOnnx sequence refusals', () => {
  const run = (c: Case) => loadOnnx(modelOf(c)).run(feedsOf(c));

  it('a position outside the sequence, naming the node and the range', () => {
    expect(() =>
      run({
        opset: 12,
        inputs: { x: rand([2], 20) },
        consts: { p: i64([2], []) },
        nodes: [node('SequenceConstruct', ['x', 'x'], ['s']), node('SequenceAt', ['s', 'p'], ['y'])],
        outputs: ['y'],
      }),
    ).toThrow(/SequenceAt.*position 2 is outside \[-2, 1\]/);
  });

  it('a Scan 8 sequence length of 0, which onnxruntime refuses too', () => {
    expect(() =>
      run({
        opset: 8,
        inputs: { init: rand([2, 3], 27), a: rand([2, 4, 3], 28) },
        consts: { lens: i64([4, 0]) },
        nodes: [
          node('Scan', ['lens', 'init', 'a'], ['final', 'ys'], {
            body: {
              graph: {
                inputs: [
                  { name: 'acc', dtype: 'float32', shape: [3] },
                  { name: 'x', dtype: 'float32', shape: [3] },
                ],
                nodes: [node('Add', ['acc', 'x'], ['s']), node('Identity', ['s'], ['y'])],
                outputs: [{ name: 's' }, { name: 'y' }],
              },
            },
            num_scan_inputs: 1,
          }),
        ],
        outputs: ['final', 'ys'],
      }),
    ).toThrow(/sequence_lens holds 0, outside \[1, 4\]/);
  });

  it('a split whose lengths do not cover the axis', () => {
    expect(() =>
      run({
        opset: 12,
        inputs: { x: rand([5], 21) },
        consts: { split: i64([2, 2]) },
        nodes: [node('SplitToSequence', ['x', 'split'], ['s']), node('SequenceLength', ['s'], ['n'])],
        outputs: ['n'],
      }),
    ).toThrow(/split \[2, 2\] sums to 4, the axis has 5/);
  });

  it('a sequence fed to an op that takes a tensor', () => {
    expect(() =>
      run({
        opset: 12,
        inputs: { x: rand([2], 22) },
        nodes: [node('SequenceConstruct', ['x'], ['s']), node('Relu', ['s'], ['y'])],
        outputs: ['y'],
      }),
    ).toThrow(/Relu.*input 's' is an ONNX sequence; Relu takes a tensor/);
  });

  it('a sequence as a model output', () => {
    expect(() =>
      run({
        opset: 12,
        inputs: { x: rand([2], 23) },
        nodes: [node('SequenceConstruct', ['x'], ['s'])],
        outputs: ['s'],
      }),
    ).toThrow(/graph output 's' is an ONNX sequence/);
  });
});
