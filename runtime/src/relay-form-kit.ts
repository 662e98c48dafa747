// The helpers every composite Relay form uses (relay-forms.ts and relay-forms-more.ts): argument and attr checks
// that name the op, values known while converting, broadcasting, and NCHW-style layout permutations.

import { call } from './dispatch.ts';
import type { DType } from './dtype.ts';
import { Tensor, tensor } from './tensor.ts';

export type Attrs = Readonly<Record<string, unknown>>;
export type Form = (args: readonly unknown[], attrs: Attrs) => unknown;

export function fail(op: string, why: string): never {
  throw new Error(`FromRelay: ${op}: ${why}`);
}

/** Refuses attrs the form does not read (Relay's own defaults pass where they change nothing). */
export function only(op: string, attrs: Attrs, names: readonly string[]): void {
  for (const k of Object.keys(attrs))
    if (!names.includes(k))
      fail(op, `has no attr '${k}' that raf-op maps; known: ${names.length ? names.join(', ') : 'none'}`);
}

export function arg(op: string, args: readonly unknown[], i: number, what: string): Tensor {
  const v = args[i];
  if (!(v instanceof Tensor)) fail(op, `${what} (argument ${i}) must be a tensor`);
  return v;
}

export function arity(op: string, args: readonly unknown[], n: number): void {
  if (args.length !== n) fail(op, `takes ${n} argument${n === 1 ? '' : 's'}, got ${args.length}`);
}

export const size = (shape: readonly number[]) => shape.reduce((a, b) => a * b, 1);
export const axisOf = (a: number, rank: number) => (a < 0 ? a + rank : a);
export const c = (name: string, ...args: unknown[]) => call(name, args) as Tensor;

/** A scalar of dtype, for elementwise calls beside a tensor. */
export const scalar = (v: number, dtype: DType) => tensor([v], { dtype, shape: [] });

export function dtypeAttr(op: string, v: unknown, dflt: DType): DType {
  if (v === undefined || v === null || v === '') return dflt;
  if (typeof v !== 'string') fail(op, `dtype must be a dtype name`);
  return v as DType;
}

/** The value of a tensor or literal known while converting (a Relay constant), else an error naming what. */
export function knownNumber(op: string, v: unknown, what: string): number {
  if (typeof v === 'number') return v;
  if (v instanceof Tensor) {
    try {
      return Number(v.dataSync()[0]);
    } catch {
      fail(op, `${what} must be known when converting (a constant), not a graph value`);
    }
  }
  fail(op, `${what} must be a number`);
}

/** x broadcast to `shape` (NumPy's rules), in any dtype: reshaped to shape's rank, then tiled. */
export function broadcastTo(op: string, x: Tensor, shape: readonly number[]): Tensor {
  if (shape.length < x.shape.length) fail(op, `cannot broadcast [${x.shape}] to [${shape}]`);
  const padded = [...Array<number>(shape.length - x.shape.length).fill(1), ...x.shape];
  const reps = shape.map((d, i) => {
    if (padded[i] !== d && padded[i] !== 1) fail(op, `cannot broadcast [${x.shape}] to [${shape}]`);
    return padded[i] === d ? 1 : d;
  });
  const r = padded.length === x.shape.length ? x : c('reshape', x, padded);
  return reps.every((k) => k === 1) ? r : c('tile', r, reps);
}

/** NCHW-style layouts the forms take: the permutation to NCHW (and back), or an error naming the layout. */
export function toNchw(op: string, layout: unknown): number[] {
  const l = (layout as string | undefined) || 'NCHW';
  if (l === 'NCHW') return [0, 1, 2, 3];
  if (l === 'NHWC') return [0, 3, 1, 2];
  fail(op, `layout '${l}' is not supported (NCHW and NHWC are)`);
}
export const permute = (x: Tensor, perm: readonly number[]) =>
  perm.every((p, i) => p === i) ? x : c('transpose', x, perm);
export const inverse = (perm: readonly number[]) => perm.map((_, i) => perm.indexOf(i));

export function knownList(op: string, v: unknown, what: string): number[] {
  if (typeof v === 'number') return [v];
  if (Array.isArray(v) && v.every((x) => typeof x === 'number')) return v as number[];
  if (v instanceof Tensor) {
    try {
      return Array.from(v.dataSync() as ArrayLike<number>, Number);
    } catch {
      fail(op, `${what} must be known when converting (a constant): a raf-op graph has static shapes`);
    }
  }
  fail(op, `${what} must be a tensor of integers`);
}

/** Rounding as TVM's round (te.round, lowered to llvm.round): to the nearest integer, ties away from zero. */
export function roundHalfAway(v: number): number {
  const t = Math.trunc(v);
  return Math.abs(v - t) >= 0.5 ? t + Math.sign(v) : t;
}

/** x rounded as TVM's round: ties away from zero, exactly (trunc, then a step where the dropped part is at least ½). */
export function roundTensorHalfAway(x: Tensor): Tensor {
  if (!x.dtype.startsWith('float')) return x;
  const t = c('where', c('less', x, scalar(0, x.dtype)), c('ceil', x), c('floor', x));
  const away = c('greater_equal', c('abs', c('subtract', x, t)), scalar(0.5, x.dtype));
  return c('where', away, c('add', t, c('sign', x)), t);
}

/**
 * Relay's reshape newshape codes read left to right against the input's dims, as TVM's InferNewShape does: a positive
 * value is a dim; 0 copies the input dim at the same position; -1 is inferred from the element count; -2 copies every
 * remaining input dim; -3 merges the next two input dims; -4 splits the next input dim into the two values that follow
 * (either may be -1).
 */
export function relayNewShape(op: string, input: readonly number[], newshape: readonly number[]): number[] {
  const out: number[] = [];
  let src = 0;
  let infer = -1;
  for (let i = 0; i < newshape.length; i++) {
    const v = newshape[i]!;
    if (v > 0) {
      out.push(v);
      src++;
    } else if (v === 0) {
      if (src >= input.length) fail(op, `newshape ${JSON.stringify(newshape)}: 0 at ${i} has no input dim to copy`);
      out.push(input[src++]!);
    } else if (v === -1) {
      if (infer >= 0) fail(op, `newshape ${JSON.stringify(newshape)} has more than one -1`);
      infer = out.length;
      out.push(1);
      src++;
    } else if (v === -2) while (src < input.length) out.push(input[src++]!);
    else if (v === -3) {
      if (src + 1 >= input.length) fail(op, `newshape ${JSON.stringify(newshape)}: -3 needs two input dims`);
      out.push(input[src]! * input[src + 1]!);
      src += 2;
    } else if (v === -4) {
      const [d1, d2] = [newshape[i + 1], newshape[i + 2]];
      if (d1 === undefined || d2 === undefined || (d1 === -1 && d2 === -1) || src >= input.length)
        fail(op, `newshape ${JSON.stringify(newshape)}: -4 needs an input dim and two values, at most one -1`);
      const d0 = input[src++]!;
      out.push(d1 === -1 ? d0 / d2 : d1, d2 === -1 ? d0 / d1 : d2);
      i += 2;
    } else fail(op, `newshape ${JSON.stringify(newshape)} holds ${v}, not a dim or a code 0, -1, -2, -3, -4`);
  }
  if (infer >= 0) {
    const total = input.reduce((a, b) => a * b, 1);
    const rest = out.reduce((a, b, k) => (k === infer ? a : a * b), 1);
    out[infer] = total / rest;
  }
  if (
    out.some((d) => !Number.isInteger(d) || d < 0) ||
    out.reduce((a, b) => a * b, 1) !== input.reduce((a, b) => a * b, 1)
  )
    fail(op, `newshape ${JSON.stringify(newshape)} does not fit the input's [${input.join(', ')}]`);
  return out;
}

/** A 2-D padding attr as [top, left, bottom, right]: one value for every side, or [h, w] for both sides of each. */
export function pads2d(v: unknown): number[] {
  const p = (v as number[] | undefined) ?? [0, 0];
  return p.length === 1 ? [p[0]!, p[0]!, p[0]!, p[0]!] : p.length === 2 ? [p[0]!, p[1]!, p[0]!, p[1]!] : [...p];
}

/** A 3-D list attr (strides, dilation, output_padding): one value for every axis, or three. */
export function triple(v: unknown, dflt: number): number[] {
  const l = (v as number[] | undefined) ?? [dflt, dflt, dflt];
  return l.length === 1 ? [l[0]!, l[0]!, l[0]!] : [...l];
}

/** Refuses a `channels` attr that disagrees with the output channels the weight gives. */
export function checkChannels(op: string, attrs: Attrs, channels: number): void {
  if (attrs.channels !== undefined && attrs.channels !== null && attrs.channels !== channels)
    fail(op, `channels=${String(attrs.channels)} disagrees with the weight, which gives ${channels}`);
}
