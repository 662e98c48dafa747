// Size-classed GPUBuffer pool for the WebGPU dialect, with leak counters, uploads and async readback through staging buffers.
/// <reference types="@webgpu/types" />

/**
 * GPUBufferUsage / GPUMapMode values from the WebGPU spec. Spelled out here because Node (Dawn) does not
 * install the GPUBufferUsage global, and we do not want to mutate globalThis for it.
 */
export const BufferUsage = {
  MAP_READ: 0x0001,
  MAP_WRITE: 0x0002,
  COPY_SRC: 0x0004,
  COPY_DST: 0x0008,
  INDEX: 0x0010,
  VERTEX: 0x0020,
  UNIFORM: 0x0040,
  STORAGE: 0x0080,
  INDIRECT: 0x0100,
  QUERY_RESOLVE: 0x0200,
} as const;

export const MapMode = { READ: 0x0001, WRITE: 0x0002 } as const;

/** Default usage for tensor storage: bindable, uploadable, readable back. */
export const TENSOR_USAGE = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST;
const STAGING_USAGE = BufferUsage.MAP_READ | BufferUsage.COPY_DST;

/** Smallest class; also keeps every pooled size a multiple of the 256-byte offset alignment used by sub-allocation. */
export const MIN_SIZE_CLASS = 256;

/**
 * Rounds a byte size up to its size class: 256 B minimum, then 4 classes per power of two
 * (e.g. 4000 -> 4096, 5000 -> 5120), so reuse is likely and at most 25% is wasted.
 */
export function sizeClass(bytes: number): number {
  if (!Number.isFinite(bytes) || bytes < 0) throw new RangeError(`invalid buffer size ${bytes}`);
  if (bytes <= MIN_SIZE_CLASS) return MIN_SIZE_CLASS;
  const octave = 2 ** Math.floor(Math.log2(bytes));
  const step = octave / 4;
  return Math.ceil(bytes / step) * step;
}

export interface BufferPoolOptions {
  /** Released buffers beyond this many pooled bytes are destroyed instead of kept. Default 512 MiB. */
  maxPooledBytes?: number;
  /** Distinct uniform contents kept before the slots start over (see uniformSlot). Default UNIFORM_SLOTS_MAX. */
  maxUniformSlots?: number;
}

export interface BufferPoolStats {
  live: number;
  pooled: number;
  liveBytes: number;
  pooledBytes: number;
  /** Buffers ever created by device.createBuffer (a reuse hit does not count). */
  created: number;
  /** acquire() calls served from the pool. */
  reused: number;
}

/** Anything with .buffer/.byteOffset/.byteLength, i.e. a TypedArray or DataView. */
export type BytesLike = ArrayBuffer | ArrayBufferView;

/** A TypedArray constructor, used to choose the element type of a readback. */
export interface TypedArrayConstructor<T extends ArrayBufferView> {
  new (length: number): T;
  readonly BYTES_PER_ELEMENT: number;
}

/**
 * Recycles GPUBuffers per (usage, size class), and holds the open batch: kernels encode their dispatches into one
 * command encoder, submitted at the end of the current task, every BATCH_PASSES dispatches or copies, or before
 * anything outside it reads the queue (flush()); each submission costs far more than a dispatch (about 0.2 ms apiece
 * through Dawn's Vulkan backend on an H100 host). Consecutive dispatches share one compute pass (computePass()),
 * which WebGPU orders like separate passes: a dispatch sees every earlier dispatch's writes. Uniform blocks live in
 * slots written once and kept by content (uniformSlot), so a graph's runs bind the same slots every time.
 *
 * The queue runs a writeBuffer before any command buffer submitted after it, so a buffer released while a batch is
 * open must not take an upload before that batch is submitted: an encoded pass may have yet to read it. Such a
 * buffer is held: acquire() may hand it to a later pass of the same batch (passes run in order), acquire(..., true)
 * (for a writeBuffer) never does, and the flush returns it to the pool. After submission reuse needs no fences.
 *
 * Pooled buffers are bigger than requested and hold stale data: kernels must bound their loops by a logical
 * length (uniform), and use acquireZeroed() when they accumulate into the output.
 */
export class BufferPool {
  readonly device: GPUDevice;
  readonly maxPooledBytes: number;
  /** Distinct uniform contents kept before the slots start over; a test may lower it to make that happen. */
  maxUniformSlots: number;
  private readonly free = new Map<string, GPUBuffer[]>();
  private readonly live = new Set<GPUBuffer>();
  /** How many times each buffer went back to the pool (or was destroyed): a holder compares it with what it saw. */
  private readonly generations = new WeakMap<GPUBuffer, number>();
  private liveBytesTotal = 0;
  private pooledBytesTotal = 0;
  private pooledCount = 0;
  private createdCount = 0;
  private reusedCount = 0;
  /** The open batch's encoder, its compute pass while dispatches follow one another, and its commands so far. */
  private batch: GPUCommandEncoder | null = null;
  private pass: GPUComputePassEncoder | null = null;
  private batchPasses = 0;
  /** Buffers released while the batch was open (by pool key), and those destroyed meanwhile. */
  private readonly held = new Map<string, GPUBuffer[]>();
  private heldDestroyed: GPUBuffer[] = [];
  /** Uniform slots by content (see uniformSlot), the buffers they sit in, and the room left in the newest. */
  private readonly uniformSlots = new Map<string, UniformSlot>();
  private uniformBuffers: GPUBuffer[] = [];
  private uniformUsed = UNIFORM_BUFFER_BYTES;
  /** Bind groups by pipeline and bindings (see bindGroup); dropped whenever a buffer they may name is destroyed. */
  private readonly bindGroups = new Map<string, GPUBindGroup>();
  private readonly layouts = new WeakMap<GPUComputePipeline, { id: number; layout: GPUBindGroupLayout }>();
  private readonly bufferIds = new WeakMap<GPUBuffer, number>();
  private nextId = 0;
  /** The device's maxBufferSize, read on the first acquire (each read of device.limits is a call into Dawn). */
  private maxBufferSize = 0;
  /** Command buffers submitted by flush() so far. */
  submissions = 0;

  constructor(device: GPUDevice, options: BufferPoolOptions = {}) {
    this.device = device;
    this.maxPooledBytes = options.maxPooledBytes ?? 512 * 1024 * 1024;
    this.maxUniformSlots = options.maxUniformSlots ?? UNIFORM_SLOTS_MAX;
  }

  /**
   * A buffer of at least sizeBytes (its .size is the size class) with exactly this usage. `label` (or a function making
   * it) names a newly created buffer. `written`: the caller will fill it with writeBuffer (upload), so it must not be
   * one an encoded pass of the open batch may still read.
   */
  acquire(
    sizeBytes: number,
    usage: number = TENSOR_USAGE,
    label?: string | (() => string),
    written = false,
  ): GPUBuffer {
    let size = sizeClass(sizeBytes);
    const max = (this.maxBufferSize ||= this.device.limits.maxBufferSize);
    // createBuffer would only report this asynchronously, as an uncaptured validation error.
    if (sizeBytes > max) throw new RangeError(`buffer of ${sizeBytes} B exceeds device maxBufferSize ${max}`);
    // Never let rounding push a legal request over the device's maximum.
    if (size > max) size = Math.max(alignUp(sizeBytes, 4), 4);
    const key = poolKey(usage, size);
    const heldOne = written ? undefined : this.held.get(key)?.pop();
    // A reused buffer keeps the label it was created with: relabelling is a call into Dawn on every acquire.
    if (heldOne) {
      this.reusedCount++;
      this.live.add(heldOne);
      this.liveBytesTotal += size;
      return heldOne;
    }
    const list = this.free.get(key);
    let buffer = list?.pop();
    if (buffer) {
      this.pooledCount--;
      this.pooledBytesTotal -= size;
      this.reusedCount++;
    } else {
      const name = typeof label === 'function' ? label() : label;
      buffer = this.device.createBuffer({ size, usage, label: name ?? `raf-op pool ${size}B` });
      this.createdCount++;
    }
    this.live.add(buffer);
    this.liveBytesTotal += size;
    return buffer;
  }

  /** Like acquire(), but cleared to zero in the open batch (needs COPY_DST usage, which TENSOR_USAGE has). */
  acquireZeroed(sizeBytes: number, usage: number = TENSOR_USAGE, label?: string | (() => string)): GPUBuffer {
    const buffer = this.acquire(sizeBytes, usage | BufferUsage.COPY_DST, label);
    this.encoder().clearBuffer(buffer);
    this.encoded();
    return buffer;
  }

  /**
   * The open batch's command encoder, for a copy or a clear: opens the batch (scheduling its submission for the end of
   * this task) and ends its compute pass, if one is open.
   */
  encoder(): GPUCommandEncoder {
    if (this.pass) {
      this.pass.end();
      this.pass = null;
    }
    if (!this.batch) {
      this.batch = this.device.createCommandEncoder({ label: 'raf-op batch' });
      queueMicrotask(() => this.flush());
    }
    return this.batch;
  }

  /** The batch's open compute pass, for a dispatch: the one the previous dispatch used, unless a copy came between. */
  computePass(): GPUComputePassEncoder {
    return (this.pass ??= this.encoder().beginComputePass({ label: 'raf-op dispatches' }));
  }

  /** Counts one dispatch or copy encoded into the batch; a full batch is submitted. */
  encoded(): void {
    if (++this.batchPasses >= BATCH_PASSES) this.flush();
  }

  /**
   * The uniform binding holding `data` (its size a multiple of 16 bytes): a slot written once, when this content is
   * first asked for, and handed out for every later dispatch with the same content. A new slot is one no encoded pass
   * reads yet, so its writeBuffer may run ahead of the open batch. The slots (outside the pool's tensor books) start
   * over when maxUniformSlots distinct contents have been seen; the old buffers are destroyed once the batch is
   * submitted.
   */
  uniformSlot(data: Uint8Array): UniformSlot {
    const bindSize = data.byteLength;
    const words = new Uint16Array(data.buffer, data.byteOffset, bindSize >> 1);
    const key = String.fromCharCode.apply(null, words as unknown as number[]);
    const known = this.uniformSlots.get(key);
    if (known) return known;
    const slot = alignUp(bindSize, this.device.limits.minUniformBufferOffsetAlignment);
    if (this.uniformSlots.size >= this.maxUniformSlots) {
      this.uniformSlots.clear();
      this.forgetBindGroups();
      if (this.batch) this.heldDestroyed.push(...this.uniformBuffers);
      else for (const b of this.uniformBuffers) b.destroy();
      this.uniformBuffers = [];
      this.uniformUsed = UNIFORM_BUFFER_BYTES;
    }
    if (this.uniformUsed + slot > UNIFORM_BUFFER_BYTES) {
      this.uniformBuffers.push(
        this.device.createBuffer({
          size: Math.max(UNIFORM_BUFFER_BYTES, slot),
          usage: BufferUsage.UNIFORM | BufferUsage.COPY_DST,
          label: 'raf-op uniforms',
        }),
      );
      this.uniformUsed = 0;
    }
    const out: UniformSlot = {
      buffer: this.uniformBuffers[this.uniformBuffers.length - 1]!,
      offset: this.uniformUsed,
      size: bindSize,
      id: this.nextId++,
    };
    this.uniformUsed += slot;
    this.write(out.buffer, data, out.offset);
    this.uniformSlots.set(key, out);
    return out;
  }

  /**
   * A bind group of `pipeline`'s group 0 with these storage bindings (whole buffers, or ranges) and, last, `uniform`:
   * made once and kept while every buffer it names lives, so repeated dispatches (a graph's runs) skip createBindGroup.
   */
  bindGroup(
    pipeline: GPUComputePipeline,
    buffers: readonly StorageBinding[],
    uniform: UniformSlot | undefined,
    label?: string,
  ): GPUBindGroup {
    let known = this.layouts.get(pipeline);
    if (!known) this.layouts.set(pipeline, (known = { id: this.nextId++, layout: pipeline.getBindGroupLayout(0) }));
    let key = `${known.id}`;
    for (const b of buffers) {
      if (isBuffer(b)) key += `,${this.idOf(b)}`;
      else key += `,${this.idOf(b.buffer)}@${b.offset ?? 0}+${b.size ?? '*'}`;
    }
    if (uniform) key += `|${uniform.id}`;
    const hit = this.bindGroups.get(key);
    if (hit) return hit;
    const entries: GPUBindGroupEntry[] = buffers.map((b, i) => ({
      binding: i,
      resource: isBuffer(b) ? { buffer: b } : b,
    }));
    if (uniform) entries.push({ binding: buffers.length, resource: uniform });
    const group = this.device.createBindGroup({ label, layout: known.layout, entries });
    if (this.bindGroups.size >= BIND_GROUPS_MAX) this.bindGroups.clear();
    this.bindGroups.set(key, group);
    return group;
  }

  private idOf(buffer: GPUBuffer): number {
    let id = this.bufferIds.get(buffer);
    if (id === undefined) this.bufferIds.set(buffer, (id = this.nextId++));
    return id;
  }

  /**
   * Drops every kept bind group, when a buffer is about to be destroyed: none could be bound again (a destroyed buffer
   * never comes back from the pool, so no key names it), but each would keep the buffer's wrapper alive.
   */
  private forgetBindGroups(): void {
    this.bindGroups.clear();
  }

  /** Submits the open batch, if any, and returns the buffers held meanwhile. */
  flush(): void {
    const batch = this.batch;
    if (!batch) return;
    if (this.pass) {
      this.pass.end();
      this.pass = null;
    }
    this.batch = null;
    this.batchPasses = 0;
    try {
      this.device.queue.submit([batch.finish()]);
      this.submissions++;
    } finally {
      // Submitted: what the batch read may be reused by anything now.
      for (const list of this.held.values()) for (const b of list) this.recycle(b);
      this.held.clear();
      for (const b of this.heldDestroyed) b.destroy();
      this.heldDestroyed = [];
    }
  }

  /** Returns a buffer obtained from acquire()/upload() to the pool. Releasing twice or a foreign buffer throws. */
  release(buffer: GPUBuffer): void {
    if (!this.live.delete(buffer)) {
      throw new Error(`BufferPool.release: buffer "${buffer.label}" is not live in this pool (double release?)`);
    }
    this.generations.set(buffer, this.generation(buffer) + 1);
    this.liveBytesTotal -= buffer.size;
    if (buffer.mapState !== 'unmapped') buffer.unmap();
    if (!this.batch) return this.recycle(buffer);
    const key = poolKey(buffer.usage, buffer.size);
    let list = this.held.get(key);
    if (!list) this.held.set(key, (list = []));
    list.push(buffer);
  }

  /** Puts a released buffer back on its free list (or destroys it past maxPooledBytes). */
  private recycle(buffer: GPUBuffer): void {
    const size = buffer.size;
    if (this.pooledBytesTotal + size > this.maxPooledBytes) {
      this.forgetBindGroups();
      buffer.destroy();
      return;
    }
    const key = poolKey(buffer.usage, size);
    let list = this.free.get(key);
    if (!list) this.free.set(key, (list = []));
    list.push(buffer);
    this.pooledCount++;
    this.pooledBytesTotal += size;
  }

  /** Removes a live buffer from the pool's books and destroys it (for one-off huge buffers not worth pooling). */
  destroy(buffer: GPUBuffer): void {
    if (!this.live.delete(buffer))
      throw new Error(`BufferPool.destroy: buffer "${buffer.label}" is not live in this pool`);
    this.generations.set(buffer, this.generation(buffer) + 1);
    this.liveBytesTotal -= buffer.size;
    this.forgetBindGroups();
    // An encoded pass may still name it: a destroyed buffer would fail the batch's submission.
    if (this.batch) this.heldDestroyed.push(buffer);
    else buffer.destroy();
  }

  /**
   * The buffer's generation: bumped each time it is released or destroyed. A tensor records it when it takes the
   * buffer and checks it before every bind or read, so a stale tensor can never see the buffer's next owner's data.
   */
  generation(buffer: GPUBuffer): number {
    return this.generations.get(buffer) ?? 0;
  }

  /** Whether `buffer` is live in this pool and still in the generation a holder saw. */
  holds(buffer: GPUBuffer, generation: number): boolean {
    return this.live.has(buffer) && this.generation(buffer) === generation;
  }

  /** Creates a buffer holding a copy of data (size rounded to its class; bytes past data are unspecified). */
  upload(data: BytesLike, usage: number = TENSOR_USAGE, label?: string): GPUBuffer {
    const bytes = asBytes(data);
    const buffer = this.acquire(bytes.byteLength, usage | BufferUsage.COPY_DST, label, true);
    this.write(buffer, bytes);
    return buffer;
  }

  /** queue.writeBuffer with the 4-byte size rule handled (odd-length byte/half data is padded with zeros). */
  write(buffer: GPUBuffer, data: BytesLike, byteOffset = 0): void {
    const bytes = asBytes(data);
    if (bytes.byteLength === 0) return;
    const padded = bytes.byteLength % 4 === 0 ? bytes : copyPadded(bytes);
    // Byte view + byte units: with a typed array, writeBuffer's offset/size would be in elements.
    this.device.queue.writeBuffer(buffer, byteOffset, padded.buffer, padded.byteOffset, padded.byteLength);
  }

  /**
   * Copies `length` elements starting at byteOffset (default: as many as fit) into a new TypedArray of type Ctor.
   * Goes through a pooled MAP_READ staging buffer because storage buffers cannot be mapped directly.
   */
  async readback<T extends ArrayBufferView>(
    buffer: GPUBuffer,
    Ctor: TypedArrayConstructor<T>,
    length?: number,
    byteOffset = 0,
  ): Promise<T> {
    const bpe = Ctor.BYTES_PER_ELEMENT;
    const n = length ?? Math.floor((buffer.size - byteOffset) / bpe);
    const bytes = n * bpe;
    const out = new Ctor(n);
    if (bytes === 0) return out;
    if (byteOffset % 4 !== 0) throw new RangeError(`readback byteOffset ${byteOffset} must be a multiple of 4`);
    const copyBytes = alignUp(bytes, 4);
    if (byteOffset + copyBytes > buffer.size) {
      throw new RangeError(`readback of ${bytes} B at ${byteOffset} exceeds buffer size ${buffer.size}`);
    }
    const staging = this.acquire(copyBytes, STAGING_USAGE, 'raf-op staging');
    try {
      // The copy goes last into the batch, which is submitted now: the passes that wrote `buffer` run first.
      this.encoder().copyBufferToBuffer(buffer, byteOffset, staging, 0, copyBytes);
      this.flush();
      await staging.mapAsync(MapMode.READ, 0, copyBytes);
      const mapped = new Uint8Array(staging.getMappedRange(0, copyBytes), 0, bytes);
      new Uint8Array(out.buffer, out.byteOffset, bytes).set(mapped);
      staging.unmap();
    } finally {
      // release() unmaps if mapAsync succeeded but the copy threw.
      this.release(staging);
    }
    return out;
  }

  liveBufferCount(): number {
    return this.live.size;
  }

  pooledBufferCount(): number {
    return this.pooledCount;
  }

  stats(): BufferPoolStats {
    return {
      live: this.live.size,
      pooled: this.pooledCount,
      liveBytes: this.liveBytesTotal,
      pooledBytes: this.pooledBytesTotal,
      created: this.createdCount,
      reused: this.reusedCount,
    };
  }

  /** Destroys every pooled (released) buffer; live ones are untouched. */
  trim(): void {
    this.forgetBindGroups();
    for (const list of this.free.values()) for (const b of list) b.destroy();
    this.free.clear();
    this.pooledCount = 0;
    this.pooledBytesTotal = 0;
  }

  /** Destroys pooled and live buffers; used when the device is released (after submitting the open batch). */
  destroyAll(): void {
    this.flush();
    this.trim();
    for (const b of this.uniformBuffers.splice(0)) b.destroy();
    this.uniformSlots.clear();
    this.uniformUsed = UNIFORM_BUFFER_BYTES;
    for (const b of this.live) b.destroy();
    this.live.clear();
    this.liveBytesTotal = 0;
  }
}

/** Dispatches and copies per submission at most: a long synchronous loop of kernels still reaches the GPU in steps. */
export const BATCH_PASSES = 64;
/** Uniform slots live in buffers of this size (a slot is a few hundred bytes at most, 256-byte aligned). */
const UNIFORM_BUFFER_BYTES = 64 * 1024;
/** Distinct uniform contents kept before the slots start over (about 4 MiB of slots at 256 bytes each). */
export const UNIFORM_SLOTS_MAX = 16384;
/** Bind groups kept before the cache starts over. */
const BIND_GROUPS_MAX = 8192;

/** One storage binding: a whole buffer, or an explicit range of one. */
export type StorageBinding = GPUBuffer | { buffer: GPUBuffer; offset?: number; size?: number };

/** A dispatch's uniform binding: a range of one of the pool's uniform buffers, and the slot's id for cache keys. */
export interface UniformSlot {
  readonly buffer: GPUBuffer;
  readonly offset: number;
  readonly size: number;
  readonly id: number;
}

function isBuffer(b: StorageBinding): b is GPUBuffer {
  // Duck-typed: Dawn's GPUBuffer class is not a global in Node, so instanceof is unavailable.
  return typeof (b as GPUBuffer).mapAsync === 'function';
}

function poolKey(usage: number, size: number): string {
  return `${usage}:${size}`;
}

export function alignUp(n: number, align: number): number {
  return Math.ceil(n / align) * align;
}

export function asBytes(data: BytesLike): Uint8Array {
  return data instanceof ArrayBuffer
    ? new Uint8Array(data)
    : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

function copyPadded(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(alignUp(bytes.byteLength, 4));
  out.set(bytes);
  return out;
}
