// GPU tensor storage (one pooled GPUBuffer per tensor, read back asynchronously) and the explicit cpu ⇄ webgpu mover.
/// <reference types="@webgpu/types" />

import { device as toDevice, deviceName } from '../../device.ts';
import { float16Bits, float16FromBits, type DType, type Storage } from '../../dtype.ts';
import { OpError } from '../../errors.ts';
import { sizeOf } from '../../shape.ts';
import {
  CpuStorage,
  registerMover,
  registerPlacer,
  Tensor,
  type TensorStorage,
  type TensorType,
} from '../../tensor.ts';
import { currentGpu, type GpuContext } from './device.ts';
import { initWebGpu, webgpuUnavailable } from './dialect.ts';
import { passedChecks } from './pipelines.ts';

const NO_CHECKS: readonly Promise<void>[] = [];

export const WEBGPU = toDevice('webgpu');

/**
 * WGSL element type of the dtypes stored one per 32-bit word. WGSL has no 64-bit floats and no 8-bit storage, so bool is
 * widened to u32. float16 is not among them: it is packed two per word (see f16.ts), so kernels that move whole words
 * per element (gather, scatter, place) cannot serve it and must check this.
 *
 * int64 (indices, shapes, token ids) is narrowed to i32: upload checks every value fits int32 and refuses the tensor
 * otherwise, never wrapping; readback widens again. No WebGPU kernel does integer arithmetic (elementwise ops render
 * in f32 and leave integer outputs to the CPU), and a cast into int64 from a float stays on the CPU, so an int64 value
 * on the GPU is always one that came from int32 range. int8, uint8, int16, uint16, uint32, uint64 and bfloat16 have no
 * GPU storage: moving one is refused, naming the dtype and the cast to use (their ops run on the CPU).
 */
const ELEMENT: Partial<Record<DType, 'f32' | 'i32' | 'u32'>> = {
  float32: 'f32',
  int32: 'i32',
  int64: 'i32',
  bool: 'u32',
};

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/** Refuses an int64 tensor whose values int32 (its WebGPU storage) cannot hold: the first such value and its index. */
export function checkNarrowInt64(t: Tensor, data: ArrayLike<number>): void {
  for (let i = 0; i < data.length; i++) {
    const v = data[i]!;
    if (v < INT32_MIN || v > INT32_MAX)
      throw new OpError(
        'to',
        `cannot move ${t.toString()} to webgpu: WebGPU holds int64 as int32, and value ${v} at index ${i} is outside ` +
          `[${INT32_MIN}, ${INT32_MAX}]; keep the tensor on the CPU (raf-op never wraps it)`,
        'tensor',
      );
  }
}

export function gpuElementType(dtype: DType): 'f32' | 'i32' | 'u32' | undefined {
  return ELEMENT[dtype];
}

/** Whether a GPU tensor can hold `dtype`: the 32-bit ones, and float16 packed two per word. */
export function gpuHolds(dtype: DType): boolean {
  return dtype === 'float16' || ELEMENT[dtype] !== undefined;
}

/** Bytes a GPU tensor of `n` elements takes: 4 per element, or 4 per pair of float16 elements (the layout of array<f16>). */
export function gpuByteSize(dtype: DType, n: number): number {
  return dtype === 'float16' ? Math.ceil(n / 2) * 4 : n * 4;
}

/** A pooled buffer and the storages holding it: a tensor's own, and those of its views (reshape, squeeze, ...). */
interface Lease {
  readonly gpu: GpuContext;
  readonly buffer: GPUBuffer;
  holders: number;
  released: boolean;
}

/** One holder lets go; the last one gives the buffer back to the pool. */
function giveBack(lease: Lease): void {
  if (lease.released || --lease.holders > 0) return;
  lease.released = true;
  // A released device already destroyed its pool; the buffer is gone with it.
  if (currentGpu() === lease.gpu) lease.gpu.pool.release(lease.buffer);
}

/**
 * Tensors that are never disposed (gradient intermediates, numbers placed on the GPU) let go of their buffer when
 * garbage-collected. dispose() stays the prompt way: collection may come late or, at exit, not at all.
 */
const collected = typeof FinalizationRegistry === 'function' ? new FinalizationRegistry<Lease>(giveBack) : undefined;

export class GpuStorage implements TensorStorage {
  readonly device = WEBGPU;
  private readonly lease: Lease;
  /** The pooled buffer's generation when this storage took it (see BufferPool.generation). */
  private readonly generation: number;
  /**
   * For an int32 tensor uploaded from the CPU, its values: bounds checks of the tensors it indexes read them here,
   * before dispatch, instead of waiting for the GPU. Kernels never write into an uploaded tensor.
   */
  host: Int32Array | undefined;
  /** For a small tensor (a scalar, a shape) uploaded from the CPU, its values, for type rules that read them (range). */
  small: Float64Array | undefined;
  /** Checks the data must pass before it can be read: index bounds found only after dispatch (bounds.ts). */
  private readonly checks = new Set<Promise<void>>();
  private disposed = false;

  constructor(
    readonly gpu: GpuContext,
    readonly buffer: GPUBuffer,
    readonly dtype: DType,
    /** Logical element count; the pooled buffer is usually larger. */
    readonly length: number,
    /** The lease of the storage this one views; a new storage takes the buffer's first lease. */
    shared?: Lease,
  ) {
    if (shared) shared.holders++;
    this.lease = shared ?? { gpu, buffer, holders: 1, released: false };
    this.generation = gpu.pool.generation(buffer);
    collected?.register(this, this.lease, this);
    // A pipeline whose compile is still being validated may be the one writing this buffer (see PipelineCache.compiling).
    for (const check of gpu.pipelines.compiling) this.deferCheck(check);
  }

  /**
   * The same buffer, held by one more storage: what a tensor under a new shape (reshape, squeeze, expand_dims,
   * flatten) keeps instead of a copy. The buffer goes back to the pool once every storage holding it is disposed. No
   * kernel writes into its inputs, so the views never see each other change.
   */
  view(): GpuStorage {
    const v = new GpuStorage(this.gpu, this.liveBuffer(), this.dtype, this.length, this.lease);
    v.host = this.host;
    v.small = this.small;
    for (const check of this.checks) v.deferCheck(check);
    return v;
  }

  /** The buffer, after checking it is still this storage's: not released, and not handed to another tensor since. */
  liveBuffer(): GPUBuffer {
    if (
      this.disposed ||
      this.lease.released ||
      currentGpu() !== this.gpu ||
      !this.gpu.pool.holds(this.buffer, this.generation)
    )
      throw new Error(
        `a webgpu tensor's buffer was disposed (or its device released) and may now hold another tensor's data; ` +
          'it cannot be read or bound',
      );
    return this.buffer;
  }

  /** Makes read() fail with `check`'s error, if it fails (an out-of-range index behind this result). */
  deferCheck(check: Promise<void>): void {
    if (passedChecks.has(check) || this.checks.has(check)) return;
    check.catch(() => undefined); // reported by read(); unread results must not raise unhandled rejections
    this.checks.add(check);
  }

  pendingChecks(): readonly Promise<void>[] {
    if (!this.checks.size) return NO_CHECKS;
    // Checks already known to pass (a pipeline that compiled) are forgotten, so they stop travelling downstream.
    for (const check of this.checks) if (passedChecks.has(check)) this.checks.delete(check);
    return [...this.checks];
  }

  hostValues(): ArrayLike<number> | undefined {
    return this.small ?? this.host;
  }

  /**
   * src's elements copied into this buffer on the queue (after everything encoded so far, so after the kernel that
   * wrote src): a compiled training step rewrites its parameters in place this way. src's pending checks become this
   * storage's; the host copies of uploaded values no longer hold.
   */
  writeFrom(src: TensorStorage): boolean {
    if (!(src instanceof GpuStorage) || src.gpu !== this.gpu || src.dtype !== this.dtype || src.length !== this.length)
      return false;
    if (src.buffer === this.buffer) return true;
    const bytes = gpuByteSize(this.dtype, this.length);
    if (bytes > 0) {
      this.gpu.pool.encoder().copyBufferToBuffer(src.liveBuffer(), 0, this.liveBuffer(), 0, bytes);
      this.gpu.pool.encoded();
    }
    for (const check of src.pendingChecks()) this.deferCheck(check);
    this.host = undefined;
    this.small = undefined;
    return true;
  }

  /**
   * The data, once every pending check has passed. The copy out of the buffer is encoded at the call, before any
   * check is awaited: the tensor may be disposed meanwhile (a graph run frees an index tensor once its last reader has
   * run, while the index check still reads it), and the buffer's next owner may write it in the same batch.
   */
  async read(): Promise<Storage> {
    const { pool } = this.gpu;
    const buffer = this.liveBuffer();
    const n = this.length;
    const raw =
      this.dtype === 'float32'
        ? pool.readback(buffer, Float32Array, n)
        : this.dtype === 'float16'
          ? pool.readback(buffer, Uint16Array, n)
          : this.dtype === 'bool'
            ? pool.readback(buffer, Uint32Array, n)
            : pool.readback(buffer, Int32Array, n);
    raw.catch(() => undefined); // a failed check below is what the caller hears about
    for (const check of this.checks) await check;
    const data = await raw;
    // int64 is held narrowed to i32 (see ELEMENT); its CPU storage is a Float64Array.
    if (this.dtype === 'int64') return Float64Array.from(data as Int32Array);
    if (this.dtype === 'bool') return Uint8Array.from(data as Uint32Array, (v) => (v ? 1 : 0));
    // Little-endian halves, as WebGPU buffers are; widened into the Float32Array the CPU keeps float16 in.
    if (this.dtype === 'float16') return Float32Array.from(data as Uint16Array, float16FromBits);
    return data as Float32Array | Int32Array;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    collected?.unregister(this);
    giveBack(this.lease);
  }
}

/** A GPU tensor of the declared type, its buffer taken from the pool (contents stale until a kernel writes it). */
export function allocGpu(gpu: GpuContext, out: TensorType): Tensor {
  // A kernel building a result WebGPU cannot hold would read it back as the wrong type: refused, never guessed.
  if (!gpuHolds(out.dtype))
    throw new Error(
      `cannot make a ${out.dtype} tensor on webgpu: WGSL has no ${out.dtype} storage (compute it on the CPU)`,
    );
  const n = sizeOf(out.shape);
  const buffer = gpu.pool.acquire(
    gpuByteSize(out.dtype, n),
    undefined,
    () => `raf-op ${out.dtype}[${out.shape.join(',')}]`,
  );
  return new Tensor(out.shape, out.dtype, new GpuStorage(gpu, buffer, out.dtype, n));
}

export function gpuBuffer(t: Tensor): GPUBuffer {
  if (!(t.storage instanceof GpuStorage))
    throw new OpError('to', `${t.toString()} is not on webgpu; move it with \`await t.to('webgpu')\``, 'tensor');
  if (t.isDisposed) throw new Error(`tensor #${t.id} was disposed; its buffer cannot be bound`);
  return t.storage.liveBuffer();
}

/** Copies a CPU tensor into a new GPU tensor. */
export function uploadTensor(gpu: GpuContext, t: Tensor): Tensor {
  if (!gpuHolds(t.dtype)) {
    // int8/int16/uint8/uint16 fit int32 exactly; uint32 and uint64 do not, nor does any integer fit float32 beyond 2^24.
    const to =
      t.dtype === 'int8' || t.dtype === 'uint8' || t.dtype === 'int16' || t.dtype === 'uint16'
        ? 'int32'
        : t.dtype === 'uint32' || t.dtype === 'uint64'
          ? 'int32 (values below 2^31) or float32'
          : 'float32';
    throw new OpError(
      'to',
      `cannot move a ${t.dtype} tensor to webgpu: WGSL has no ${t.dtype} storage; cast it to ${to} first (raf.op.cast)`,
      'tensor',
    );
  }
  const data = t.dataSync();
  if (t.dtype === 'int64') checkNarrowInt64(t, data);
  const element = gpuElementType(t.dtype);
  // write() pads an odd count of halves with a zero half, filling the last word.
  const typed =
    t.dtype === 'float16'
      ? Uint16Array.from(data, float16Bits)
      : element === 'f32'
        ? Float32Array.from(data)
        : element === 'i32'
          ? Int32Array.from(data)
          : Uint32Array.from(data);
  const buffer = gpu.pool.acquire(
    Math.max(gpuByteSize(t.dtype, data.length), 4),
    undefined,
    `raf-op ${t.dtype}[${t.shape.join(',')}]`,
    true,
  );
  gpu.pool.write(buffer, typed);
  const storage = new GpuStorage(gpu, buffer, t.dtype, data.length);
  // Index tensors are small; keeping their values lets take/embedding/losses check bounds before dispatch.
  if ((t.dtype === 'int32' || t.dtype === 'int64') && data.length <= 1 << 20) storage.host = Int32Array.from(data);
  if (data.length <= 64) storage.small = Float64Array.from(data, Number);
  return new Tensor(t.shape, t.dtype, storage);
}

// One mover serves both directions: Tensor.to looks up the non-CPU side's kind.
registerMover('webgpu', async (t, to) => {
  if (to.kind === 'cpu') return new Tensor(t.shape, t.dtype, new CpuStorage(await t.data()));
  if (to.id !== 0 || t.device.kind !== 'cpu')
    throw new OpError('to', `cannot move ${t.toString()} to ${deviceName(to)}: only webgpu(0) exists`, 'target');
  const gpu = await initWebGpu();
  if (!gpu) throw new OpError('to', `cannot move ${t.toString()} to webgpu(0): ${webgpuUnavailable()}`, 'target');
  return uploadTensor(gpu, t);
});

// Plain numbers in an op call on GPU tensors (`where(c, dy, 0)` in a gradient) are uploaded synchronously: writeBuffer
// needs no await, only acquiring the device does, and a GPU tensor exists only once that has happened.
registerPlacer('webgpu', (t, to) => {
  const gpu = currentGpu();
  if (!gpu || to.id !== 0)
    throw new OpError('to', `cannot place ${t.toString()} on ${deviceName(to)}: ${webgpuUnavailable()}`, 'target');
  return uploadTensor(gpu, t);
});
