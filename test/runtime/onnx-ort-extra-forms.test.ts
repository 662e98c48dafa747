// Ops older exporters wrote that onnxruntime still runs (runtime/src/graph/onnx/forms-ort-extra.ts), on one-node
// models against onnxruntime-node: the experimental default-domain ops of the first opsets (ImageScaler, Affine,
// Scale, ScaledTanh, ParametricSoftplus, Crop) and the com.microsoft spellings of GridSample, Trilu, Pad, GatherND,
// ExpandDims, Range, TransposeMatMul and CDist.

import { describe, expect, it } from 'vitest';
import { randomUniform } from '../../runtime/src/index.ts';
import { fromOnnx } from '../../runtime/src/graph/frontends/from-onnx.ts';
import { buildModel } from '../support/onnx-proto.ts';
import { agree, floats, MS } from '../support/onnx-agree.ts';

const x4 = () => randomUniform([2, 3, 5, 6], { seed: 40, low: -2, high: 2 });

describe('experimental default-domain ops onnxruntime registers (opset 8 models)', () => {
  const io = { inputs: ['x'], outputs: ['y'] };
  it('ImageScaler, Affine, Scale, ScaledTanh and ParametricSoftplus', async () => {
    const x = x4();
    await agree({ op: 'ImageScaler', ...io, attrs: { scale: 0.5, bias: [0.1, -0.2, 0.3] } }, { x }, [], { opset: 8 });
    await agree({ op: 'Affine', ...io, attrs: { alpha: 1.5, beta: -0.25 } }, { x }, [], { opset: 8 });
    await agree({ op: 'Scale', ...io, attrs: { scale: 3.5 } }, { x }, [], { opset: 8 });
    await agree({ op: 'ScaledTanh', ...io, attrs: { alpha: 2.5, beta: 0.7 } }, { x }, [], { opset: 8 });
    await agree({ op: 'ParametricSoftplus', ...io, attrs: { alpha: 1.3, beta: 0.6 } }, { x }, [], { opset: 8 });
  });

  it('Crop by border, and by border and size', async () => {
    const x = x4();
    await agree({ op: 'Crop', ...io, attrs: { border: [1, 2, 2, 1] } }, { x }, [], { opset: 8 });
    await agree({ op: 'Crop', ...io, attrs: { border: [1, 1, 0, 0], scale: [3, 4] } }, { x }, [], { opset: 8 });
  });

  it('Crop refuses a border larger than its input, naming it', () => {
    const model = buildModel({
      nodes: [{ op: 'Crop', inputs: ['x'], outputs: ['y'], attrs: { border: [4, 0, 4, 0] } }],
      inputs: [{ name: 'x', dtype: 'float32', shape: [1, 1, 4, 6] }],
      outputs: [{ name: 'y' }],
      opset: 8,
    });
    expect(() => fromOnnx(model)).toThrow(/Crop's border \[4, 0, 4, 0\] does not fit a 4×6 input/);
  });
});

describe('com.microsoft spellings of ops torch.onnx exported before ONNX had them', () => {
  it('GridSample (opset 13 model), Trilu, Pad, GatherND', async () => {
    const x = x4();
    const grid = floats('grid', [2, 4, 3, 2], 41, -1.1, 1.1);
    for (const [mode, padding] of [
      ['bilinear', 'zeros'],
      ['nearest', 'border'],
    ])
      await agree(
        {
          op: 'GridSample',
          domain: MS,
          inputs: ['x', 'grid'],
          outputs: ['y'],
          attrs: { mode, padding_mode: padding, align_corners: 1 },
        },
        { x },
        [grid],
        { opset: 13 },
      );
    const m = randomUniform([3, 4, 5], { seed: 42 });
    await agree({ op: 'Trilu', domain: MS, inputs: ['m', 'k'], outputs: ['y'], attrs: { upper: 0 } }, { m }, [
      { name: 'k', dtype: 'int64', shape: [], data: [1] },
    ]);
    await agree(
      { op: 'Pad', domain: MS, inputs: ['m', 'pads', 'v'], outputs: ['y'], attrs: { mode: 'constant' } },
      { m },
      [
        { name: 'pads', dtype: 'int64', shape: [6], data: [0, 1, 2, 1, 0, 1] },
        { name: 'v', dtype: 'float32', shape: [], data: [0.5] },
      ],
      { opset: 9 },
    );
    await agree({ op: 'Pad', domain: MS, inputs: ['m', 'pads'], outputs: ['y'], attrs: { mode: 'reflect' } }, { m }, [
      { name: 'pads', dtype: 'int64', shape: [6], data: [0, 2, 1, 0, 1, 2] },
    ]);
    await agree({ op: 'GatherND', domain: MS, inputs: ['m', 'idx'], outputs: ['y'] }, { m }, [
      { name: 'idx', dtype: 'int64', shape: [2, 2], data: [2, 1, 0, 3] },
    ]);
  });

  it('ExpandDims, Range, TransposeMatMul and CDist', async () => {
    const m = randomUniform([3, 4], { seed: 43 });
    for (const axis of [0, -1])
      await agree({ op: 'ExpandDims', domain: MS, inputs: ['m', 'axis'], outputs: ['y'] }, { m }, [
        { name: 'axis', dtype: 'int32', shape: [], data: [axis] },
      ]);
    // Range's bounds decide its shape: raf-op takes them as constants (initializers here).
    await agree({ op: 'Range', domain: MS, inputs: ['start', 'limit', 'delta'], outputs: ['y'] }, {}, [
      { name: 'start', dtype: 'float32', shape: [], data: [2.5] },
      { name: 'limit', dtype: 'float32', shape: [], data: [-3] },
      { name: 'delta', dtype: 'float32', shape: [], data: [-0.75] },
    ]);
    await agree({ op: 'Range', domain: MS, inputs: ['first', 'limit'], outputs: ['y'] }, {}, [
      { name: 'first', dtype: 'int32', shape: [], data: [1] },
      { name: 'limit', dtype: 'int32', shape: [], data: [7] },
    ]);
    await agree(
      { op: 'TransposeMatMul', domain: MS, inputs: ['m', 'b'], outputs: ['y'], attrs: { transA: 1, alpha: 0.5 } },
      { m },
      [floats('b', [3, 5], 44)],
    );
    for (const metric of ['sqeuclidean', 'euclidean'])
      await agree({ op: 'CDist', domain: MS, inputs: ['m', 'b'], outputs: ['y'], attrs: { metric } }, { m }, [
        floats('b', [5, 4], 45),
      ]);
  });
});
