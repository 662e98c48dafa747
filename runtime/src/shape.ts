// Shape arithmetic shared by type functions and kernels: broadcasting, strides, axes.

export type Shape = readonly number[];

export function sizeOf(shape: Shape): number {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

export function stridesOf(shape: Shape): number[] {
  const strides = new Array<number>(shape.length);
  let s = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    strides[i] = s;
    s *= shape[i]!;
  }
  return strides;
}

export function shapesEqual(a: Shape, b: Shape): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** NumPy broadcasting; returns null when the shapes are incompatible. */
export function broadcastShapes(...shapes: Shape[]): number[] | null {
  const rank = Math.max(0, ...shapes.map((s) => s.length));
  const out = new Array<number>(rank).fill(1);
  for (const s of shapes) {
    for (let i = 0; i < s.length; i++) {
      const o = rank - s.length + i;
      const d = s[i]!;
      if (out[o] === 1) out[o] = d;
      else if (d !== 1 && d !== out[o]) return null;
    }
  }
  return out;
}

/**
 * Strides for reading an input of `shape` as if it had the broadcast shape `to`:
 * broadcast dimensions get stride 0.
 */
export function broadcastStrides(shape: Shape, to: Shape): number[] {
  const own = stridesOf(shape);
  const out = new Array<number>(to.length).fill(0);
  for (let i = 0; i < shape.length; i++) {
    const o = to.length - shape.length + i;
    out[o] = shape[i] === 1 && to[o] !== 1 ? 0 : own[i]!;
  }
  return out;
}

/** The axes of `to` along which an input of `shape` was broadcast (for reducing gradients back). */
export function broadcastAxes(shape: Shape, to: Shape): number[] {
  const axes: number[] = [];
  const lead = to.length - shape.length;
  for (let o = 0; o < to.length; o++) {
    if (o < lead || (shape[o - lead] === 1 && to[o] !== 1)) axes.push(o);
  }
  return axes;
}

export function isValidAxis(axis: number, ndim: number): boolean {
  return Number.isInteger(axis) && -ndim <= axis && axis < ndim;
}

export function normalizeAxis(axis: number, ndim: number): number {
  return axis < 0 ? axis + ndim : axis;
}

export function formatShape(shape: Shape): string {
  return `[${shape.join(', ')}]`;
}

/**
 * Merges adjacent dimensions that every operand walks contiguously and drops size-1 ones, so same-shape
 * operands index as rank 1 and most broadcasts stay within rank 2 or 3.
 */
export function coalesce(
  shape: readonly number[],
  strides: readonly (readonly number[])[],
): { shape: number[]; strides: number[][] } {
  const dims: number[] = [];
  const st: number[][] = strides.map(() => []);
  for (let d = 0; d < shape.length; d++) {
    const size = shape[d]!;
    if (size === 1) continue;
    const last = dims.length - 1;
    if (last >= 0 && strides.every((s, k) => st[k]![last] === s[d]! * size)) {
      dims[last]! *= size;
      strides.forEach((s, k) => (st[k]![last] = s[d]!));
    } else {
      dims.push(size);
      strides.forEach((s, k) => st[k]!.push(s[d]!));
    }
  }
  return { shape: dims, strides: st };
}
