// Hand-written shape rule of raf.op.unique (specs/tensor/unique.yaml), and the computation it shares with the CPU
// kernel: the count of distinct elements (slices) comes from x's values, which the type function reads
// (`check: values`), so in a graph x must be a constant.

import type { TensorType } from '../tensor.ts';
import type { UniqueArgs } from '../generated/schema/unique.ts';

/** What raf.op.unique finds: the distinct slices (each by the position of its first occurrence), and per slice of x its group. */
export interface UniqueResult {
  /** Per distinct slice, in output order: the index of its first occurrence along the axis (or in the flattened x). */
  readonly first: number[];
  /** Per slice of x: the output position of its distinct slice. */
  readonly inverse: number[];
  /** Per distinct slice, in output order: how many slices of x equal it. */
  readonly counts: number[];
}

/**
 * The distinct slices of x along axis (elements of the flattened x when axis is null), given x's values in
 * row-major order: in order of first occurrence, or ascending when sorted (slices compare lexicographically, as
 * numpy.unique's do). NaN equals NaN and sorts last, as numpy.unique does for floats.
 */
export function uniqueOf(
  values: ArrayLike<number>,
  shape: readonly number[],
  axis: number | null,
  sorted: boolean,
): UniqueResult {
  const n = values.length;
  const len = axis === null ? n : shape[axis]!;
  const inner = axis === null ? 1 : shape.slice(axis + 1).reduce((p, d) => p * d, 1);
  const outer = len === 0 ? 0 : n / (len * inner);
  // Slice t as its elements in row-major order.
  const slice = (t: number): number[] => {
    const out: number[] = [];
    for (let o = 0; o < outer; o++) for (let i = 0; i < inner; i++) out.push(values[(o * len + t) * inner + i]!);
    return out;
  };
  const slices = Array.from({ length: len }, (_, t) => slice(t));
  const cmp = (a: number, b: number) => (a !== a ? (b !== b ? 0 : 1) : b !== b ? -1 : a < b ? -1 : a > b ? 1 : 0);
  const compare = (p: readonly number[], q: readonly number[]) => {
    for (let i = 0; i < p.length; i++) {
      const c = cmp(p[i]!, q[i]!);
      if (c) return c;
    }
    return 0;
  };
  // Group by value (a key that keeps NaN and -0 apart from nothing: -0 equals 0, as numpy's unique has it).
  const keyOf = (s: readonly number[]) => s.map((v) => (v !== v ? 'NaN' : String(v === 0 ? 0 : v))).join(',');
  const groupOf = new Map<string, number>();
  const firsts: number[] = [];
  const groups: number[] = [];
  const counts: number[] = [];
  slices.forEach((s, t) => {
    const key = keyOf(s);
    let g = groupOf.get(key);
    if (g === undefined) {
      g = firsts.length;
      groupOf.set(key, g);
      firsts.push(t);
      counts.push(0);
    }
    groups.push(g);
    counts[g]!++;
  });
  // Output order of the groups.
  const order = firsts.map((_, g) => g);
  if (sorted) order.sort((g, h) => compare(slices[firsts[g]!]!, slices[firsts[h]!]!));
  const position = new Array<number>(order.length);
  order.forEach((g, p) => (position[g] = p));
  return {
    first: order.map((g) => firsts[g]!),
    inverse: groups.map((g) => position[g]!),
    counts: order.map((g) => counts[g]!),
  };
}

/** The output types of raf.op.unique: y (x's dtype), then indices, inverse_indices and counts (int64). */
export function uniqueRule<T extends TensorType>(
  args: UniqueArgs<T>,
  values: { readonly x: readonly number[] },
): TensorType[] {
  const { x, axis, sorted } = args;
  const u = uniqueOf(values.x, x.shape, axis, sorted);
  const count = u.first.length;
  return [
    { shape: axis === null ? [count] : x.shape.map((d, i) => (i === axis ? count : d)), dtype: x.dtype },
    { shape: [count], dtype: 'int64' },
    { shape: [u.inverse.length], dtype: 'int64' },
    { shape: [count], dtype: 'int64' },
  ];
}
