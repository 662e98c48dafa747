// The safetensors format (huggingface/safetensors): an 8-byte little-endian header length N, N bytes of JSON
// {name: {dtype, shape, data_offsets: [begin, end]}, __metadata__?: {string: string}}, then the tensors' raw
// little-endian bytes, offsets counted from the end of the header. Written here; no dependency.

import { allocStorage, type DType, type Storage } from '../dtype.ts';
import { sizeOf } from '../shape.ts';
import { Tensor, fromStorage } from '../tensor.ts';
import { TrainError } from './errors.ts';
import type { Params } from './tensors.ts';

const CODE: Record<DType, string> = {
  float64: 'F64',
  float32: 'F32',
  float16: 'F16',
  bfloat16: 'BF16',
  int64: 'I64',
  int32: 'I32',
  int16: 'I16',
  int8: 'I8',
  uint64: 'U64',
  uint32: 'U32',
  uint16: 'U16',
  uint8: 'U8',
  bool: 'BOOL',
};
const BYTES: Record<DType, number> = {
  float64: 8,
  float32: 4,
  float16: 2,
  bfloat16: 2,
  int64: 8,
  int32: 4,
  int16: 2,
  int8: 1,
  uint64: 8,
  uint32: 4,
  uint16: 2,
  uint8: 1,
  bool: 1,
};
const DTYPE_OF = new Map(Object.entries(CODE).map(([d, c]) => [c, d as DType]));

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1)
  throw new Error('safetensors: this platform is big-endian; the reader and writer assume little-endian typed arrays');

/** The float16 bits of a value float16 can hold exactly (raf-op's float16 storage is rounded on write). */
function halfBits(v: number): number {
  f32[0] = v;
  const x = u32[0]!;
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  const mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const e = exp - 112; // rebias 127 -> 15
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) return e < -10 ? sign : sign | ((mant | 0x800000) >>> (14 - e));
  return sign | (e << 10) | (mant >>> 13);
}

function halfValue(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >>> 10) & 0x1f;
  const mant = h & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 0x1f) return mant ? NaN : sign * Infinity;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

/** The raw little-endian bytes of a tensor's values. */
function encode(dtype: DType, values: ArrayLike<number>): Uint8Array {
  const n = values.length;
  switch (dtype) {
    case 'float16': {
      const a = new Uint16Array(n);
      for (let i = 0; i < n; i++) a[i] = halfBits(values[i]!);
      return new Uint8Array(a.buffer);
    }
    case 'bfloat16': {
      const a = new Uint16Array(n);
      for (let i = 0; i < n; i++) {
        f32[0] = values[i]!;
        a[i] = u32[0]! >>> 16;
      }
      return new Uint8Array(a.buffer);
    }
    case 'int64':
    case 'uint64': {
      const a = dtype === 'int64' ? new BigInt64Array(n) : new BigUint64Array(n);
      for (let i = 0; i < n; i++) a[i] = BigInt(values[i]!);
      return new Uint8Array(a.buffer);
    }
    default: {
      const a = values as unknown as ArrayBufferView;
      return new Uint8Array(a.buffer, a.byteOffset, a.byteLength).slice();
    }
  }
}

function decode(name: string, dtype: DType, bytes: Uint8Array, n: number): Storage {
  const buf = bytes.slice().buffer; // aligned copy
  const out = allocStorage(dtype, n);
  switch (dtype) {
    case 'float16': {
      const a = new Uint16Array(buf);
      for (let i = 0; i < n; i++) out[i] = halfValue(a[i]!);
      return out;
    }
    case 'bfloat16': {
      const a = new Uint16Array(buf);
      for (let i = 0; i < n; i++) {
        u32[0] = a[i]! << 16;
        out[i] = f32[0]!;
      }
      return out;
    }
    case 'int64':
    case 'uint64': {
      const a = dtype === 'int64' ? new BigInt64Array(buf) : new BigUint64Array(buf);
      for (let i = 0; i < n; i++) {
        const v = a[i]!;
        if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < -BigInt(Number.MAX_SAFE_INTEGER))
          throw new TrainError(
            `safetensors: tensor '${name}'`,
            `holds ${v}, beyond raf-op's exact ${dtype} range ±2^53`,
          );
        out[i] = Number(v);
      }
      return out;
    }
    default: {
      const Ctor = out.constructor as new (b: ArrayBuffer) => Storage;
      return new Ctor(buf);
    }
  }
}

/**
 * The safetensors bytes of named tensors (read from any device), with optional string metadata. Tensors are stored
 * in the record's order.
 */
export async function saveSafetensors(tensors: Params, metadata?: Record<string, string>): Promise<Uint8Array> {
  const header: Record<string, unknown> = {};
  if (metadata) {
    for (const [k, v] of Object.entries(metadata))
      if (typeof v !== 'string')
        throw new TrainError('saveSafetensors', `metadata '${k}' must be a string, got ${typeof v}`);
    header.__metadata__ = metadata;
  }
  const parts: Uint8Array[] = [];
  let offset = 0;
  for (const [name, t] of Object.entries(tensors)) {
    if (name === '__metadata__') throw new TrainError('saveSafetensors', "a tensor may not be named '__metadata__'");
    if (!(t instanceof Tensor)) throw new TrainError(`saveSafetensors: tensor '${name}'`, 'is not a Tensor');
    const bytes = encode(t.dtype, await t.data());
    header[name] = { dtype: CODE[t.dtype], shape: [...t.shape], data_offsets: [offset, offset + bytes.length] };
    parts.push(bytes);
    offset += bytes.length;
  }
  const json = new TextEncoder().encode(JSON.stringify(header));
  // Pad with spaces so the data starts 8-byte aligned, as the format recommends.
  const headerBytes = new Uint8Array(json.length + ((8 - (json.length % 8)) % 8)).fill(0x20);
  headerBytes.set(json);
  const out = new Uint8Array(8 + headerBytes.length + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(headerBytes.length), true);
  out.set(headerBytes, 8);
  let at = 8 + headerBytes.length;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Named CPU tensors and the metadata of safetensors bytes; malformed bytes are an error saying what is wrong. */
export function loadSafetensors(bytes: Uint8Array): { tensors: Params; metadata: Record<string, string> } {
  const where = 'loadSafetensors';
  if (!(bytes instanceof Uint8Array)) throw new TrainError(where, 'expected the file as a Uint8Array');
  if (bytes.length < 8) throw new TrainError(where, `${bytes.length} bytes is too short for a safetensors file`);
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true));
  if (n > bytes.length - 8)
    throw new TrainError(
      where,
      `the header length ${n} exceeds the ${bytes.length - 8} bytes after it`,
      'the file is truncated or not safetensors',
    );
  let header: Record<string, unknown>;
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(8, 8 + n)));
  } catch (e) {
    throw new TrainError(where, `the header is not valid JSON (${(e as Error).message})`);
  }
  if (header === null || typeof header !== 'object' || Array.isArray(header))
    throw new TrainError(where, 'the header must be a JSON object');
  const data = bytes.subarray(8 + n);
  const metadata: Record<string, string> = {};
  const tensors: Params = {};
  const spans: Array<[number, number, string]> = [];
  for (const [name, entry] of Object.entries(header)) {
    if (name === '__metadata__') {
      if (entry === null || typeof entry !== 'object')
        throw new TrainError(where, '__metadata__ must be an object of strings');
      for (const [k, v] of Object.entries(entry as object)) {
        if (typeof v !== 'string') throw new TrainError(where, `__metadata__ '${k}' is not a string`);
        metadata[k] = v;
      }
      continue;
    }
    const at = `${where}: tensor '${name}'`;
    const e = entry as { dtype?: unknown; shape?: unknown; data_offsets?: unknown };
    const dtype = DTYPE_OF.get(String(e?.dtype));
    if (!dtype)
      throw new TrainError(
        at,
        `has dtype ${JSON.stringify(e?.dtype)}, which raf-op cannot hold`,
        `supported: ${[...DTYPE_OF.keys()].join(', ')}`,
      );
    if (!Array.isArray(e.shape) || !e.shape.every((d) => Number.isInteger(d) && d >= 0))
      throw new TrainError(at, `has shape ${JSON.stringify(e.shape)}; expected a list of integers >= 0`);
    const off = e.data_offsets;
    if (!Array.isArray(off) || off.length !== 2 || !off.every((d) => Number.isInteger(d) && d >= 0) || off[0] > off[1])
      throw new TrainError(at, `has data_offsets ${JSON.stringify(off)}; expected [begin, end] with begin <= end`);
    const count = sizeOf(e.shape as number[]);
    if (off[1] - off[0] !== count * BYTES[dtype])
      throw new TrainError(
        at,
        `spans ${off[1] - off[0]} bytes, but ${dtype} of shape [${(e.shape as number[]).join(', ')}] needs ${count * BYTES[dtype]}`,
      );
    if (off[1] > data.length)
      throw new TrainError(at, `ends at byte ${off[1]}, past the ${data.length} data bytes`, 'the file is truncated');
    spans.push([off[0], off[1], name]);
    tensors[name] = fromStorage(e.shape as number[], dtype, decode(name, dtype, data.subarray(off[0], off[1]), count));
  }
  spans.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  for (let i = 1; i < spans.length; i++)
    if (spans[i]![0] < spans[i - 1]![1])
      throw new TrainError(where, `tensors '${spans[i - 1]![2]}' and '${spans[i]![2]}' overlap in the data`);
  return { tensors, metadata };
}
