// ONNX's narrow element types in the importer (float8, float8e8m0, float4e2m1, int4, uint4, int2, uint2). Their values
// travel in carrier dtypes (formats.ts), and each such value's format is remembered here, by tensor, so that the ops
// whose meaning depends on it keep ONNX's: Cast and CastLike to a narrow type round as ONNX's Cast does
// (raf.op.round_to_format), QuantizeLinear saturates to the narrow range, DequantizeLinear reads float8 and float4, and
// OnnxSession reports and checks the model's narrow inputs and outputs. Ops that only move elements (Reshape,
// Transpose...) pass the format on.

import { isFloat } from '../../dtype.ts';
import { carrierOf, type NarrowFormat, type RoundMode } from '../../formats.ts';
import { add } from '../../generated/api/add.ts';
import { cast } from '../../generated/api/cast.ts';
import { clip } from '../../generated/api/clip.ts';
import { dequantizeLinear } from '../../generated/api/dequantize_linear.ts';
import { divide } from '../../generated/api/divide.ts';
import { onesLike } from '../../generated/api/ones_like.ts';
import { quantizeLinear } from '../../generated/api/quantize_linear.ts';
import { roundToFormat } from '../../generated/api/round_to_format.ts';
import type { Tensor } from '../../tensor.ts';
import { narrowFormatOf, type OnnxAttr } from './proto.ts';
import { importedDType } from './values.ts';

const formats = new WeakMap<Tensor, NarrowFormat>();

/** Records that t holds values of a narrow format (undefined: nothing to record); returns t. */
export function markFormat<T extends Tensor>(t: T, f: NarrowFormat | undefined): T {
  if (f) formats.set(t, f);
  return t;
}

/** The narrow format a value of the model holds, if any. */
export function formatOf(t: Tensor | undefined): NarrowFormat | undefined {
  return t ? formats.get(t) : undefined;
}

/** ONNX ops that move or select elements without computing on them: their outputs keep the input's format. */
export const FORMAT_PRESERVING: ReadonlySet<string> = new Set([
  'Identity',
  'Reshape',
  'Flatten',
  'Squeeze',
  'Unsqueeze',
  'Transpose',
  'Slice',
  'Gather',
  'GatherElements',
  'GatherND',
  'Expand',
  'Tile',
  'Split',
  'Concat',
  'Pad',
]);

/** The carrier dtype a format's values have in the graph being converted (float64 in the float64 import mode). */
function importedCarrier(f: NarrowFormat) {
  return importedDType(carrierOf(f));
}

/** x converted to a narrow format as ONNX's Cast converts (saturate and round_mode as Cast's attributes say). */
export function castToFormat(x: Tensor, f: NarrowFormat, saturate = true, roundMode: RoundMode = 'up'): Tensor {
  // A float format rounds a number: integers and bools become float32 first (exact below 2^24, as ONNX widens them).
  const src = carrierOf(f) === 'float32' && !isFloat(x.dtype) ? cast(x, 'float32') : x;
  let y = roundToFormat(src, f, saturate, roundMode);
  const want = importedCarrier(f);
  if (y.dtype !== want) y = cast(y, want);
  return markFormat(y, f);
}

/** Cast's round_mode attribute (opset 24; float8e8m0 targets only): up, the default, down or nearest. */
export function roundModeOf(v: unknown): RoundMode {
  if (v === undefined) return 'up';
  if (v === 'up' || v === 'down' || v === 'nearest') return v;
  throw new Error(`attribute round_mode = ${JSON.stringify(v)} is not up, down or nearest`);
}

/** The values of an attribute the forms read: a number, or the default. */
function numAttr(attrs: readonly OnnxAttr[], name: string, dflt: number): number {
  const a = attrs.find((x) => x.name === name);
  if (a === undefined) return dflt;
  if (typeof a.value !== 'number') throw new Error(`attribute ${name} is not a number`);
  return a.value;
}

const INT_RANGES: Readonly<Partial<Record<NarrowFormat, readonly [number, number]>>> = {
  int4: [-8, 7],
  uint4: [0, 15],
  int2: [-2, 1],
  uint2: [0, 3],
};

/**
 * QuantizeLinear to a narrow type (the zero point's, or output_dtype's): integer formats as quantize_linear to the
 * carrier, saturated to the format's range; float formats (float8, float4e2m1) as x / y_scale rounded to the format
 * (ONNX's reference: a float8 zero point must be zero and is not added; float4's is added before rounding).
 */
export function quantizeToFormat(
  f: NarrowFormat,
  x: Tensor,
  scale: Tensor,
  zp: Tensor | undefined,
  attrs: readonly OnnxAttr[],
): Tensor {
  const axis = numAttr(attrs, 'axis', 1);
  const block = numAttr(attrs, 'block_size', 0);
  const saturate = numAttr(attrs, 'saturate', 1) !== 0;
  const range = INT_RANGES[f];
  if (range) {
    const q = quantizeLinear(x, scale, zp ?? null, axis, true, block, zp ? null : carrierOf(f));
    return markFormat(clip(q, range[0], range[1]), f);
  }
  if (f === 'float8e8m0') throw new Error('QuantizeLinear to float8e8m0 is not defined by ONNX');
  // The scale spread over x's elements (per tensor, per axis or blocked), checked as quantize_linear checks it.
  const ones = onesLike(x.dtype === 'float32' ? x : cast(x, 'float32'));
  const spread = dequantizeLinear(ones, scale, null, axis, block);
  // ONNX divides in the wider of x's and the scale's dtypes (NumPy's promotion), then rounds once to the format.
  const wide =
    x.dtype === 'float64' || spread.dtype === 'float64' ? 'float64' : x.dtype === spread.dtype ? x.dtype : 'float32';
  let q = divide(x.dtype === wide ? x : cast(x, wide), spread.dtype === wide ? spread : cast(spread, wide));
  // float4's zero point is spread over x's elements as the scale is (1 · zp, exact).
  if (f === 'float4e2m1' && zp) q = add(q, cast(dequantizeLinear(ones, zp, null, axis, block), wide));
  return castToFormat(q, f, saturate);
}

/**
 * DequantizeLinear of float8 or float4 x (held in float32): x times its scale (per tensor, per axis or blocked) in
 * the scale's dtype or output_dtype; ONNX's reference does not subtract their zero points (a float8 one must be 0).
 */
export function dequantizeFormat(x: Tensor, scale: Tensor, attrs: readonly OnnxAttr[]): Tensor {
  const code = numAttr(attrs, 'output_dtype', 0);
  const out = code ? narrowFormatOf(code) : undefined;
  if (out) throw new Error(`DequantizeLinear's output_dtype ${out} is not a float type`);
  const xs = x.dtype === 'float32' || x.dtype === 'float64' ? x : cast(x, 'float32');
  const y = dequantizeLinear(xs, scale, null, numAttr(attrs, 'axis', 1), numAttr(attrs, 'block_size', 0));
  return code ? cast(y, importedDType(outputDType(code))) : y;
}

function outputDType(code: number) {
  // DequantizeLinear's output_dtype: float32, float16, bfloat16 (ONNX allows only float types here).
  const table: Readonly<Record<number, 'float32' | 'float16' | 'bfloat16' | 'float64'>> = {
    1: 'float32',
    10: 'float16',
    16: 'bfloat16',
    11: 'float64',
  };
  const d = table[code];
  if (!d) throw new Error(`DequantizeLinear's output_dtype ${code} is not a float type`);
  return d;
}
