// FromRelay, TVM's quantized ops (qnn.*) as composite forms, with TVM's canonical lowering arithmetic bit for bit, and
// the fixed-point multiplies they lower to (fixed_point_multiply, fixed_point_multiply_per_axis):
// qnn.quantize, qnn.dequantize, qnn.requantize (UPWARD and TONEAREST rounding; int64, float32 and float64 compute
// dtypes), qnn.add, qnn.subtract, qnn.mul, qnn.concatenate, qnn.dense, qnn.conv2d, qnn.batch_matmul, and the
// simulated qnn.simulated_quantize and qnn.simulated_dequantize.
//
// TVM's integer requantize multiplies by a 31-bit fixed-point multiplier m and shifts: ((x << ls) · m + r) >> (31 + rs),
// in int64. raf-op's int64 holds ±2^53 exactly, and that product reaches 2^62, so the forms compute it in float64 from
// exact pieces: x · 2^ls split into 16-bit halves, each half times m exact, the rounding constant and the shift applied
// to the high part after the low part's own floor (requantizeInt below). Integer sums (dense, conv2d, batch_matmul) are
// float64 products of (x − zero point) terms, exact below 2^53, cast to the output dtype. Scales and zero points must
// be known while converting (literals or constants), as TVM's lowering requires.

import type { DType } from './dtype.ts';
import { convertRelayCall } from './relay.ts';
import { Tensor, tensor } from './tensor.ts';
import {
  arg,
  arity,
  axisOf,
  c,
  fail,
  knownList,
  only,
  pads2d,
  roundHalfAway,
  roundTensorHalfAway,
  type Attrs,
  type Form,
} from './relay-form-kit.ts';

const RANGE: Readonly<Record<string, readonly [number, number]>> = {
  int8: [-128, 127],
  uint8: [0, 255],
  int16: [-32768, 32767],
  uint16: [0, 65535],
  int32: [-(2 ** 31), 2 ** 31 - 1],
};

function range(op: string, dtype: string): readonly [number, number] {
  const r = RANGE[dtype];
  if (!r) fail(op, `dtype ${dtype} is not a quantized type (int8, uint8, int16, uint16, int32)`);
  return r;
}

/** A scale or zero point: a number or a constant tensor, known while converting. */
const params = (op: string, v: unknown, what: string): number[] => knownList(op, v, what);

/** TVM's GetFixedPointMultiplierShift: M ≈ m · 2^(e − 31), m a 31-bit significand rounded half away from zero. */
export function fixedPointMultiplier(multiplier: number): [number, number] {
  if (multiplier === 0) return [0, 0];
  let e = Math.floor(Math.log2(Math.abs(multiplier))) + 1;
  let sig = multiplier / 2 ** e;
  while (Math.abs(sig) >= 1) [sig, e] = [sig / 2, e + 1];
  while (Math.abs(sig) < 0.5) [sig, e] = [sig * 2, e - 1];
  let m = roundHalfAway(sig * 2 ** 31);
  if (m === 2 ** 31) [m, e] = [2 ** 30, e + 1];
  return [m, e];
}

/** A per-axis constant (one value per index of `axis` of a tensor of `rank`), or a scalar for one value. */
function along(values: readonly number[], axis: number, rank: number, dtype: DType): Tensor {
  if (values.length === 1) return tensor([values[0]!], { dtype, shape: [] });
  return tensor([...values], {
    dtype,
    shape: Array.from({ length: rank }, (_, a) => (a === axis ? values.length : 1)),
  });
}

/**
 * x (int32 values) times each multiplier as TVM's fixed-point multiply (GetFixedPointMultiplierShift, then
 * q_multiply_shift).
 */
function fixedPointMultiply(x: Tensor, multipliers: readonly number[], axis: number, toNearest: boolean): Tensor {
  const fp = multipliers.map(fixedPointMultiplier);
  return qMultiplyShift(
    x,
    fp.map(([m]) => m),
    fp.map(([, e]) => Math.max(e, 0)),
    fp.map(([, e]) => Math.max(-e, 0)),
    axis,
    toNearest,
  );
}

/**
 * TVM's q_multiply_shift per element (per index of `axis` where the lists hold several values): int32(((x << ls) · m
 * + r) >> (31 + rs)), r half of the shift's unit (UPWARD), less one for a negative product (TONEAREST); exact in float64
 * (see the file's head).
 */
function qMultiplyShift(
  x: Tensor,
  ms: readonly number[],
  ls: readonly number[],
  rs: readonly number[],
  axis: number,
  toNearest: boolean,
): Tensor {
  const rank = x.shape.length;
  const f64 = (values: readonly number[]) => along(values, axis, rank, 'float64');
  const scaled = c('multiply', c('cast', x, 'float64'), f64(ls.map((l) => 2 ** l)));
  const m = f64(ms);
  const high = c('floor', c('divide', scaled, 65536));
  const low = c('subtract', scaled, c('multiply', high, 65536));
  let lowProduct = c('multiply', low, m);
  if (toNearest) lowProduct = c('subtract', lowProduct, c('cast', c('less', scaled, 0), 'float64'));
  const q = c(
    'add',
    c('add', c('multiply', high, m), c('floor', c('divide', lowProduct, 65536))),
    f64(rs.map((r) => 2 ** (14 + r))),
  );
  return c('cast', c('floor', c('divide', q, f64(rs.map((r) => 2 ** (15 + r))))), 'int32');
}

interface Requantize {
  readonly inScale: readonly number[];
  readonly inZero: readonly number[];
  readonly outScale: number;
  readonly outZero: number;
  readonly axis: number;
  readonly rounding: string;
  readonly compute: string;
  readonly outDtype: string;
}

/** qnn.requantize's canonical lowering (requantize.cc): int64 (fixed point) or float32/float64 arithmetic. */
function requantize(op: string, x: Tensor, q: Requantize): Tensor {
  const rank = x.shape.length;
  const axis = rank ? axisOf(q.axis, rank) : 0;
  if (q.rounding !== 'UPWARD' && q.rounding !== 'TONEAREST')
    fail(op, `rounding '${q.rounding}' is not UPWARD or TONEAREST`);
  const [lo, hi] = range(op, q.outDtype);
  const clipped = (t: Tensor) => (q.outDtype === 'int32' ? t : c('cast', c('clip', t, lo, hi), q.outDtype));
  const sameScale = q.inScale.length === 1 && Math.fround(q.inScale[0]!) === Math.fround(q.outScale);
  const multipliers = q.inScale.map((s) => Math.fround(s) / Math.fround(q.outScale));
  if (q.compute === 'int64') {
    let t = c('cast', x, 'int32');
    if (q.inZero.some((z) => z !== 0)) t = c('subtract', t, along(q.inZero, axis, rank, 'int32'));
    if (!sameScale) t = fixedPointMultiply(t, multipliers, axis, q.rounding === 'TONEAREST');
    if (q.outZero !== 0) t = c('add', t, tensor([q.outZero], { dtype: 'int32', shape: [] }));
    return clipped(t);
  }
  if (q.compute !== 'float32' && q.compute !== 'float64')
    fail(op, `compute_dtype '${q.compute}' is not int64, float32 or float64`);
  const fd = q.compute as DType;
  let t = c('cast', x, fd);
  if (q.inZero.some((z) => z !== 0)) t = c('subtract', t, c('cast', along(q.inZero, axis, rank, 'int32'), fd));
  if (!sameScale) t = c('multiply', t, along(multipliers, axis, rank, fd));
  if (q.outZero !== 0) t = c('add', t, tensor([q.outZero], { dtype: fd, shape: [] }));
  t =
    q.rounding === 'UPWARD' ? c('floor', c('add', t, tensor([0.5], { dtype: fd, shape: [] }))) : roundTensorHalfAway(t);
  return clipped(c('cast', t, 'int32'));
}

/** TVM's RequantizeOrUpcast: to int32 at the output's parameters, or a plain cast where they are the input's own. */
function toInt32At(
  op: string,
  x: Tensor,
  scale: number,
  zero: number,
  outScale: number,
  outZero: number,
  attrs: Attrs,
) {
  if (Math.fround(scale) === Math.fround(outScale) && zero === outZero) return c('cast', x, 'int32');
  return requantize(op, x, {
    inScale: [scale],
    inZero: [zero],
    outScale,
    outZero,
    axis: -1,
    rounding: configured(attrs.rounding, 'UPWARD'),
    compute: configured(attrs.compute_dtype, 'int64'),
    outDtype: 'int32',
  });
}

/** The attr's value, or the config's default where Relay prints "None" (TVM's RequantizeConfig on a generic target). */
const configured = (v: unknown, dflt: string) => (v === undefined || v === null || v === 'None' ? dflt : String(v));

/** qnn.add and qnn.subtract: each input requantized to the output's parameters in int32, combined, clipped. */
function binary(op: string, kind: 'add' | 'subtract'): Form {
  return (args, attrs) => {
    arity(op, args, 8);
    only(op, attrs, ['lhs_axis', 'rhs_axis', 'rounding', 'compute_dtype']);
    const [a, b] = [arg(op, args, 0, 'lhs'), arg(op, args, 1, 'rhs')];
    const [sa, za, sb, zb, so, zo] = [2, 3, 4, 5, 6, 7].map((i) => params(op, args[i], `argument ${i}`));
    const [outScale, outZero] = [so![0]!, zo![0]!];
    const toOut = (t: Tensor, scale: number[], zero: number[], axis: unknown) =>
      scale.length === 1 && zero.length === 1 && Math.fround(scale[0]!) === Math.fround(outScale) && zero[0] === outZero
        ? c('cast', t, 'int32')
        : requantize(op, t, {
            inScale: scale,
            inZero: zero,
            outScale,
            outZero,
            axis: (axis as number | undefined) ?? -1,
            rounding: configured(attrs.rounding, 'UPWARD'),
            compute: configured(attrs.compute_dtype, 'int64'),
            outDtype: 'int32',
          });
    let y = c(kind, toOut(a, sa!, za!, attrs.lhs_axis), toOut(b, sb!, zb!, attrs.rhs_axis));
    if (outZero !== 0) y = c(kind === 'add' ? 'subtract' : 'add', y, tensor([outZero], { dtype: 'int32', shape: [] }));
    const [lo, hi] = range(op, a.dtype);
    return c('cast', c('clip', y, lo, hi), a.dtype);
  };
}

/** Σ (x − zx)(w − zw) of an integer product, as float64 (exact below 2^53), cast to out_dtype. */
function centered(t: Tensor, zero: readonly number[], axis: number): Tensor {
  const f = c('cast', t, 'float64');
  return zero.every((z) => z === 0) ? f : c('subtract', f, along(zero, axis, t.shape.length, 'float64'));
}

const outInt = (op: string, attrs: Attrs, y: Tensor) => {
  const od = (attrs.out_dtype as string | undefined) || 'int32';
  if (od !== 'int32' && od !== 'int64' && od !== 'int16') fail(op, `out_dtype ${od} is not int16, int32 or int64`);
  return c('cast', y, od);
};

export const QNN_FORMS: readonly (readonly [string, Form])[] = [
  [
    // x · multiplier · 2^(shift − 31) as TVM's q_multiply_shift: the multiplier a 31-bit fixed-point number.
    'fixed_point_multiply',
    (args, attrs) => {
      const op = 'fixed_point_multiply';
      arity(op, args, 1);
      only(op, attrs, ['multiplier', 'shift']);
      const x = arg(op, args, 0, 'data');
      if (x.dtype !== 'int32') fail(op, `data is ${x.dtype}; TVM's fixed-point multiply takes int32`);
      const [m, s] = [(attrs.multiplier as number | undefined) ?? 0, (attrs.shift as number | undefined) ?? 0];
      return qMultiplyShift(x, [m], [Math.max(s, 0)], [Math.max(-s, 0)], 0, false);
    },
  ],
  [
    // The same with a multiplier, left shift and right shift per index of one axis (tensors, known while converting).
    'fixed_point_multiply_per_axis',
    (args, attrs) => {
      const op = 'fixed_point_multiply_per_axis';
      arity(op, args, 4);
      only(op, attrs, ['is_lshift_required', 'is_rshift_required', 'axes']);
      const x = arg(op, args, 0, 'data');
      const axes = (attrs.axes as number[] | undefined) ?? [];
      if (axes.length !== 1) fail(op, `axes [${axes}] must name one axis`);
      const [m, l, r] = [1, 2, 3].map((i) =>
        params(op, args[i], ['fixed_point_multiplier', 'left_shift', 'right_shift'][i - 1]!),
      );
      return qMultiplyShift(
        x,
        m!,
        attrs.is_lshift_required === false ? m!.map(() => 0) : l!,
        attrs.is_rshift_required === false ? m!.map(() => 0) : r!,
        axisOf(axes[0]!, x.shape.length),
        false,
      );
    },
  ],
  [
    'qnn.quantize',
    (args, attrs) => {
      const op = 'qnn.quantize';
      arity(op, args, 3);
      only(op, attrs, ['axis', 'out_dtype']);
      const x = arg(op, args, 0, 'data');
      const [scale, zero] = [params(op, args[1], 'output_scale'), params(op, args[2], 'output_zero_point')];
      const od = (attrs.out_dtype as string | undefined) || 'int8';
      const [lo, hi] = range(op, od);
      const axis = x.shape.length ? axisOf((attrs.axis as number | undefined) ?? -1, x.shape.length) : 0;
      const rank = x.shape.length;
      const scaled = c('divide', c('cast', x, 'float32'), along(scale.map(Math.fround), axis, rank, 'float32'));
      const shifted = c('add', roundTensorHalfAway(scaled), along(zero, axis, rank, 'float32'));
      return c('cast', c('clip', shifted, lo, hi), od);
    },
  ],
  [
    'qnn.dequantize',
    (args, attrs) => {
      const op = 'qnn.dequantize';
      arity(op, args, 3);
      only(op, attrs, ['axis', 'out_dtype']);
      const x = arg(op, args, 0, 'data');
      const [scale, zero] = [params(op, args[1], 'input_scale'), params(op, args[2], 'input_zero_point')];
      const axis = x.shape.length ? axisOf((attrs.axis as number | undefined) ?? -1, x.shape.length) : 0;
      const rank = x.shape.length;
      const centeredInt = c('subtract', c('cast', x, 'int32'), along(zero, axis, rank, 'int32'));
      const y = c('multiply', c('cast', centeredInt, 'float32'), along(scale.map(Math.fround), axis, rank, 'float32'));
      const od = (attrs.out_dtype as string | undefined) || 'float32';
      if (od === 'float32') return y;
      if (od !== 'float16') fail(op, `out_dtype ${od} is not float32 or float16`);
      return c('cast', c('clip', y, -65504, 65504), 'float16');
    },
  ],
  [
    'qnn.requantize',
    (args, attrs) => {
      const op = 'qnn.requantize';
      arity(op, args, 5);
      only(op, attrs, ['axis', 'rounding', 'compute_dtype', 'out_dtype']);
      const x = arg(op, args, 0, 'data');
      const [is, iz, os, oz] = [1, 2, 3, 4].map((i) => params(op, args[i], `argument ${i}`));
      if (os!.length !== 1 || oz!.length !== 1) fail(op, 'output_scale and output_zero_point must be scalars');
      return requantize(op, x, {
        inScale: is!,
        inZero: iz!,
        outScale: os![0]!,
        outZero: oz![0]!,
        axis: (attrs.axis as number | undefined) ?? -1,
        rounding: configured(attrs.rounding, 'UPWARD'),
        compute: configured(attrs.compute_dtype, 'int64'),
        outDtype: (attrs.out_dtype as string | undefined) || 'int8',
      });
    },
  ],
  ['qnn.add', binary('qnn.add', 'add')],
  ['qnn.subtract', binary('qnn.subtract', 'subtract')],
  [
    // (a − za)(b − zb) in int32 at scale sa · sb (in float32), requantized to the output's parameters and lhs's dtype.
    'qnn.mul',
    (args, attrs) => {
      const op = 'qnn.mul';
      arity(op, args, 8);
      only(op, attrs, ['lhs_axis', 'rhs_axis', 'rounding', 'compute_dtype']);
      const [a, b] = [arg(op, args, 0, 'lhs'), arg(op, args, 1, 'rhs')];
      const [sa, za, sb, zb, so, zo] = [2, 3, 4, 5, 6, 7].map((i) => params(op, args[i], `argument ${i}`));
      const perChannel = sa!.length > 1 || sb!.length > 1;
      const axis = (attrs.lhs_axis as number | undefined) ?? -1;
      if (perChannel && axis !== ((attrs.rhs_axis as number | undefined) ?? -1))
        fail(op, 'per-channel scales need lhs_axis equal to rhs_axis');
      const rank = a.shape.length;
      const ax = rank ? axisOf(axis, rank) : 0;
      const side = (t: Tensor, zero: number[]) =>
        zero.every((z) => z === 0)
          ? c('cast', t, 'int32')
          : c('subtract', c('cast', t, 'int32'), along(zero, ax, rank, 'int32'));
      const product = c('multiply', side(a, za!), side(b, zb!));
      const n = Math.max(sa!.length, sb!.length);
      const scale = Array.from({ length: n }, (_, i) =>
        Math.fround(Math.fround(sa![i] ?? sa![0]!) * Math.fround(sb![i] ?? sb![0]!)),
      );
      return requantize(op, product, {
        inScale: scale,
        inZero: [0],
        outScale: so![0]!,
        outZero: zo![0]!,
        axis,
        rounding: configured(attrs.rounding, 'UPWARD'),
        compute: configured(attrs.compute_dtype, 'int64'),
        outDtype: a.dtype,
      });
    },
  ],
  [
    // Each input requantized to the output's parameters (in its own dtype) unless they are its own, then concatenated.
    'qnn.concatenate',
    (args, attrs) => {
      const op = 'qnn.concatenate';
      arity(op, args, 5);
      only(op, attrs, ['axis', 'rounding', 'compute_dtype']);
      const [data, scales, zeros] = args.slice(0, 3).map((v) => (Array.isArray(v) ? v : [v])) as unknown[][];
      if (!data!.every((t) => t instanceof Tensor)) fail(op, 'data must be a tuple of tensors');
      const [outScale, outZero] = [
        params(op, args[3], 'output_scale')[0]!,
        params(op, args[4], 'output_zero_point')[0]!,
      ];
      const parts = (data as Tensor[]).map((t, i) => {
        const [s, z] = [params(op, scales![i], 'input_scales')[0]!, params(op, zeros![i], 'input_zero_points')[0]!];
        if (Math.fround(s) === Math.fround(outScale) && z === outZero) return t;
        return requantize(op, t, {
          inScale: [s],
          inZero: [z],
          outScale,
          outZero,
          axis: -1,
          rounding: configured(attrs.rounding, 'UPWARD'),
          compute: configured(attrs.compute_dtype, 'int64'),
          outDtype: t.dtype,
        });
      });
      return c('concatenate', parts, (attrs.axis as number | undefined) ?? 0);
    },
  ],
  [
    'qnn.dense',
    (args, attrs) => {
      const op = 'qnn.dense';
      arity(op, args, 6);
      only(op, attrs, ['units', 'out_dtype']);
      const [x, w] = [arg(op, args, 0, 'data'), arg(op, args, 1, 'weight')];
      const [zx, zw] = [params(op, args[2], 'input_zero_point'), params(op, args[3], 'kernel_zero_point')];
      const y = c('matmul', centered(x, zx, 0), c('transpose', centered(w, zw, 0), [1, 0]));
      return outInt(op, attrs, y);
    },
  ],
  [
    'qnn.batch_matmul',
    (args, attrs) => {
      const op = 'qnn.batch_matmul';
      arity(op, args, 6);
      only(op, attrs, ['out_dtype', 'transpose_a', 'transpose_b']);
      const [x, y] = [arg(op, args, 0, 'x'), arg(op, args, 1, 'y')];
      const [zx, zy] = [params(op, args[2], 'x_zero_point'), params(op, args[3], 'y_zero_point')];
      const a = centered(x, zx, 0);
      const b = centered(y, zy, 0);
      const out = c(
        'matmul',
        attrs.transpose_a === true ? c('transpose', a, [0, 2, 1]) : a,
        attrs.transpose_b === false ? b : c('transpose', b, [0, 2, 1]),
      );
      return outInt(op, attrs, out);
    },
  ],
  [
    // Σ (x − zx)(w − zw) over each window: the input padded with its zero point, i.e. (x − zx) zero-padded.
    'qnn.conv2d',
    (args, attrs) => {
      const op = 'qnn.conv2d';
      arity(op, args, 6);
      const [x, w] = [arg(op, args, 0, 'data'), arg(op, args, 1, 'kernel')];
      const [zx, zw] = [params(op, args[2], 'input_zero_point'), params(op, args[3], 'kernel_zero_point')];
      const kl = (attrs.kernel_layout as string | undefined) || 'OIHW';
      const outAxis = kl.indexOf('O');
      if (outAxis < 0) fail(op, `kernel_layout '${kl}' has no O axis`);
      const rest: Record<string, unknown> = { ...attrs };
      delete rest.out_dtype;
      const y = convertRelayCall('nn.conv2d', [centered(x, zx, 0), centered(w, zw, outAxis)], rest) as Tensor;
      return outInt(op, attrs, y);
    },
  ],
  [
    // TVM's lowering: r = the input at the output's parameters (int32); where the input is below its zero point,
    // fixed_point_multiply(r, alpha) + fixed_point_multiply(output zero point, 1 − alpha); clipped to the input's dtype.
    'qnn.leaky_relu',
    (args, attrs) => {
      const op = 'qnn.leaky_relu';
      arity(op, args, 5);
      only(op, attrs, ['alpha']);
      const x = arg(op, args, 0, 'data');
      const [si, zi, so, zo] = [1, 2, 3, 4].map((i) => params(op, args[i], `argument ${i}`)[0]!);
      const alpha = (attrs.alpha as number | undefined) ?? 0.25;
      const d = c('cast', x, 'int32');
      const r = toInt32At(op, x, si!, zi!, so!, zo!, attrs);
      const prod = fixedPointMultiply(r, [alpha], 0, false);
      const z = fixedPointMultiply(tensor([zo!], { dtype: 'int32', shape: [] }), [1 - alpha], 0, false);
      const y = c('where', c('less', d, tensor([zi!], { dtype: 'int32', shape: [] })), c('add', prod, z), r);
      const [lo, hi] = range(op, x.dtype);
      return c('cast', c('clip', y, lo, hi), x.dtype);
    },
  ],
  [
    // The input at the output's parameters (int32), then nn.avg_pool2d on integers: windows padded with 0, their sums
    // divided (truncating) by the window's count; clipped to the input's dtype.
    'qnn.avg_pool2d',
    (args, attrs) => {
      const op = 'qnn.avg_pool2d';
      arity(op, args, 5);
      only(op, attrs, [
        'pool_size',
        'strides',
        'dilation',
        'padding',
        'layout',
        'out_layout',
        'ceil_mode',
        'count_include_pad',
      ]);
      const x = arg(op, args, 0, 'data');
      const [si, zi, so, zo] = [1, 2, 3, 4].map((i) => params(op, args[i], `argument ${i}`)[0]!);
      if (attrs.ceil_mode === true) fail(op, 'ceil_mode is not supported');
      const dil = (attrs.dilation as number[] | undefined) ?? [1, 1];
      if (dil.some((d) => d !== 1)) fail(op, `dilation [${dil}] is not supported (1 is)`);
      const layout = (attrs.layout as string | undefined) || 'NCHW';
      if (layout !== 'NCHW' && layout !== 'NHWC') fail(op, `layout '${layout}' is not supported (NCHW and NHWC are)`);
      const nchw = (t: Tensor) => (layout === 'NHWC' ? c('transpose', t, [0, 3, 1, 2]) : t);
      const r = nchw(c('cast', toInt32At(op, x, si!, zi!, so!, zo!, attrs), 'float64'));
      const [, C, H, W] = r.shape as [number, number, number, number];
      const [kh, kw] = (attrs.pool_size as number[] | undefined) ?? [1, 1];
      const [sh, sw] = (attrs.strides as number[] | undefined) ?? [1, 1];
      const pad = pads2d(attrs.padding);
      // Window sums: a depthwise convolution by ones, exact in float64.
      const ones = tensor(new Float64Array(C * kh! * kw!).fill(1), { dtype: 'float64', shape: [C, 1, kh!, kw!] });
      const sums = c('conv2d', r, ones, [sh!, sw!], pad, [1, 1], C);
      const [OH, OW] = [sums.shape[2]!, sums.shape[3]!];
      // Each window's divisor: its size, or (count_include_pad false) the elements inside the image.
      const counts = new Float64Array(OH * OW);
      for (let i = 0; i < OH; i++)
        for (let j = 0; j < OW; j++) {
          const [y0, x0] = [i * sh! - pad[0]!, j * sw! - pad[1]!];
          const inside = (Math.min(y0 + kh!, H) - Math.max(y0, 0)) * (Math.min(x0 + kw!, W) - Math.max(x0, 0));
          counts[i * OW + j] = attrs.count_include_pad === true ? kh! * kw! : Math.max(inside, 1);
        }
      const avg = c('cast', c('divide', sums, tensor(counts, { dtype: 'float64', shape: [1, 1, OH, OW] })), 'int32');
      const [lo, hi] = range(op, x.dtype);
      const y = c('cast', c('clip', avg, lo, hi), x.dtype);
      return layout === 'NHWC' ? c('transpose', y, [0, 2, 3, 1]) : y;
    },
  ],
  [
    // (x − zx) and (w − zw) (per output channel), then nn.conv2d_transpose: the raw integer accumulation.
    'qnn.conv2d_transpose',
    (args, attrs) => {
      const op = 'qnn.conv2d_transpose';
      arity(op, args, 6);
      const [x, w] = [arg(op, args, 0, 'data'), arg(op, args, 1, 'weight')];
      const [zx, zw] = [params(op, args[2], 'input_zero_point'), params(op, args[3], 'kernel_zero_point')];
      const kl = (attrs.kernel_layout as string | undefined) || 'IOHW';
      const rest: Record<string, unknown> = { ...attrs };
      delete rest.out_dtype;
      const y = convertRelayCall(
        'nn.conv2d_transpose',
        [centered(x, zx, 0), centered(w, zw, kl.indexOf('O'))],
        rest,
      ) as Tensor;
      return outInt(op, attrs, y);
    },
  ],
  [
    // TVM's topi.nn.simulated_quantize: clip(round(x / scale) + zp) to the dtype's range (code 1 int8, 2 uint8, 3
    // int32; 0 passes data through), in the input's float dtype.
    'qnn.simulated_quantize',
    (args, attrs) => simulated('qnn.simulated_quantize', args, attrs, true),
  ],
  ['qnn.simulated_dequantize', (args, attrs) => simulated('qnn.simulated_dequantize', args, attrs, false)],
];

function simulated(op: string, args: readonly unknown[], attrs: Attrs, quantize: boolean): Tensor {
  arity(op, args, 4);
  only(op, attrs, ['axis']);
  const x = arg(op, args, 0, 'data');
  const code = params(op, args[1], 'out_dtype')[0]!;
  if (code === 0) return x;
  const dtype = ({ 1: 'int8', 2: 'uint8', 3: 'int32' } as Record<number, string>)[code];
  if (!dtype) fail(op, `dtype code ${code} is not 0 (disable), 1 (int8), 2 (uint8) or 3 (int32)`);
  const [scale, zero] = [params(op, args[2], 'scale'), params(op, args[3], 'zero_point')];
  const rank = x.shape.length;
  const axis = rank ? axisOf((attrs.axis as number | undefined) ?? -1, rank) : 0;
  const channels = scale.length > 1 || zero.length > 1 ? x.shape[axis]! : 1;
  // topi indexes per-channel parameters modulo their length.
  const at = (v: readonly number[]) =>
    along(
      Array.from({ length: channels }, (_, i) => v[i % v.length]!),
      axis,
      rank,
      x.dtype,
    );
  if (!quantize) return c('multiply', c('subtract', x, at(zero)), at(scale));
  const [lo, hi] = range(op, dtype);
  const q = c('add', roundTensorHalfAway(c('divide', x, at(scale))), at(zero));
  return c(
    'maximum',
    c('minimum', q, tensor([hi], { dtype: x.dtype, shape: [] })),
    tensor([lo], { dtype: x.dtype, shape: [] }),
  );
}
