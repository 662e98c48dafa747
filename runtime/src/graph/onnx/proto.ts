// Decoding side of ONNX's protobuf schema (the subset FromOnnx reads), so model import works outside the tests.

import type protobufjs from 'protobufjs';
import { bfloat16FromBits, type DType } from '../../dtype.ts';
import { internString } from '../../strings.ts';
import { carrierOf, packedLength, unpackFormat, type NarrowFormat } from '../../formats.ts';
import { inlineFunctions, type OnnxFunction } from './functions.ts';

// Field numbers follow onnx.proto (proto2: repeated scalars unpacked unless marked packed).
const unpacked = { packed: false };
const packed = { packed: true };
const f = (type: string, id: number, extra: object = {}) => ({ type, id, ...extra });
const r = (type: string, id: number, options?: object) => ({
  rule: 'repeated',
  type,
  id,
  ...(options ? { options } : {}),
});

const SCHEMA = {
  nested: {
    onnx: {
      nested: {
        AttributeProto: {
          fields: {
            name: f('string', 1),
            f: f('float', 2),
            i: f('int64', 3),
            s: f('bytes', 4),
            t: f('TensorProto', 5),
            g: f('GraphProto', 6),
            floats: r('float', 7, unpacked),
            ints: r('int64', 8, unpacked),
            strings: r('bytes', 9),
            graphs: r('GraphProto', 11),
            tp: f('TypeProto', 14),
            tps: r('TypeProto', 15),
            type: f('int32', 20),
            refAttrName: f('string', 21),
          },
        },
        ValueInfoProto: { fields: { name: f('string', 1), type: f('TypeProto', 2) } },
        NodeProto: {
          fields: {
            input: r('string', 1),
            output: r('string', 2),
            name: f('string', 3),
            opType: f('string', 4),
            attribute: r('AttributeProto', 5),
            domain: f('string', 7),
            overload: f('string', 8),
          },
        },
        ModelProto: {
          fields: {
            irVersion: f('int64', 1),
            graph: f('GraphProto', 7),
            opsetImport: r('OperatorSetIdProto', 8),
            functions: r('FunctionProto', 25),
          },
        },
        // A model-local function (ONNX IR 8): a named subgraph that nodes of its domain call like an op.
        FunctionProto: {
          fields: {
            name: f('string', 1),
            input: r('string', 4),
            output: r('string', 5),
            attribute: r('string', 6),
            node: r('NodeProto', 7),
            opsetImport: r('OperatorSetIdProto', 9),
            domain: f('string', 10),
            attributeProto: r('AttributeProto', 11),
            overload: f('string', 13),
          },
        },
        GraphProto: {
          fields: {
            node: r('NodeProto', 1),
            name: f('string', 2),
            initializer: r('TensorProto', 5),
            input: r('ValueInfoProto', 11),
            output: r('ValueInfoProto', 12),
            valueInfo: r('ValueInfoProto', 13),
          },
        },
        TensorProto: {
          fields: {
            dims: r('int64', 1, unpacked),
            dataType: f('int32', 2),
            floatData: r('float', 4, packed),
            int32Data: r('int32', 5, packed),
            stringData: r('bytes', 6),
            int64Data: r('int64', 7, packed),
            name: f('string', 8),
            rawData: f('bytes', 9),
            doubleData: r('double', 10, packed),
            uint64Data: r('uint64', 11, packed),
          },
        },
        TensorShapeProto: {
          fields: { dim: r('Dimension', 1) },
          nested: {
            Dimension: {
              oneofs: { value: { oneof: ['dimValue', 'dimParam'] } },
              fields: { dimValue: f('int64', 1), dimParam: f('string', 2) },
            },
          },
        },
        TypeProto: {
          // Sequence, map, optional and sparse types are kept as bytes: FromOnnx only needs to know a value is one.
          fields: {
            tensorType: f('Tensor', 1),
            sequenceType: f('bytes', 4),
            mapType: f('bytes', 5),
            sparseTensorType: f('bytes', 8),
            optionalType: f('bytes', 9),
          },
          nested: { Tensor: { fields: { elemType: f('int32', 1), shape: f('TensorShapeProto', 2) } } },
        },
        OperatorSetIdProto: { fields: { domain: f('string', 1), version: f('int64', 2) } },
      },
    },
  },
};

// protobufjs loads on the first decode, not when the runtime is imported: in Node synchronously (require), in a
// page once `await initOnnx()` has imported it.
let protobuf: typeof protobufjs | undefined;
let modelProto: protobufjs.Type | undefined;

/** Loads the ONNX decoder (protobufjs) asynchronously; needed before `fromOnnx(bytes)` outside Node. */
export async function initOnnx(): Promise<void> {
  protobuf ??= ((await import('protobufjs')) as { default: typeof protobufjs }).default;
}

function ModelProto(): protobufjs.Type {
  if (modelProto) return modelProto;
  if (!protobuf) {
    // process.getBuiltinModule (Node >= 20.16) rather than a static import, so a page's bundle pulls in no Node module.
    const mod = (
      globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }
    ).process?.getBuiltinModule?.('node:module') as typeof import('node:module') | undefined;
    if (!mod) throw new Error('FromOnnx: decoding ONNX bytes outside Node needs `await initOnnx()` first');
    protobuf = mod.createRequire(import.meta.url)('protobufjs') as typeof protobufjs;
  }
  modelProto = protobuf.Root.fromJSON(SCHEMA).lookupType('onnx.ModelProto');
  return modelProto;
}

/** ONNX element types FromOnnx reads, each as the raf-op dtype of the same name (int64 values are read as numbers). */
const ELEM: Readonly<Record<number, DType | 'int64'>> = {
  1: 'float32',
  2: 'uint8',
  3: 'int8',
  4: 'uint16',
  5: 'int16',
  6: 'int32',
  7: 'int64',
  9: 'bool',
  10: 'float16',
  11: 'float64',
  12: 'uint32',
  13: 'uint64',
  16: 'bfloat16',
};

/**
 * ONNX's narrow element types: raf-op holds their values in a carrier dtype (formats.ts), and remembers the type, so
 * that Cast, QuantizeLinear and the model's outputs keep ONNX's semantics.
 */
const NARROW: Readonly<Record<number, NarrowFormat>> = {
  17: 'float8e4m3fn',
  18: 'float8e4m3fnuz',
  19: 'float8e5m2',
  20: 'float8e5m2fnuz',
  21: 'uint4',
  22: 'int4',
  23: 'float4e2m1',
  24: 'float8e8m0',
  25: 'uint2',
  26: 'int2',
};

/** The narrow format of an ONNX element type code, if it is one (Cast's `to`, QuantizeLinear's output_dtype). */
export function narrowFormatOf(code: number): NarrowFormat | undefined {
  return NARROW[code];
}

/** Names of the ONNX element types raf-op neither has a dtype for nor carries (TensorProto.DataType), for messages. */
const UNREAD: Readonly<Record<number, string>> = {
  0: 'UNDEFINED',
  8: 'string',
  14: 'complex64',
  15: 'complex128',
};

/** An ONNX element type code as ONNX names it (TensorProto.DataType), raf-op's dtype name where it has one. */
export function onnxTypeName(code: number): string {
  return ELEM[code] ?? NARROW[code] ?? UNREAD[code] ?? `element type ${code}`;
}

/** Raw-data readers per ONNX element type code (little-endian, as onnx.proto stores raw_data). */
const RAW: Readonly<Record<number, (buf: ArrayBuffer) => ArrayLike<number>>> = {
  1: (b) => new Float32Array(b),
  2: (b) => new Uint8Array(b),
  3: (b) => new Int8Array(b),
  4: (b) => new Uint16Array(b),
  5: (b) => new Int16Array(b),
  6: (b) => new Int32Array(b),
  7: (b) => Array.from(new BigInt64Array(b), Number),
  9: (b) => new Uint8Array(b),
  10: (b) => halvesToFloat32(new Uint16Array(b)),
  11: (b) => new Float64Array(b),
  12: (b) => new Uint32Array(b),
  // Values beyond 2^53 become numbers that are not safe integers, which constTensor refuses naming the tensor.
  13: (b) => Array.from(new BigUint64Array(b), Number),
  16: (b) => Float32Array.from(new Uint16Array(b), bfloat16FromBits),
};

/** Bytes per element of each raw-data element type. */
const RAW_WIDTH: Readonly<Record<number, number>> = {
  1: 4,
  2: 1,
  3: 1,
  4: 2,
  5: 2,
  6: 4,
  7: 8,
  9: 1,
  10: 2,
  11: 8,
  12: 4,
  13: 8,
  16: 2,
};

/** Every float16 bit pattern's value, built on first use: a float16 weight then widens with one table read. */
let halfTable: Float32Array | undefined;

/** float16 bits → their float32 values (exact: every float16 value is a float32 one). */
function halvesToFloat32(bits: Uint16Array): Float32Array {
  if (!halfTable) {
    halfTable = new Float32Array(0x10000);
    for (let h = 0; h < 0x10000; h++) halfTable[h] = halfToNumber(h);
  }
  const table = halfTable;
  const out = new Float32Array(bits.length);
  for (let i = 0; i < bits.length; i++) out[i] = table[bits[i]!]!;
  return out;
}

/** IEEE half bits → number. */
function halfToNumber(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

export interface OnnxTensor {
  readonly name: string;
  readonly dtype: DType | 'int64';
  readonly shape: number[];
  /** The elements as a list of numbers, read on first use (small values: attributes, shapes, axes). */
  readonly values: number[];
  /**
   * The elements in one array, read on first use: for raw data, a typed array over a copy of the bytes (weights go
   * into tensors with no per-element work); for the typed lists, the list.
   */
  readonly data: ArrayLike<number>;
  /** ONNX's narrow element type (int4, float8...), whose values `dtype` (its carrier) holds. */
  readonly format?: NarrowFormat;
  /** A tensor of strings: `data` holds their ids in raf-op's string table (strings.ts), in int32. */
  readonly strings?: true;
}

/** A tensor whose elements are read only when asked for, once: an initializer no node reads costs nothing. */
function lazyTensor(
  name: string,
  dtype: DType | 'int64',
  shape: number[],
  read: () => ArrayLike<number>,
  format?: NarrowFormat,
): OnnxTensor {
  let data: ArrayLike<number> | undefined;
  let values: number[] | undefined;
  return {
    name,
    dtype,
    shape,
    ...(format ? { format } : {}),
    get data() {
      return (data ??= read());
    },
    get values() {
      if (!values) {
        const d = this.data;
        values = new Array<number>(d.length);
        for (let i = 0; i < d.length; i++) values[i] = d[i]!;
      }
      return values;
    },
  };
}

export interface OnnxAttr {
  readonly name: string;
  readonly value: number | number[] | string | OnnxTensor | OnnxGraph | OnnxGraph[];
  /** In a model-local function's body: the calling node's attribute this one takes its value from. */
  readonly ref?: string;
}

export interface OnnxNode {
  readonly opType: string;
  readonly domain: string;
  /** A model-local function's overload (IR 10), when the node calls one. */
  readonly overload?: string;
  /** The default-domain opset this node follows when it differs from the model's (a function body's own import). */
  readonly opset?: number;
  readonly name: string;
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  readonly attrs: readonly OnnxAttr[];
}

export interface OnnxValueInfo {
  readonly name: string;
  /** What kind of value: a tensor (or untyped), or an ONNX sequence, map, optional or sparse tensor. */
  readonly kind: 'tensor' | 'sequence' | 'map' | 'optional' | 'sparse tensor';
  readonly dtype: DType | 'int64' | null;
  readonly shape: (number | string)[] | null;
  /** ONNX's narrow element type (int4, float8...), whose values `dtype` (its carrier) holds. */
  readonly format?: NarrowFormat;
  /** A value of strings, fed and returned as string tensors (strings.ts: int32 ids). */
  readonly strings?: true;
}

/** A graph: the model's main graph, or a control-flow body (If's branches, Loop's body). */
export interface OnnxGraph {
  readonly name?: string;
  readonly nodes: readonly OnnxNode[];
  readonly initializers: readonly OnnxTensor[];
  readonly inputs: readonly OnnxValueInfo[];
  readonly outputs: readonly OnnxValueInfo[];
}

export interface OnnxModel extends OnnxGraph {
  readonly opset: number;
}

export function isOnnxGraph(v: unknown): v is OnnxGraph {
  return typeof v === 'object' && v !== null && 'nodes' in v;
}

function elemType(code: number, what: string): DType | 'int64' {
  // Strings travel as int32 ids into raf-op's string table (strings.ts).
  if (code === STRING) return 'int32';
  const d = ELEM[code] ?? (NARROW[code] && carrierOf(NARROW[code]));
  if (!d)
    throw new Error(
      `FromOnnx: ${what} has ONNX element type ${code} (${onnxTypeName(code)}), which raf-op has no tensor for and does not read`,
    );
  return d;
}

/** ONNX's element type code of strings. */
const STRING = 8;

function tensorOf(t: Record<string, any>): OnnxTensor {
  const dtype = elemType(t.dataType, `tensor '${t.name ?? ''}'`);
  const shape: number[] = (t.dims ?? []).map(Number);
  if (t.dataType === STRING) {
    const items = (t.stringData ?? []) as Uint8Array[];
    const n = shape.reduce((a, b) => a * b, 1);
    if (items.length !== n)
      throw new Error(
        `FromOnnx: tensor '${t.name ?? ''}' holds ${items.length} strings, its shape [${shape.join(', ')}] needs ${n}`,
      );
    const decoder = new TextDecoder();
    return {
      ...lazyTensor(t.name ?? '', 'int32', shape, () => Int32Array.from(items, (b) => internString(decoder.decode(b)))),
      strings: true,
    };
  }
  const raw: Uint8Array | undefined = t.rawData;
  const format = NARROW[t.dataType];
  if (format) return narrowTensor(t, format, shape);
  if (raw && raw.length) {
    const read = RAW[t.dataType];
    if (!read)
      throw new Error(`FromOnnx: raw data of element type ${t.dataType} in tensor '${t.name}' is not supported`);
    const n = shape.reduce((a, b) => a * b, 1);
    const width = RAW_WIDTH[t.dataType] ?? 1;
    if (raw.length !== n * width)
      throw new Error(
        `FromOnnx: tensor '${t.name ?? ''}' has ${raw.length} bytes of raw data, its shape [${shape.join(', ')}] needs ${n * width}`,
      );
    // A copy of the bytes (raw data may sit at any offset of the model's buffer, not aligned to the element), made
    // when the tensor is first read.
    return lazyTensor(t.name ?? '', dtype, shape, () => read(new Uint8Array(raw).buffer));
  }
  const lists = [t.floatData, t.doubleData, t.int64Data, t.uint64Data, t.int32Data] as (number[] | undefined)[];
  const list = lists.find((l) => l && l.length) ?? [];
  const n = shape.reduce((a, b) => a * b, 1);
  if (list.length !== n)
    throw new Error(
      `FromOnnx: tensor '${t.name ?? ''}' holds ${list.length} value${list.length === 1 ? '' : 's'}, its shape [${shape.join(', ')}] needs ${n}` +
        (list.length === 0
          ? '; its data may be stored outside the model (external data), which FromOnnx does not read'
          : '; the model is malformed or was cut short'),
    );
  // float16 and bfloat16 in int32_data hold the bits; uint32 and uint64 come in uint64_data.
  return lazyTensor(t.name ?? '', dtype, shape, () =>
    t.dataType === 10
      ? list.map(halfToNumber)
      : t.dataType === 16
        ? list.map(bfloat16FromBits)
        : t.dataType === 7 || t.dataType === 13 || t.dataType === 12
          ? list.map(Number)
          : list,
  );
}

/**
 * A tensor of a narrow type: its bytes (raw_data, or int32_data holding one byte each) unpacked into the format's
 * carrier dtype, 4-bit elements two to a byte and 2-bit ones four, the first in the lowest bits.
 */
function narrowTensor(t: Record<string, any>, format: NarrowFormat, shape: number[]): OnnxTensor {
  const n = shape.reduce((a, b) => a * b, 1);
  const raw: Uint8Array | undefined = t.rawData;
  const bytes: ArrayLike<number> = raw && raw.length ? raw : ((t.int32Data ?? []) as number[]).map((v) => v & 0xff);
  const need = packedLength(format, n);
  if (bytes.length !== need)
    throw new Error(
      `FromOnnx: tensor '${t.name ?? ''}' (${format}) holds ${bytes.length} bytes, its shape [${shape.join(', ')}] needs ${need}` +
        (bytes.length === 0
          ? '; its data may be stored outside the model (external data), which FromOnnx does not read'
          : ''),
    );
  return lazyTensor(t.name ?? '', carrierOf(format), shape, () => unpackFormat(format, bytes, n), format);
}

function attrOf(a: Record<string, any>): OnnxAttr {
  // Inside a function body, an attribute may name one of the calling node's attributes instead of holding a value.
  if (a.refAttrName) return { name: a.name, value: [], ref: a.refAttrName };
  // AttributeType: FLOAT 1, INT 2, STRING 3, TENSOR 4, GRAPH 5, FLOATS 6, INTS 7, STRINGS 8, GRAPHS 10.
  switch (a.type) {
    case 1:
      return { name: a.name, value: a.f ?? 0 };
    case 2:
      return { name: a.name, value: Number(a.i ?? 0) };
    case 3:
      return { name: a.name, value: new TextDecoder().decode(a.s) };
    case 4:
      return { name: a.name, value: tensorOf(a.t) };
    case 6:
      return { name: a.name, value: (a.floats ?? []).map(Number) };
    case 5:
      return { name: a.name, value: graphOf(a.g ?? {}) };
    case 7:
      return { name: a.name, value: (a.ints ?? []).map(Number) };
    case 8:
      return {
        name: a.name,
        value: (a.strings ?? []).map((b: Uint8Array) => new TextDecoder().decode(b)).join('\u0000'),
      };
    case 10:
      return { name: a.name, value: (a.graphs ?? []).map(graphOf) };
    // TYPE_PROTO 13 (Optional's type) and TYPE_PROTOS 14: the type spelled as ONNX does, "optional(seq(tensor(float)))".
    case 13:
      return { name: a.name, value: typeProtoName(a.tp ?? {}) };
    case 14:
      return { name: a.name, value: (a.tps ?? []).map(typeProtoName).join('\u0000') };
    default:
      throw new Error(`attribute '${a.name}' has type ${a.type}, which raf-op does not read`);
  }
}

/** A TypeProto as ONNX spells it: tensor(float32); the element types of seq(...), optional(...), map(...) are not read. */
function typeProtoName(t: Record<string, any>): string {
  if (t.tensorType) return `tensor(${onnxTypeName(t.tensorType.elemType ?? 0)})`;
  if (t.sequenceType) return 'seq(...)';
  if (t.optionalType) return 'optional(...)';
  if (t.mapType) return 'map(...)';
  if (t.sparseTensorType) return 'sparse_tensor(...)';
  return 'unknown';
}

function valueInfo(v: Record<string, any>): OnnxValueInfo {
  const tt = v.type?.tensorType;
  const kind = v.type?.sequenceType
    ? 'sequence'
    : v.type?.mapType
      ? 'map'
      : v.type?.optionalType
        ? 'optional'
        : v.type?.sparseTensorType
          ? 'sparse tensor'
          : 'tensor';
  const format = tt?.elemType ? NARROW[tt.elemType] : undefined;
  return {
    name: v.name,
    kind,
    ...(format ? { format } : {}),
    ...(tt?.elemType === STRING ? { strings: true as const } : {}),
    dtype: tt?.elemType ? elemType(tt.elemType, `value '${v.name}'`) : null,
    shape: tt?.shape
      ? (tt.shape.dim ?? []).map((d: any) => (d.dimValue !== undefined ? Number(d.dimValue) : (d.dimParam ?? '?')))
      : null,
  };
}

function graphOf(g: Record<string, any>): OnnxGraph {
  return {
    name: g.name ?? '',
    nodes: (g.node ?? []).map((n: any, k: number) => {
      let attrs: OnnxAttr[];
      try {
        attrs = (n.attribute ?? []).map(attrOf);
      } catch (e) {
        throw new Error(`FromOnnx node ${k} ('${n.name ?? ''}', ${n.opType}): ${(e as Error).message}`);
      }
      return {
        opType: n.opType,
        domain: n.domain ?? '',
        ...(n.overload ? { overload: n.overload } : {}),
        name: n.name ?? '',
        inputs: n.input ?? [],
        outputs: n.output ?? [],
        attrs,
      };
    }),
    initializers: (g.initializer ?? []).map(tensorOf),
    inputs: (g.input ?? []).map(valueInfo),
    outputs: (g.output ?? []).map(valueInfo),
  };
}

/** Decodes serialized ModelProto bytes into the parts FromOnnx converts. */
export function decodeOnnx(bytes: Uint8Array): OnnxModel {
  if (!bytes.length) throw new Error('FromOnnx: the model is empty (0 bytes)');
  const type = ModelProto();
  let m: Record<string, any>;
  try {
    m = type.toObject(type.decode(bytes), { longs: Number, arrays: true }) as Record<string, any>;
  } catch (e) {
    throw new Error(
      `FromOnnx: these ${bytes.length} bytes are not an ONNX model (${(e as Error).message}); the file may be truncated, or not a .onnx file`,
    );
  }
  if (!m.graph || (!(m.graph.node ?? []).length && !(m.graph.output ?? []).length))
    throw new Error(
      `FromOnnx: these ${bytes.length} bytes decode to a model with no graph (no nodes, no outputs); is it an ONNX model?`,
    );
  const imports = (m.opsetImport ?? []).find((o: any) => !o.domain || o.domain === 'ai.onnx');
  const opset = Number(imports?.version ?? 1);
  if (opset > NEWEST_OPSET)
    throw new Error(
      `FromOnnx: the model imports ONNX opset ${opset}; raf-op's mappings know opsets up to ${NEWEST_OPSET} (ONNX 1.22)`,
    );
  const graph = graphOf(m.graph);
  const functions = (m.functions ?? []).map((fn: Record<string, any>) => functionOf(fn, opset));
  return { opset, ...(functions.length ? inlineFunctions(graph, functions) : graph) };
}

function functionOf(fn: Record<string, any>, modelOpset: number): OnnxFunction {
  const own = (fn.opsetImport ?? []).find((o: any) => !o.domain || o.domain === 'ai.onnx');
  const where = `function '${fn.domain ? `${fn.domain}.` : ''}${fn.name}'`;
  let defaults: OnnxAttr[];
  let body: OnnxGraph;
  try {
    defaults = (fn.attributeProto ?? []).map(attrOf);
    body = graphOf({ node: fn.node ?? [] });
  } catch (e) {
    throw new Error(`FromOnnx ${where}: ${(e as Error).message.replace(/^FromOnnx /, '')}`);
  }
  return {
    name: fn.name ?? '',
    domain: fn.domain ?? '',
    overload: fn.overload ?? '',
    inputs: fn.input ?? [],
    outputs: fn.output ?? [],
    attributes: [...(fn.attribute ?? []), ...defaults.map((a) => a.name)],
    defaults,
    nodes: body.nodes,
    opset: own ? Number(own.version) : modelOpset,
  };
}

/** The newest default-domain opset raf-op's mappings were written against (ONNX 1.22's operator set). */
export const NEWEST_OPSET = 27;
