// Building blocks for wasm kernels: which dtypes the dialect serves, copying tensors in and out of linear memory.

import type { KernelInputs } from '../../dialect.ts';
import type { DType, Storage } from '../../dtype.ts';
import { shapesEqual, sizeOf, type Shape } from '../../shape.ts';
import { CpuStorage, Tensor, type TensorType } from '../../tensor.ts';
import { broadcastIndex, finish } from '../cpu/support.ts';
import { alignUp, callArena, wasm, wasmUnavailable, type Arena } from './module.ts';
import { makeRoom, residentStorage, WasmStorage } from './storage.ts';

/** Float widths the module has kernels for; float16 lives widened in a Float32Array and runs as f32. */
export type Width = 'f32' | 'f64';

export function widthOf(dtype: DType): Width | null {
  if (dtype === 'float32' || dtype === 'float16') return 'f32';
  if (dtype === 'float64') return 'f64';
  return null;
}

/** The typed array of each width. */
export const WIDTH_ARRAY = { f32: Float32Array, f64: Float64Array } as const;
const BYTES = { f32: 4, f64: 8 } as const;

/**
 * Whether a kernel of this dialect can run: a float output and every float tensor input of the same dtype. Throws (and
 * dispatch lists why) when the module itself cannot load; returns false for dtypes it leaves to the CPU dialect.
 */
export function wasmServes(out: TensorType | readonly TensorType[], inputs: object): boolean {
  // A tuple op (lstm) serves when every output has the first one's dtype.
  const outs: readonly TensorType[] = Array.isArray(out) ? out : [out as TensorType];
  const dtype = outs[0]?.dtype;
  if (!dtype || !widthOf(dtype) || outs.some((o) => o.dtype !== dtype)) return false;
  wasm();
  // Integer inputs (lstm's sequence_lens) are lengths or indices the kernel reads as they are; floats must match.
  // A list input (concatenate's) serves when each of its tensors does.
  // int16 and the unsigned integers (their own storage arrays) are left to the CPU dialect.
  const fits = (t: Tensor) => t.dtype === dtype || t.dtype === 'int32' || t.dtype === 'int64' || t.dtype === 'int8';
  return Object.values(inputs as KernelInputs).every(
    (v) => v === null || (Array.isArray(v) ? (v as Tensor[]).every(fits) : fits(v as Tensor)),
  );
}

/** Bytes of n elements, padded to whole 16-byte vectors. */
export function paddedBytes(width: Width, n: number): number {
  return alignUp(Math.max(n, 1) * BYTES[width], 16);
}

export function allocFor(arena: Arena, width: Width, n: number): number {
  return arena.alloc(paddedBytes(width, n));
}

/** Copies t into wasm memory at p, broadcast to `shape` when it has another shape. */
export function writeTensor(arena: Arena, width: Width, p: number, t: Tensor, shape: Shape = t.shape): void {
  const src = t.dataSync();
  const n = sizeOf(shape);
  const dst = arena.view(WIDTH_ARRAY[width], p, n);
  if (shapesEqual(t.shape, shape)) {
    dst.set(src);
    return;
  }
  const idx = broadcastIndex(t.shape, shape)!;
  for (let i = 0; i < n; i++) dst[i] = src[idx[i]!]!;
}

/** A CPU tensor holding a copy of the output's elements at p (set() copies as one block, faster than slice()). */
export function readTensor(arena: Arena, width: Width, p: number, out: TensorType): Tensor {
  const n = sizeOf(out.shape);
  const data = new WIDTH_ARRAY[width](n);
  data.set(arena.view(WIDTH_ARRAY[width], p, n));
  return finish(new Tensor(out.shape, out.dtype, new CpuStorage(data)));
}

/**
 * Where t's elements are in wasm memory for this call: its own block when it is a resident tensor of this width,
 * else a temporary the elements are copied into.
 */
export function inPtr(arena: Arena, width: Width, t: Tensor): number {
  const s = t.storage;
  if (s instanceof WasmStorage && s.ptr !== undefined && widthOf(t.dtype) === width && t.dtype !== 'float16') {
    s.touch();
    return s.ptr;
  }
  const p = allocFor(arena, width, t.size);
  writeTensor(arena, width, p, t);
  return p;
}

/** An output of `out`'s type at `ptr`: fill it, then `tensor()` wraps it. */
export interface OutBlock {
  readonly ptr: number;
  tensor(): Tensor;
}

/**
 * Space for a kernel's output. float32 and float64 results stay in wasm memory as a resident tensor (read out only
 * when something else reads them); float16, which rounds on the way out, is copied out at once.
 */
export function outBlock(arena: Arena, width: Width, out: TensorType): OutBlock {
  const n = sizeOf(out.shape);
  if (out.dtype === 'float16') return new CopiedOut(arena, width, allocFor(arena, width, n), out);
  const bytes = paddedBytes(width, n);
  makeRoom(bytes);
  return new ResidentOut(arena, width, arena.heap.allocOut(bytes), bytes, n, out);
}

/** A float16 output: read out (rounded) at once. */
class CopiedOut implements OutBlock {
  constructor(
    private readonly arena: Arena,
    private readonly width: Width,
    readonly ptr: number,
    private readonly out: TensorType,
  ) {}
  tensor(): Tensor {
    return readTensor(this.arena, this.width, this.ptr, this.out);
  }
}

/** A float32/float64 output: stays in wasm memory as a resident tensor. */
class ResidentOut implements OutBlock {
  constructor(
    private readonly arena: Arena,
    private readonly width: Width,
    readonly ptr: number,
    private readonly bytes: number,
    private readonly n: number,
    private readonly out: TensorType,
  ) {}
  tensor(): Tensor {
    const { arena, width, ptr, bytes, n, out } = this;
    return new Tensor(out.shape, out.dtype, residentStorage(arena.heap, ptr, bytes, WIDTH_ARRAY[width], n));
  }
}

/**
 * A copy of t held in wasm memory (a resident tensor), so wasm kernels read it in place on every call instead of
 * copying it in: weights and other inputs used again and again. Other dtypes, and any t when the module cannot
 * load, come back as they are. t itself is unchanged; the copy does not follow later writes to t's array.
 */
export function toWasmMemory(t: Tensor): Tensor {
  const width = widthOf(t.dtype);
  if (!width || t.dtype === 'float16' || wasmUnavailable()) return t;
  if (t.storage instanceof WasmStorage && t.storage.ptr !== undefined) return t;
  const arena = callArena();
  const block = outBlock(arena, width, t);
  arena.view(WIDTH_ARRAY[width], block.ptr, t.size).set(t.dataSync());
  return block.tensor();
}

/**
 * A kernel whose loop is JavaScript over wasm memory: x is read where it lies (or copied in once), the output is a
 * resident block, so a wasm chain keeps its data in place across ops that have no AssemblyScript kernel.
 */
export function overWasmMemory(
  x: Tensor,
  out: TensorType,
  loop: (xs: Float32Array | Float64Array, ys: Float32Array | Float64Array) => void,
): Tensor {
  const width = widthOf(out.dtype)!;
  const arena = callArena();
  const px = inPtr(arena, width, x);
  const y = outBlock(arena, width, out);
  // Views only after the last allocation: growing memory detaches them.
  loop(arena.view(WIDTH_ARRAY[width], px, x.size), arena.view(WIDTH_ARRAY[width], y.ptr, sizeOf(out.shape)));
  return y.tensor();
}

/** t's elements as a view of wasm memory when t is resident there (float32/float64), else null. */
export function residentView(arena: Arena, t: Tensor): Float32Array | Float64Array | null {
  const s = t.storage;
  const width = widthOf(t.dtype);
  if (!width || t.dtype === 'float16' || !(s instanceof WasmStorage) || s.ptr === undefined) return null;
  s.touch();
  return arena.view(WIDTH_ARRAY[width], s.ptr, t.size);
}

/**
 * A resident output of `out`'s type for a loop written in JavaScript (a fused CPU group), when the module is loaded
 * and the dtype lives in wasm memory; null otherwise. Allocate it before taking any view (growing detaches them).
 */
export function residentOutput(
  out: TensorType,
): { readonly arena: Arena; readonly data: () => Float32Array | Float64Array; tensor(): Tensor } | null {
  const width = widthOf(out.dtype);
  if (!width || out.dtype === 'float16' || wasmUnavailable()) return null;
  const arena = callArena();
  const block = outBlock(arena, width, out);
  return {
    arena,
    data: () => arena.view(WIDTH_ARRAY[width], block.ptr, sizeOf(out.shape)),
    tensor: () => block.tensor(),
  };
}
