// FromOnnx's reductions, normalizations and attention (forms-norm.ts and the specs behind them) on models built here
// with attributes and opsets the backend suite's node tests leave out: each runs through loadOnnx and in
// onnxruntime-node, and every output must agree in dtype, shape and value (exactly for integers, 1e-5 for floats).

import { describe, expect, it } from 'vitest';
import { loadOnnx, randomUniform, tensor, type Tensor } from '../../runtime/src/index.ts';
import { buildModel, type AttrValue, type InitializerSpec } from '../support/onnx-proto.ts';
import { runOnnxModel, toFloat64, type OracleTensor } from '../support/onnx-oracle.ts';
import { assertAllClose } from '../support/assert.ts';

type Feed = { dtype: 'float32' | 'int64' | 'int32' | 'bool'; shape: number[]; data: number[] };

const rand = (shape: number[], seed: number, low = -2, high = 2): Feed => ({
  dtype: 'float32',
  shape,
  data: Array.from(randomUniform(shape, { seed, low, high }).dataSync()),
});
const ints = (shape: number[], seed: number): Feed => ({
  dtype: 'int32',
  shape,
  data: rand(shape, seed, -20, 20).data.map((v) => Math.round(v)),
});
const i64 = (data: number[], shape = [data.length]): Feed => ({ dtype: 'int64', shape, data });

function oracleFeed(f: Feed): OracleTensor {
  if (f.dtype === 'int64') return { dtype: 'int64', shape: f.shape, data: BigInt64Array.from(f.data.map(BigInt)) };
  if (f.dtype === 'int32') return { dtype: 'int32', shape: f.shape, data: Int32Array.from(f.data) };
  if (f.dtype === 'bool') return { dtype: 'bool', shape: f.shape, data: Uint8Array.from(f.data) };
  return { dtype: 'float32', shape: f.shape, data: Float32Array.from(f.data) };
}

interface Case {
  op: string;
  opset: number;
  inputs: Record<string, Feed>;
  consts?: Record<string, Feed>;
  attrs?: Record<string, AttrValue>;
  /** The node's outputs; '' leaves one out. */
  outputs?: string[];
  order?: string[];
}

async function agree(c: Case): Promise<void> {
  const names = c.order ?? [...Object.keys(c.inputs), ...Object.keys(c.consts ?? {})];
  const outs = c.outputs ?? ['y0'];
  const initializers: InitializerSpec[] = Object.entries(c.consts ?? {}).map(([name, f]) => ({ name, ...f }));
  const bytes = buildModel({
    nodes: [{ op: c.op, inputs: names, outputs: outs, attrs: c.attrs }],
    inputs: Object.entries(c.inputs).map(([name, f]) => ({ name, dtype: f.dtype, shape: f.shape })),
    outputs: outs.filter(Boolean).map((name) => ({ name })),
    initializers,
    opset: c.opset,
  });
  const theirs = await runOnnxModel(
    bytes,
    Object.fromEntries(Object.entries(c.inputs).map(([n, f]) => [n, oracleFeed(f)])),
  );
  const ours = loadOnnx(bytes).run(
    Object.fromEntries(
      Object.entries(c.inputs).map(([n, f]) => [n, tensor(f.data, { dtype: f.dtype, shape: f.shape })]),
    ),
  );
  outs.filter(Boolean).forEach((name, k) => {
    const t: Tensor = ours[name]!;
    expect(t.dtype, `${c.op} output ${k} dtype`).toBe(theirs[k]!.dtype);
    expect([...t.shape], `${c.op} output ${k} shape`).toEqual(theirs[k]!.shape);
    const tol = t.dtype === 'float32' ? 1e-5 : 0;
    assertAllClose(
      Array.from(t.dataSync()),
      Array.from(toFloat64(theirs[k]!)),
      { atol: tol, rtol: tol },
      `${c.op} output ${k}`,
    );
  });
}

describe('FromOnnx reductions vs onnxruntime', () => {
  it.each([
    ['ReduceSumSquare', { noop_with_empty_axes: 1 }],
    ['ReduceL1', { noop_with_empty_axes: 1 }],
    ['ReduceLogSum', { noop_with_empty_axes: 1 }],
    ['ReduceMean', { noop_with_empty_axes: 1 }],
  ] as const)(
    '%s opset 18 %j with no axes reduces over none (its elementwise part still applies)',
    async (op, attrs) => {
      await agree({ op, opset: 18, inputs: { x: rand([3, 4], 1, 0.5, 2) }, attrs: { ...attrs } });
    },
  );

  it.each([
    ['ReduceL1', 13],
    ['ReduceL2', 13],
    ['ReduceSumSquare', 11],
    ['ReduceLogSum', 13],
    ['ReduceLogSumExp', 13],
  ] as const)('%s opset %i takes axes as an attribute', async (op, opset) => {
    await agree({ op, opset, inputs: { x: rand([2, 3, 4], 2, 0.5, 2) }, attrs: { axes: [0, -1], keepdims: 0 } });
  });

  it.each([['ReduceMean'], ['ReduceSum'], ['ReduceL1'], ['ReduceSumSquare'], ['ReduceMax'], ['ReduceProd']] as const)(
    '%s of int32 stays int32 (a mean truncates toward zero)',
    async (op) => {
      await agree({
        op,
        opset: 18,
        inputs: { x: ints([3, 5], 3) },
        consts: { axes: i64([1]) },
        attrs: { keepdims: 1 },
      });
    },
  );
});

describe('FromOnnx normalizations vs onnxruntime', () => {
  it('LayerNormalization without B, with Mean and InvStdDev on axis 1', async () => {
    await agree({
      op: 'LayerNormalization',
      opset: 17,
      inputs: { x: rand([2, 3, 4], 4), scale: rand([3, 4], 5) },
      attrs: { axis: 1, epsilon: 0.01 },
      outputs: ['y', 'mean', 'inv'],
    });
  });

  it('LpNormalization p = 1 on axis 0 keeps a zero vector zero', async () => {
    const x = rand([3, 4], 6);
    x.data.splice(0, 1, 0);
    x.data.splice(4, 1, 0);
    x.data.splice(8, 1, 0);
    await agree({ op: 'LpNormalization', opset: 22, inputs: { x }, attrs: { axis: 0, p: 1 } });
  });

  it('MeanVarianceNormalization over axes [1, 2]', async () => {
    await agree({
      op: 'MeanVarianceNormalization',
      opset: 13,
      inputs: { x: rand([2, 3, 4], 7) },
      attrs: { axes: [1, 2] },
    });
  });

  it('RotaryEmbedding 3-D, interleaved, partial rotary dim', async () => {
    await agree({
      op: 'RotaryEmbedding',
      opset: 23,
      inputs: { x: rand([2, 3, 12], 8), cos: rand([6, 2], 9), sin: rand([6, 2], 10) },
      consts: { pos: i64([0, 2, 5, 1, 1, 3], [2, 3]) },
      attrs: { num_heads: 2, interleaved: 1, rotary_embedding_dim: 4 },
    });
  });
});

describe('FromOnnx Attention vs onnxruntime', () => {
  it('3-D grouped-query attention with a past cache, causal, bool mask: Y and present key/value', async () => {
    await agree({
      op: 'Attention',
      opset: 23,
      inputs: {
        q: rand([2, 3, 8 * 4], 11),
        k: rand([2, 3, 2 * 4], 12),
        v: rand([2, 3, 2 * 5], 13),
        mask: { dtype: 'bool', shape: [3, 5], data: [1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1] },
        pastK: rand([2, 2, 2, 4], 14),
        pastV: rand([2, 2, 2, 5], 15),
      },
      attrs: { q_num_heads: 8, kv_num_heads: 2, is_causal: 1, softcap: 1.5 },
      outputs: ['y', 'pk', 'pv'],
    });
  });
});
