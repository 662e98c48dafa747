// Arg checks and output rules that generated type functions call, with the seeds' error wording.

import type { DType } from './dtype.ts';
import { OpError } from './errors.ts';
import { broadcastShapes, formatShape, shapesEqual, isValidAxis, normalizeAxis, type Shape } from './shape.ts';
import type { Tensor, TensorType } from './tensor.ts';

/** `check: axis(x)` — one axis of x, returned non-negative; for a `Tensor[]` x, of its elements (the output rule checks they share a rank). */
export function checkAxis(op: string, arg: string, axis: number, x: TensorType | readonly TensorType[]): number {
  const ndim = elementOf(op, x).shape.length;
  if (!isValidAxis(axis, ndim)) throw new OpError(op, `invalid axis = ${axis} on ndim = ${ndim}`, arg);
  return normalizeAxis(axis, ndim);
}

/** A `Tensor[]` arg stands for its first element where a check needs one tensor's rank. */
function elementOf(op: string, x: TensorType | readonly TensorType[]): TensorType {
  if (!Array.isArray(x)) return x as TensorType;
  if (x.length === 0) throw new OpError(op, 'needs at least one tensor, got an empty list');
  return x[0]!;
}

/** `check: axes(x)` — a list of distinct axes of x, normalized (negative ones counted from the end), in the order given. */
export function checkAxes(
  op: string,
  arg: string,
  axes: readonly number[],
  x: TensorType | readonly TensorType[],
): number[] {
  const seen = new Set<number>();
  for (const a of axes) {
    const n = checkAxis(op, arg, a, x);
    if (seen.has(n)) throw new OpError(op, `axis ${a} repeated in [${axes.join(', ')}]`, arg);
    seen.add(n);
  }
  // In the order given: strided_slice's begin, end and strides run parallel to its axes.
  return [...seen];
}

/**
 * `check: nonempty(x)` — a reduction with no identity (max, argmax) needs an element on every axis it reduces: the
 * named axes of x (all of them when null) must have a non-zero length, as NumPy refuses a zero-size reduction.
 */
export function checkNonEmpty(op: string, arg: string, axis: number | readonly number[] | null, x: TensorType): void {
  const ndim = x.shape.length;
  const axes = axis === null ? x.shape.map((_, i) => i) : typeof axis === 'number' ? [axis] : axis;
  for (const a of axes) {
    const d = x.shape[a < 0 ? a + ndim : a];
    if (d === 0)
      throw new OpError(
        op,
        `reduces axis ${a} of length 0 (x is ${formatShape(x.shape)}); raf.op.${op} has no identity for an empty reduction`,
        arg,
      );
  }
}

export function checkNonNegative(op: string, arg: string, v: number | readonly number[]): void {
  for (const x of typeof v === 'number' ? [v] : v) {
    if (x < 0) throw new OpError(op, `must be non-negative, got ${x}`, arg);
  }
}

export function checkPositive(op: string, arg: string, v: number | readonly number[]): void {
  for (const x of typeof v === 'number' ? [v] : v) {
    if (x <= 0) throw new OpError(op, `must be positive, got ${x}`, arg);
  }
}

export function checkOneOf<T>(op: string, arg: string, v: T, allowed: readonly T[]): void {
  if (!allowed.includes(v)) {
    throw new OpError(
      op,
      `must be one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}, got ${JSON.stringify(v)}`,
      arg,
    );
  }
}

export function checkRange(op: string, arg: string, v: number, lo: number, hi: number): void {
  if (!(v >= lo && v <= hi)) throw new OpError(op, `must be in [${lo}, ${hi}], got ${v}`, arg);
}

export function checkDtypes(op: string, arg: string, t: TensorType, allowed: readonly DType[]): void {
  if (!allowed.includes(t.dtype)) {
    throw new OpError(op, `dtype ${t.dtype} is not supported; expected one of ${allowed.join(', ')}`, arg);
  }
}

/** All named tensors must share one dtype; the first one sets it. */
export function sameDtype(op: string, tensors: Readonly<Record<string, TensorType>>): DType {
  let firstName: string | undefined;
  let first: DType | undefined;
  for (const name in tensors) {
    const d = tensors[name]!.dtype;
    if (first === undefined) {
      firstName = name;
      first = d;
    } else if (d !== first) {
      throw new OpError(op, `dtype mismatch: ${firstName} is ${first}, ${name} is ${d}`, name);
    }
  }
  return first!;
}

// ---- output rules ----

export function sameAs(x: TensorType, dtype?: DType): TensorType {
  return { shape: x.shape, dtype: dtype ?? x.dtype };
}

export function broadcastOf(op: string, tensors: Readonly<Record<string, TensorType>>, dtype?: DType): TensorType {
  const d = sameDtype(op, tensors);
  const shapes: Shape[] = [];
  for (const name in tensors) shapes.push(tensors[name]!.shape);
  // Inputs of one shape (the usual case) give that shape itself: a tensor's frozen shape is shared, not copied.
  if (shapes.length && shapes.every((s) => shapesEqual(s, shapes[0]!))) return { shape: shapes[0]!, dtype: dtype ?? d };
  const shape = broadcastShapes(...shapes);
  if (!shape) {
    const desc = Object.entries(tensors).map(([n, t]) => `${n} ${formatShape(t.shape)}`);
    throw new OpError(op, `cannot broadcast ${desc.join(' with ')}`);
  }
  return { shape, dtype: dtype ?? d };
}

/** Shape after reducing `axes` (already normalized; null = all axes). */
export function reduceOf(x: TensorType, axes: readonly number[] | null, keepdims: boolean, dtype?: DType): TensorType {
  const all = axes === null || axes.length === 0;
  const shape: number[] = [];
  x.shape.forEach((d, i) => {
    const reduced = all || axes.includes(i);
    if (!reduced) shape.push(d);
    else if (keepdims) shape.push(1);
  });
  return { shape, dtype: dtype ?? x.dtype };
}

/**
 * `concat(xs, axis)`: the elements joined along `axis` (normalized); they must share dtype, rank and every other
 * dimension, as Relay's concatenate requires.
 */
export function concatOf(op: string, arg: string, xs: readonly TensorType[], axis: number): TensorType {
  const first = elementOf(op, xs);
  const shape = [...first.shape];
  xs.forEach((t, i) => {
    if (i === 0) return;
    const name = `${arg}[${i}]`;
    if (t.dtype !== first.dtype)
      throw new OpError(op, `dtype mismatch: ${arg}[0] is ${first.dtype}, ${name} is ${t.dtype}`, arg);
    if (t.shape.length !== first.shape.length || t.shape.some((d, k) => k !== axis && d !== first.shape[k])) {
      throw new OpError(
        op,
        `${name} has shape ${formatShape(t.shape)}, which does not fit ${arg}[0] ${formatShape(first.shape)} outside axis ${axis}`,
        arg,
      );
    }
    shape[axis]! += t.shape[axis]!;
  });
  return { shape, dtype: first.dtype };
}

/** Matrix product with NumPy batch broadcasting; 1-D operands are not promoted (rank >= 2 required). */
export function matmulOf(op: string, a: TensorType, b: TensorType, transposeA = false, transposeB = false): TensorType {
  const dtype = sameDtype(op, { a, b });
  if (a.shape.length < 2) throw new OpError(op, `needs rank >= 2, got shape ${formatShape(a.shape)}`, 'a');
  if (b.shape.length < 2) throw new OpError(op, `needs rank >= 2, got shape ${formatShape(b.shape)}`, 'b');
  const [m, ka] = lastTwo(a.shape, transposeA);
  const [kb, n] = lastTwo(b.shape, transposeB);
  if (ka !== kb) {
    throw new OpError(
      op,
      `inner dimensions differ: a ${formatShape(a.shape)} and b ${formatShape(b.shape)} (${ka} != ${kb})`,
    );
  }
  const batch = broadcastShapes(a.shape.slice(0, -2), b.shape.slice(0, -2));
  if (!batch) {
    throw new OpError(
      op,
      `cannot broadcast batch dimensions of a ${formatShape(a.shape)} and b ${formatShape(b.shape)}`,
    );
  }
  return { shape: [...batch, m, n], dtype };
}

function lastTwo(shape: Shape, transpose: boolean): [number, number] {
  const r = shape[shape.length - 2]!;
  const c = shape[shape.length - 1]!;
  return transpose ? [c, r] : [r, c];
}

/** `check: like(y)` — same shape and dtype as another tensor arg (a gradient like its value). */
export function checkLike(op: string, arg: string, t: TensorType, other: string, like: TensorType): void {
  if (t.dtype !== like.dtype || t.shape.length !== like.shape.length || t.shape.some((d, i) => d !== like.shape[i])) {
    throw new OpError(
      op,
      `must match ${other}: got ${t.dtype} ${formatShape(t.shape)}, ${other} is ${like.dtype} ${formatShape(like.shape)}`,
      arg,
    );
  }
}

/**
 * `check: values` — the values of a tensor arg the output type depends on (range's bounds, constant_of_shape's shape),
 * for the type function to hand to the op's rule. A traced tensor (graph mode) has none yet, and a tensor whose data
 * lives on a device that cannot be read without waiting has none here: both are refused, naming op and arg.
 */
export function argValues(op: string, arg: string, t: TensorType): number[] {
  const storage = (t as Partial<Tensor>).storage;
  if (!storage) throw new OpError(op, 'needs a tensor with values (its values decide the output type)', arg);
  if (storage.symbolic)
    throw new OpError(
      op,
      'decides the output shape by its values, so in a graph it must be a constant known when tracing, not a value computed at run time',
      arg,
    );
  const values = storage.readSync ? storage.readSync() : storage.hostValues?.();
  if (!values)
    throw new OpError(
      op,
      `decides the output shape by its values, which are on ${storage.device.kind} and cannot be read without waiting; compute it on the CPU (or move it there with \`await t.to('cpu')\`)`,
      arg,
    );
  return Array.from(values, Number);
}
