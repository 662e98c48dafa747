// The dispatcher: parse → declare → pick the highest enabled dialect level → run → record on the tape.

import { recordOnTape } from './autodiff.ts';
import { deviceName, type Device } from './device.ts';
import {
  buildDialectKernel,
  dialectOpsFor,
  enabledDialects,
  inPinOrder,
  type AnyDialectOp,
  type Kernel,
  type OutType,
} from './dialect.ts';
import { DispatchError, OpError } from './errors.ts';
import { getOp, type AnyOpDef } from './registry.ts';
import { takePlacedScalars, type Keyword } from './schema.ts';
import { tensorsIn, trackOutputs } from './scope.ts';
import { CpuStorage, Tensor, checkAllocation, type TensorType } from './tensor.ts';
import { finishStorage } from './dtype.ts';
import { checkBoolArithmetic } from './promote.ts';

/**
 * Compiled kernels per dialect op (one dialect's kernel of one op), by its bridge key (dtypes and attrs: the call's
 * signature); `null` remembers "this dialect cannot". Looked up without building a key string per call.
 */
const kernelCache = new Map<AnyDialectOp, Map<string, Kernel<unknown, unknown, OutType> | null>>();
let cachedKernels = 0;
let dispatchCount = 0;

export interface DispatchStats {
  readonly dispatches: number;
  readonly cachedKernels: number;
}

export function dispatchStats(): DispatchStats {
  return { dispatches: dispatchCount, cachedKernels };
}

/** Forgets every compiled kernel (setWasmThreads swaps the wasm module's instance that cached kernels may hold). */
export function clearKernelCache(): void {
  kernelCache.clear();
  cachedKernels = 0;
  epoch++;
}

let epoch = 0;
/** Counts clearKernelCache calls: caches of built kernels outside dispatch (graph execution plans) drop theirs when it moves. */
export function kernelEpoch(): number {
  return epoch;
}

/**
 * Sees every call after its args are parsed and may answer it instead of a kernel; graph tracing
 * (runtime/src/graph/trace.ts) installs one to record calls on symbolic tensors.
 */
export type InvokeHook = (op: AnyOpDef, args: unknown) => { readonly value: unknown } | null;
let invokeHook: InvokeHook | null = null;

/** Installs `hook` (or removes it with null); returns the previous one so tracers can nest. */
export function setInvokeHook(hook: InvokeHook | null): InvokeHook | null {
  const prev = invokeHook;
  invokeHook = hook;
  return prev;
}

/** Calls a base op by its definition, with positional and keyword args. */
export function invoke(op: AnyOpDef, positional: readonly unknown[], keyword?: Keyword): unknown {
  const args = op.schema.parse(op.name, positional, keyword);
  // Numbers this parse placed on a GPU: the call's own temporaries (a traced call keeps them as graph constants).
  const placed = takePlacedScalars();
  if (invokeHook) {
    const hooked = invokeHook(op, args);
    if (hooked) return hooked.value;
  }
  let out: Tensor | readonly Tensor[];
  try {
    checkBoolArithmetic(op.name, args);
    const decl = op.declare(args);
    if (decl.kind === 'value') {
      placed.length = 0;
      return decl.value;
    }
    // An output over the size limit is refused before any kernel allocates it.
    for (const o of decl.kind === 'tuple' ? decl.outs : [decl.out]) checkAllocation(op.name, 'out', o);
    out = runKernel(op, decl.args, decl.kind === 'tuple' ? decl.outs : decl.out, decl.device);
    recordOnTape(op, decl.args, out);
  } catch (e) {
    for (const t of placed) t.dispose();
    throw e;
  }
  if (placed.length) releasePlaced(placed, out);
  return out;
}

/**
 * Disposes the numbers a call placed on a GPU once its kernel has run (the GPU queue keeps the buffer alive for work
 * already submitted), unless the tape saved them for a gradient or an output shares their storage.
 */
function releasePlaced(placed: readonly Tensor[], out: Tensor | readonly Tensor[]): void {
  const outs = out instanceof Tensor ? [out] : out;
  if (outs.some((o) => o.requiresGrad)) return;
  for (const t of placed) if (!outs.some((o) => o.storage === t.storage)) t.dispose();
}

/** Calls a base op by name (`'softmax'` or `'raf.op.softmax'`). */
export function call(name: string, positional: readonly unknown[], keyword?: Keyword): unknown {
  return invoke(getOp(name), positional, keyword);
}

function runKernel(op: AnyOpDef, args: unknown, out: OutType, device: Device): Tensor | readonly Tensor[] {
  const pin = enabledDialects();
  const candidates = inPinOrder(dialectOpsFor(op.name, device.kind), pin);
  const tried: string[] = [];
  for (const d of candidates) {
    if (pin && !pin.includes(d.dialect)) {
      tried.push(`raf.op.${d.dialect}.${op.name} (level ${d.level}): not enabled`);
      continue;
    }
    const inputs = d.bridge.inputs(args);
    const attrs = d.bridge.attrs(args);
    if (d.accepts && !pin?.includes(d.dialect) && !d.accepts(inputs, attrs, out)) {
      tried.push(`raf.op.${d.dialect}.${op.name} (level ${d.level}): declined (below its work threshold)`);
      continue;
    }
    const kernel = buildCached(op, d, args, attrs, out, inputs, tried);
    if (!kernel) continue;
    dispatchCount++;
    const result = kernel(inputs, attrs, out);
    checkResult(op, d, result, out);
    finishInt64Results(op, result);
    inheritChecks(inputs, result);
    trackOutputs(result, inputs);
    return result;
  }
  throw new DispatchError(op.name, deviceName(device), tried);
}

/**
 * A result computed from data whose checks are still pending (an out-of-range index found only after a GPU kernel
 * ran) fails its reads with the same error: `exp(take(x, i))` refuses like `take(x, i)`.
 */
export function inheritChecks(inputs: unknown, result: Tensor | readonly Tensor[]): void {
  // Most storages have no checks at all: look before building the set of input tensors.
  if (!anyPendingChecks(inputs)) return;
  const pending = new Set<Promise<void>>();
  for (const t of tensorsIn(inputs)) for (const p of t.storage.pendingChecks?.() ?? []) pending.add(p);
  if (!pending.size) return;
  for (const t of result instanceof Tensor ? [result] : result) for (const p of pending) t.storage.deferCheck?.(p);
}

/** Whether any tensor among a kernel's inputs (a record of tensors, lists or nulls) has storage that keeps checks. */
function anyPendingChecks(inputs: unknown): boolean {
  if (inputs instanceof Tensor) return inputs.storage.pendingChecks !== undefined;
  if (Array.isArray(inputs)) return inputs.some(anyPendingChecks);
  if (inputs !== null && typeof inputs === 'object')
    for (const k in inputs) if (anyPendingChecks((inputs as Record<string, unknown>)[k])) return true;
  return false;
}

/** A kernel must return what declare promised: the dtype and rank of each output, and a tuple's length. */
function checkResult(op: AnyOpDef, d: AnyDialectOp, result: Tensor | readonly Tensor[], out: OutType): void {
  const outs = isTuple(out) ? out : [out];
  const got = result instanceof Tensor ? [result] : result;
  const fits =
    isTuple(out) === !(result instanceof Tensor) &&
    got.length === outs.length &&
    got.every((t, i) => t.dtype === outs[i]!.dtype && t.shape.length === outs[i]!.shape.length);
  if (!fits) {
    const said = outs.map((o) => `${o.dtype} ${JSON.stringify(o.shape)}`).join(', ');
    throw new OpError(
      op.name,
      `dialect ${d.dialect} returned ${got.map((t) => t.toString()).join(', ')}, declared ${isTuple(out) ? `(${said})` : said}`,
    );
  }
}

/**
 * int64 and uint64 results in CPU storage truncate toward zero and must stay in their exact range (see dtype.ts), else
 * an OpError; bfloat16 results round to bfloat16 (kernels compute them in float32, as float16's).
 */
function finishInt64Results(op: AnyOpDef, result: Tensor | readonly Tensor[]): void {
  for (const t of result instanceof Tensor ? [result] : result)
    if (t.storage instanceof CpuStorage) finishStorage(t.dtype, op.name, 'out', t.storage.array);
}

const isTuple = (out: OutType): out is readonly TensorType[] => Array.isArray(out);

function buildCached(
  op: AnyOpDef,
  d: AnyDialectOp,
  args: unknown,
  attrs: unknown,
  out: OutType,
  inputs: unknown,
  tried: string[],
): Kernel<unknown, unknown, OutType> | null {
  const key = d.bridge.key(args, out);
  let byKey = kernelCache.get(d);
  if (!byKey) kernelCache.set(d, (byKey = new Map()));
  let kernel = byKey.get(key);
  if (kernel === undefined) {
    try {
      kernel = buildDialectKernel(d, attrs, out, inputs);
    } catch (e) {
      tried.push(`raf.op.${d.dialect}.${op.name} (level ${d.level}): ${(e as Error).message}`);
      return null;
    }
    byKey.set(key, kernel);
    cachedKernels++;
  }
  if (!kernel)
    tried.push(
      `raf.op.${d.dialect}.${op.name} (level ${d.level}): cannot build for ${isTuple(out) ? out.map((o) => o.dtype).join(', ') : out.dtype}`,
    );
  return kernel;
}

/** Device shared by all tensor args; ops never move data between devices implicitly. */
export function commonDevice(op: string, tensors: Readonly<Record<string, Tensor | readonly Tensor[] | null>>): Device {
  let firstName: string | undefined;
  let firstDevice: Device | undefined;
  for (const name in tensors) {
    const v = tensors[name]!;
    if (v === null) continue;
    if (v instanceof Tensor) {
      if (firstDevice === undefined) {
        if (v.isDisposed) throw disposedError(op, v, name);
        firstName = name;
        firstDevice = v.device;
      } else checkSameDevice(op, v, name, firstName!, firstDevice);
      continue;
    }
    for (const t of v) {
      if (firstDevice === undefined) {
        if (t.isDisposed) throw disposedError(op, t, name);
        firstName = name;
        firstDevice = t.device;
      } else checkSameDevice(op, t, name, firstName!, firstDevice);
    }
  }
  if (!firstDevice) throw new OpError(op, 'has no tensor argument to take a device from');
  return firstDevice;
}

function disposedError(op: string, t: Tensor, name: string): OpError {
  return new OpError(op, `tensor #${t.id} was disposed and cannot be read`, name);
}

function checkSameDevice(op: string, t: Tensor, name: string, firstName: string, first: Device): void {
  if (t.isDisposed) throw disposedError(op, t, name);
  if (t.device !== first)
    throw new OpError(
      op,
      `is on ${deviceName(t.device)} but ${firstName} is on ${deviceName(first)}; move it with \`await t.to(...)\``,
      name,
    );
}
