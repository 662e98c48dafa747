// Building blocks for CPU kernels: output allocation, broadcast index maps, axis iteration.

import { allocStorage, roundToBFloat16, roundToFloat16 } from '../../dtype.ts';
import { broadcastStrides, shapesEqual, sizeOf, stridesOf, type Shape } from '../../shape.ts';
import { CpuStorage, Tensor, type TensorType } from '../../tensor.ts';

/** A fresh CPU tensor of the declared output type. */
export function allocOut(out: TensorType): Tensor {
  return new Tensor(out.shape, out.dtype, new CpuStorage(allocStorage(out.dtype, sizeOf(out.shape))));
}

/** float16 and bfloat16 live widened in a Float32Array; kernels compute in float32 and round once at the end. */
export function finish(t: Tensor): Tensor {
  if (t.dtype === 'float16') {
    const a = t.dataSync();
    for (let i = 0; i < a.length; i++) a[i] = roundToFloat16(a[i]!);
  } else if (t.dtype === 'bfloat16') {
    const a = t.dataSync();
    for (let i = 0; i < a.length; i++) a[i] = roundToBFloat16(a[i]!);
  }
  return t;
}

/**
 * For each output element, the flat index to read from an input broadcast to `outShape`;
 * null when the input already has the output's shape (read with the same index).
 */
export function broadcastIndex(input: Shape, outShape: Shape): Int32Array | null {
  if (shapesEqual(input, outShape)) return null;
  const n = sizeOf(outShape);
  const idx = new Int32Array(n);
  if (sizeOf(input) === 1) return idx;
  const strides = broadcastStrides(input, outShape);
  const rank = outShape.length;
  const counter = new Array<number>(rank).fill(0);
  let src = 0;
  for (let i = 0; i < n; i++) {
    idx[i] = src;
    // Odometer increment, carrying into outer dimensions.
    for (let d = rank - 1; d >= 0; d--) {
      counter[d]!++;
      src += strides[d]!;
      if (counter[d]! < outShape[d]!) break;
      src -= strides[d]! * counter[d]!;
      counter[d] = 0;
    }
  }
  return idx;
}

/**
 * How elementwise kernels walk a broadcast: the output as `rows` contiguous runs of `inner` elements, and per input
 * the flat index where each run starts (`starts[k][row]`) and the step within a run (`steps[k]`: 1, or 0 for an input
 * constant along the run, such as a [1, C, 1, 1] operand against [N, C, H, W]). Output axes of size 1 are dropped and
 * neighbouring axes every input walks alike are merged first, so same-shape inputs give one run over everything.
 */
export interface RowPlan {
  readonly rows: number;
  readonly inner: number;
  readonly starts: readonly Int32Array[];
  readonly steps: readonly number[];
}

const RUN_START = new Int32Array(1);

export function broadcastRows(outShape: Shape, inputs: readonly Shape[]): RowPlan {
  // Same-shape inputs (most calls): one run over everything, no walk to plan. The start table is shared, read-only.
  if (inputs.every((s) => shapesEqual(s, outShape)) && sizeOf(outShape) > 0)
    return { rows: 1, inner: sizeOf(outShape), starts: inputs.map(() => RUN_START), steps: inputs.map(() => 1) };
  const all = inputs.map((s) => broadcastStrides(s, outShape));
  // Collapsed axes, outermost first: size and each input's stride.
  const sizes: number[] = [];
  const strides: number[][] = inputs.map(() => []);
  for (let d = 0; d < outShape.length; d++) {
    const size = outShape[d]!;
    if (size === 1) continue;
    const last = sizes.length - 1;
    if (last >= 0 && all.every((st, k) => strides[k]![last] === st[d]! * size)) {
      sizes[last]! *= size;
      all.forEach((st, k) => (strides[k]![last] = st[d]!));
      continue;
    }
    sizes.push(size);
    all.forEach((st, k) => strides[k]!.push(st[d]!));
  }
  if (sizes.length === 0 || sizeOf(outShape) === 0) {
    const rows = sizeOf(outShape) === 0 ? 0 : 1;
    return { rows, inner: 1, starts: inputs.map(() => new Int32Array(rows)), steps: inputs.map(() => 0) };
  }
  const inner = sizes[sizes.length - 1]!;
  const outer = sizes.slice(0, -1);
  const rows = sizeOf(outer);
  const starts = strides.map((st) => {
    const idx = new Int32Array(rows);
    const counter = new Array<number>(outer.length).fill(0);
    let src = 0;
    for (let r = 0; r < rows; r++) {
      idx[r] = src;
      for (let d = outer.length - 1; d >= 0; d--) {
        counter[d]!++;
        src += st[d]!;
        if (counter[d]! < outer[d]!) break;
        src -= st[d]! * counter[d]!;
        counter[d] = 0;
      }
    }
    return idx;
  });
  return { rows, inner, starts, steps: strides.map((st) => st[st.length - 1]!) };
}

/** Splits a shape around one axis: element (o, k, i) sits at (o * len + k) * inner + i. */
export function aroundAxis(shape: Shape, axis: number): { outer: number; len: number; inner: number } {
  return {
    outer: sizeOf(shape.slice(0, axis)),
    len: shape[axis] ?? 1,
    inner: sizeOf(shape.slice(axis + 1)),
  };
}

/**
 * For a reduction over `axes` (normalized), the output flat index of every input element;
 * the reduced axes get stride 0 in the output.
 */
export function reduceIndex(shape: Shape, axes: readonly number[] | null): Int32Array {
  const all = axes === null || axes.length === 0;
  const kept = shape.map((d, i) => (all || axes.includes(i) ? 1 : d));
  const outStrides = stridesOf(kept).map((s, i) => (kept[i] === 1 && shape[i] !== 1 ? 0 : s));
  const n = sizeOf(shape);
  const idx = new Int32Array(n);
  const rank = shape.length;
  const counter = new Array<number>(rank).fill(0);
  let dst = 0;
  for (let i = 0; i < n; i++) {
    idx[i] = dst;
    for (let d = rank - 1; d >= 0; d--) {
      counter[d]!++;
      dst += outStrides[d]!;
      if (counter[d]! < shape[d]!) break;
      dst -= outStrides[d]! * counter[d]!;
      counter[d] = 0;
    }
  }
  return idx;
}
