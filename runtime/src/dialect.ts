// Dialects and dialect ops: which backends serve which devices, at which priority level.

import type { DeviceKind } from './device.ts';
import type { Tensor, TensorType } from './tensor.ts';

export interface DialectInfo {
  readonly name: string;
  readonly devices: readonly DeviceKind[];
  /** Why the dialect cannot run right now (no WebGPU adapter, not initialized), or undefined when it can. */
  readonly unavailable?: () => string | undefined;
  /**
   * Builds a kernel for a call one of its dialect ops' build() declined, or null: the WebGPU dialect runs float16 calls
   * that have no float16 kernel in float32 between casts. Reached through buildDialectKernel.
   */
  readonly fallback?: (
    d: AnyDialectOp,
    attrs: unknown,
    out: OutType,
    inputs: KernelInputs,
  ) => Kernel<KernelInputs, unknown, OutType> | null;
}

export type KernelInputs = Readonly<Record<string, Tensor | readonly Tensor[] | null>>;

/** What a kernel is told to produce: one output type, or one per element of a tuple op's result. */
export type OutType = TensorType | readonly TensorType[];

/** A kernel's result for an `OutType`: one tensor, or a list in the order of the output types. */
export type KernelResult<O extends OutType> = O extends readonly TensorType[] ? readonly Tensor[] : Tensor;

/** A built kernel: inputs and static attrs in, output tensor (or tuple op's tensors) out. */
export type Kernel<I = KernelInputs, T = unknown, O extends OutType = TensorType> = (
  inputs: I,
  attrs: T,
  out: O,
) => KernelResult<O>;

/** Generated per op and dialect: schema args → kernel inputs, static attrs, and the compile-cache key. */
export interface Bridge<A, I = KernelInputs, T = unknown, O extends OutType = TensorType> {
  inputs(args: A): I;
  attrs(args: A): T;
  key(args: A, out: O): string;
}

export interface DialectOp<A = unknown, I = KernelInputs, T = unknown, O extends OutType = TensorType> {
  readonly op: string;
  readonly dialect: string;
  readonly level: number;
  readonly bridge: Bridge<A, I, T, O>;
  /**
   * Per call (shapes included, unlike build's cached answer): false declines this call, so dispatch tries the next
   * dialect. Not asked when the call pins the dialect with withDialect. The ort dialect leaves small calls to wasm.
   */
  readonly accepts?: (inputs: I, attrs: T, out: O) => boolean;
  /** Returns null when this dialect cannot serve these attrs/types; dispatch then tries the next. */
  readonly build: (attrs: T, out: O, inputs: I) => Kernel<I, T, O> | null;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyDialectOp = DialectOp<any, any, any, any>;

const dialects = new Map<string, DialectInfo>();
const dialectOps = new Map<string, AnyDialectOp[]>();

/** dialectOpsFor's answers by op and device kind; cleared whenever a dialect or dialect op is registered. */
const forKind = new Map<DeviceKind, Map<string, AnyDialectOp[]>>();

export function registerDialect(info: DialectInfo): void {
  dialects.set(info.name, info);
  forKind.clear();
}

export function getDialect(name: string): DialectInfo | undefined {
  return dialects.get(name);
}

export function registerDialectOps(ops: readonly AnyDialectOp[]): void {
  for (const d of ops) {
    const list = dialectOps.get(d.op) ?? [];
    const i = list.findIndex((x) => x.dialect === d.dialect);
    if (i >= 0) list[i] = d;
    else list.push(d);
    list.sort((p, q) => q.level - p.level);
    dialectOps.set(d.op, list);
  }
  forKind.clear();
}

/** Dialect ops of a base op for a device kind, highest level first. */
export function dialectOpsFor(op: string, kind: DeviceKind): readonly AnyDialectOp[] {
  // Every eager call asks: answered once per op and kind until the registry changes.
  let byOp = forKind.get(kind);
  if (!byOp) forKind.set(kind, (byOp = new Map()));
  let list = byOp.get(op);
  if (!list) {
    list = (dialectOps.get(op) ?? []).filter((d) => dialects.get(d.dialect)?.devices.includes(kind));
    byOp.set(op, list);
  }
  return list;
}

/**
 * `list` (dialectOpsFor's) in the order a call tries it under `pin`: the pinned dialects first, in the pin's order
 * (`withDialect(['ort', 'cpu'], f)` tries ort before cpu even for an op whose ort dialect op sits below cpu), each
 * dialect's own ops by level; the rest after them, where dispatch reports them as not enabled.
 */
export function inPinOrder(list: readonly AnyDialectOp[], pin: readonly string[] | null): readonly AnyDialectOp[] {
  if (!pin || pin.length < 2) return list;
  const rank = (d: AnyDialectOp) => {
    const k = pin.indexOf(d.dialect);
    return k < 0 ? pin.length : k;
  };
  for (let i = 1; i < list.length; i++)
    if (rank(list[i]!) < rank(list[i - 1]!)) return [...list].sort((a, b) => rank(a) - rank(b));
  return list;
}

export function allDialectOps(op: string): readonly AnyDialectOp[] {
  return dialectOps.get(op) ?? [];
}

/**
 * A dialect op's kernel for these attrs and types: its own build(), else its dialect's fallback, else null. Eager
 * dispatch and graph mode both build kernels through this, so both get the fallback.
 */
export function buildDialectKernel(
  d: AnyDialectOp,
  attrs: unknown,
  out: OutType,
  inputs: unknown,
): Kernel<unknown, unknown, OutType> | null {
  const kernel = d.build(attrs, out, inputs) as Kernel<unknown, unknown, OutType> | null;
  if (kernel) return kernel;
  return (
    (dialects.get(d.dialect)?.fallback?.(d, attrs, out, inputs as KernelInputs) as
      Kernel<unknown, unknown, OutType> | null | undefined) ?? null
  );
}

let pinned: readonly string[] | null = null;

export function enabledDialects(): readonly string[] | null {
  return pinned;
}

/**
 * Runs `fn` with only the named dialects enabled (RAF's `with_dialect`). An async `fn` keeps
 * the pin until its promise settles; pins nest, and the innermost wins.
 */
export function withDialect<R>(names: readonly string[], fn: () => R): R {
  for (const n of names) if (!dialects.has(n)) throw new Error(`withDialect: unknown dialect '${n}'`);
  // Pinning only dialects that cannot run would fail later with a vaguer dispatch error; say why now.
  const down = names.map((n) => [n, dialects.get(n)!.unavailable?.()] as const).filter(([, why]) => why !== undefined);
  if (names.length > 0 && down.length === names.length) {
    throw new Error(`withDialect: ${down.map(([n, why]) => `dialect '${n}' is unavailable: ${why}`).join('; ')}`);
  }
  const saved = pinned;
  pinned = names;
  let result: R;
  try {
    result = fn();
  } catch (e) {
    pinned = saved;
    throw e;
  }
  if (result instanceof Promise) {
    return result.finally(() => {
      pinned = saved;
    }) as R;
  }
  pinned = saved;
  return result;
}
