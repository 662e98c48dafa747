// The `#[metadata]` section of Relay text: TVM's JSON object graph (root, nodes, b64ndarrays) whose root maps a kind
// ("relay.Constant") to an array of entries. Constants hold an index into b64ndarrays, each a base64 NDArray in
// TVM's binary layout (magic, reserved, device, ndim, dtype code/bits/lanes, shape, byte size, little-endian data).

import { isDType, type DType } from '../../dtype.ts';
import { tensor, type Tensor } from '../../tensor.ts';

interface JsonNode {
  readonly type_key?: string;
  readonly data?: readonly (number | string)[];
  readonly keys?: readonly string[];
  readonly attrs?: Readonly<Record<string, string>>;
  readonly repr_str?: string;
}

const NDARRAY_MAGIC = 0xdd5e40f096b4a13fn;

function dtypeOf(code: number, bits: number, lanes: number): DType {
  if (lanes !== 1) throw new Error(`vector dtypes (lanes=${lanes}) are not supported`);
  const name =
    code === 0 ? `int${bits}` : code === 1 ? (bits === 1 ? 'bool' : `uint${bits}`) : code === 2 ? `float${bits}` : '';
  if (!isDType(name)) throw new Error(`dtype '${name || `code ${code}`}' is not one raf-op's runtime has`);
  return name;
}

/** Decodes one NDArray saved by TVM (`SaveDLTensor`). */
export function decodeNdarray(bytes: Uint8Array): Tensor {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (v.getBigUint64(0, true) !== NDARRAY_MAGIC) throw new Error('not a TVM NDArray (bad magic)');
  let o = 16 + 8; // magic, reserved, device (type, id)
  const ndim = v.getInt32(o, true);
  o += 4;
  const dtype = dtypeOf(v.getUint8(o), v.getUint8(o + 1), v.getUint16(o + 2, true));
  const bits = v.getUint8(o + 1);
  o += 4;
  const shape: number[] = [];
  for (let i = 0; i < ndim; i++, o += 8) shape.push(Number(v.getBigInt64(o, true)));
  const size = Number(v.getBigInt64(o, true));
  o += 8;
  const n = shape.reduce((a, b) => a * b, 1);
  if (size !== (n * Math.max(bits, 8)) / 8) throw new Error(`NDArray byte size ${size} does not fit shape [${shape}]`);
  const values = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    const at = o + (i * Math.max(bits, 8)) / 8;
    values[i] =
      dtype === 'float32'
        ? v.getFloat32(at, true)
        : dtype === 'float64'
          ? v.getFloat64(at, true)
          : dtype === 'int32'
            ? v.getInt32(at, true)
            : dtype === 'bool'
              ? v.getUint8(at)
              : halfToFloat(v.getUint16(at, true));
  }
  return tensor(values, { shape, dtype });
}

function halfToFloat(h: number): number {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const f = h & 0x3ff;
  if (e === 0) return s * 2 ** -14 * (f / 1024);
  if (e === 31) return f ? NaN : s * Infinity;
  return s * 2 ** (e - 15) * (1 + f / 1024);
}

/** The metatable: kind → entries; relay.Constant entries are tensors (other kinds are left out). */
export function decodeRelayMetadata(text: string): Record<string, Tensor[]> {
  let json: { root: number; nodes: JsonNode[]; b64ndarrays?: string[] };
  try {
    json = JSON.parse(text.trim()) as typeof json;
  } catch (e) {
    throw new Error(`not JSON (${(e as Error).message})`);
  }
  const nodes = json.nodes;
  const arrays = (json.b64ndarrays ?? []).map((b) => decodeNdarray(Uint8Array.from(atob(b), (c) => c.charCodeAt(0))));
  const root = nodes[json.root];
  if (!root || root.type_key !== 'Map') throw new Error('the root is not a Map of kinds');
  const out: Record<string, Tensor[]> = {};
  const entries: [string, number][] = [];
  if (root.keys) root.keys.forEach((k, i) => entries.push([k, Number(root.data![i])]));
  else
    for (let i = 0; i + 1 < (root.data ?? []).length; i += 2)
      entries.push([nodes[Number(root.data![i])]?.repr_str ?? '', Number(root.data![i + 1])]);
  for (const [kind, arrayIndex] of entries) {
    if (kind !== 'relay.Constant') continue;
    out[kind] = (nodes[arrayIndex]?.data ?? []).map((ref) => {
      const c = nodes[Number(ref)];
      const di = c?.attrs?.data;
      if (c?.type_key !== 'relay.Constant' || di === undefined) throw new Error('a relay.Constant entry has no data');
      const t = arrays[Number(di)];
      if (!t) throw new Error(`relay.Constant data ${di} is not among b64ndarrays`);
      return t;
    });
  }
  return out;
}
