// Import forms of runtime/src/graph/onnx/nn-forms.ts against onnxruntime-node (pooling of any rank with MaxPool's
// indices, global pools, the losses' log_prob output, RNN's batch-first layout), and raf.op.dropout's training mode,
// whose random mask has no oracle: its properties, and NumPy's legacy MT19937 stream for a seed.

import { describe, expect, it } from 'vitest';
import { randomUniform, tensor, type Tensor } from '../../runtime/src/index.ts';
import { dropout } from '../../runtime/src/generated/api/dropout.ts';
import { loadOnnx } from '../../runtime/src/graph/onnx/session.ts';
import { Mt19937 } from '../../runtime/src/ops/mt19937.ts';
import { buildSingleNodeModel, singleNodeIoNames, type AttrValue } from '../support/onnx-proto.ts';
import { runOnnxModel, type OracleTensor } from '../support/onnx-oracle.ts';
import { assertAllClose } from '../support/assert.ts';

const floats = (shape: number[], seed: number): OracleTensor => ({
  dtype: 'float32',
  shape,
  data: Float32Array.from(randomUniform(shape, { seed, low: -2, high: 2 }).dataSync()),
});

/** Runs one node in onnxruntime and through loadOnnx; compares every output (values, shape, dtype). */
async function compare(op: string, inputs: OracleTensor[], attrs: Record<string, AttrValue>, outputs = 1, opset = 17) {
  const spec = { op, opset, inputs, attrs, outputs };
  const model = buildSingleNodeModel(spec);
  const names = singleNodeIoNames(spec);
  const feeds = Object.fromEntries(inputs.map((t, i) => [names.inputs[i]!, t]));
  const want = await runOnnxModel(model, feeds);
  const ours = loadOnnx(model).run(
    Object.fromEntries(
      inputs.map((t, i) => [names.inputs[i]!, tensor(t.data as ArrayLike<number>, { dtype: t.dtype, shape: t.shape })]),
    ),
  );
  names.outputs.forEach((n, i) => {
    const got = ours[n]!;
    expect(got.shape).toEqual(want[i]!.shape);
    expect(got.dtype).toBe(want[i]!.dtype);
    assertAllClose(got.dataSync() as ArrayLike<number>, Array.from(want[i]!.data as ArrayLike<number>, Number), {
      atol: 1e-5,
      rtol: 1e-4,
    });
  });
}

describe('ONNX pooling, losses and RNN import forms vs onnxruntime', () => {
  it('MaxPool 3-D with ceil_mode, dilations and both outputs', async () => {
    await compare(
      'MaxPool',
      [floats([1, 2, 5, 6, 7], 1)],
      { kernel_shape: [2, 3, 2], strides: [2, 1, 2], dilations: [1, 2, 1], pads: [0, 1, 1, 1, 0, 0], ceil_mode: 1 },
      2,
    );
  });
  it('MaxPool 2-D with indices in column-major storage order', async () => {
    await compare('MaxPool', [floats([2, 3, 6, 5], 2)], { kernel_shape: [3, 2], strides: [2, 2], storage_order: 1 }, 2);
  });
  it('AveragePool 1-D with SAME_LOWER and count_include_pad', async () => {
    await compare(
      'AveragePool',
      [floats([2, 3, 9], 3)],
      { kernel_shape: [4], strides: [2], auto_pad: 'SAME_LOWER', count_include_pad: 1 },
      1,
      19,
    );
  });
  it('GlobalAveragePool, GlobalMaxPool and GlobalLpPool on 3-D and 5-D inputs', async () => {
    for (const shape of [
      [2, 3, 7],
      [1, 2, 3, 4, 5],
    ]) {
      await compare('GlobalAveragePool', [floats(shape, 4)], {});
      await compare('GlobalMaxPool', [floats(shape, 5)], {});
      await compare('GlobalLpPool', [floats(shape, 6)], { p: 3 });
    }
  });
  it('SoftmaxCrossEntropyLoss with weight, ignore_index and the log_prob output', async () => {
    const labels: OracleTensor = {
      dtype: 'int64',
      shape: [2, 4],
      data: BigInt64Array.from([0n, 2n, 1n, 2n, 1n, 1n, 0n, 2n]),
    };
    const weight: OracleTensor = { dtype: 'float32', shape: [3], data: Float32Array.from([0.5, 2, 1]) };
    for (const reduction of ['none', 'sum', 'mean'])
      await compare(
        'SoftmaxCrossEntropyLoss',
        [floats([2, 3, 4], 7), labels, weight],
        { reduction, ignore_index: 2 },
        2,
      );
  });
  it('RNN bidirectional with Relu, sequence lengths and an initial state (layout 1: the backend suite)', async () => {
    const lens: OracleTensor = { dtype: 'int32', shape: [3], data: Int32Array.from([4, 2, 3]) };
    await compare(
      'RNN',
      [
        floats([4, 3, 2], 8),
        floats([2, 5, 2], 9),
        floats([2, 5, 5], 10),
        floats([2, 10], 11),
        lens,
        floats([2, 3, 5], 12),
      ],
      { hidden_size: 5, direction: 'bidirectional', activations: ['Relu', 'Relu'] },
      2,
    );
  });
  it('refuses what it does not import, naming it', () => {
    const model = buildSingleNodeModel({
      op: 'RNN',
      opset: 17,
      inputs: [floats([3, 1, 2], 1), floats([1, 4, 2], 2), floats([1, 4, 4], 3)],
      attrs: { hidden_size: 4, activations: ['LeakyRelu'] },
      outputs: 2,
    });
    const feeds = {
      x0: tensor(new Float32Array(6), { shape: [3, 1, 2] }),
      x1: tensor(new Float32Array(8), { shape: [1, 4, 2] }),
      x2: tensor(new Float32Array(16), { shape: [1, 4, 4] }),
    };
    expect(() => loadOnnx(model).run(feeds)).toThrow(/RNN activations \[LeakyRelu\] are not imported/);
  });
});

describe('raf.op.dropout (training mode)', () => {
  it("draws NumPy's legacy MT19937 stream: np.random.seed(0); np.random.random_sample()", () => {
    // NumPy's published values for seed 0 (np.random.seed(0); np.random.rand(3)).
    const rng = new Mt19937(0);
    assertAllClose(
      [rng.nextDouble(), rng.nextDouble(), rng.nextDouble()],
      [0.5488135039273248, 0.7151893663724195, 0.6027633760716439],
      {
        atol: 1e-15,
        rtol: 0,
      },
    );
  });
  const x = randomUniform([100, 100], { seed: 3, low: 0.5, high: 1.5 });
  const check = (ratio: number, seed: number | null) => {
    const [y, mask] = dropout(x, tensor([ratio], { shape: [] }), seed) as [Tensor, Tensor];
    expect(mask.dtype).toBe('bool');
    const [xv, yv, mv] = [x.dataSync(), y.dataSync(), mask.dataSync()];
    let dropped = 0;
    let bad = -1;
    for (let i = 0; i < xv.length; i++) {
      if (!mv[i]) dropped++;
      const want = mv[i] ? xv[i]! / (1 - ratio) : 0;
      if (bad < 0 && Math.abs(yv[i]! - want) > 1e-5 * Math.abs(want)) bad = i;
    }
    expect(bad).toBe(-1);
    // 10000 Bernoulli(ratio) draws: the drop rate lies within 5 standard deviations of ratio.
    const sd = Math.sqrt((ratio * (1 - ratio)) / xv.length);
    expect(Math.abs(dropped / xv.length - ratio)).toBeLessThan(5 * sd + 1e-12);
    return Array.from(mv);
  };
  it('zeroes a ratio of the values and scales the rest by 1 / (1 - ratio), with or without a seed', () => {
    for (const ratio of [0.1, 0.5, 0.75]) {
      expect(check(ratio, 5)).toEqual(check(ratio, 5));
      expect(check(ratio, null)).not.toEqual(check(ratio, null));
    }
  });
  it('keeps everything at ratio 0 and refuses a ratio of 1', () => {
    const [y, mask] = dropout(x, tensor([0], { shape: [] }), null) as [Tensor, Tensor];
    expect(Array.from(y.dataSync())).toEqual(Array.from(x.dataSync()));
    expect(Array.from(mask.dataSync()).every((m) => m === 1)).toBe(true);
    expect(() => dropout(x, tensor([1], { shape: [] }), null)).toThrow(/ratio.*\[0, 1\)/);
  });
});
