// Decoding side of ONNX's protobuf schema (the subset FromOnnx reads), so model import works outside the tests.

import type protobufjs from 'protobufjs';
import type { DType } from '../../dtype.ts';

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
            floats: r('float', 7, unpacked),
            ints: r('int64', 8, unpacked),
            strings: r('bytes', 9),
            type: f('int32', 20),
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
          },
        },
        ModelProto: {
          fields: { irVersion: f('int64', 1), graph: f('GraphProto', 7), opsetImport: r('OperatorSetIdProto', 8) },
        },
        GraphProto: {
          fields: {
            node: r('NodeProto', 1),
            name: f('string', 2),
            initializer: r('TensorProto', 5),
            input: r('ValueInfoProto', 11),
            output: r('ValueInfoProto', 12),
          },
        },
        TensorProto: {
          fields: {
            dims: r('int64', 1, unpacked),
            dataType: f('int32', 2),
            floatData: r('float', 4, packed),
            int32Data: r('int32', 5, packed),
            int64Data: r('int64', 7, packed),
            name: f('string', 8),
            rawData: f('bytes', 9),
            doubleData: r('double', 10, packed),
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
          fields: { tensorType: f('Tensor', 1) },
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

/** ONNX element types FromOnnx reads; int64 values are read as numbers (shapes, axes). */
const ELEM: Readonly<Record<number, DType | 'int64'>> = {
  1: 'float32',
  6: 'int32',
  7: 'int64',
  9: 'bool',
  10: 'float16',
  11: 'float64',
};

export interface OnnxTensor {
  readonly name: string;
  readonly dtype: DType | 'int64';
  readonly shape: number[];
  readonly values: number[];
}

export interface OnnxAttr {
  readonly name: string;
  readonly value: number | number[] | string | OnnxTensor;
}

export interface OnnxNode {
  readonly opType: string;
  readonly domain: string;
  readonly name: string;
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  readonly attrs: readonly OnnxAttr[];
}

export interface OnnxValueInfo {
  readonly name: string;
  readonly dtype: DType | 'int64' | null;
  readonly shape: (number | string)[] | null;
}

export interface OnnxModel {
  readonly opset: number;
  readonly nodes: readonly OnnxNode[];
  readonly initializers: readonly OnnxTensor[];
  readonly inputs: readonly OnnxValueInfo[];
  readonly outputs: readonly OnnxValueInfo[];
}

function elemType(code: number, what: string): DType | 'int64' {
  const d = ELEM[code];
  if (!d) throw new Error(`FromOnnx: ${what} has ONNX element type ${code}, which raf-op does not read`);
  return d;
}

function tensorOf(t: Record<string, any>): OnnxTensor {
  const dtype = elemType(t.dataType, `tensor '${t.name ?? ''}'`);
  const shape: number[] = (t.dims ?? []).map(Number);
  const raw: Uint8Array | undefined = t.rawData;
  let values: number[];
  if (raw && raw.length) {
    const buf = new Uint8Array(raw).buffer;
    const view =
      dtype === 'float32'
        ? new Float32Array(buf)
        : dtype === 'float64'
          ? new Float64Array(buf)
          : dtype === 'int32'
            ? new Int32Array(buf)
            : dtype === 'int64'
              ? Array.from(new BigInt64Array(buf), Number)
              : dtype === 'bool'
                ? new Uint8Array(buf)
                : null;
    if (!view) throw new Error(`FromOnnx: raw ${dtype} data in tensor '${t.name}' is not supported`);
    values = Array.from(view as ArrayLike<number>);
  } else {
    const lists = [t.floatData, t.doubleData, t.int64Data, t.int32Data] as (unknown[] | undefined)[];
    values = (lists.find((l) => l && l.length) ?? []).map(Number);
  }
  return { name: t.name ?? '', dtype, shape, values };
}

function attrOf(a: Record<string, any>): OnnxAttr {
  // AttributeType: FLOAT 1, INT 2, STRING 3, TENSOR 4, FLOATS 6, INTS 7.
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
    case 7:
      return { name: a.name, value: (a.ints ?? []).map(Number) };
    default:
      throw new Error(`FromOnnx: attribute '${a.name}' has type ${a.type}, which raf-op does not read`);
  }
}

function valueInfo(v: Record<string, any>): OnnxValueInfo {
  const tt = v.type?.tensorType;
  return {
    name: v.name,
    dtype: tt?.elemType ? elemType(tt.elemType, `value '${v.name}'`) : null,
    shape: tt?.shape
      ? (tt.shape.dim ?? []).map((d: any) => (d.dimValue !== undefined ? Number(d.dimValue) : (d.dimParam ?? '?')))
      : null,
  };
}

/** Decodes serialized ModelProto bytes into the parts FromOnnx converts. */
export function decodeOnnx(bytes: Uint8Array): OnnxModel {
  const type = ModelProto();
  const m = type.toObject(type.decode(bytes), { longs: Number, arrays: true }) as Record<string, any>;
  const g = m.graph ?? {};
  const opset = (m.opsetImport ?? []).find((o: any) => !o.domain || o.domain === 'ai.onnx')?.version ?? 1;
  return {
    opset: Number(opset),
    nodes: (g.node ?? []).map((n: any) => ({
      opType: n.opType,
      domain: n.domain ?? '',
      name: n.name ?? '',
      inputs: n.input ?? [],
      outputs: n.output ?? [],
      attrs: (n.attribute ?? []).map(attrOf),
    })),
    initializers: (g.initializer ?? []).map(tensorOf),
    inputs: (g.input ?? []).map(valueInfo),
    outputs: (g.output ?? []).map(valueInfo),
  };
}
