// Independent test oracle: runs a single ONNX op (or a whole model) in onnxruntime-node so operator tests can compare against a real runtime.
import { createHash } from 'node:crypto';
import * as ort from 'onnxruntime-node';
import {
  buildSingleNodeModel,
  singleNodeIoNames,
  DEFAULT_OPSET,
  int64FromNumber,
  type AttrValue,
  type TensorData,
} from './onnx-proto.ts';

export type OracleDType = 'float32' | 'float64' | 'int32' | 'int64' | 'bool' | 'uint8' | 'int8' | 'uint16' | 'int16';

export type OracleTensor = {
  dtype: OracleDType;
  shape: number[];
  data:
    | Float32Array
    | Float64Array
    | Int32Array
    | BigInt64Array
    | Uint8Array
    | Int8Array
    | Uint16Array
    | Int16Array
    | number[];
};

export type OracleAttr = AttrValue;

export interface OracleSpec {
  op: string;
  opset?: number;
  domain?: string;
  /** null = omitted optional input (empty name in the node). */
  inputs: Array<OracleTensor | null>;
  attrs?: Record<string, OracleAttr>;
  /** Number of node outputs to fetch (default 1). */
  outputs?: number;
}

// Sessions are keyed by model bytes: identical op/attr/shape/dtype combos reuse one session,
// which matters because session creation dominates the cost of a tiny single-op run.
const sessions = new Map<string, Promise<ort.InferenceSession>>();

const sessionOptions: ort.InferenceSession.SessionOptions = {
  intraOpNumThreads: 1,
  interOpNumThreads: 1,
  executionMode: 'sequential',
  // The oracle should exercise the plain reference kernels, not fused/rewritten graphs.
  graphOptimizationLevel: 'disabled',
  logSeverityLevel: 3,
};

/** Session for serialized model bytes, created once per distinct model. */
export function getSession(model: Uint8Array): Promise<ort.InferenceSession> {
  const key = createHash('sha256').update(model).digest('hex');
  let s = sessions.get(key);
  if (!s) {
    s = ort.InferenceSession.create(model, sessionOptions);
    // A failed build must not poison the cache for a later, fixed call with equal bytes.
    s.catch(() => sessions.delete(key));
    sessions.set(key, s);
  }
  return s;
}

/** Number of cached sessions; lets tests check that repeated calls hit the cache. */
export function oracleCacheSize(): number {
  return sessions.size;
}

export async function releaseOracleSessions(): Promise<void> {
  const all = [...sessions.values()];
  sessions.clear();
  await Promise.all(all.map(async (p) => (await p.catch(() => null))?.release()));
}

function typedData(
  t: OracleTensor,
): Float32Array | Float64Array | Int32Array | BigInt64Array | Uint8Array | Int8Array | Uint16Array | Int16Array {
  const d = t.data;
  if (!Array.isArray(d)) return d;
  switch (t.dtype) {
    case 'float32':
      return Float32Array.from(d);
    case 'float64':
      return Float64Array.from(d);
    case 'int32':
      return Int32Array.from(d);
    case 'int64':
      return BigInt64Array.from(d, int64FromNumber);
    case 'bool':
      return Uint8Array.from(d, (x) => (x ? 1 : 0));
    case 'uint8':
      return Uint8Array.from(d);
    case 'int8':
      return Int8Array.from(d);
    case 'uint16':
      return Uint16Array.from(d);
    case 'int16':
      return Int16Array.from(d);
  }
}

function toOrtTensor(t: OracleTensor): ort.Tensor {
  const data = typedData(t);
  const n = t.shape.reduce((a, b) => a * b, 1);
  if (data.length !== n) throw new Error(`oracle input of shape [${t.shape}] needs ${n} elements, got ${data.length}`);
  return new ort.Tensor(t.dtype, data, t.shape);
}

function fromOrtTensor(t: ort.Tensor): OracleTensor {
  const shape = [...t.dims];
  // Copy: ORT may hand back views over native buffers that are reused or freed later.
  switch (t.type) {
    case 'float32':
      return { dtype: 'float32', shape, data: Float32Array.from(t.data as Float32Array) };
    case 'float64':
      return { dtype: 'float64', shape, data: Float64Array.from(t.data as Float64Array) };
    case 'int32':
      return { dtype: 'int32', shape, data: Int32Array.from(t.data as Int32Array) };
    case 'int64':
      return { dtype: 'int64', shape, data: BigInt64Array.from(t.data as BigInt64Array) };
    case 'bool':
      return { dtype: 'bool', shape, data: Uint8Array.from(t.data as Uint8Array) };
    case 'uint8':
      return { dtype: 'uint8', shape, data: Uint8Array.from(t.data as Uint8Array) };
    case 'int8':
      return { dtype: 'int8', shape, data: Int8Array.from(t.data as Int8Array) };
    case 'uint16':
      return { dtype: 'uint16', shape, data: Uint16Array.from(t.data as Uint16Array) };
    case 'int16':
      return { dtype: 'int16', shape, data: Int16Array.from(t.data as Int16Array) };
    default:
      throw new Error(`oracle: unsupported output dtype ${t.type}`);
  }
}

/** Runs a serialized model with named feeds; outputs come back in `outputNames` order. */
export async function runOnnxModel(
  model: Uint8Array,
  feeds: Record<string, OracleTensor>,
  outputNames?: string[],
): Promise<OracleTensor[]> {
  const session = await getSession(model);
  const ortFeeds: Record<string, ort.Tensor> = {};
  for (const [k, v] of Object.entries(feeds)) ortFeeds[k] = toOrtTensor(v);
  const names = outputNames ?? [...session.outputNames];
  const result = await session.run(ortFeeds, names);
  return names.map((n) => fromOrtTensor(result[n]!));
}

/** Computes one ONNX op on the given inputs (all fed at run time, never constant-folded). */
export async function runOnnxOp(spec: OracleSpec): Promise<OracleTensor[]> {
  // Trailing omitted inputs are left off the node: onnxruntime's Squeeze-13 rejects an empty `axes` name.
  let n = spec.inputs.length;
  while (n > 0 && spec.inputs[n - 1] === null) n--;
  spec = { ...spec, inputs: spec.inputs.slice(0, n) };
  const single = {
    op: spec.op,
    domain: spec.domain,
    opset: spec.opset ?? DEFAULT_OPSET,
    inputs: spec.inputs as Array<TensorData | null>,
    outputs: spec.outputs ?? 1,
    attrs: spec.attrs,
  };
  const model = buildSingleNodeModel(single);
  const names = singleNodeIoNames(single);
  const feeds: Record<string, OracleTensor> = {};
  spec.inputs.forEach((t, i) => {
    if (t !== null) feeds[names.inputs[i]!] = t;
  });
  return runOnnxModel(model, feeds, names.outputs);
}

/** Any oracle tensor as float64 values (int64 through Number, bools as 0/1). */
export function toFloat64(t: OracleTensor): Float64Array {
  const d = t.data;
  if (d instanceof BigInt64Array) return Float64Array.from(d, (x) => Number(x));
  return Float64Array.from(d as ArrayLike<number>);
}
