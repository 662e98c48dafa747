// The ort dialect op of a base op with an ONNX mapping: its call as a one-node ONNX model, run by onnxruntime-node.
// Everything op-specific comes from the generated mapping (runtime/src/generated/onnx/) and the spec's arg types.

import type { AnyDialectOp, Bridge, Kernel, KernelInputs, OutType } from '../../dialect.ts';
import { allocStorage, isStorageOf, type DType, type Storage } from '../../dtype.ts';
import { OpError } from '../../errors.ts';
import { ONNX_CONVERSION_RULES } from '../../graph/onnx/convert.ts';
import type { OnnxMapping } from '../../graph/onnx/mapping.ts';
import { sizeOf } from '../../shape.ts';
import { CpuStorage, Tensor, type TensorType } from '../../tensor.ts';
import { wasmThreads } from '../wasm/threads/index.ts';
import { loadOrt, ortMissing, type OrtModule, type OrtNativeSession } from './load.ts';
import { ORT_DIALECT, ortDeclines, ortLevel, ortMinWork } from './policy.ts';
import { encodeNodeModel, ONNX_TYPE, type OrtAttr, type OrtConst } from './proto.ts';

/** What the generated ort dialect op of one base op says (emitted from its spec by generators/src/emit/dialect-ort.ts). */
export interface OrtOpSpec<A> {
  readonly op: string;
  readonly mapping: OnnxMapping;
  /** The op's own bridge: its key (dtypes and attrs) keys the kernel cache as for every dialect. */
  readonly bridge: { key(args: A, out: never): string };
  /** Tensor args (a Tensor[] arg feeds one ONNX input per element). */
  readonly tensors: readonly string[];
  /** Non-tensor args typed float: FLOAT attributes, or scalar inputs of the data's dtype. */
  readonly floats: readonly string[];
  /** An `int?` axis arg whose null means "over the flattened input". */
  readonly flatten?: string;
  /** Args the mapping leaves out, with the default each must keep for the dialect to serve a call. */
  readonly fixed?: Readonly<Record<string, unknown>>;
  /** Tensor args the mapping does not pass: a call that gives one is declined. */
  readonly uncarried?: readonly string[];
  /** ONNX outputs the node has (a tuple op's named outputs). */
  readonly outputs?: number;
}

/** ONNX element types onnxruntime-node reads from our CPU storage as is (no conversion). */
const DIRECT: Partial<Record<DType, string>> = {
  float32: 'float32',
  float64: 'float64',
  int32: 'int32',
  int16: 'int16',
  int8: 'int8',
  uint32: 'uint32',
  uint16: 'uint16',
  uint8: 'uint8',
  bool: 'bool',
};
/** int64 is stored exactly in a Float64Array: converted to BigInt64Array on the way in and back on the way out. */
export const ortType = (d: DType): string | undefined => DIRECT[d] ?? (d === 'int64' ? 'int64' : undefined);
export const ONNX_DTYPE_ATTR: Partial<Record<string, number>> = ONNX_TYPE;

let runs = 0;
let sessionsOpened = 0;

/** Counts a run or a session of an ort region (region.ts) with the dialect's own. */
export function countOrt(what: 'run' | 'session'): void {
  if (what === 'run') runs++;
  else sessionsOpened++;
}

const specs = new Map<string, OrtOpSpec<unknown>>();

/** The ort dialect op spec of a base op, where the dialect has one (what ort regions build their nodes from). */
export function ortOpSpec(op: string): OrtOpSpec<unknown> | undefined {
  return specs.get(op);
}

/** Calls onnxruntime ran for the ort dialect, and sessions it built (one per op signature and shapes). */
export function ortStats(): { readonly runs: number; readonly sessions: number } {
  return { runs, sessions: sessionsOpened };
}

interface Session {
  readonly native: OrtNativeSession;
  /** Inputs fed widened to int64. */
  readonly widen: ReadonlySet<string>;
  readonly outputNames: readonly string[];
  /** Per output: whether onnxruntime writes it straight into our storage (same element type). */
  readonly direct: readonly boolean[];
}

/** The ort dialect op of a base op: level and work threshold from policy.ts, kernel from the mapping. */
export function ortDialectOp<A>(spec: OrtOpSpec<A>): AnyDialectOp {
  specs.set(spec.op, spec as OrtOpSpec<unknown>);
  const tensorSet = new Set(spec.tensors);
  const minWork = ortMinWork(spec.op);
  return {
    op: spec.op,
    dialect: ORT_DIALECT,
    level: ortLevel(spec.op),
    bridge: {
      inputs: (a: A) => {
        const r: Record<string, unknown> = {};
        for (const t of spec.tensors) r[t] = (a as Record<string, unknown>)[t] ?? null;
        return r;
      },
      attrs: (a: A) => a,
      key: (a: A, out: OutType) => spec.bridge.key(a, out as never),
    },
    accepts:
      minWork === undefined
        ? undefined
        : (inputs: KernelInputs, a: unknown, out: OutType) =>
            work(inputs, out) >= minWork &&
            !ortDeclines(spec.op, a as Readonly<Record<string, unknown>>, (arg) => {
              const t = inputs[arg];
              return t instanceof Tensor ? t.shape : undefined;
            }),
    build: (attrs: unknown, out: OutType, inputs: KernelInputs) => {
      if (ortMissing() || !expressible(spec, attrs as Readonly<Record<string, unknown>>, inputs)) return null;
      const outs = Array.isArray(out) ? (out as readonly TensorType[]) : [out as TensorType];
      if (!outs.every((o) => ortType(o.dtype))) return null;
      for (const v of Object.values(inputs))
        for (const t of v === null ? [] : v instanceof Tensor ? [v] : v) if (!ortType(t.dtype)) return null;
      const ort = loadOrt();
      const sessions = new Map<string, Session>();
      // The first call's session is built now: where onnxruntime has no kernel for these types (Conv in float64),
      // the dialect declines them and a lower level serves the key's calls.
      try {
        prepare(ort, spec, tensorSet, sessions, inputs, attrs as Record<string, unknown>, out);
        // onnxruntime registers some kernels for types it then refuses at run time (LSTM in float64: "does not
        // support double yet"): outside float32, which every kernel serves, the first call is tried once here.
        const typed = [
          ...outs,
          ...Object.values(inputs).flatMap((v) => (v === null ? [] : v instanceof Tensor ? [v] : v)),
        ];
        if (typed.some((t) => t.dtype !== 'float32')) {
          run(ort, spec, tensorSet, sessions, inputs, attrs as Record<string, unknown>, out);
          runs--; // a probe, not a call served
        }
      } catch {
        // No kernel for these types (Conv in float64), or a node onnxruntime refuses (a padding ONNX spells
        // otherwise): the dialect declines, and a lower level serves the key's calls.
        return null;
      }
      return ((ins: KernelInputs, args: Record<string, unknown>, o: OutType) =>
        run(ort, spec, tensorSet, sessions, ins, args, o)) as Kernel<unknown, unknown, OutType>;
    },
  } as AnyDialectOp;
}

/** Whether the mapping says what this call computes (else a lower dialect serves it). */
export function expressible<A>(
  spec: OrtOpSpec<A>,
  args: Readonly<Record<string, unknown>>,
  inputs: KernelInputs,
): boolean {
  for (const [k, v] of Object.entries(spec.fixed ?? {}))
    if (JSON.stringify(args[k] ?? null) !== JSON.stringify(v ?? null)) return false;
  return !(spec.uncarried ?? []).some((t) => inputs[t] !== null && inputs[t] !== undefined);
}

/** Elements a call reads and writes: the measure its work threshold is set in (bench/cases/ort.ts). */
export function work(inputs: KernelInputs, out: OutType): number {
  let n = 0;
  for (const v of Object.values(inputs)) for (const t of v === null ? [] : v instanceof Tensor ? [v] : v) n += t.size;
  for (const o of Array.isArray(out) ? (out as readonly TensorType[]) : [out as TensorType]) n += sizeOf(o.shape);
  return n;
}

interface Feed {
  readonly name: string;
  readonly tensor: Tensor;
  /** The shape fed (a flattened input's differs from its own). */
  readonly shape: readonly number[];
}

interface Prepared {
  readonly session: Session;
  readonly feeds: readonly Feed[];
  readonly outs: readonly TensorType[];
  /** The input was fed flat (axis=None): the node's output has the declared size, not its shape (keepdims). */
  readonly flat: boolean;
}

const tensorSets = new WeakMap<object, ReadonlySet<string>>();
function tensorSetOf<A>(spec: OrtOpSpec<A>): ReadonlySet<string> {
  let s = tensorSets.get(spec);
  if (!s) tensorSets.set(spec, (s = new Set(spec.tensors)));
  return s;
}

/** One ONNX node built from a call's mapping: its inputs (tensors by the names `nameOf` gives), constants and attrs. */
export interface OrtNode {
  readonly opType: string;
  readonly opset: number;
  /** The node's input names in order ('' for an omitted optional input). */
  readonly nodeInputs: readonly string[];
  readonly consts: Readonly<Record<string, OrtConst>>;
  readonly attrs: Readonly<Record<string, OrtAttr>>;
  /** Outputs the ONNX node has (at least the call's). */
  readonly outputs: number;
  /** What tells this node's session apart from another's (tensor names come from nameOf's key). */
  readonly key: string;
}

/**
 * The ONNX node of one call: tensor args become inputs named by `nameOf` (which returns the name and the key part of
 * that input), other args constants named `${prefix}${k}` or attributes, as the mapping says.
 */
export function buildNode<A>(
  spec: OrtOpSpec<A>,
  ins: KernelInputs,
  args: Readonly<Record<string, unknown>>,
  nameOf: (t: Tensor, input: string, k: number) => readonly [name: string, key: string],
  prefix = 'c',
): OrtNode {
  const m = spec.mapping;
  const tensorSet = tensorSetOf(spec);
  const value = (name: string): unknown => (tensorSet.has(name) ? ins[name] : args[name]);
  const firstName = m.inputs.find((n) => tensorSet.has(n) && ins[n] instanceof Tensor);
  const like = firstName ? (ins[firstName] as Tensor) : undefined;
  let outputs = spec.outputs ?? 1;
  const consts: Record<string, OrtConst> = {};
  const nodeInputs: string[] = [];
  const keyParts: string[] = [];
  const constInput = (c: OrtConst | null) => {
    if (!c) return nodeInputs.push('');
    const name = `${prefix}${nodeInputs.length}`;
    consts[name] = c;
    keyParts.push(`${name}=${c.type}:${c.shape}:${c.data}`);
    return nodeInputs.push(name);
  };
  for (const name of m.inputs) {
    const v = value(name);
    if (v instanceof Tensor || (Array.isArray(v) && v[0] instanceof Tensor)) {
      for (const t of v instanceof Tensor ? [v] : (v as Tensor[])) {
        const [fed, key] = nameOf(t, name, nodeInputs.length);
        keyParts.push(key);
        nodeInputs.push(fed);
      }
      continue;
    }
    if (v === null || v === undefined) {
      constInput(null);
      continue;
    }
    const conversion = m.convert?.[name];
    if (conversion) {
      const c = ONNX_CONVERSION_RULES[conversion].toOnnx(v, like!, args);
      outputs = c.outputs;
      constInput(c.input === null ? null : { type: ONNX_TYPE.int64, shape: [c.input.length], data: c.input });
      continue;
    }
    // A float arg ONNX takes as an input is a scalar of the data's dtype; other args (axes, shapes) int64 tensors.
    if (spec.floats.includes(name) && typeof v === 'number')
      constInput({ type: ONNX_DTYPE_ATTR[like!.dtype]!, shape: [], data: [v] });
    else if (spec.floats.includes(name) && Array.isArray(v))
      constInput(v.length ? { type: ONNX_TYPE.float32, shape: [v.length], data: v as number[] } : null);
    else {
      const list = Array.isArray(v) ? (v as number[]) : [Number(v)];
      constInput({ type: ONNX_TYPE.int64, shape: [list.length], data: list });
    }
  }
  while (nodeInputs.length && nodeInputs[nodeInputs.length - 1] === '') nodeInputs.pop();
  const attrs: Record<string, OrtAttr> = {};
  for (const [k, v] of Object.entries(m.consts)) attrs[k] = { int: v };
  for (const [onnxName, arg] of Object.entries(m.attrs)) {
    const a = toAttr(spec, arg, args[arg], args);
    if (a) attrs[onnxName] = a;
  }
  const key = `${keyParts.join('|')}|${JSON.stringify(attrs)}`;
  return { opType: m.onnxOp, opset: m.opset, nodeInputs, consts, attrs, outputs, key };
}

/** The call's session (built on first use of its signature and shapes) and what to feed it. */
function prepare<A>(
  ort: OrtModule,
  spec: OrtOpSpec<A>,
  _tensorSet: ReadonlySet<string>,
  sessions: Map<string, Session>,
  ins: KernelInputs,
  given: Record<string, unknown>,
  out: OutType,
): Prepared {
  const m = spec.mapping;
  let args = given;
  const firstName = m.inputs.find((n) => spec.tensors.includes(n) && ins[n] instanceof Tensor);
  let flattened: string | undefined;
  if (spec.flatten && args[spec.flatten] === null && firstName) {
    // axis=None (over the flattened input) has no ONNX spelling: the input is fed flat, with axis 0.
    flattened = firstName;
    args = { ...args, [spec.flatten]: 0 };
  }
  const feeds: Feed[] = [];
  const node = buildNode(spec, ins, args, (t, name, k) => {
    const fed = `x${k}`;
    const shape = name === flattened ? [t.size] : t.shape;
    feeds.push({ name: fed, tensor: t, shape });
    return [fed, `${fed}=${t.dtype}[${shape}]`];
  });
  const outs = Array.isArray(out) ? (out as readonly TensorType[]) : [out as TensorType];
  // A session runs on the thread count it was opened with (sessionOptions): the count is part of its key.
  const key = `${wasmThreads()}|${node.key}`;
  let session = sessions.get(key);
  if (!session) {
    const model = (widen: ReadonlySet<string>): Model => ({
      opType: m.onnxOp,
      opset: m.opset,
      inputs: feeds.map((f) => ({
        name: f.name,
        type: widen.has(f.name) ? ONNX_TYPE.int64 : ONNX_DTYPE_ATTR[f.tensor.dtype]!,
        shape: f.shape,
      })),
      consts: node.consts,
      nodeInputs: node.nodeInputs,
      outputs: Array.from({ length: Math.max(node.outputs, outs.length) }, (_, i) => `y${i}`),
      attrs: node.attrs,
      fetch: outs.length,
      outs,
    });
    session = open(ort, spec, model, feeds);
    sessions.set(key, session);
  }
  return { session, feeds, outs, flat: flattened !== undefined };
}

function run<A>(
  ort: OrtModule,
  spec: OrtOpSpec<A>,
  tensorSet: ReadonlySet<string>,
  sessions: Map<string, Session>,
  ins: KernelInputs,
  given: Record<string, unknown>,
  out: OutType,
): Tensor | Tensor[] {
  const { session, feeds, outs, flat } = prepare(ort, spec, tensorSet, sessions, ins, given, out);
  const m = spec.mapping;
  const tensors = runSession(
    ort,
    session.native,
    feeds.map((f) => ({ ...f, wide: session.widen.has(f.name) })),
    outs.map((o, i) => ({ name: session.outputNames[i]!, type: o, direct: session.direct[i]! && !flat })),
    {
      flat,
      failed: (e) => new OpError(spec.op, `onnxruntime (${m.onnxOp}) failed: ${e.message}`),
      misshapen: (_name, dims, o) =>
        new OpError(spec.op, `onnxruntime (${m.onnxOp}) returned shape [${dims}], declared [${o.shape}]`),
    },
  );
  return Array.isArray(out) ? tensors : tensors[0]!;
}

/** A value fed to a session: the tensor, the shape fed (a flattened input's differs from its own), int64-widened. */
export interface RunFeed {
  readonly name: string;
  readonly tensor: Tensor;
  readonly shape: readonly number[];
  readonly wide?: boolean;
}

/** An output fetched from a session: its declared type, and whether the array onnxruntime returns is ours to keep. */
export interface RunFetch {
  readonly name: string;
  readonly type: TensorType;
  readonly direct: boolean;
}

/**
 * One run of a native session, for a call (run above) and for a region (region.ts): feeds without copies (int64 and
 * widened inputs as BigInt64Array), direct outputs taken as they come back (the binding's own arrays), the others
 * converted; each checked against its declared shape (`flat`: only their size, an axis=None call's keepdims output).
 * `failed` and `misshapen` word the errors; a run that fails without `failed` throws onnxruntime's own error.
 */
export function runSession(
  ort: OrtModule,
  native: OrtNativeSession,
  feeds: readonly RunFeed[],
  fetches: readonly RunFetch[],
  how: {
    readonly flat?: boolean;
    readonly failed?: (e: Error) => Error;
    readonly misshapen: (name: string, dims: readonly number[], declared: TensorType) => Error;
  },
): Tensor[] {
  const feedValues: Record<string, unknown> = {};
  for (const f of feeds)
    feedValues[f.name] = ort.tensor(f.wide ? 'int64' : ortType(f.tensor.dtype)!, feedData(f.tensor, !!f.wide), f.shape);
  const fetchValues: Record<string, unknown> = {};
  for (const o of fetches) fetchValues[o.name] = null;
  let result: ReturnType<OrtNativeSession['run']>;
  try {
    result = native.run(feedValues, fetchValues, {});
    runs++;
  } catch (e) {
    throw how.failed ? how.failed(e as Error) : e;
  }
  return fetches.map((o) => {
    const shape = o.type.shape;
    const r = result[o.name]!;
    const same = how.flat
      ? r.dims.reduce((p, d) => p * d, 1) === sizeOf(shape)
      : r.dims.length === shape.length && r.dims.every((d, k) => d === shape[k]);
    if (!same) throw how.misshapen(o.name, r.dims, o.type);
    // The binding returns each output in an array of its own (a copy of onnxruntime's buffer): taken as the tensor's
    // storage where it is the storage's type. That costs less than onnxruntime writing into storage made here, whose
    // fresh, zeroed pages cost more than the copy (256 kB: about 30 µs on this project's VM).
    let s: Storage;
    if (o.direct && isStorageOf(o.type.dtype, r.data) && r.data.length === sizeOf(shape)) s = r.data;
    else {
      s = allocStorage(o.type.dtype, sizeOf(shape));
      const d = r.data;
      for (let k = 0; k < s.length; k++) s[k] = Number(d[k]);
    }
    return new Tensor(shape, o.type.dtype, new CpuStorage(s));
  });
}

/** A tensor's values as onnxruntime takes them: its own typed array, or int64 as BigInt64Array (a copy). */
export function feedData(t: Tensor, wide: boolean): ArrayBufferView {
  const d = t.dataSync();
  if (wide || t.dtype === 'int64') return BigInt64Array.from(d as ArrayLike<number>, (x) => BigInt(x));
  return d;
}

/** An arg's ONNX attribute, or null to leave it out (an unset optional arg). */
function toAttr<A>(
  spec: OrtOpSpec<A>,
  arg: string,
  v: unknown,
  args: Readonly<Record<string, unknown>>,
): OrtAttr | null {
  if (v === null || v === undefined) return null;
  const conversion = spec.mapping.convert?.[arg];
  const toTensor = conversion ? ONNX_CONVERSION_RULES[conversion].toOnnxAttr : undefined;
  if (toTensor) {
    const t = toTensor(v, args);
    return { tensor: { type: ONNX_DTYPE_ATTR[t.dtype]!, shape: t.shape, data: t.data } };
  }
  if (typeof v === 'boolean') return { int: Number(v) };
  if (typeof v === 'string') return ONNX_DTYPE_ATTR[v] !== undefined ? { int: ONNX_DTYPE_ATTR[v]! } : { string: v };
  if (typeof v === 'number') return spec.floats.includes(arg) || !Number.isInteger(v) ? { float: v } : { int: v };
  if (Array.isArray(v)) {
    const list = v as number[];
    return spec.floats.includes(arg) || !list.every(Number.isInteger) ? { floats: list } : { ints: list };
  }
  throw new OpError(spec.op, `the ort dialect cannot pass ${typeof v} to ONNX ${spec.mapping.onnxOp}`, arg);
}

interface Model {
  readonly opType: string;
  readonly opset: number;
  readonly inputs: readonly { readonly name: string; readonly type: number; readonly shape: readonly number[] }[];
  readonly consts: Readonly<Record<string, OrtConst>>;
  readonly nodeInputs: readonly string[];
  readonly outputs: readonly string[];
  readonly attrs: Readonly<Record<string, OrtAttr>>;
  readonly fetch: number;
  readonly outs: readonly TensorType[];
}

/**
 * Options of every ort session: as many intra-op threads as raf-op's own kernels use (`wasmThreads()`: one unless
 * `setWasmThreads(n)` was called before the session opened), so that a call does not go to onnxruntime for threads
 * the rest of the run does not have (onnxruntime's default, a thread per core, made every heavy call look cheaper on
 * an idle machine than it is beside other work, and slower where the cores are busy); no inter-op parallelism (one
 * node, or a region run in order). A one-node session's threads sleep between calls instead of spinning, since every
 * cached session owns a pool; a region's (`spin`), which runs many nodes a call, spin between them as onnxruntime's
 * own sessions do: with 2 threads, sleeping made a region 1.5–2.3× slower than onnxruntime on the same model
 * (silero-vad-v4 0.301 → 0.192 ms with spinning, ppocr-rec-v4 2.22 → 1.46, oww-hey-jarvis 0.098 → 0.042).
 */
export function sessionOptions(spin = false): object {
  const spinning = spin ? '1' : '0';
  return {
    intraOpNumThreads: wasmThreads(),
    interOpNumThreads: 1,
    executionMode: 'sequential',
    // Fatal only: a failed run is reported by the error raf-op throws (or a region's rerun on raf-op), not on stderr.
    logSeverityLevel: 4,
    extra: { session: { intra_op: { allow_spinning: spinning }, inter_op: { allow_spinning: '0' } } },
  };
}

/**
 * A session for the node. Where ONNX takes only int64 for an input we hold in a narrower integer type (GatherND's
 * indices), onnxruntime names it when the model is loaded: that input is then fed widened to int64.
 */
function open<A>(
  ort: OrtModule,
  spec: OrtOpSpec<A>,
  build: (widen: ReadonlySet<string>) => Model,
  feeds: readonly Feed[],
): Session {
  const widen = new Set<string>();
  let native: OrtNativeSession;
  let model: Model;
  for (;;) {
    model = build(widen);
    const bytes = encodeNodeModel(model);
    native = ort.newSession();
    try {
      native.loadModel(bytes.buffer, bytes.byteOffset, bytes.byteLength, sessionOptions());
      sessionsOpened++;
      break;
    } catch (e) {
      const name = /Type 'tensor\((?:u?int(?:8|16|32))\)' of input parameter \((x\d+)\)/.exec(
        (e as Error).message,
      )?.[1];
      if (name && !widen.has(name) && feeds.some((f) => f.name === name)) {
        widen.add(name);
        continue;
      }
      throw new OpError(spec.op, `onnxruntime cannot build a ${model.opType} node: ${(e as Error).message}`);
    }
  }
  const outputNames = model.outputs.slice(0, model.fetch);
  const types = new Map(native.outputMetadata.map((o) => [o.name, o.type]));
  return {
    native,
    widen,
    outputNames,
    direct: model.outs.map(
      (o, i) => DIRECT[o.dtype] !== undefined && types.get(outputNames[i]!) === ONNX_DTYPE_ATTR[o.dtype],
    ),
  };
}
