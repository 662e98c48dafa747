// Import forms of Resize (every opset), Upsample (opsets 7 and 9) and Pad's wrap mode (runtime/src/graph/onnx/forms.ts)
// against onnxruntime-node: Resize 10 and Upsample round nearest down when upsampling and up when downsampling (both at
// once resize twice), Resize 18's axes, antialias and keep_aspect_ratio_policy, tf_crop_and_resize's roi and
// extrapolation_value, and the refusals onnxruntime shares.

import { describe, expect, it } from 'vitest';
import { randomUniform, tensor } from '../../runtime/src/index.ts';
import { loadOnnx } from '../../runtime/src/graph/onnx/session.ts';
import { buildSingleNodeModel, singleNodeIoNames, type AttrValue } from '../support/onnx-proto.ts';
import { runOnnxModel, type OracleTensor } from '../support/onnx-oracle.ts';
import { assertAllClose } from '../support/assert.ts';

const floats = (shape: number[], seed: number): OracleTensor => ({
  dtype: 'float32',
  shape,
  data: Float32Array.from(randomUniform(shape, { seed, low: -2, high: 2 }).dataSync()),
});
const list = (v: number[]): OracleTensor => ({ dtype: 'float32', shape: [v.length], data: Float32Array.from(v) });
const int64s = (v: number[]): OracleTensor => ({
  dtype: 'int64',
  shape: [v.length],
  data: BigInt64Array.from(v.map(BigInt)),
});
const none: OracleTensor = { dtype: 'float32', shape: [0], data: new Float32Array(0) };

function model(op: string, inputs: OracleTensor[], attrs: Record<string, AttrValue>, opset: number) {
  // Every input after x is a constant, as an exporter writes scales, sizes, roi and pads.
  const spec = { op, opset, inputs, attrs, constInputs: inputs.map((_, i) => i).slice(1) };
  return { bytes: buildSingleNodeModel(spec), names: singleNodeIoNames(spec) };
}

/** Runs one node in onnxruntime and through loadOnnx, x fed at run time; compares the output. */
async function compare(op: string, inputs: OracleTensor[], attrs: Record<string, AttrValue>, opset: number) {
  const { bytes, names } = model(op, inputs, attrs, opset);
  const x = inputs[0]!;
  const [want] = await runOnnxModel(bytes, { [names.inputs[0]!]: x });
  const got = loadOnnx(bytes).run({
    [names.inputs[0]!]: tensor(x.data as ArrayLike<number>, { dtype: x.dtype, shape: x.shape }),
  })[names.outputs[0]!]!;
  expect(got.shape).toEqual(want!.shape);
  expect(got.dtype).toBe(want!.dtype);
  assertAllClose(got.dataSync() as ArrayLike<number>, Array.from(want!.data as ArrayLike<number>, Number), {
    atol: 1e-5,
    rtol: 1e-4,
  });
}

/** The refusal loadOnnx gives (at import or on the first run). */
function refusal(op: string, inputs: OracleTensor[], attrs: Record<string, AttrValue>, opset: number): string {
  const { bytes, names } = model(op, inputs, attrs, opset);
  const x = inputs[0]!;
  try {
    loadOnnx(bytes).run({
      [names.inputs[0]!]: tensor(x.data as ArrayLike<number>, { dtype: x.dtype, shape: x.shape }),
    });
  } catch (e) {
    return (e as Error).message;
  }
  return 'no error';
}

describe('ONNX Resize, Upsample and Pad wrap import forms vs onnxruntime', () => {
  it('Upsample 9 (scales input) and 7 (scales attribute), nearest and linear', async () => {
    const x = floats([1, 2, 3, 4], 1);
    await compare('Upsample', [x, list([1, 1, 2, 3])], { mode: 'nearest' }, 9);
    await compare('Upsample', [x, list([1, 1, 1.5, 2.5])], { mode: 'nearest' }, 9);
    await compare('Upsample', [x, list([1, 1, 1.5, 2.5])], { mode: 'linear' }, 9);
    await compare('Upsample', [x], { mode: 'nearest', scales: [1, 1, 2.5, 1.5] }, 7);
    await compare('Upsample', [x], { mode: 'linear', scales: [1, 1, 2.5, 1.5] }, 8);
  });
  it('Resize 10: nearest rounds down upsampling and up downsampling, on one axis each', async () => {
    const x = floats([1, 2, 4, 5], 2);
    for (const scales of [
      [1, 1, 0.6, 0.5],
      [1, 1, 2.5, 0.7],
      [1, 1, 0.6, 1.7],
    ]) {
      await compare('Resize', [x, list(scales)], { mode: 'nearest' }, 10);
      await compare('Resize', [x, list(scales)], { mode: 'linear' }, 10);
    }
  });
  it('Resize 18: axes (negative too), antialias and keep_aspect_ratio_policy', async () => {
    const x = floats([1, 2, 6, 5], 3);
    await compare('Resize', [x, none, list([0.5, 1.5])], { mode: 'linear', axes: [-1, 2] }, 18);
    await compare('Resize', [x, none, list([1, 1, 0.5, 0.6])], { mode: 'cubic', antialias: 1 }, 18);
    await compare('Resize', [x, none, none, int64s([1, 2, 2, 3])], { mode: 'linear', antialias: 1 }, 18);
    await compare(
      'Resize',
      [x, none, none, int64s([4, 4])],
      { mode: 'nearest', axes: [2, 3], keep_aspect_ratio_policy: 'not_larger' },
      18,
    );
    await compare(
      'Resize',
      [x, none, none, int64s([4, 4])],
      { mode: 'linear', axes: [3, 2], keep_aspect_ratio_policy: 'not_smaller' },
      18,
    );
  });
  it('Resize 19: half_pixel_symmetric', async () => {
    const x = floats([1, 2, 4, 5], 4);
    await compare(
      'Resize',
      [x, none, list([1, 1, 1.3, 0.7])],
      { mode: 'linear', coordinate_transformation_mode: 'half_pixel_symmetric' },
      19,
    );
  });
  it('Resize 13 and 18: tf_crop_and_resize with roi and extrapolation_value', async () => {
    // Every cropped axis changes length: onnxruntime skips an axis whose scale is 1 even where its roi crops, which
    // ONNX's reference does not (raf follows the reference).
    const x = floats([1, 2, 4, 5], 5);
    const crop = { coordinate_transformation_mode: 'tf_crop_and_resize', extrapolation_value: 2.5 };
    await compare(
      'Resize',
      [x, list([0, 0, -0.1, 0.2, 1, 1, 0.8, 1.3]), none, int64s([1, 2, 3, 3])],
      { ...crop, mode: 'linear' },
      13,
    );
    await compare(
      'Resize',
      [x, list([0.2, -0.3, 1.1, 0.9]), none, int64s([6, 3])],
      { ...crop, mode: 'cubic', axes: [3, 2] },
      18,
    );
  });
  it('Pad 19 wrap, with axes', async () => {
    const x = floats([2, 3, 4], 6);
    await compare('Pad', [x, int64s([0, 2, 1, 0, 3, 4])], { mode: 'wrap' }, 19);
    await compare(
      'Pad',
      [x, int64s([2, 1, 3, 3]), { dtype: 'float32', shape: [], data: Float32Array.of(0) }, int64s([-1, 0])],
      { mode: 'wrap' },
      19,
    );
  });
  it('Pad wrap longer than the axis repeats it, as NumPy pads (onnxruntime writes zeros there)', () => {
    const x = floats([2, 3], 8);
    const { bytes, names } = model('Pad', [x, int64s([1, 4, 2, 9])], { mode: 'wrap' }, 19);
    const got = loadOnnx(bytes).run({
      [names.inputs[0]!]: tensor(x.data as ArrayLike<number>, { dtype: 'float32', shape: [2, 3] }),
    })[names.outputs[0]!]!;
    expect(got.shape).toEqual([5, 16]);
    // The torus ONNX describes: x tiled far enough each way, then the window [-before, length + after).
    const v = Array.from(x.data as Float32Array);
    const tiled = (r: number, c: number) => v[(((r % 2) + 2) % 2) * 3 + (((c % 3) + 3) % 3)]!;
    const want: number[] = [];
    for (let r = -1; r < 4; r++) for (let c = -4; c < 12; c++) want.push(tiled(r, c));
    assertAllClose(got.dataSync() as ArrayLike<number>, want, { atol: 0, rtol: 0 });
  });
  it('refuses what onnxruntime refuses: Upsample below 1, antialias with nearest, tf_crop_and_resize without roi', () => {
    const x = floats([1, 1, 4, 4], 7);
    expect(refusal('Upsample', [x, list([1, 1, 0.5, 2])], { mode: 'nearest' }, 9)).toMatch(/at least 1/);
    expect(refusal('Resize', [x, none, list([1, 1, 0.5, 0.5])], { antialias: 1 }, 18)).toMatch(
      /antialias.*not nearest/,
    );
    expect(
      refusal(
        'Resize',
        [x, none, none, int64s([1, 1, 3, 3])],
        { coordinate_transformation_mode: 'tf_crop_and_resize' },
        13,
      ),
    ).toMatch(/tf_crop_and_resize needs/);
  });
});
