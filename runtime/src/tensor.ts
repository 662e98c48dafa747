// Tensor: shape, dtype, device and storage, plus the autodiff fields the tape fills in.

import { allocStorage, castScalar, isDType, toStorage, type DType, type Storage } from './dtype.ts';
import { CPU, device as toDevice, deviceName, type Device, type DeviceKind } from './device.ts';
import { formatShape, sizeOf, type Shape } from './shape.ts';
import type { TapeNode } from './autodiff.ts';

/** What a dialect keeps for a tensor's data; CPU storage is a typed array read synchronously. */
export interface TensorStorage {
  readonly device: Device;
  /** Set on a traced value's storage: it has a type and a device but no data (graph tracing, type inference). */
  readonly symbolic?: boolean;
  read(): Promise<Storage>;
  readSync?(): Storage;
  dispose(): void;
}

export class CpuStorage implements TensorStorage {
  readonly device = CPU;
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

let nextId = 0;

/** Storage some tensor already wraps: a second tensor around it (a view, a fresh autodiff leaf) does not own it. */
const wrapped = new WeakSet<TensorStorage>();
/** Open `disposeUnkept` scopes, innermost last: the tensors made in each that own their storage. */
const scopes: Tensor[][] = [];

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
    for (const t of made) t.dispose();
    throw e;
  }
  scopes.pop();
  const kept = new Set<TensorStorage>();
  for (const t of keep(result)) if (t) kept.add(t.storage);
  const outer = scopes[scopes.length - 1];
  for (const t of made) {
    if (!kept.has(t.storage)) t.dispose();
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

  constructor(
    shape: Shape,
    readonly dtype: DType,
    readonly storage: TensorStorage,
  ) {
    this.shape = Object.freeze([...shape]);
    if (!wrapped.has(storage)) {
      wrapped.add(storage);
      scopes[scopes.length - 1]?.push(this);
    }
  }

  get device(): Device {
    return this.storage.device;
  }
  get ndim(): number {
    return this.shape.length;
  }
  get size(): number {
    return sizeOf(this.shape);
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
    if (!mover) throw new Error(`no dialect can move tensors to ${deviceName(d)}`);
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

/** Builds a CPU tensor from nested arrays, a flat array plus shape, or a typed array. */
export function tensor(values: Nested | ArrayLike<number>, opts: TensorOptions = {}): Tensor {
  const dtype = opts.dtype ?? (ArrayBuffer.isView(values) ? dtypeOfArray(values) : 'float32');
  if (!isDType(dtype)) throw new Error(`unknown dtype '${String(dtype)}'`);
  let flat: number[];
  let shape: number[];
  if (typeof values === 'number' || typeof values === 'boolean') {
    flat = [Number(values)];
    shape = [];
  } else if (ArrayBuffer.isView(values) || !Array.isArray(values) || !Array.isArray(values[0])) {
    flat = Array.from(values as ArrayLike<number>, Number);
    shape = [flat.length];
  } else {
    shape = inferShape(values as Nested);
    flat = (values as unknown[]).flat(Infinity).map(Number);
  }
  if (opts.shape) {
    if (sizeOf(opts.shape) !== flat.length) {
      throw new Error(`tensor: ${flat.length} values do not fill shape ${formatShape(opts.shape)}`);
    }
    shape = [...opts.shape];
  } else if (sizeOf(shape) !== flat.length) {
    throw new Error('tensor: ragged nested array');
  }
  const t = new Tensor(shape, dtype, new CpuStorage(toStorage(dtype, flat)));
  if (opts.device && toDevice(opts.device) !== CPU) {
    throw new Error('tensor(): create on the CPU, then move with `await t.to(device)`');
  }
  return t;
}

function dtypeOfArray(a: ArrayBufferView): DType {
  if (a instanceof Float64Array) return 'float64';
  if (a instanceof Int32Array) return 'int32';
  if (a instanceof Uint8Array) return 'bool';
  return 'float32';
}

export function scalar(value: number, dtype: DType = 'float32'): Tensor {
  return tensor(value, { dtype });
}

export function full(shape: Shape, value: number, dtype: DType = 'float32'): Tensor {
  const arr = allocStorage(dtype, sizeOf(shape));
  arr.fill(castScalar(dtype, value));
  return new Tensor(shape, dtype, new CpuStorage(arr));
}

export function zeros(shape: Shape, dtype: DType = 'float32'): Tensor {
  return full(shape, 0, dtype);
}

export function ones(shape: Shape, dtype: DType = 'float32'): Tensor {
  return full(shape, 1, dtype);
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
  const dtype = opts.dtype ?? 'float32';
  const n = sizeOf(shape);
  const values = new Array<number>(n);
  for (let i = 0; i < n; i++) values[i] = lo + (hi - lo) * next();
  return new Tensor(shape, dtype, new CpuStorage(toStorage(dtype, values)));
}
