// Elementwise kernels of the wasm dialect: the generated `<op>_f32` / `<op>_f64` exports (and their `_rows`
// broadcast forms) behind the Kernel signature.

import type { Kernel } from '../../dialect.ts';
import type { DType } from '../../dtype.ts';
import { shapesEqual, sizeOf, type Shape } from '../../shape.ts';
import type { Tensor, TensorType } from '../../tensor.ts';
import { broadcastRows, type RowPlan } from '../cpu/support.ts';
import { callArena, wasm, type Arena } from './module.ts';
import { inPtr, outBlock, widthOf, type Width } from './support.ts';
import { threadedFlat, threadedRows, threadThresholds, wasmThreads } from './threads/index.ts';

type Export = (out: number, ...rest: number[]) => void;

/** The broadcast walk of a kernel's last call that needed one, and the shapes it was planned for. */
interface LastPlan {
  out: Shape;
  ins: Shape[];
  plan: RowPlan | null;
}

/**
 * The kernel for one op and dtype. Inputs of the output's shape go to `<op>_<width>(out, ...tensors, ...attrs, n)`,
 * one flat SIMD loop; otherwise `<op>_<width>_rows` walks the broadcast as contiguous runs (see broadcastRows), each
 * input read in place from its own elements. Resident inputs are read where they are and the output stays resident.
 * Null when the dtype or an input's dtype is not served.
 */
export function elementwise<I extends object, T>(
  op: string,
  dtype: DType,
  inputs: I,
  tensors: readonly (keyof I & string)[],
  attrs: readonly (keyof T & string)[],
): Kernel<I, T> | null {
  const width = widthOf(dtype);
  if (!width || tensors.some((t) => (inputs[t] as unknown as Tensor).dtype !== dtype)) return null;
  const mod = wasm();
  const flatName = `${op}_${width}`;
  const rowsName = `${op}_${width}_rows`;
  const flat = mod[flatName] as Export | undefined;
  const rows = mod[rowsName] as Export | undefined;
  if (typeof flat !== 'function') throw new Error(`the wasm module has no ${op}_${width}; run \`npm run build:wasm\``);
  const [t0, t1] = tensors;
  const last: LastPlan = { out: [], ins: [], plan: null };
  // One or two tensor inputs and no attrs (most ops): no per-call arrays or spread calls on the same-shape path.
  // Large calls with threads on take the general path, where opt-in threads (threads/index.ts) may split them.
  const split = (n: number) => n >= threadThresholds.elements && wasmThreads() > 1;
  if (attrs.length === 0 && (tensors.length === 1 || tensors.length === 2)) {
    const two = tensors.length === 2;
    return (given, attrValues, out) => {
      const a = given[t0!] as unknown as Tensor;
      const b = two ? (given[t1!] as unknown as Tensor) : a;
      if (!shapesEqual(a.shape, out.shape) || !shapesEqual(b.shape, out.shape)) {
        if (!two || typeof rows !== 'function' || split(sizeOf(out.shape)))
          return general(flat, rows, flatName, rowsName, op, width, tensors, attrs, given, attrValues, out, last);
        // Two inputs broadcast (a bias, a per-channel scale): the walk without per-call arrays or spreads.
        const plan = planFor(last, out.shape, [a, b]);
        const arena = callArena();
        const pa = inPtr(arena, width, a);
        const pb = inPtr(arena, width, b);
        const res = outBlock(arena, width, out);
        const sa = startsIn(arena, plan.starts[0]!);
        const sb = startsIn(arena, plan.starts[1]!);
        rows(res.ptr, pa, pb, sa, sb, plan.steps[0]!, plan.steps[1]!, plan.rows, plan.inner);
        return res.tensor();
      }
      const n = sizeOf(out.shape);
      if (split(n))
        return general(flat, rows, flatName, rowsName, op, width, tensors, attrs, given, attrValues, out, last);
      const arena = callArena();
      const pa = inPtr(arena, width, a);
      const pb = two ? inPtr(arena, width, b) : 0;
      const res = outBlock(arena, width, out);
      if (two) flat(res.ptr, pa, pb, n);
      else flat(res.ptr, pa, n);
      return res.tensor();
    };
  }
  return (given, attrValues, out) =>
    general(flat, rows, flatName, rowsName, op, width, tensors, attrs, given, attrValues, out, last);
}

function general<I extends object, T>(
  flat: Export,
  rows: Export | undefined,
  flatName: string,
  rowsName: string,
  op: string,
  width: Width,
  tensors: readonly (keyof I & string)[],
  attrs: readonly (keyof T & string)[],
  given: I,
  attrValues: T,
  out: TensorType,
  last: LastPlan,
): Tensor {
  const n = sizeOf(out.shape);
  const arena = callArena();
  const ts = tensors.map((t) => given[t] as unknown as Tensor);
  const ptrs = ts.map((t) => inPtr(arena, width, t));
  const attrArgs = attrs.map((a) => Number(attrValues[a]));
  const res = outBlock(arena, width, out);
  if (ts.every((t) => shapesEqual(t.shape, out.shape))) {
    if (!threadedFlat(flatName, width, res.ptr, ptrs, attrArgs, n)) flat(res.ptr, ...ptrs, ...attrArgs, n);
    return res.tensor();
  }
  if (typeof rows !== 'function')
    throw new Error(`the wasm module has no ${op}_${width}_rows; run \`npm run build:wasm\``);
  const plan = planFor(last, out.shape, ts);
  const starts = plan.starts.map((s) => startsIn(arena, s));
  if (!threadedRows(rowsName, width, res.ptr, ptrs, starts, plan.steps, attrArgs, plan.rows, plan.inner))
    rows(res.ptr, ...ptrs, ...starts, ...plan.steps, ...attrArgs, plan.rows, plan.inner);
  return res.tensor();
}

/** The broadcast walk for these shapes: a model repeats its broadcasts (a bias on every step), so the last one is kept. */
function planFor(last: LastPlan, out: Shape, ts: readonly Tensor[]): RowPlan {
  if (
    !last.plan ||
    !shapesEqual(last.out, out) ||
    ts.length !== last.ins.length ||
    ts.some((t, k) => !shapesEqual(t.shape, last.ins[k]!))
  ) {
    last.plan = broadcastRows(
      out,
      ts.map((t) => t.shape),
    );
    last.out = out;
    last.ins = ts.map((t) => t.shape);
  }
  return last.plan;
}

/** A run-start table copied into this call's arena. */
function startsIn(arena: Arena, starts: Int32Array): number {
  const p = arena.alloc(Math.max(starts.length, 1) * 4);
  arena.heap.writeI32(p, starts);
  return p;
}
