// FromOnnx's index and selection ops (forms-tensor.ts and the specs behind them) on models built here with attributes
// and opsets the backend suite's node tests leave out: each runs through loadOnnx and in onnxruntime-node, and every
// output must agree in dtype, shape and value (exactly for integers, 1e-5 for floats).

import { describe, expect, it } from 'vitest';
import { loadOnnx, randomUniform, tensor, type Tensor } from '../../runtime/src/index.ts';
import { fromOnnx } from '../../runtime/src/graph/frontends/from-onnx.ts';
import { buildModel, type AttrValue, type InitializerSpec } from '../support/onnx-proto.ts';
import { runOnnxModel, toFloat64, type OracleTensor } from '../support/onnx-oracle.ts';
import { assertAllClose } from '../support/assert.ts';

type Feed = { dtype: 'float32' | 'int64' | 'int32' | 'bool'; shape: number[]; data: number[] };

const rand = (shape: number[], seed: number, low = -2, high = 2): Feed => ({
  dtype: 'float32',
  shape,
  data: Array.from(randomUniform(shape, { seed, low, high }).dataSync()),
});
/** Small integers with ties (as float32), so first/last-index rules matter. */
const ties = (shape: number[], seed: number): Feed => ({
  ...rand(shape, seed, -2, 2),
  data: rand(shape, seed, -2, 2).data.map((v) => Math.round(v)),
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
  /** Inputs given as initializers (known at import) instead of fed. */
  consts?: Record<string, Feed>;
  attrs?: Record<string, AttrValue>;
  outputs?: number;
  /** The node's input order, where it interleaves fed and constant inputs (fed ones first otherwise). */
  order?: string[];
}

async function agree(c: Case): Promise<void> {
  const names = c.order ?? [...Object.keys(c.inputs), ...Object.keys(c.consts ?? {})];
  const outs = Array.from({ length: c.outputs ?? 1 }, (_, i) => `y${i}`);
  const initializers: InitializerSpec[] = Object.entries(c.consts ?? {}).map(([name, f]) => ({ name, ...f }));
  const bytes = buildModel({
    nodes: [{ op: c.op, inputs: names, outputs: outs, attrs: c.attrs }],
    inputs: Object.entries(c.inputs).map(([name, f]) => ({ name, dtype: f.dtype, shape: f.shape })),
    outputs: outs.map((name) => ({ name })),
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
  outs.forEach((name, k) => {
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

describe('FromOnnx index and selection ops vs onnxruntime', () => {
  it.each([
    ['ArgMax', 13, { axis: 1, keepdims: 0, select_last_index: 1 }],
    ['ArgMax', 11, { axis: -1 }],
    ['ArgMin', 13, { axis: 0, select_last_index: 1 }],
    ['ArgMin', 1, {}],
  ] as const)('%s opset %i %j gives int64 indices', async (op, opset, attrs) => {
    await agree({ op, opset, inputs: { x: ties([3, 4, 5], 1) }, attrs: { ...attrs } });
  });

  it.each([
    [11, { axis: 0, largest: 0 }],
    [11, { axis: -1, largest: 1, sorted: 1 }],
  ] as const)('TopK opset %i %j', async (opset, attrs) => {
    await agree({ op: 'TopK', opset, inputs: { x: rand([4, 5], 2) }, consts: { k: i64([3]) }, attrs, outputs: 2 });
  });

  it('TopK opset 1 (k as an attribute)', async () => {
    await agree({ op: 'TopK', opset: 1, inputs: { x: rand([4, 5], 3) }, attrs: { k: 2 }, outputs: 2 });
  });

  it.each([
    ['CumSum', 14, { reverse: 1, exclusive: 1 }, 0],
    ['CumSum', 11, { reverse: 1 }, -1],
    ['CumProd', 26, { reverse: 1, exclusive: 1 }, 1],
    ['CumProd', 26, { reverse: 1 }, 0],
  ] as const)('%s opset %i %j on axis %i', async (op, opset, attrs, axis) => {
    await agree({ op, opset, inputs: { x: rand([3, 4], 4, 0.5, 1.5) }, consts: { axis: i64([axis], []) }, attrs });
  });

  it.each([
    [{ axis: 1, reduction: 'add' }],
    [{ axis: 0, reduction: 'max' }],
    [{ axis: -1, reduction: 'min' }],
    [{ axis: 1, reduction: 'mul' }],
  ] as const)('ScatterElements %j with negative and repeated indices', async (attrs) => {
    await agree({
      op: 'ScatterElements',
      opset: 18,
      inputs: { x: rand([3, 4], 5), u: rand([2, 3], 6) },
      consts: { i: i64([0, -1, 1, 2, 2, -3], [2, 3]) },
      order: ['x', 'i', 'u'],
      attrs,
    });
  });

  it('Scatter opset 10', async () => {
    await agree({
      op: 'Scatter',
      opset: 10,
      inputs: { x: rand([3, 3], 7), u: rand([2, 3], 8) },
      consts: { i: i64([1, 0, 2, 0, 2, 1], [2, 3]) },
      order: ['x', 'i', 'u'],
      attrs: { axis: 0 },
    });
  });

  it.each([[{}], [{ reduction: 'max' }], [{ reduction: 'min' }]] as const)('ScatterND %j', async (attrs) => {
    await agree({
      op: 'ScatterND',
      opset: 18,
      inputs: { x: rand([4, 3], 9), u: rand([3, 3], 10) },
      consts: { i: i64([1, 3, 1], [3, 1]) },
      order: ['x', 'i', 'u'],
      attrs,
    });
  });

  it.each([
    [11, { axis: 0 }],
    [11, { axis: 2 }],
    [11, {}],
    [13, { axis: 1 }],
    [13, {}],
  ] as const)('Hardmax opset %i %j', async (opset, attrs) => {
    await agree({ op: 'Hardmax', opset, inputs: { x: ties([2, 3, 4], 11) }, attrs });
  });

  it.each([[{ axis: 0 }], [{ axis: -2 }], [{}]] as const)(
    'OneHot %j with int64 indices out of range',
    async (attrs) => {
      await agree({
        op: 'OneHot',
        opset: 11,
        inputs: { i: i64([0, 3, -1, -4, 7, 2], [2, 3]) },
        consts: { depth: i64([4], []), values: { dtype: 'float32', shape: [2], data: [-1, 5] } },
        attrs,
      });
    },
  );

  it.each([[{ k: 1 }], [{ k: -2, dtype: 7 }], [{ dtype: 6 }]] as const)('EyeLike %j', async (attrs) => {
    await agree({ op: 'EyeLike', opset: 9, inputs: { x: rand([3, 5], 12) }, attrs });
  });

  it.each([[{ blocksize: 2, mode: 'DCR' }], [{ blocksize: 2, mode: 'CRD' }], [{ blocksize: 3 }]] as const)(
    'DepthToSpace %j',
    async (attrs) => {
      await agree({ op: 'DepthToSpace', opset: 13, inputs: { x: rand([2, 36, 2, 3], 13) }, attrs });
    },
  );

  it('SpaceToDepth blocksize 3', async () => {
    await agree({ op: 'SpaceToDepth', opset: 13, inputs: { x: rand([1, 2, 6, 3], 14) }, attrs: { blocksize: 3 } });
  });

  it.each([
    [{ time_axis: 0, batch_axis: 1 }, [3, 2]],
    [{ time_axis: 1, batch_axis: 0 }, [4, 1, 2]],
  ] as const)('ReverseSequence %j', async (attrs, lens) => {
    const shape = attrs.time_axis === 0 ? [4, 2, 3] : [3, 4, 2];
    await agree({ op: 'ReverseSequence', opset: 10, inputs: { x: rand(shape, 15), lens: i64([...lens]) }, attrs });
  });

  const crops: [number[], { axes?: number[] }][] = [
    [[5, 4], {}],
    [[2, 9], { axes: [-1, 0] }],
    [[7], { axes: [1] }],
  ];
  it.each(crops)('CenterCropPad to %j %j', async (shape, attrs) => {
    await agree({
      op: 'CenterCropPad',
      opset: 18,
      inputs: { x: rand(attrs.axes?.length === 1 ? [3, 4] : [3, 6], 16) },
      consts: { shape: i64(shape) },
      attrs: attrs.axes ? { axes: attrs.axes } : {},
    });
  });

  it('GatherND batch_dims 2', async () => {
    await agree({
      op: 'GatherND',
      opset: 13,
      inputs: { x: rand([2, 3, 4, 2], 17) },
      consts: { i: i64([0, 3, -1, 1, 2, -4], [2, 3, 1]) },
      attrs: { batch_dims: 2 },
    });
  });

  it.each([[{ axis: 1 }], [{}]] as const)('Compress with a condition known at import %j', async (attrs) => {
    await agree({
      op: 'Compress',
      opset: 11,
      inputs: { x: rand([3, 4], 18) },
      consts: { c: { dtype: 'bool', shape: [3], data: [1, 0, 1] } },
      attrs,
    });
  });

  it.each([[{ sorted: 0 }], [{ sorted: 1, axis: 1 }], [{ sorted: 0, axis: 0 }]] as const)(
    'Unique %j',
    async (attrs) => {
      await agree({
        op: 'Unique',
        opset: 11,
        inputs: { x: { dtype: 'float32', shape: [3, 4], data: [2, 1, 2, 1, 0, 3, 0, 3, 2, 1, 2, 1] } },
        attrs,
        outputs: 4,
      });
    },
  );

  it('NonZero of int64', async () => {
    await agree({ op: 'NonZero', opset: 13, inputs: { x: i64([0, 3, 0, -1, 2, 0], [2, 3]) } });
  });

  it('Col2Im 3-D with strides and pads', async () => {
    await agree({
      op: 'Col2Im',
      opset: 18,
      inputs: { x: rand([1, 8, 18], 19) },
      consts: { image: i64([3, 4, 4]), block: i64([2, 2, 2]) },
      attrs: { strides: [1, 2, 1], pads: [0, 1, 0, 0, 1, 0] },
    });
  });
});

describe('data-dependent shapes in graph mode', () => {
  it.each([
    ['NonZero', 'x'],
    ['Unique', 'x'],
  ] as const)('FromOnnx refuses %s of a value computed at run time, naming the op and argument', (op, arg) => {
    const bytes = buildModel({
      nodes: [{ op, inputs: ['x'], outputs: ['y'] }],
      inputs: [{ name: 'x', dtype: 'float32', shape: [3] }],
      outputs: [{ name: 'y' }],
      opset: 13,
    });
    expect(() => fromOnnx(bytes)).toThrow(
      new RegExp(`${op}.*raf\\.op\\.\\w+ \\(argument '${arg}'\\): decides the output shape`),
    );
  });
});

describe('col2im against its definition', () => {
  // onnxruntime 1.30's N-D Col2Im drops blocks with dilations (its 3-D result leaves the last depth slice zero), so
  // this case is checked against torch.nn.functional.fold's definition computed here in float64:
  // y[n, c, p · stride - pad_begin + b · dilation] += x[n, c, b, p] over block offsets b and block positions p.
  it('3-D with dilations, strides and pads', async () => {
    const { col2im } = await import('../../runtime/src/generated/api/col2im.ts');
    const [img, blk, dil, st, pads] = [
      [3, 4, 5],
      [2, 2, 2],
      [1, 2, 2],
      [1, 1, 2],
      [0, 1, 1, 0, 0, 1],
    ];
    const pos = img.map((d, i) => Math.floor((d + pads[i]! + pads[i + 3]! - dil[i]! * (blk[i]! - 1) - 1) / st[i]!) + 1);
    const C = 2;
    const L = pos[0]! * pos[1]! * pos[2]!;
    const x = rand([1, C * 8, L], 20);
    const want = new Array<number>(C * img[0]! * img[1]! * img[2]!).fill(0);
    for (let c = 0; c < C; c++)
      for (let b0 = 0; b0 < 2; b0++)
        for (let b1 = 0; b1 < 2; b1++)
          for (let b2 = 0; b2 < 2; b2++)
            for (let p0 = 0; p0 < pos[0]!; p0++)
              for (let p1 = 0; p1 < pos[1]!; p1++)
                for (let p2 = 0; p2 < pos[2]!; p2++) {
                  const at = [p0, p1, p2].map((p, i) => p * st[i]! - pads[i]! + [b0, b1, b2][i]! * dil[i]!);
                  if (at.some((a, i) => a < 0 || a >= img[i]!)) continue;
                  const row = c * 8 + b0 * 4 + b1 * 2 + b2;
                  const col = (p0 * pos[1]! + p1) * pos[2]! + p2;
                  want[((c * img[0]! + at[0]!) * img[1]! + at[1]!) * img[2]! + at[2]!]! += x.data[row * L + col]!;
                }
    const got = col2im(tensor(x.data, { dtype: 'float64', shape: x.shape }), img, blk, dil, pads, st);
    expect([...got.shape]).toEqual([1, C, ...img]);
    assertAllClose(Array.from(got.dataSync()), want, { atol: 1e-12, rtol: 1e-12 }, 'col2im vs its definition');
  });
});
