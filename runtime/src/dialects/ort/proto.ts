// ONNX models as ModelProto bytes (one node for a call, several for an ort region): the few protobuf fields the ort dialect writes (field numbers from onnx.proto).

/** An ONNX attribute value: int, float, ints, floats, string, or a tensor. */
export type OrtAttr =
  | { readonly int: number }
  | { readonly float: number }
  | { readonly ints: readonly number[] }
  | { readonly floats: readonly number[] }
  | { readonly string: string }
  | { readonly tensor: OrtConst };

/** A constant tensor written into the model (an initializer or a tensor attribute), its values as numbers. */
export interface OrtConst {
  readonly type: number;
  readonly shape: readonly number[];
  readonly data: readonly number[];
}

export interface OrtNodeModel {
  readonly opType: string;
  readonly opset: number;
  /** Graph inputs fed per run: name, ONNX element type, shape. */
  readonly inputs: readonly { readonly name: string; readonly type: number; readonly shape: readonly number[] }[];
  /** Constant inputs by name. */
  readonly consts: Readonly<Record<string, OrtConst>>;
  /** The node's input names in order ('' for an omitted optional input). */
  readonly nodeInputs: readonly string[];
  readonly outputs: readonly string[];
  readonly attrs: Readonly<Record<string, OrtAttr>>;
}

/** ONNX TensorProto.DataType codes. */
export const ONNX_TYPE = {
  float32: 1,
  uint8: 2,
  int8: 3,
  uint16: 4,
  int16: 5,
  int32: 6,
  int64: 7,
  bool: 9,
  float16: 10,
  float64: 11,
  uint32: 12,
  uint64: 13,
} as const;

/**
 * A protobuf writer that copies each payload once: small fields collect in a byte list, raw payloads (weights) and
 * nested messages are kept as chunks, and `finish` joins them. A region's model is as large as its weights, so a
 * byte-by-byte copy at every nesting level cost most of a region's build.
 */
class Writer {
  private readonly chunks: Uint8Array[] = [];
  private pending: number[] = [];
  /** Bytes written so far. */
  length = 0;
  private push(b: number): void {
    this.pending.push(b);
    this.length++;
  }
  private flush(): void {
    if (!this.pending.length) return;
    this.chunks.push(Uint8Array.from(this.pending));
    this.pending = [];
  }
  varint(v: number | bigint): void {
    if (typeof v === 'number' && v >= 0 && Number.isSafeInteger(v)) {
      while (v >= 0x80) {
        this.push((v % 0x80) | 0x80);
        v = Math.floor(v / 0x80);
      }
      this.push(v);
      return;
    }
    // Negative values are their 64-bit two's complement.
    let n = BigInt.asUintN(64, BigInt(v));
    while (n >= 0x80n) {
      this.push(Number(n & 0x7fn) | 0x80);
      n >>= 7n;
    }
    this.push(Number(n));
  }
  tag(field: number, wire: number): void {
    this.varint((field << 3) | wire);
  }
  int(field: number, v: number): void {
    this.tag(field, 0);
    this.varint(v);
  }
  float(field: number, v: number): void {
    this.tag(field, 5);
    for (const b of new Uint8Array(new Float32Array([v]).buffer)) this.push(b);
  }
  raw(field: number, b: Uint8Array): void {
    this.tag(field, 2);
    this.varint(b.length);
    this.flush();
    this.chunks.push(b);
    this.length += b.length;
  }
  string(field: number, s: string): void {
    this.raw(field, new TextEncoder().encode(s));
  }
  message(field: number, build: (w: Writer) => void): void {
    const w = new Writer();
    build(w);
    w.flush();
    this.tag(field, 2);
    this.varint(w.length);
    this.flush();
    for (const c of w.chunks) this.chunks.push(c);
    this.length += w.length;
  }
  finish(): Uint8Array {
    this.flush();
    const out = new Uint8Array(this.length);
    let at = 0;
    for (const c of this.chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  }
}

/** Raw little-endian bytes of constant values in an ONNX element type. */
function rawData(c: OrtConst): Uint8Array {
  const d = c.data;
  switch (c.type) {
    case ONNX_TYPE.float32:
      return new Uint8Array(Float32Array.from(d).buffer);
    case ONNX_TYPE.float64:
      return new Uint8Array(Float64Array.from(d).buffer);
    case ONNX_TYPE.int64:
      return new Uint8Array(BigInt64Array.from(d, (x) => BigInt(Math.trunc(x))).buffer);
    case ONNX_TYPE.int32:
      return new Uint8Array(Int32Array.from(d).buffer);
    case ONNX_TYPE.uint8:
    case ONNX_TYPE.bool:
      return Uint8Array.from(d);
    case ONNX_TYPE.int8:
      return new Uint8Array(Int8Array.from(d).buffer);
    default:
      throw new Error(`ort: cannot write a constant of ONNX type ${c.type}`);
  }
}

function writeTensor(w: Writer, name: string, c: OrtConst): void {
  for (const d of c.shape) w.int(1, d);
  w.int(2, c.type);
  if (name) w.string(8, name);
  w.raw(9, rawData(c));
}

function writeAttr(w: Writer, name: string, a: OrtAttr): void {
  w.string(1, name);
  if ('int' in a) {
    w.int(3, a.int);
    w.int(20, 2);
  } else if ('float' in a) {
    w.float(2, a.float);
    w.int(20, 1);
  } else if ('ints' in a) {
    for (const v of a.ints) w.int(8, v);
    w.int(20, 7);
  } else if ('floats' in a) {
    for (const v of a.floats) w.float(7, v);
    w.int(20, 6);
  } else if ('string' in a) {
    w.string(4, a.string);
    w.int(20, 3);
  } else {
    w.message(5, (t) => writeTensor(t, '', a.tensor));
    w.int(20, 4);
  }
}

/** A value's type; a dimension given as a string is symbolic (ONNX dim_param): any size at run time. */
function writeValueInfo(w: Writer, name: string, type?: number, shape?: readonly (number | string)[]): void {
  w.string(1, name);
  if (type === undefined) return;
  w.message(2, (tp) =>
    tp.message(1, (tt) => {
      tt.int(1, type);
      if (shape)
        tt.message(2, (sh) =>
          shape.forEach((d) => sh.message(1, (dim) => (typeof d === 'string' ? dim.string(2, d) : dim.int(1, d)))),
        );
    }),
  );
}

/** One node of a graph model. */
export interface OrtGraphNode {
  readonly opType: string;
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  readonly attrs: Readonly<Record<string, OrtAttr>>;
}

/**
 * A model of several nodes (an ort region): graph inputs fed per run (a dimension given as a string is symbolic),
 * constant initializers, outputs fetched.
 */
export interface OrtGraphModel {
  readonly opset: number;
  readonly nodes: readonly OrtGraphNode[];
  readonly inputs: readonly {
    readonly name: string;
    readonly type: number;
    readonly shape: readonly (number | string)[];
  }[];
  readonly consts: Readonly<Record<string, OrtConst>>;
  readonly outputs: readonly string[];
}

/** ModelProto bytes of a graph: nodes in order, inputs, constant initializers and outputs (types left to inference). */
export function encodeGraphModel(m: OrtGraphModel): Uint8Array {
  const w = new Writer();
  w.int(1, 8); // ir_version
  w.string(2, 'raf-op');
  w.message(7, (g) => {
    for (const node of m.nodes)
      g.message(1, (n) => {
        for (const i of node.inputs) n.string(1, i);
        for (const o of node.outputs) n.string(2, o);
        n.string(4, node.opType);
        for (const [k, a] of Object.entries(node.attrs)) n.message(5, (aw) => writeAttr(aw, k, a));
      });
    g.string(2, 'ort');
    for (const [name, c] of Object.entries(m.consts)) g.message(5, (t) => writeTensor(t, name, c));
    for (const i of m.inputs) g.message(11, (v) => writeValueInfo(v, i.name, i.type, i.shape));
    for (const o of m.outputs) g.message(12, (v) => writeValueInfo(v, o));
  });
  w.message(8, (o) => {
    o.string(1, '');
    o.int(2, m.opset);
  });
  return w.finish();
}

/** ModelProto bytes of one node: its graph inputs, constant initializers and outputs (types left to inference). */
export function encodeNodeModel(m: OrtNodeModel): Uint8Array {
  return encodeGraphModel({
    opset: m.opset,
    nodes: [{ opType: m.opType, inputs: m.nodeInputs, outputs: m.outputs, attrs: m.attrs }],
    inputs: m.inputs,
    consts: m.consts,
    outputs: m.outputs,
  });
}
