// Hand-written subset of the ONNX protobuf schema plus builders/decoders for ModelProto bytes, shared by the ORT oracle, the model importer and multi-node test models.
import protobuf from 'protobufjs';

// Wire-level facts (field numbers, enum values) follow the ONNX IR spec. onnx.proto is
// proto2, so repeated scalars are unpacked unless the spec marks them [packed = true];
// we mirror that explicitly because protobufjs's default depends on the edition it infers.
const unpacked = { packed: false };
const packed = { packed: true };

const onnxJson = {
  nested: {
    onnx: {
      nested: {
        AttributeType: {
          values: {
            UNDEFINED: 0,
            FLOAT: 1,
            INT: 2,
            STRING: 3,
            TENSOR: 4,
            GRAPH: 5,
            FLOATS: 6,
            INTS: 7,
            STRINGS: 8,
            TENSORS: 9,
            GRAPHS: 10,
          },
        },
        DataType: {
          values: {
            UNDEFINED: 0,
            FLOAT: 1,
            UINT8: 2,
            INT8: 3,
            UINT16: 4,
            INT16: 5,
            INT32: 6,
            INT64: 7,
            STRING: 8,
            BOOL: 9,
            FLOAT16: 10,
            DOUBLE: 11,
            UINT32: 12,
            UINT64: 13,
          },
        },
        AttributeProto: {
          fields: {
            name: { type: 'string', id: 1 },
            f: { type: 'float', id: 2 },
            i: { type: 'int64', id: 3 },
            s: { type: 'bytes', id: 4 },
            t: { type: 'TensorProto', id: 5 },
            g: { type: 'GraphProto', id: 6 },
            floats: { rule: 'repeated', type: 'float', id: 7, options: unpacked },
            ints: { rule: 'repeated', type: 'int64', id: 8, options: unpacked },
            strings: { rule: 'repeated', type: 'bytes', id: 9 },
            tensors: { rule: 'repeated', type: 'TensorProto', id: 10 },
            graphs: { rule: 'repeated', type: 'GraphProto', id: 11 },
            docString: { type: 'string', id: 13 },
            type: { type: 'AttributeType', id: 20 },
            refAttrName: { type: 'string', id: 21 },
          },
        },
        ValueInfoProto: {
          fields: {
            name: { type: 'string', id: 1 },
            type: { type: 'TypeProto', id: 2 },
            docString: { type: 'string', id: 3 },
          },
        },
        NodeProto: {
          fields: {
            input: { rule: 'repeated', type: 'string', id: 1 },
            output: { rule: 'repeated', type: 'string', id: 2 },
            name: { type: 'string', id: 3 },
            opType: { type: 'string', id: 4 },
            attribute: { rule: 'repeated', type: 'AttributeProto', id: 5 },
            docString: { type: 'string', id: 6 },
            domain: { type: 'string', id: 7 },
          },
        },
        StringStringEntryProto: {
          fields: {
            key: { type: 'string', id: 1 },
            value: { type: 'string', id: 2 },
          },
        },
        ModelProto: {
          fields: {
            irVersion: { type: 'int64', id: 1 },
            producerName: { type: 'string', id: 2 },
            producerVersion: { type: 'string', id: 3 },
            domain: { type: 'string', id: 4 },
            modelVersion: { type: 'int64', id: 5 },
            docString: { type: 'string', id: 6 },
            graph: { type: 'GraphProto', id: 7 },
            opsetImport: { rule: 'repeated', type: 'OperatorSetIdProto', id: 8 },
            metadataProps: { rule: 'repeated', type: 'StringStringEntryProto', id: 14 },
            functions: { rule: 'repeated', type: 'FunctionProto', id: 25 },
          },
        },
        SequenceProto: {
          fields: {
            name: { type: 'string', id: 1 },
            elemType: { type: 'int32', id: 2 },
            tensorValues: { rule: 'repeated', type: 'TensorProto', id: 3 },
            sequenceValues: { rule: 'repeated', type: 'SequenceProto', id: 5 },
            optionalValues: { rule: 'repeated', type: 'OptionalProto', id: 7 },
          },
        },
        OptionalProto: {
          fields: {
            name: { type: 'string', id: 1 },
            elemType: { type: 'int32', id: 2 },
            tensorValue: { type: 'TensorProto', id: 3 },
            sequenceValue: { type: 'SequenceProto', id: 5 },
            optionalValue: { type: 'OptionalProto', id: 7 },
          },
        },
        FunctionProto: {
          fields: {
            name: { type: 'string', id: 1 },
            input: { rule: 'repeated', type: 'string', id: 4 },
            output: { rule: 'repeated', type: 'string', id: 5 },
            attribute: { rule: 'repeated', type: 'string', id: 6 },
            node: { rule: 'repeated', type: 'NodeProto', id: 7 },
            opsetImport: { rule: 'repeated', type: 'OperatorSetIdProto', id: 9 },
            domain: { type: 'string', id: 10 },
            attributeProto: { rule: 'repeated', type: 'AttributeProto', id: 11 },
          },
        },
        GraphProto: {
          fields: {
            node: { rule: 'repeated', type: 'NodeProto', id: 1 },
            name: { type: 'string', id: 2 },
            initializer: { rule: 'repeated', type: 'TensorProto', id: 5 },
            docString: { type: 'string', id: 10 },
            input: { rule: 'repeated', type: 'ValueInfoProto', id: 11 },
            output: { rule: 'repeated', type: 'ValueInfoProto', id: 12 },
            valueInfo: { rule: 'repeated', type: 'ValueInfoProto', id: 13 },
          },
        },
        TensorProto: {
          fields: {
            dims: { rule: 'repeated', type: 'int64', id: 1, options: unpacked },
            dataType: { type: 'int32', id: 2 },
            floatData: { rule: 'repeated', type: 'float', id: 4, options: packed },
            int32Data: { rule: 'repeated', type: 'int32', id: 5, options: packed },
            stringData: { rule: 'repeated', type: 'bytes', id: 6 },
            int64Data: { rule: 'repeated', type: 'int64', id: 7, options: packed },
            name: { type: 'string', id: 8 },
            rawData: { type: 'bytes', id: 9 },
            doubleData: { rule: 'repeated', type: 'double', id: 10, options: packed },
            uint64Data: { rule: 'repeated', type: 'uint64', id: 11, options: packed },
            docString: { type: 'string', id: 12 },
          },
        },
        TensorShapeProto: {
          fields: {
            dim: { rule: 'repeated', type: 'Dimension', id: 1 },
          },
          nested: {
            Dimension: {
              oneofs: { value: { oneof: ['dimValue', 'dimParam'] } },
              fields: {
                dimValue: { type: 'int64', id: 1 },
                dimParam: { type: 'string', id: 2 },
                denotation: { type: 'string', id: 3 },
              },
            },
          },
        },
        TypeProto: {
          oneofs: { value: { oneof: ['tensorType', 'sequenceType', 'optionalType'] } },
          fields: {
            tensorType: { type: 'Tensor', id: 1 },
            sequenceType: { type: 'Sequence', id: 4 },
            denotation: { type: 'string', id: 6 },
            optionalType: { type: 'Optional', id: 9 },
          },
          nested: {
            Tensor: {
              fields: {
                elemType: { type: 'int32', id: 1 },
                shape: { type: 'TensorShapeProto', id: 2 },
              },
            },
            Sequence: { fields: { elemType: { type: 'TypeProto', id: 1 } } },
            Optional: { fields: { elemType: { type: 'TypeProto', id: 1 } } },
          },
        },
        OperatorSetIdProto: {
          fields: {
            domain: { type: 'string', id: 1 },
            version: { type: 'int64', id: 2 },
          },
        },
      },
    },
  },
};

export const onnxRoot: protobuf.Root = protobuf.Root.fromJSON(onnxJson);
export const ModelProto: protobuf.Type = onnxRoot.lookupType('onnx.ModelProto');
export const GraphProto: protobuf.Type = onnxRoot.lookupType('onnx.GraphProto');
export const NodeProto: protobuf.Type = onnxRoot.lookupType('onnx.NodeProto');
export const TensorProto: protobuf.Type = onnxRoot.lookupType('onnx.TensorProto');

/** TensorProto.DataType numbers. */
export const DataType = {
  float32: 1,
  uint8: 2,
  int8: 3,
  uint16: 4,
  int16: 5,
  int32: 6,
  int64: 7,
  bool: 9,
  float64: 11,
} as const;

export type DType = keyof typeof DataType;

const dtypeByCode = new Map<number, DType>(Object.entries(DataType).map(([k, v]) => [v, k as DType]));

export function dtypeFromOnnx(code: number): DType {
  const d = dtypeByCode.get(code);
  if (!d) throw new Error(`unsupported ONNX data type ${code}`);
  return d;
}

export type TypedData =
  Float32Array | Float64Array | Int32Array | BigInt64Array | Uint8Array | Int8Array | Int16Array | Uint16Array;

export interface TensorData {
  dtype: DType;
  shape: number[];
  data: TypedData | number[];
  /**
   * An ONNX element type code that overrides dtype, for types with no array of their own (int4, float8...): data is
   * then ONNX's bytes for the elements, packed as raw_data stores them.
   */
  elemType?: number;
}

/** AttributeProto.AttributeType numbers. */
export const AttrType = { FLOAT: 1, INT: 2, STRING: 3, TENSOR: 4, GRAPH: 5, FLOATS: 6, INTS: 7, STRINGS: 8 } as const;

/**
 * JS-side attribute values. Plain numbers are INT when integral (ONNX attributes like
 * axis/keepdims are far more common than float ones), hence the explicit float wrappers.
 */
export type AttrValue =
  | number
  | bigint
  | boolean
  | string
  | number[]
  | string[]
  | { float: number }
  | { floats: number[] }
  | { tensor: TensorData }
  | { graph: SubgraphSpec }
  /** Inside a function body: the calling node's attribute `ref`, of ONNX attribute type `type` (1 float, 2 int, 7 ints). */
  | { ref: string; type: number };

/** A control-flow body (If's then_branch): nodes reading the enclosing graph's values by name. */
export interface SubgraphSpec {
  nodes: NodeSpec[];
  inputs?: ValueInfoSpec[];
  outputs: ValueInfoSpec[];
  initializers?: InitializerSpec[];
}

export interface NodeSpec {
  op: string;
  inputs: string[];
  outputs: string[];
  attrs?: Record<string, AttrValue>;
  name?: string;
  domain?: string;
}

export interface ValueInfoSpec {
  name: string;
  /** Omitted on outputs lets ORT infer the type. */
  dtype?: DType;
  /** Numbers are fixed dims, strings symbolic ones, null unknown; omit for unknown rank. */
  shape?: Array<number | string | null>;
  /** A sequence of such tensors, or an optional one (a tensor by default). */
  kind?: 'sequence' | 'optional';
  /** An ONNX element type code that overrides dtype (int4, float8...: types with no DType here). */
  elemType?: number;
}

export interface InitializerSpec extends TensorData {
  name: string;
}

export interface OpsetImport {
  domain: string;
  version: number;
}

export interface ModelSpec {
  nodes: NodeSpec[];
  inputs: ValueInfoSpec[];
  outputs: ValueInfoSpec[];
  initializers?: InitializerSpec[];
  /** A number is the default-domain ("") opset. */
  opset?: number | OpsetImport[];
  irVersion?: number;
  graphName?: string;
  /** Model-local functions (IR 8+): nodes of `domain` named `name` call them. */
  functions?: FunctionSpec[];
}

export interface FunctionSpec {
  name: string;
  domain: string;
  inputs: string[];
  outputs: string[];
  /** Attributes without a default. */
  attributes?: string[];
  /** Attributes with a default. */
  defaults?: Record<string, AttrValue>;
  nodes: NodeSpec[];
  /** The body's default-domain opset (the model's when omitted). */
  opset?: number;
}

export const DEFAULT_OPSET = 17;

/** Lowest IR version that the ONNX release introducing `opset` shipped with (never below 7). */
export function irVersionForOpset(opset: number): number {
  if (opset >= 23) return 11;
  if (opset >= 21) return 10;
  if (opset >= 19) return 9;
  if (opset >= 15) return 8;
  return 7;
}

const INT64_MAX = 0x7fffffffffffffffn;
const INT64_MIN = -0x8000000000000000n;

/**
 * JS number to int64, saturating: INT64_MAX written as a number rounds up to 2^63, and
 * wrapping that to INT64_MIN would silently flip e.g. a Slice "end to the last element".
 */
export function int64FromNumber(x: number): bigint {
  const b = BigInt(Math.trunc(x));
  return b > INT64_MAX ? INT64_MAX : b < INT64_MIN ? INT64_MIN : b;
}

// protobufjs encodes int64 from numbers via doubles, which is lossy beyond 2^53 (e.g.
// INT64_MAX used as Slice "end"); a low/high pair keeps every bigint exact.
function int64(v: number | bigint): number | { low: number; high: number; unsigned: boolean } {
  if (typeof v === 'number') {
    if (!Number.isInteger(v)) throw new Error(`int64 value must be an integer, got ${v}`);
    if (Number.isSafeInteger(v)) return v;
    v = int64FromNumber(v);
  }
  const u = BigInt.asUintN(64, v);
  return {
    low: Number(u & 0xffffffffn) | 0,
    high: Number(u >> 32n) | 0,
    unsigned: false,
  };
}

function toTypedData(t: TensorData): TypedData {
  const { dtype, data } = t;
  if (!Array.isArray(data)) return data;
  switch (dtype) {
    case 'float32':
      return Float32Array.from(data);
    case 'float64':
      return Float64Array.from(data);
    case 'int32':
      return Int32Array.from(data);
    case 'int64':
      return BigInt64Array.from(data, int64FromNumber);
    case 'bool':
      return Uint8Array.from(data, (x) => (x ? 1 : 0));
    case 'uint8':
      return Uint8Array.from(data);
    case 'int8':
      return Int8Array.from(data);
    case 'int16':
      return Int16Array.from(data);
    case 'uint16':
      return Uint16Array.from(data);
  }
}

function checkCount(t: TensorData, n: number): void {
  const expected = t.shape.reduce((a, b) => a * b, 1);
  if (n !== expected) {
    throw new Error(`tensor of shape [${t.shape}] needs ${expected} elements, got ${n}`);
  }
}

/**
 * TensorProto message object. raw_data (little-endian) is used for every dtype so int64
 * and float64 round-trip bit-exactly without going through JS doubles.
 */
export function tensorProto(t: TensorData, name = ''): Record<string, unknown> {
  if (t.elemType !== undefined)
    return {
      name,
      dims: t.shape.map(int64),
      dataType: t.elemType,
      rawData: Uint8Array.from(t.data as ArrayLike<number>),
    };
  const typed = toTypedData(t);
  checkCount(t, typed.length);
  const raw = new Uint8Array(typed.buffer, typed.byteOffset, typed.byteLength).slice();
  return {
    name,
    dims: t.shape.map(int64),
    dataType: DataType[t.dtype],
    rawData: raw,
  };
}

function attributeProto(name: string, v: AttrValue): Record<string, unknown> {
  if (typeof v === 'boolean') return { name, type: AttrType.INT, i: v ? 1 : 0 };
  if (typeof v === 'bigint') return { name, type: AttrType.INT, i: int64(v) };
  if (typeof v === 'number') {
    return Number.isInteger(v) ? { name, type: AttrType.INT, i: int64(v) } : { name, type: AttrType.FLOAT, f: v };
  }
  if (typeof v === 'string') {
    return { name, type: AttrType.STRING, s: new TextEncoder().encode(v) };
  }
  if (Array.isArray(v)) {
    if (v.length > 0 && typeof v[0] === 'string') {
      const enc = new TextEncoder();
      return { name, type: AttrType.STRINGS, strings: (v as string[]).map((s) => enc.encode(s)) };
    }
    const nums = v as number[];
    // A non-integral element can only mean a float list; silently truncating would be worse.
    return nums.every(Number.isInteger)
      ? { name, type: AttrType.INTS, ints: nums.map(int64) }
      : { name, type: AttrType.FLOATS, floats: nums };
  }
  if ('float' in v) return { name, type: AttrType.FLOAT, f: v.float };
  if ('floats' in v) return { name, type: AttrType.FLOATS, floats: v.floats };
  if ('tensor' in v) return { name, type: AttrType.TENSOR, t: tensorProto(v.tensor) };
  if ('graph' in v) return { name, type: AttrType.GRAPH, g: graphProto(v.graph, name) };
  if ('ref' in v) return { name, type: v.type, refAttrName: v.ref };
  throw new Error(`unsupported attribute value for ${name}`);
}

function valueInfoProto(v: ValueInfoSpec): Record<string, unknown> {
  if (v.dtype === undefined && v.elemType === undefined) return { name: v.name };
  const tensorType: Record<string, unknown> = { elemType: v.elemType ?? DataType[v.dtype!] };
  if (v.shape) {
    tensorType.shape = {
      dim: v.shape.map((d) =>
        typeof d === 'number' ? { dimValue: int64(d) } : typeof d === 'string' ? { dimParam: d } : {},
      ),
    };
  }
  const type = { tensorType };
  if (v.kind === 'sequence') return { name: v.name, type: { sequenceType: { elemType: type } } };
  if (v.kind === 'optional') return { name: v.name, type: { optionalType: { elemType: type } } };
  return { name: v.name, type };
}

function graphProto(g: SubgraphSpec, name: string): Record<string, unknown> {
  return {
    name,
    node: g.nodes.map((n, idx) => ({
      name: n.name ?? `${name}_n${idx}_${n.op}`,
      opType: n.op,
      domain: n.domain ?? '',
      input: n.inputs,
      output: n.outputs,
      attribute: Object.entries(n.attrs ?? {}).map(([k, v]) => attributeProto(k, v)),
    })),
    initializer: (g.initializers ?? []).map((t) => tensorProto(t, t.name)),
    input: (g.inputs ?? []).map(valueInfoProto),
    output: g.outputs.map(valueInfoProto),
  };
}

/** Serialized ModelProto for an arbitrary graph. */
export function buildModel(spec: ModelSpec): Uint8Array {
  const opsets: OpsetImport[] =
    typeof spec.opset === 'object' ? spec.opset : [{ domain: '', version: spec.opset ?? DEFAULT_OPSET }];
  // Nodes in other domains (e.g. com.microsoft) still need their domain imported.
  for (const n of spec.nodes) {
    const d = n.domain ?? '';
    if (!opsets.some((o) => o.domain === d)) opsets.push({ domain: d, version: 1 });
  }
  const mainOpset = opsets.find((o) => o.domain === '' || o.domain === 'ai.onnx')?.version ?? DEFAULT_OPSET;

  const model = {
    irVersion: int64(spec.irVersion ?? irVersionForOpset(mainOpset)),
    producerName: 'raf-op-test',
    opsetImport: opsets.map((o) => ({ domain: o.domain, version: int64(o.version) })),
    graph: {
      name: spec.graphName ?? 'g',
      node: spec.nodes.map((n, idx) => ({
        name: n.name ?? `n${idx}_${n.op}`,
        opType: n.op,
        domain: n.domain ?? '',
        input: n.inputs,
        output: n.outputs,
        attribute: Object.entries(n.attrs ?? {}).map(([k, v]) => attributeProto(k, v)),
      })),
      initializer: (spec.initializers ?? []).map((t) => tensorProto(t, t.name)),
      input: spec.inputs.map(valueInfoProto),
      output: spec.outputs.map(valueInfoProto),
    },
    functions: (spec.functions ?? []).map((fn) => ({
      name: fn.name,
      domain: fn.domain,
      input: fn.inputs,
      output: fn.outputs,
      attribute: fn.attributes ?? [],
      attributeProto: Object.entries(fn.defaults ?? {}).map(([k, v]) => attributeProto(k, v)),
      node: fn.nodes.map((n, idx) => ({
        name: n.name ?? `${fn.name}_${idx}_${n.op}`,
        opType: n.op,
        domain: n.domain ?? '',
        input: n.inputs,
        output: n.outputs,
        attribute: Object.entries(n.attrs ?? {}).map(([k, v]) => attributeProto(k, v)),
      })),
      opsetImport: [
        { domain: '', version: int64(fn.opset ?? mainOpset) },
        // Domains the body calls (other functions) are imported too, as onnxruntime requires.
        ...[...new Set(fn.nodes.map((n) => n.domain ?? '').filter((d) => d !== ''))].map((domain) => ({
          domain,
          version: int64(1),
        })),
      ],
    })),
  };
  const err = ModelProto.verify(model);
  if (err) throw new Error(`invalid ModelProto: ${err}`);
  return ModelProto.encode(ModelProto.fromObject(model)).finish();
}

export interface SingleNodeSpec {
  op: string;
  domain?: string;
  opset?: number | OpsetImport[];
  /** null marks an omitted optional input (empty name in the node). */
  inputs: Array<(TensorData & { name?: string }) | null>;
  /** Number of outputs, or explicit output value infos. */
  outputs?: number | ValueInfoSpec[];
  attrs?: Record<string, AttrValue>;
  /** Provide some inputs as initializers instead of graph inputs (by index). */
  constInputs?: number[];
}

/** Graph input/output names chosen by buildSingleNodeModel, so feeds can be built to match. */
export function singleNodeIoNames(spec: SingleNodeSpec): { inputs: string[]; outputs: string[] } {
  const inputs = spec.inputs.map((t, i) => (t === null ? '' : (t.name ?? `x${i}`)));
  const outs = spec.outputs ?? 1;
  const outputs = typeof outs === 'number' ? Array.from({ length: outs }, (_, i) => `y${i}`) : outs.map((o) => o.name);
  return { inputs, outputs };
}

/** One-node model whose inputs are graph inputs typed and shaped like the given tensors. */
export function buildSingleNodeModel(spec: SingleNodeSpec): Uint8Array {
  const names = singleNodeIoNames(spec);
  const consts = new Set(spec.constInputs ?? []);
  const inputs: ValueInfoSpec[] = [];
  const initializers: InitializerSpec[] = [];
  spec.inputs.forEach((t, i) => {
    if (t === null) return;
    const name = names.inputs[i]!;
    if (consts.has(i)) initializers.push({ ...t, name });
    else inputs.push({ name, dtype: t.dtype, shape: t.shape });
  });
  const outputs: ValueInfoSpec[] =
    typeof spec.outputs === 'object' ? spec.outputs : names.outputs.map((name) => ({ name }));
  return buildModel({
    nodes: [{ op: spec.op, domain: spec.domain, inputs: names.inputs, outputs: names.outputs, attrs: spec.attrs }],
    inputs,
    outputs,
    initializers,
    opset: spec.opset,
  });
}

/** Decoded ModelProto as a plain object (int64 fields as JS numbers, bytes as Uint8Array). */
export function decodeModel(bytes: Uint8Array): Record<string, any> {
  const msg = ModelProto.decode(bytes);
  return ModelProto.toObject(msg, { longs: Number, enums: Number, arrays: true, defaults: false });
}

/** TensorProto (as returned inside decodeModel) to TensorData. */
export function tensorFromProto(t: Record<string, any>): TensorData {
  const dtype = dtypeFromOnnx(t.dataType);
  const shape: number[] = (t.dims ?? []).map(Number);
  const n = shape.reduce((a, b) => a * b, 1);
  const raw: Uint8Array | undefined = t.rawData;
  if (raw && raw.length > 0) {
    // Copy into a fresh Uint8Array (not Buffer#slice, which shares Node's pooled buffer) so
    // the typed view is aligned and covers exactly this tensor.
    const buf = new Uint8Array(raw).buffer;
    const data: TypedData = (() => {
      switch (dtype) {
        case 'float32':
          return new Float32Array(buf);
        case 'float64':
          return new Float64Array(buf);
        case 'int32':
          return new Int32Array(buf);
        case 'int64':
          return new BigInt64Array(buf);
        case 'bool':
        case 'uint8':
          return new Uint8Array(buf);
        case 'int8':
          return new Int8Array(buf);
        case 'int16':
          return new Int16Array(buf);
        case 'uint16':
          return new Uint16Array(buf);
      }
    })();
    return { dtype, shape, data };
  }
  switch (dtype) {
    case 'float32':
      return { dtype, shape, data: Float32Array.from(t.floatData ?? []) };
    case 'float64':
      return { dtype, shape, data: Float64Array.from(t.doubleData ?? []) };
    case 'int64':
      return { dtype, shape, data: BigInt64Array.from((t.int64Data ?? []) as number[], (x) => BigInt(x)) };
    default: {
      // int32_data also carries int8/int16/uint8/bool per the spec.
      const vals: number[] = t.int32Data ?? [];
      const data = toTypedData({ dtype, shape, data: vals });
      if (data.length !== n) throw new Error(`tensor ${t.name}: expected ${n} values, got ${data.length}`);
      return { dtype, shape, data };
    }
  }
}
