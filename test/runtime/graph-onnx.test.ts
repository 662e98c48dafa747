// FromOnnx: models built here (an MLP, a transformer block) run through the generated ONNX mappings and match onnxruntime-node.

import { describe, expect, it } from 'vitest';
import { randomUniform, type Tensor } from '../../runtime/src/index.ts';
import { execute, moveGraph, printGraph } from '../../runtime/src/graph/index.ts';
import { initWebGpu } from '../../runtime/src/index.ts';
import { fromOnnx } from '../../runtime/src/graph/frontends/from-onnx.ts';
import { buildModel, type InitializerSpec, type ModelSpec, type NodeSpec } from '../support/onnx-proto.ts';
import { runOnnxModel, toFloat64 } from '../support/onnx-oracle.ts';
import { assertAllClose } from '../support/assert.ts';

const weight = (name: string, shape: number[], seed: number, scale = 0.5): InitializerSpec => ({
  name,
  dtype: 'float32',
  shape,
  data: Array.from(randomUniform(shape, { seed, low: -scale, high: scale }).dataSync()),
});
const ints = (name: string, values: number[]): InitializerSpec => ({
  name,
  dtype: 'int64',
  shape: [values.length],
  data: values,
});

// CI and RAF_REQUIRE_WEBGPU=1 turn a missing adapter into a failure; elsewhere the WebGPU runs are skipped.
const REQUIRE_GPU = Boolean(process.env.CI) || process.env.RAF_REQUIRE_WEBGPU === '1';
const gpu = await initWebGpu().catch(() => false);
if (REQUIRE_GPU && !gpu) throw new Error('WebGPU is required here but no adapter was found');

/** Runs the model in raf-op (CPU, and WebGPU when there is an adapter) and in onnxruntime on `x`; compares every output. */
async function agree(spec: ModelSpec, x: Tensor): Promise<string> {
  const bytes = buildModel(spec);
  const g = fromOnnx(bytes);
  const theirs = await runOnnxModel(bytes, {
    x: { dtype: 'float32', shape: [...x.shape], data: x.dataSync() as Float32Array },
  });
  const check = async (ours: Tensor[], where: string, tol: number) => {
    expect(ours.length).toBe(theirs.length);
    for (const [i, t] of ours.entries()) {
      expect([...t.shape]).toEqual(theirs[i]!.shape);
      assertAllClose(
        Array.from(await t.data()),
        Array.from(toFloat64(theirs[i]!)),
        { atol: tol, rtol: tol },
        `output ${i} (${where}) vs onnxruntime`,
      );
    }
  };
  await check(execute(g, [x]), 'cpu', 1e-4);
  if (gpu) await check(execute(await moveGraph(g, 'webgpu'), [await x.to('webgpu')]), 'webgpu', 1e-3);
  return printGraph(g);
}

describe(`FromOnnx (CPU${gpu ? ' and WebGPU' : ''}) vs onnxruntime-node`, () => {
  it('an MLP: MatMul, Add, Relu, MatMul, Add, Softmax', async () => {
    const nodes: NodeSpec[] = [
      { op: 'MatMul', inputs: ['x', 'w1'], outputs: ['h0'] },
      { op: 'Add', inputs: ['h0', 'b1'], outputs: ['h1'] },
      { op: 'Relu', inputs: ['h1'], outputs: ['h2'] },
      { op: 'MatMul', inputs: ['h2', 'w2'], outputs: ['h3'] },
      { op: 'Add', inputs: ['h3', 'b2'], outputs: ['h4'] },
      { op: 'Softmax', inputs: ['h4'], outputs: ['y'], attrs: { axis: -1 } },
    ];
    const text = await agree(
      {
        nodes,
        inputs: [{ name: 'x', dtype: 'float32', shape: [4, 8] }],
        outputs: [{ name: 'y' }],
        initializers: [weight('w1', [8, 16], 1), weight('b1', [16], 2), weight('w2', [16, 3], 3), weight('b2', [3], 4)],
        opset: 17,
      },
      randomUniform([4, 8], { seed: 9 }),
    );
    expect(text).toContain('raf.op.softmax(%4, -1)');
    expect(text.match(/raf\.op\.matmul/g)).toHaveLength(2);
  });

  it('a small CNN: Conv, Relu, MaxPool, Reshape, MatMul, Add, Softmax', async () => {
    const nodes: NodeSpec[] = [
      { op: 'Conv', inputs: ['x', 'wc'], outputs: ['c'], attrs: { pads: [1, 1, 1, 1], strides: [1, 1] } },
      { op: 'Relu', inputs: ['c'], outputs: ['r'] },
      { op: 'MaxPool', inputs: ['r'], outputs: ['p'], attrs: { kernel_shape: [2, 2], strides: [2, 2] } },
      { op: 'Reshape', inputs: ['p', 'flat'], outputs: ['f'] },
      { op: 'MatMul', inputs: ['f', 'wd'], outputs: ['d'] },
      { op: 'Add', inputs: ['d', 'bd'], outputs: ['l'] },
      { op: 'Softmax', inputs: ['l'], outputs: ['y'], attrs: { axis: -1 } },
    ];
    const text = await agree(
      {
        nodes,
        inputs: [{ name: 'x', dtype: 'float32', shape: [2, 2, 8, 8] }],
        outputs: [{ name: 'y' }],
        initializers: [
          weight('wc', [4, 2, 3, 3], 31),
          ints('flat', [2, -1]),
          weight('wd', [64, 5], 32, 0.2),
          weight('bd', [5], 33),
        ],
        opset: 17,
      },
      randomUniform([2, 2, 8, 8], { seed: 34 }),
    );
    expect(text).toContain('raf.op.conv2d(%x, meta[Constant](Tensor[(4, 2, 3, 3), float32]), [1, 1], [1, 1, 1, 1]');
    expect(text).toContain('raf.op.max_pool2d(%1, [2, 2], [2, 2]');
  });

  it('a transformer block: self-attention, residuals, layer norms, feed-forward', async () => {
    const [t, d, f] = [5, 8, 16];
    const nodes: NodeSpec[] = [
      { op: 'MatMul', inputs: ['x', 'wq'], outputs: ['q'] },
      { op: 'MatMul', inputs: ['x', 'wk'], outputs: ['k'] },
      { op: 'MatMul', inputs: ['x', 'wv'], outputs: ['v'] },
      { op: 'Transpose', inputs: ['k'], outputs: ['kt'], attrs: { perm: [1, 0] } },
      { op: 'MatMul', inputs: ['q', 'kt'], outputs: ['s0'] },
      { op: 'Div', inputs: ['s0', 'scale'], outputs: ['s'] },
      { op: 'Softmax', inputs: ['s'], outputs: ['p'], attrs: { axis: -1 } },
      { op: 'MatMul', inputs: ['p', 'v'], outputs: ['a0'] },
      { op: 'MatMul', inputs: ['a0', 'wo'], outputs: ['a'] },
      { op: 'Add', inputs: ['x', 'a'], outputs: ['h0'] },
      {
        op: 'LayerNormalization',
        inputs: ['h0', 'g1', 'be1'],
        outputs: ['h'],
        attrs: { axis: -1, epsilon: { float: 1e-5 } },
      },
      { op: 'MatMul', inputs: ['h', 'w1'], outputs: ['f0'] },
      { op: 'Add', inputs: ['f0', 'b1'], outputs: ['f1'] },
      { op: 'Relu', inputs: ['f1'], outputs: ['f2'] },
      { op: 'MatMul', inputs: ['f2', 'w2'], outputs: ['f3'] },
      { op: 'Add', inputs: ['h', 'f3'], outputs: ['y0'] },
      {
        op: 'LayerNormalization',
        inputs: ['y0', 'g2', 'be2'],
        outputs: ['y'],
        attrs: { axis: -1, epsilon: { float: 1e-5 } },
      },
    ];
    const text = await agree(
      {
        nodes,
        inputs: [{ name: 'x', dtype: 'float32', shape: [t, d] }],
        outputs: [{ name: 'y' }],
        initializers: [
          weight('wq', [d, d], 11),
          weight('wk', [d, d], 12),
          weight('wv', [d, d], 13),
          weight('wo', [d, d], 14),
          weight('w1', [d, f], 15),
          weight('b1', [f], 16),
          weight('w2', [f, d], 17),
          weight('g1', [d], 18),
          weight('be1', [d], 19),
          weight('g2', [d], 20),
          weight('be2', [d], 21),
          { name: 'scale', dtype: 'float32', shape: [], data: [Math.sqrt(d)] },
        ],
        opset: 17,
      },
      randomUniform([t, d], { seed: 22 }),
    );
    expect(text).toContain('raf.op.transpose(%1, [1, 0])');
    expect(text.match(/raf\.op\.layer_norm/g)).toHaveLength(2);
  });

  it("reads an omitted attribute as ONNX's default, not ours (keepdims 1, ArgMax axis 0, LogSoftmax axis -1)", async () => {
    const text = await agree(
      {
        nodes: [
          { op: 'ReduceSum', inputs: ['x', 'axes'], outputs: ['s'] },
          { op: 'ReduceMean', inputs: ['x'], outputs: ['m'] },
          { op: 'ReduceMax', inputs: ['x', 'axes'], outputs: ['mx'], attrs: { keepdims: 0 } },
          { op: 'ArgMax', inputs: ['x'], outputs: ['am'] },
          { op: 'Cast', inputs: ['am'], outputs: ['amf'], attrs: { to: 1 } },
          { op: 'LogSoftmax', inputs: ['x'], outputs: ['ls'] },
        ],
        inputs: [{ name: 'x', dtype: 'float32', shape: [4, 6] }],
        outputs: [{ name: 's' }, { name: 'm' }, { name: 'mx' }, { name: 'amf' }, { name: 'ls' }],
        initializers: [ints('axes', [1])],
        opset: 18,
      },
      randomUniform([4, 6], { seed: 11 }),
    );
    expect(text).toContain('raf.op.sum(%x, [1], True)');
    expect(text).toContain('raf.op.max(%x, [1], False)');
    expect(text).toContain('raf.op.argmax(%x, 0, True, False)');
  });

  it("reads a Clip-6 without min or max as float32's whole range", async () => {
    await agree(
      {
        nodes: [{ op: 'Clip', inputs: ['x'], outputs: ['y'], attrs: { max: 0.25 } }],
        inputs: [{ name: 'x', dtype: 'float32', shape: [3, 5] }],
        outputs: [{ name: 'y' }],
        opset: 10,
      },
      randomUniform([3, 5], { seed: 12, low: -1e30, high: 1 }),
    );
  });

  // Forms real exporters produce, each against onnxruntime at the opset that spells it that way.
  const floats = (name: string, values: number[], shape = [values.length]): InitializerSpec => ({
    name,
    dtype: 'float32',
    shape,
    data: values,
  });

  it('Gemm with alpha, beta, transA and transB', async () => {
    await agree(
      {
        nodes: [
          {
            op: 'Gemm',
            inputs: ['x', 'w', 'c'],
            outputs: ['y'],
            attrs: { alpha: { float: 0.5 }, beta: { float: 2 }, transA: 1, transB: 1 },
          },
        ],
        inputs: [{ name: 'x', dtype: 'float32', shape: [4, 3] }],
        outputs: [{ name: 'y' }],
        initializers: [weight('w', [5, 4], 41), weight('c', [3, 5], 42)],
        opset: 13,
      },
      randomUniform([4, 3], { seed: 43 }),
    );
  });

  it('1-D Conv with a bias and auto_pad SAME_UPPER, then ConvTranspose with output_padding', async () => {
    await agree(
      {
        nodes: [
          {
            op: 'Conv',
            inputs: ['x', 'w', 'b'],
            outputs: ['c'],
            attrs: { auto_pad: 'SAME_UPPER', strides: [2], kernel_shape: [4] },
          },
          {
            op: 'ConvTranspose',
            inputs: ['c', 'wt', 'bt'],
            outputs: ['y'],
            attrs: { strides: [2], pads: [1, 0], output_padding: [1] },
          },
        ],
        inputs: [{ name: 'x', dtype: 'float32', shape: [2, 3, 9] }],
        outputs: [{ name: 'y' }],
        initializers: [
          weight('w', [4, 3, 4], 44),
          weight('b', [4], 45),
          weight('wt', [4, 2, 3], 46),
          weight('bt', [2], 47),
        ],
        opset: 11,
      },
      randomUniform([2, 3, 9], { seed: 48 }),
    );
  });

  it('Reshape with 0 and -1, Flatten at axis 2, Softmax-11 over a coerced 2-D view', async () => {
    await agree(
      {
        nodes: [
          { op: 'Reshape', inputs: ['x', 'shape'], outputs: ['r'] },
          { op: 'Flatten', inputs: ['r'], outputs: ['f'], attrs: { axis: 2 } },
          { op: 'Softmax', inputs: ['r'], outputs: ['s'], attrs: { axis: 1 } },
        ],
        inputs: [{ name: 'x', dtype: 'float32', shape: [2, 3, 4] }],
        outputs: [{ name: 'f' }, { name: 's' }],
        initializers: [ints('shape', [0, -1, 2])],
        opset: 11,
      },
      randomUniform([2, 3, 4], { seed: 49 }),
    );
  });

  it('opset 11 attribute forms: Squeeze and Unsqueeze axes, ReduceMean axes, Clip min/max as attributes then inputs', async () => {
    await agree(
      {
        nodes: [
          { op: 'Unsqueeze', inputs: ['x'], outputs: ['u'], attrs: { axes: [0] } },
          { op: 'ReduceMean', inputs: ['u'], outputs: ['m'], attrs: { axes: [2] } },
          { op: 'Squeeze', inputs: ['m'], outputs: ['q'], attrs: { axes: [0, 2] } },
          { op: 'Clip', inputs: ['q', 'lo', 'hi'], outputs: ['y'] },
        ],
        inputs: [{ name: 'x', dtype: 'float32', shape: [3, 4, 5] }],
        outputs: [{ name: 'y' }],
        initializers: [floats('lo', [-0.2], []), floats('hi', [0.3], [])],
        opset: 11,
      },
      randomUniform([3, 4, 5], { seed: 50 }),
    );
  });

  it('a shape subgraph (Shape, Gather, Unsqueeze, Concat, Reshape) folds at import', async () => {
    const text = await agree(
      {
        nodes: [
          { op: 'Shape', inputs: ['x'], outputs: ['s'] },
          { op: 'Gather', inputs: ['s', 'zero'], outputs: ['n'], attrs: { axis: 0 } },
          { op: 'Unsqueeze', inputs: ['n', 'axes0'], outputs: ['n1'] },
          { op: 'Concat', inputs: ['n1', 'minus1'], outputs: ['shape'], attrs: { axis: 0 } },
          { op: 'Reshape', inputs: ['x', 'shape'], outputs: ['r'] },
          { op: 'Identity', inputs: ['r'], outputs: ['y'] },
        ],
        inputs: [{ name: 'x', dtype: 'float32', shape: [2, 3, 4] }],
        outputs: [{ name: 'y' }],
        initializers: [
          { name: 'zero', dtype: 'int64', shape: [], data: [0] },
          ints('axes0', [0]),
          ints('minus1', [-1]),
        ],
        opset: 13,
      },
      randomUniform([2, 3, 4], { seed: 51 }),
    );
    expect(text).toContain('raf.op.reshape(%x, [2, -1])');
    expect(text).not.toContain('raf.op.take');
  });

  it('Pad reflect, and Resize nearest (asymmetric, floor) and linear (half_pixel, align_corners)', async () => {
    await agree(
      {
        nodes: [
          { op: 'Pad', inputs: ['x', 'pads'], outputs: ['p'], attrs: { mode: 'reflect' } },
          {
            op: 'Resize',
            inputs: ['p', '', 'scales'],
            outputs: ['n'],
            attrs: { mode: 'nearest', coordinate_transformation_mode: 'asymmetric', nearest_mode: 'floor' },
          },
          { op: 'Resize', inputs: ['p', '', '', 'sizes'], outputs: ['l'], attrs: { mode: 'linear' } },
          {
            op: 'Resize',
            inputs: ['x', '', '', 'sizes'],
            outputs: ['a'],
            attrs: { mode: 'linear', coordinate_transformation_mode: 'align_corners' },
          },
        ],
        inputs: [{ name: 'x', dtype: 'float32', shape: [1, 2, 3, 4] }],
        outputs: [{ name: 'n' }, { name: 'l' }, { name: 'a' }],
        initializers: [
          ints('pads', [0, 0, 1, 2, 0, 0, 2, 1]),
          floats('scales', [1, 1, 2, 1.5]),
          ints('sizes', [1, 2, 7, 5]),
        ],
        opset: 13,
      },
      randomUniform([1, 2, 3, 4], { seed: 52 }),
    );
  });

  it('If on a run-time condition picks a branch at run time (where on WebGPU); on a known one keeps one branch', async () => {
    const branch = (op: string, out: string) => ({
      nodes: [{ op, inputs: ['x'], outputs: [out] }],
      outputs: [{ name: out, dtype: 'float32' as const, shape: [2, 3] }],
    });
    const text = await agree(
      {
        nodes: [
          { op: 'ReduceSum', inputs: ['x'], outputs: ['s'], attrs: { keepdims: 0 } },
          { op: 'Greater', inputs: ['s', 'zero'], outputs: ['cond'] },
          {
            op: 'If',
            inputs: ['cond'],
            outputs: ['y'],
            attrs: { then_branch: { graph: branch('Relu', 't') }, else_branch: { graph: branch('Neg', 'e') } },
          },
          {
            op: 'If',
            inputs: ['yes'],
            outputs: ['z'],
            attrs: { then_branch: { graph: branch('Sigmoid', 't2') }, else_branch: { graph: branch('Tanh', 'e2') } },
          },
        ],
        inputs: [{ name: 'x', dtype: 'float32', shape: [2, 3] }],
        outputs: [{ name: 'y' }, { name: 'z' }],
        initializers: [floats('zero', [0], []), { name: 'yes', dtype: 'bool', shape: [], data: [1] }],
        opset: 13,
      },
      randomUniform([2, 3], { seed: 53 }),
    );
    expect(text).toContain('raf.op.if(');
    expect(text).toContain('raf.op.sigmoid');
    expect(text).not.toContain('raf.op.tanh');
  });

  it('names every op it cannot import in one refusal, with the nodes that use them', () => {
    const bytes = buildModel({
      nodes: [
        { op: 'NotAnOnnxOp', inputs: ['x'], outputs: ['a'] },
        { op: 'Relu', inputs: ['a'], outputs: ['b'] },
        { op: 'AlsoMissing', inputs: ['b'], outputs: ['c'] },
        { op: 'NotAnOnnxOp', inputs: ['c'], outputs: ['y'] },
      ],
      inputs: [{ name: 'x', dtype: 'float32', shape: [2] }],
      outputs: [{ name: 'y' }],
    });
    expect(() => fromOnnx(bytes)).toThrow(
      "FromOnnx: the model uses 2 ONNX ops raf-op does not import: NotAnOnnxOp (2 nodes: 'n0_NotAnOnnxOp', 'n3_NotAnOnnxOp'); AlsoMissing (1 node: 'n2_AlsoMissing')",
    );
  });

  it('names every node it cannot import as written in the same refusal, grouped by reason, with what to do', () => {
    const bytes = buildModel({
      nodes: [
        { op: 'NotAnOnnxOp', inputs: ['x'], outputs: ['a'] },
        { op: 'Softmax', inputs: ['x'], outputs: ['b'], attrs: { axes: [0] } },
        // Reads a value that failed: not a problem of its own.
        { op: 'Softmax', inputs: ['b'], outputs: ['c'], attrs: { axes: [1] } },
        { op: 'Relu', inputs: ['x'], outputs: ['d'], attrs: { alpha: 0.5 } },
        { op: 'Relu', inputs: ['x'], outputs: ['e'], attrs: { alpha: 0.5 } },
        { op: 'LayerNormalization', inputs: ['x', 's'], outputs: ['f'], attrs: { stash_type: 0 } },
        { op: 'Add', inputs: ['a', 'c'], outputs: ['y'] },
      ],
      inputs: [
        { name: 'x', dtype: 'float32', shape: [2, 3] },
        { name: 's', dtype: 'float32', shape: [3] },
      ],
      outputs: [{ name: 'y' }, { name: 'd' }, { name: 'e' }, { name: 'f' }],
    });
    let message = '';
    try {
      fromOnnx(bytes);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain(
      "FromOnnx: the model uses 1 ONNX op raf-op does not import: NotAnOnnxOp (1 node: 'n0_NotAnOnnxOp'); " +
        'and it has 4 nodes raf-op cannot import as written: ' +
        "Softmax: raf.op.softmax: attribute 'axes' is not one raf-op reads for Softmax (it reads axis) (1 node: 'n1_Softmax'); " +
        "Relu: raf.op.relu: attribute 'alpha' is not one raf-op reads for Relu (it reads no attributes) (2 nodes: 'n3_Relu', 'n4_Relu'); " +
        "LayerNormalization: stash_type = 0 is not imported (only 1, float32 statistics) (1 node: 'n5_LayerNormalization').",
    );
    expect(message).toContain('npm run new -- NAME --onnx OpType');
    // One failing node is refused with its own error, naming it.
    const one = buildModel({
      nodes: [{ op: 'Relu', inputs: ['x'], outputs: ['y'], attrs: { alpha: 0.5 } }],
      inputs: [{ name: 'x', dtype: 'float32', shape: [2] }],
      outputs: [{ name: 'y' }],
    });
    expect(() => fromOnnx(one)).toThrow(
      "FromOnnx node 0 ('n0_Relu', Relu): raf.op.relu: attribute 'alpha' is not one raf-op reads for Relu (it reads no attributes)",
    );
  });

  it('refuses bytes that are not a model, naming what is wrong', () => {
    const good = buildModel({
      nodes: [{ op: 'Relu', inputs: ['x'], outputs: ['y'] }],
      inputs: [{ name: 'x', dtype: 'float32', shape: [2] }],
      outputs: [{ name: 'y' }],
    });
    expect(() => fromOnnx(new Uint8Array())).toThrow('FromOnnx: the model is empty (0 bytes)');
    expect(() => fromOnnx(good.slice(0, good.length - 7))).toThrow(
      /^FromOnnx: these \d+ bytes are not an ONNX model \(.*\); the file may be truncated, or not a \.onnx file$/,
    );
    expect(() => fromOnnx(new TextEncoder().encode('hello world, not a model'))).toThrow('are not an ONNX model');
    const future = buildModel({
      nodes: [{ op: 'Relu', inputs: ['x'], outputs: ['y'] }],
      inputs: [{ name: 'x', dtype: 'float32', shape: [2] }],
      outputs: [{ name: 'y' }],
      opset: 99,
    });
    expect(() => fromOnnx(future)).toThrow("the model imports ONNX opset 99; raf-op's mappings know opsets up to 27");
  });

  it('refuses a value that fails to compute at import only where it is read', () => {
    const model = (outputs: string[]) =>
      buildModel({
        nodes: [
          { op: 'Cast', inputs: ['minusInf'], outputs: ['bucket'], attrs: { to: 7 } },
          { op: 'Relu', inputs: ['x'], outputs: ['y'] },
        ],
        inputs: [{ name: 'x', dtype: 'float32', shape: [3] }],
        outputs: outputs.map((name) => ({ name })),
        initializers: [{ name: 'minusInf', dtype: 'float32', shape: [1], data: [-Infinity] }],
      });
    const x = randomUniform([3], { seed: 9, low: -1, high: 1 });
    const [y] = execute(fromOnnx(model(['y'])), [x]);
    expect(Array.from(y!.dataSync() as Float32Array)).toEqual(
      Array.from(x.dataSync() as Float32Array, (v) => Math.max(v, 0)),
    );
    expect(() => fromOnnx(model(['y', 'bucket']))).toThrow(
      /graph output 'bucket' could not be computed at import \(node 0 \('n0_Cast', Cast\): .*int64/,
    );
  });

  it('converts nodes listed out of order, and names a cycle or a value written twice', () => {
    const x = randomUniform([2, 3], { seed: 7 });
    const ordered = buildModel({
      nodes: [
        { op: 'Exp', inputs: ['a'], outputs: ['y'] },
        { op: 'Neg', inputs: ['x'], outputs: ['a'] },
      ],
      inputs: [{ name: 'x', dtype: 'float32', shape: [2, 3] }],
      outputs: [{ name: 'y' }],
    });
    const [y] = execute(fromOnnx(ordered), [x]);
    const want = Array.from(x.dataSync() as Float32Array, (v) => Math.exp(-v));
    assertAllClose(Array.from(y!.dataSync() as Float32Array), want, { atol: 1e-6, rtol: 1e-6 });
    const cycle = buildModel({
      nodes: [
        { op: 'Exp', inputs: ['b'], outputs: ['a'] },
        { op: 'Neg', inputs: ['a'], outputs: ['b'] },
      ],
      inputs: [{ name: 'x', dtype: 'float32', shape: [2, 3] }],
      outputs: [{ name: 'b' }],
    });
    expect(() => fromOnnx(cycle)).toThrow(
      "the graph has a cycle: node 0 ('n0_Exp', Exp) -> node 1 ('n1_Neg', Neg) -> node 0 ('n0_Exp', Exp)",
    );
    const twice = buildModel({
      nodes: [
        { op: 'Exp', inputs: ['x'], outputs: ['y'] },
        { op: 'Neg', inputs: ['x'], outputs: ['y'] },
      ],
      inputs: [{ name: 'x', dtype: 'float32', shape: [2, 3] }],
      outputs: [{ name: 'y' }],
    });
    expect(() => fromOnnx(twice)).toThrow("value 'y' is written by two nodes, node 0 ('n0_Exp', Exp) and node 1");
  });
});
