// Tensor: shape, dtype, device and storage, plus the autodiff fields the tape fills in.

import {
  DTYPES,
  allocStorage,
  castScalar,
  checkWide,
  int64FromBigInts,
  isDType,
  toStorage,
  type DType,
  type Storage,
} from './dtype.ts';
import { CPU, device as toDevice, deviceName, type Device, type DeviceKind } from './device.ts';
import { formatShape, sizeOf, type Shape } from './shape.ts';
import { OpError } from './errors.ts';
import type { TapeNode } from './autodiff.ts';

/** What a dialect keeps for a tensor's data; CPU storage is a typed array read synchronously. */
export interface TensorStorage {
  readonly device: Device;
  /** Set by the first tensor that wraps this storage: it owns it; later wrappers (views, autodiff leaves) do not. */
  [OWNED]?: boolean;
  /** Set on a traced value's storage: it has a type and a device but no data (graph tracing, type inference). */
  readonly symbolic?: boolean;
  read(): Promise<Storage>;
  readSync?(): Storage;
  dispose(): void;
  /** Checks this data must still pass before it is read (WebGPU: indices computed on the GPU, see bounds.ts). */
  pendingChecks?(): readonly Promise<void>[];
  /** Makes read() fail with `check`'s error, if it fails; a result inherits its inputs' pending checks. */
  deferCheck?(check: Promise<void>): void;
  /** Values a device keeps on the host as well (WebGPU: small uploaded tensors), readable without waiting. */
  hostValues?(): ArrayLike<number> | undefined;
  /**
   * Overwrites this storage's elements with `src`'s on the device itself (WebGPU: a buffer-to-buffer copy on the
   * queue), keeping this storage object; false where `src` is not a storage of the same device, type and length.
   */
  writeFrom?(src: TensorStorage): boolean;
}

/** The key of TensorStorage's ownership mark (a field, not a WeakSet entry: one property test per tensor made). */
export const OWNED: unique symbol = Symbol('raf-op owned storage');

export class CpuStorage implements TensorStorage {
  readonly device = CPU;
  [OWNED] = false;
  constructor(readonly array: Storage) {}
  read(): Promise<Storage> {
    return Promise.resolve(this.array);
  }
  readSync(): Storage {
    return this.array;
  }
  dispose(): void {}
}

/** The static type of a tensor: what type functions reason about. */
export interface TensorType {
  readonly shape: Shape;
  readonly dtype: DType;
}

/** Moves storage between devices; installed by each non-CPU dialect. */
type Mover = (t: Tensor, to: Device) => Promise<Tensor>;
const movers = new Map<DeviceKind, Mover>();
export function registerMover(kind: DeviceKind, mover: Mover): void {
  movers.set(kind, mover);
}

/**
 * Copies a small CPU tensor to a device synchronously: how plain numbers in an op call (`where(c, dy, 0)`) join
 * tensors that live off the CPU. Installed by each non-CPU dialect; explicit moves still go through `to()`.
 */
type Placer = (t: Tensor, to: Device) => Tensor;
const placers = new Map<DeviceKind, Placer>();
export function registerPlacer(kind: DeviceKind, placer: Placer): void {
  placers.set(kind, placer);
}
export function placeOn(t: Tensor, to: Device): Tensor {
  if (to === t.device) return t;
  const placer = placers.get(to.kind);
  if (!placer) throw new Error(`no dialect can place a number on ${deviceName(to)}`);
  return placer(t, to);
}

/**
 * Bytes one element takes in CPU storage (float16 and bfloat16 are kept widened in a Float32Array, int64 and uint64 in
 * a Float64Array).
 */
const ELEMENT_BYTES: Record<DType, number> = {
  float16: 4,
  bfloat16: 4,
  float32: 4,
  float64: 8,
  int64: 8,
  uint64: 8,
  int32: 4,
  uint32: 4,
  int16: 2,
  uint16: 2,
  int8: 1,
  uint8: 1,
  bool: 1,
};

const envLimit = Number(globalThis.process?.env?.RAF_MAX_TENSOR_BYTES);
let maxTensorBytes = Number.isFinite(envLimit) && envLimit > 0 ? envLimit : 2 ** 31;

/**
 * The most bytes one tensor may take (default 2 GiB, or the RAF_MAX_TENSOR_BYTES environment variable): a larger
 * tensor is refused with an OpError before anything is allocated. Returns the previous limit.
 */
export function setMaxTensorBytes(bytes: number): number {
  if (!(bytes > 0)) throw new RangeError(`setMaxTensorBytes: the limit must be a positive number, got ${bytes}`);
  const prev = maxTensorBytes;
  maxTensorBytes = bytes;
  return prev;
}

export function getMaxTensorBytes(): number {
  return maxTensorBytes;
}

/** Refuses, by op and argument, a tensor of `type` larger than the limit (setMaxTensorBytes), before it is allocated. */
export function checkAllocation(op: string, arg: string, type: TensorType): void {
  const bytes = sizeOf(type.shape) * ELEMENT_BYTES[type.dtype];
  if (bytes > maxTensorBytes)
    throw new OpError(
      op,
      `a ${type.dtype} tensor of shape ${formatShape(type.shape)} needs ${bytes} bytes, over the limit of ` +
        `${maxTensorBytes} (setMaxTensorBytes or RAF_MAX_TENSOR_BYTES raise it)`,
      arg,
    );
}

/** A shape given by a caller: a list of non-negative integers, else an OpError naming op and argument. */
export function checkShape(op: string, arg: string, shape: unknown): number[] {
  if (!Array.isArray(shape))
    throw new OpError(op, `must be a list of non-negative integers, got ${describeValue(shape)}`, arg);
  shape.forEach((d, i) => {
    if (typeof d !== 'number' || !Number.isSafeInteger(d) || d < 0)
      throw new OpError(op, `must be a list of non-negative integers; element ${i} is ${describeValue(d)}`, arg);
  });
  return shape as number[];
}

/** A dtype given by a caller, else an OpError listing the dtypes. */
export function checkDType(op: string, arg: string, dtype: unknown): DType {
  if (!isDType(dtype))
    throw new OpError(
      op,
      `unknown dtype ${typeof dtype === 'string' ? JSON.stringify(dtype) : describeValue(dtype)}; expected one of ${DTYPES.join(', ')}`,
      arg,
    );
  return dtype;
}

function describeValue(v: unknown): string {
  if (typeof v === 'string') return `the string ${JSON.stringify(v)}`;
  if (v === null || v === undefined) return String(v);
  if (typeof v === 'number') return String(v);
  if (Array.isArray(v)) return `a list of ${v.length}`;
  return `a ${typeof v === 'object' ? (v.constructor?.name ?? 'object') : typeof v}`;
}

let nextId = 0;

/** Open `disposeUnkept` scopes, innermost last: the tensors made in each that own their storage. */
const scopes: Tensor[][] = [];
/** Tensors something long-lived holds (a traced graph's constants): no scope disposes them. */
const escaped = new WeakSet<Tensor>();

/** Marks `t` as held beyond the current scope (a graph constant baked in while tracing): disposeUnkept leaves it. */
export function keepAlive(t: Tensor): Tensor {
  escaped.add(t);
  return t;
}

/**
 * Runs `fn` and disposes every tensor made meanwhile that owns new storage, except those sharing storage with what
 * `keep` picks from the result (those move to the enclosing scope). Tensors that existed before are never touched.
 * How autodiff frees what its tape and backward made: intermediates must not outlive `fn` unless kept.
 */
export function disposeUnkept<R>(fn: () => R, keep: (result: R) => Iterable<Tensor | undefined>): R {
  const made: Tensor[] = [];
  scopes.push(made);
  let result: R;
  try {
    result = fn();
  } catch (e) {
    scopes.pop();
    for (const t of made) if (!escaped.has(t)) t.dispose();
    throw e;
  }
  scopes.pop();
  const kept = new Set<TensorStorage>();
  for (const t of keep(result)) if (t) kept.add(t.storage);
  const outer = scopes[scopes.length - 1];
  for (const t of made) {
    if (!kept.has(t.storage) && !escaped.has(t)) t.dispose();
    else outer?.push(t);
  }
  return result;
}

export class Tensor implements TensorType {
  readonly id = nextId++;
  readonly shape: readonly number[];
  requiresGrad = false;
  /** The tape node that produced this tensor, when it was recorded. */
  node: TapeNode | undefined;
  /** Which of its node's outputs this tensor is (a tuple op's element; 0 otherwise). */
  outputIndex = 0;
  grad: Tensor | undefined;
  private disposed = false;
  /** The element count, computed once (the shape never changes). */
  readonly size: number;

  constructor(
    shape: Shape,
    readonly dtype: DType,
    readonly storage: TensorStorage,
  ) {
    // A frozen shape (another tensor's, or a type function's that reused one) is shared, not copied.
    this.shape = Object.isFrozen(shape) && Array.isArray(shape) ? shape : Object.freeze(Array.from(shape));
    this.size = sizeOf(this.shape);
    // The first tensor around a storage owns it (see OWNED).
    if (storage[OWNED] !== true) {
      storage[OWNED] = true;
      if (scopes.length) scopes[scopes.length - 1]!.push(this);
    }
  }

  get device(): Device {
    return this.storage.device;
  }
  get ndim(): number {
    return this.shape.length;
  }

  /** Synchronous read; only CPU storage can answer without waiting. */
  dataSync(): Storage {
    this.assertLive();
    if (!this.storage.readSync) {
      throw new Error(`tensor on ${deviceName(this.device)} cannot be read synchronously; use await t.data()`);
    }
    return this.storage.readSync();
  }

  data(): Promise<Storage> {
    try {
      this.assertLive();
      return this.storage.read();
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /** Nested JS arrays, for printing and tests. */
  async toArray(): Promise<unknown> {
    return nest(Array.from(await this.data()), this.shape);
  }

  item(): number {
    if (this.size !== 1) throw new Error(`item() needs a tensor of one element, got shape ${formatShape(this.shape)}`);
    return this.dataSync()[0]!;
  }

  /** Explicit device move; ops never move data implicitly. */
  async to(target: Device | DeviceKind): Promise<Tensor> {
    const d = toDevice(target);
    if (d === this.device) return this;
    const mover = movers.get(d.kind === 'cpu' ? this.device.kind : d.kind);
    if (!mover) throw new OpError('to', `no dialect can move tensors to ${deviceName(d)}`, 'target');
    return mover(this, d);
  }

  requireGrad(flag = true): this {
    this.requiresGrad = flag;
    return this;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.storage.dispose();
  }
  get isDisposed(): boolean {
    return this.disposed;
  }
  private assertLive(): void {
    if (this.disposed) throw new Error(`tensor #${this.id} was disposed`);
  }

  toString(): string {
    return `Tensor(${formatShape(this.shape)}, ${this.dtype}, ${deviceName(this.device)})`;
  }
}

function nest(flat: number[], shape: Shape): unknown {
  if (shape.length === 0) return flat[0];
  const [d, ...rest] = shape;
  const step = sizeOf(rest);
  return Array.from({ length: d! }, (_, i) => nest(flat.slice(i * step, (i + 1) * step), rest));
}

type Nested = number | boolean | readonly Nested[];

function inferShape(v: Nested): number[] {
  const shape: number[] = [];
  let cur: Nested = v;
  while (Array.isArray(cur)) {
    shape.push(cur.length);
    cur = cur[0] as Nested;
  }
  return shape;
}

export interface TensorOptions {
  dtype?: DType;
  shape?: Shape;
  device?: Device | DeviceKind;
}

/**
 * Builds a CPU tensor from nested arrays, a flat array plus shape, or a typed array. Every element must be a number or
 * a boolean and nested lists must be rectangular; anything else is an OpError naming `values` (no NaN for a string).
 */
export function tensor(
  values: Nested | ArrayLike<number> | BigInt64Array | BigUint64Array,
  opts: TensorOptions = {},
): Tensor {
  const dtype = checkDType(
    'tensor',
    'dtype',
    opts.dtype ?? (ArrayBuffer.isView(values) ? dtypeOfArray(values) : 'float32'),
  );
  let flat: number[];
  let shape: number[];
  let bigints: Float64Array | null = null;
  if (typeof values === 'number' || typeof values === 'boolean') {
    flat = [Number(values)];
    shape = [];
  } else if (values instanceof BigInt64Array || values instanceof BigUint64Array) {
    // BigInts are int64/uint64 values: exact, and refused beyond ±2^53 (uint64: below 0) rather than rounded (dtype.ts).
    if (dtype !== 'int64' && dtype !== 'uint64')
      throw new OpError(
        'tensor',
        `a ${values.constructor.name} holds 64-bit integer values; dtype must be int64 or uint64, got ${dtype}`,
        'dtype',
      );
    bigints = int64FromBigInts('tensor', 'values', values as ArrayLike<bigint>, dtype);
    flat = [];
    shape = [bigints.length];
  } else if (ArrayBuffer.isView(values)) {
    if (values instanceof DataView)
      throw new OpError('tensor', `cannot read values from a ${values.constructor.name}`, 'values');
    flat = Array.from(values as unknown as ArrayLike<number>, Number);
    shape = [flat.length];
  } else if (Array.isArray(values)) {
    shape = inferShape(values as Nested);
    flat = [];
    flatten(values as Nested, shape, 0, [], flat);
  } else
    throw new OpError(
      'tensor',
      `must be a number, a boolean, a (nested) list or a typed array, got ${describeValue(values)}`,
      'values',
    );
  if (opts.shape) {
    const given = checkShape('tensor', 'shape', opts.shape);
    const count = bigints ? bigints.length : flat.length;
    if (sizeOf(given) !== count) {
      throw new OpError('tensor', `${count} values do not fill shape ${formatShape(given)}`, 'shape');
    }
    shape = [...given];
  }
  if (opts.device && toDevice(opts.device) !== CPU) {
    throw new Error('tensor(): create on the CPU, then move with `await t.to(device)`');
  }
  checkAllocation('tensor', 'values', { shape, dtype });
  return new Tensor(shape, dtype, new CpuStorage(bigints ?? toStorage(dtype, flat)));
}

/** Appends the elements of a rectangular nested list of `shape` to `out`, checking each is a number or boolean. */
function flatten(v: Nested, shape: readonly number[], depth: number, at: number[], out: number[]): void {
  if (depth === shape.length) {
    if (typeof v === 'number' || typeof v === 'boolean') out.push(Number(v));
    else
      throw new OpError(
        'tensor',
        Array.isArray(v)
          ? `ragged nested list: element [${at.join(', ')}] is a list where a number belongs`
          : `element [${at.join(', ')}] is ${describeValue(v)}, not a number or boolean`,
        'values',
      );
    return;
  }
  if (!Array.isArray(v) || v.length !== shape[depth])
    throw new OpError(
      'tensor',
      `ragged nested list: element [${at.join(', ')}] ${Array.isArray(v) ? `has ${v.length} items` : `is ${describeValue(v)}`}, expected a list of ${shape[depth]}`,
      'values',
    );
  // One path array, pushed and popped, rather than a new one per element: an error message reads it as it stands.
  for (let i = 0; i < v.length; i++) {
    at.push(i);
    flatten(v[i] as Nested, shape, depth + 1, at, out);
    at.pop();
  }
}

function dtypeOfArray(a: ArrayBufferView): DType {
  if (a instanceof Float64Array) return 'float64';
  if (a instanceof BigInt64Array) return 'int64';
  if (a instanceof BigUint64Array) return 'uint64';
  if (a instanceof Int32Array) return 'int32';
  if (a instanceof Uint32Array) return 'uint32';
  if (a instanceof Int16Array) return 'int16';
  if (a instanceof Uint16Array) return 'uint16';
  if (a instanceof Int8Array) return 'int8';
  if (a instanceof Uint8Array) return 'bool';
  return 'float32';
}

export function scalar(value: number, dtype: DType = 'float32'): Tensor {
  return tensor(value, { dtype });
}

export function full(shape: Shape, value: number, dtype: DType = 'float32', op = 'full'): Tensor {
  const dims = checkShape(op, 'shape', shape);
  checkDType(op, 'dtype', dtype);
  if (typeof value !== 'number' && typeof value !== 'boolean')
    throw new OpError(op, `must be a number or boolean, got ${describeValue(value)}`, 'value');
  checkAllocation(op, 'shape', { shape: dims, dtype });
  const arr = allocStorage(dtype, sizeOf(dims));
  arr.fill(castScalar(dtype, Number(value)));
  checkWide(dtype, op, 'value', arr.subarray(0, 1));
  return new Tensor(dims, dtype, new CpuStorage(arr));
}

export function zeros(shape: Shape, dtype: DType = 'float32'): Tensor {
  return full(shape, 0, dtype, 'zeros');
}

export function ones(shape: Shape, dtype: DType = 'float32'): Tensor {
  return full(shape, 1, dtype, 'ones');
}

/** A CPU tensor around existing storage (no copy). */
export function fromStorage(shape: Shape, dtype: DType, array: Storage): Tensor {
  return new Tensor(shape, dtype, new CpuStorage(array));
}

/** Deterministic pseudo-random numbers (mulberry32) so tests and benchmarks are reproducible. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function randomUniform(
  shape: Shape,
  opts: { dtype?: DType; seed?: number; low?: number; high?: number } = {},
): Tensor {
  const next = rng(opts.seed ?? 0);
  const lo = opts.low ?? -1;
  const hi = opts.high ?? 1;
  const dims = checkShape('randomUniform', 'shape', shape);
  const dtype = checkDType('randomUniform', 'dtype', opts.dtype ?? 'float32');
  checkAllocation('randomUniform', 'shape', { shape: dims, dtype });
  const n = sizeOf(dims);
  const values = new Array<number>(n);
  for (let i = 0; i < n; i++) values[i] = lo + (hi - lo) * next();
  return new Tensor(shape, dtype, new CpuStorage(toStorage(dtype, values, 'randomUniform', 'high')));
}
