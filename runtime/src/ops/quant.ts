// What the rules and CPU kernels of the quantization ops (specs/quant/) share: the quantized dtypes and their ranges,
// how a scale or zero point lines up with its tensor (per tensor, per axis, blocked; per row or column of a matrix
// product; per output channel of a convolution), and the N-D convolution geometry of conv_integer and qlinear_conv.

import type { DType } from '../dtype.ts';
import { OpError } from '../errors.ts';
import { broadcastShapes, formatShape, isValidAxis, normalizeAxis, sizeOf, type Shape } from '../shape.ts';
import type { TensorType } from '../tensor.ts';

/** The integer range of a quantized dtype (8 or 16 bits); others (int4, float8: no raf-op dtype) are refused. */
export function quantRange(op: string, arg: string, dtype: DType): readonly [number, number] {
  if (dtype === 'uint8') return [0, 255];
  if (dtype === 'int8') return [-128, 127];
  if (dtype === 'uint16') return [0, 65535];
  if (dtype === 'int16') return [-32768, 32767];
  throw new OpError(op, `dtype ${dtype} is not a quantized type raf-op computes (uint8, int8, uint16 or int16)`, arg);
}

/** Checks a tensor is uint8 or int8 (the 8-bit integers ONNX's integer ops take). */
export function checkInt8(op: string, arg: string, t: TensorType): void {
  if (t.dtype !== 'uint8' && t.dtype !== 'int8')
    throw new OpError(op, `dtype ${t.dtype} is not supported; expected uint8 or int8`, arg);
}

export function checkFloat(op: string, arg: string, t: TensorType): void {
  if (t.dtype !== 'float32' && t.dtype !== 'float16' && t.dtype !== 'float64')
    throw new OpError(op, `dtype ${t.dtype} is not supported; expected a float scale (float32 or float16)`, arg);
}

/** A zero point must have its tensor's dtype, as ONNX's type constraints require. */
export function checkZeroPoint(op: string, arg: string, zp: TensorType | null, of: string, t: TensorType): void {
  if (zp && zp.dtype !== t.dtype)
    throw new OpError(
      op,
      `dtype ${zp.dtype} differs from ${of}'s ${t.dtype}; a zero point has its tensor's dtype`,
      arg,
    );
}

/** How a scale or zero point applies to x: one value, one per index along `axis`, or one per block along it. */
export interface QuantLayout {
  readonly kind: 'tensor' | 'axis' | 'block';
  readonly axis: number;
  readonly block: number;
}

/**
 * The layout of QuantizeLinear / DequantizeLinear's scale or zero point `p` for x: one element is per tensor (any
 * rank, as ONNX's reference reads it); with block_size 0 a 1-D tensor of x.shape[axis] elements is per axis; with
 * block_size > 0, x's shape with ceil(x.shape[axis] / block_size) along axis is blocked.
 */
export function quantLayout(op: string, arg: string, x: Shape, p: Shape, axis: number, block: number): QuantLayout {
  if (sizeOf(p) === 1) return { kind: 'tensor', axis: 0, block: 0 };
  if (!isValidAxis(axis, x.length))
    throw new OpError(
      op,
      `axis ${axis} is out of range for x of rank ${x.length} (${arg} has shape ${formatShape(p)})`,
      'axis',
    );
  const a = normalizeAxis(axis, x.length);
  if (block === 0) {
    if (p.length !== 1 || p[0] !== x[a])
      throw new OpError(
        op,
        `has shape ${formatShape(p)}: per axis it must be 1-D with the ${x[a]} elements of x ${formatShape(x)} along axis ${a} (or one element, per tensor)`,
        arg,
      );
    return { kind: 'axis', axis: a, block: 1 };
  }
  const want = x.map((d, i) => (i === a ? Math.ceil(d / block) : d));
  if (p.length !== x.length || p.some((d, i) => d !== want[i]))
    throw new OpError(
      op,
      `has shape ${formatShape(p)}: blocked by ${block} along axis ${a} of x ${formatShape(x)} it must be ${formatShape(want)}`,
      arg,
    );
  return { kind: 'block', axis: a, block };
}

/** For each element of x, the index of its scale / zero point under `layout`; null when per tensor (index 0). */
export function layoutIndex(layout: QuantLayout, x: Shape): Int32Array | null {
  if (layout.kind === 'tensor') return null;
  const a = layout.axis;
  const len = x[a]!;
  const inner = sizeOf(x.slice(a + 1));
  const outer = sizeOf(x.slice(0, a));
  const idx = new Int32Array(sizeOf(x));
  const blocks = layout.kind === 'block' ? Math.ceil(len / layout.block) : 1;
  let i = 0;
  for (let o = 0; o < outer; o++)
    for (let t = 0; t < len; t++)
      for (let r = 0; r < inner; r++, i++)
        idx[i] = layout.kind === 'axis' ? t : (o * blocks + Math.floor(t / layout.block)) * inner + r;
  return idx;
}

// ---- matrix products (MatMulInteger, QLinearMatMul) ----

/** A matrix product's operands as ONNX MatMul reads them: 1-D a is a row [1, K], 1-D b a column [K, 1]. */
export interface MatmulGeometry {
  /** a and b with 1-D operands promoted to matrices. */
  readonly a: Shape;
  readonly b: Shape;
  readonly m: number;
  readonly k: number;
  readonly n: number;
  /** The product's shape before the promoted axes are dropped: [...batch, m, n]. */
  readonly full: Shape;
  /** The result's shape (NumPy matmul's). */
  readonly out: Shape;
}

export function matmulGeometry(op: string, a: Shape, b: Shape): MatmulGeometry {
  if (a.length === 0) throw new OpError(op, 'needs a of rank >= 1, got a scalar', 'a');
  if (b.length === 0) throw new OpError(op, 'needs b of rank >= 1, got a scalar', 'b');
  const a2 = a.length === 1 ? [1, a[0]!] : a;
  const b2 = b.length === 1 ? [b[0]!, 1] : b;
  const [m, k] = [a2[a2.length - 2]!, a2[a2.length - 1]!];
  const [kb, n] = [b2[b2.length - 2]!, b2[b2.length - 1]!];
  if (k !== kb)
    throw new OpError(op, `inner dimensions differ: a ${formatShape(a)} and b ${formatShape(b)} (${k} != ${kb})`, 'b');
  const batch = broadcastShapes(a2.slice(0, -2), b2.slice(0, -2));
  if (!batch)
    throw new OpError(op, `cannot broadcast the batch dimensions of a ${formatShape(a)} and b ${formatShape(b)}`, 'b');
  const full = [...batch, m, n];
  const out = [...batch, ...(a.length === 1 ? [] : [m]), ...(b.length === 1 ? [] : [n])];
  return { a: a2, b: b2, m, k, n, full, out };
}

/**
 * The shape a matrix product's per-row (side 'a': a's scale and zero point, y's) or per-column (side 'b') parameter
 * broadcasts as: one element is per tensor; 1-D with M (N) elements is per row (column); otherwise it must broadcast
 * against the operand ([..., M, 1] per row, [..., 1, N] per column), as ONNX describes N-D operands' parameters.
 */
export function matmulParamShape(op: string, arg: string, p: Shape, g: MatmulGeometry, side: 'a' | 'b'): Shape {
  if (sizeOf(p) === 1) return [];
  const [own, count, what] = side === 'a' ? [g.a, g.m, 'row'] : [g.b, g.n, 'column'];
  if (p.length === 1 && p[0] === count) return side === 'a' ? [count, 1] : [count];
  const ownLast = side === 'a' ? [g.m, 1] : [1, g.n];
  const fits =
    p.length <= own.length &&
    p.length >= 2 &&
    p[p.length - 2] === ownLast[0] &&
    p[p.length - 1] === ownLast[1] &&
    shapesFit(p.slice(0, -2), own.slice(0, -2));
  if (!fits)
    throw new OpError(
      op,
      `has shape ${formatShape(p)}: it must have one element (per tensor), ${count} (one per ${what}), or broadcast as ${formatShape([...own.slice(0, -2), ...ownLast])}`,
      arg,
    );
  return p;
}

/** Whether `p` broadcasts to `to` without growing it. */
function shapesFit(p: Shape, to: Shape): boolean {
  const lead = to.length - p.length;
  return lead >= 0 && p.every((d, i) => d === 1 || d === to[i + lead]);
}

// ---- convolutions (ConvInteger, QLinearConv) ----

/** An N-D convolution resolved: per spatial axis the kernel, stride, dilation, pads and output size. */
export interface ConvGeometry {
  readonly rank: number;
  readonly n: number;
  readonly c: number;
  readonly m: number;
  readonly groups: number;
  readonly input: readonly number[];
  readonly kernel: readonly number[];
  readonly stride: readonly number[];
  readonly dilation: readonly number[];
  readonly padBegin: readonly number[];
  readonly padEnd: readonly number[];
  readonly output: readonly number[];
}

export interface ConvArgs {
  readonly x: TensorType;
  readonly w: TensorType;
  readonly stride: readonly number[] | null;
  readonly padding: readonly number[] | null;
  readonly dilation: readonly number[] | null;
  readonly groups: number;
  readonly auto_pad: string;
}

function perAxis(op: string, arg: string, v: readonly number[] | null, count: number, fill: number): number[] {
  if (v === null) return new Array<number>(count).fill(fill);
  if (v.length !== count) throw new OpError(op, `needs ${count} values, got ${formatShape(v)}`, arg);
  return [...v];
}

/** The geometry of ONNX Conv's attributes over x [N, C, spatial...] and w [M, C / groups, kernel...]. */
export function convGeometry(op: string, args: ConvArgs): ConvGeometry {
  const { x, w, groups } = args;
  const rank = x.shape.length - 2;
  if (rank < 1 || rank > 3)
    throw new OpError(
      op,
      `needs x of rank 3 to 5 [N, C, spatial...] (1 to 3 spatial axes), got ${formatShape(x.shape)}`,
      'x',
    );
  if (w.shape.length !== rank + 2)
    throw new OpError(op, `needs w of rank ${rank + 2} [M, C / groups, kernel...], got ${formatShape(w.shape)}`, 'w');
  const [n, c] = [x.shape[0]!, x.shape[1]!];
  const m = w.shape[0]!;
  if (c % groups !== 0 || m % groups !== 0 || w.shape[1]! * groups !== c)
    throw new OpError(
      op,
      `x has ${c} channels, w ${formatShape(w.shape)} expects ${w.shape[1]! * groups} with groups = ${groups} (and ${m} output channels must divide by groups)`,
      'w',
    );
  const input = x.shape.slice(2);
  const kernel = w.shape.slice(2);
  const stride = perAxis(op, 'stride', args.stride, rank, 1);
  const dilation = perAxis(op, 'dilation', args.dilation, rank, 1);
  let pads = perAxis(op, 'padding', args.padding, 2 * rank, 0);
  if (args.auto_pad !== 'NOTSET') {
    if (args.padding && args.padding.some((p) => p !== 0))
      throw new OpError(op, `explicit pads ${formatShape(args.padding)} with auto_pad ${args.auto_pad}`, 'padding');
    pads = new Array<number>(2 * rank).fill(0);
    if (args.auto_pad !== 'VALID')
      for (let i = 0; i < rank; i++) {
        const out = Math.ceil(input[i]! / stride[i]!);
        const total = Math.max(0, (out - 1) * stride[i]! + (kernel[i]! - 1) * dilation[i]! + 1 - input[i]!);
        const small = Math.floor(total / 2);
        pads[i] = args.auto_pad === 'SAME_LOWER' ? total - small : small;
        pads[i + rank] = total - pads[i]!;
      }
  }
  const padBegin = pads.slice(0, rank);
  const padEnd = pads.slice(rank);
  const output = input.map(
    (d, i) => Math.floor((d + padBegin[i]! + padEnd[i]! - dilation[i]! * (kernel[i]! - 1) - 1) / stride[i]!) + 1,
  );
  if (output.some((d) => d < 1))
    throw new OpError(
      op,
      `the kernel ${formatShape(kernel)} (dilation ${formatShape(dilation)}) does not fit x ${formatShape(x.shape)} padded by ${formatShape(pads)}`,
      'w',
    );
  return { rank, n, c, m, groups, input, kernel, stride, dilation, padBegin, padEnd, output };
}

/** A convolution's per-output-channel parameter (w's zero point and scale): one element, or 1-D with M. */
export function checkPerChannel(op: string, arg: string, p: TensorType, m: number): void {
  if (sizeOf(p.shape) === 1) return;
  if (p.shape.length !== 1 || p.shape[0] !== m)
    throw new OpError(
      op,
      `has shape ${formatShape(p.shape)}: it must have one element (per tensor) or ${m} (one per output channel)`,
      arg,
    );
}

/** A per-tensor parameter: one element. */
export function checkPerTensor(op: string, arg: string, p: TensorType): void {
  if (sizeOf(p.shape) !== 1)
    throw new OpError(op, `has shape ${formatShape(p.shape)}: only one element (per tensor) is supported`, arg);
}
