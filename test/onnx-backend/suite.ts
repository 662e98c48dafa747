// ONNX's backend conformance suite (../shared/onnx-backend/data) as raf-op runs it: each test folder's model through
// loadOnnx on the CPU, fed its input_K.pb, compared with its output_K.pb the way ONNX's own runner compares (rtol 1e-3,
// atol 1e-7 unless the case says otherwise, equal dtypes and shapes, exact integers, NaN equal to NaN). The same cases
// run through onnxruntime-node give the reference column.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { onnxRoot } from '../support/onnx-proto.ts';
import { loadOnnx, Tensor, tensor } from '../../runtime/src/index.ts';
import { OnnxOptional, OnnxSequence, type OnnxValue } from '../../runtime/src/onnx.ts';
import { isDType, type DType } from '../../runtime/src/dtype.ts';
import { decodeOnnx } from '../../runtime/src/graph/onnx/proto.ts';
import { carrierOf, isNarrowFormat, unpackFormat } from '../../runtime/src/formats.ts';
import { isStringTensor, stringsOf, stringTensor } from '../../runtime/src/strings.ts';

export const SUITE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../../shared/onnx-backend/data');
/** The folders ONNX's runner reads, in its order; `real` cases run the `light/` models. */
export const FOLDERS = ['node', 'pytorch-converted', 'pytorch-operator', 'simple', 'real'] as const;
export type Folder = (typeof FOLDERS)[number];

export interface DataSet {
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
}

export interface Case {
  /** `folder/test_name`, the key of the expectations file. */
  readonly id: string;
  readonly folder: Folder;
  readonly model: string;
  /** Files per data set; a `real` case has no input files (its inputs are made from the model, as ONNX's runner does). */
  readonly sets: readonly DataSet[];
  readonly rtol: number;
  readonly atol: number;
}

const TensorProto = onnxRoot.lookupType('onnx.TensorProto');
const SequenceProto = onnxRoot.lookupType('onnx.SequenceProto');
const OptionalProto = onnxRoot.lookupType('onnx.OptionalProto');

function dataSets(dir: string): DataSet[] {
  return readdirSync(dir)
    .filter((d) => d.startsWith('test_data_set_'))
    .sort((a, b) => Number(a.slice(14)) - Number(b.slice(14)))
    .map((d) => {
      const files = readdirSync(join(dir, d));
      const numbered = (prefix: string) =>
        files
          .filter((f) => f.startsWith(prefix) && f.endsWith('.pb'))
          .sort((a, b) => Number(a.slice(prefix.length, -3)) - Number(b.slice(prefix.length, -3)))
          .map((f) => join(dir, d, f));
      return { inputs: numbered('input_'), outputs: numbered('output_') };
    });
}

/** Every case of the suite, folder by folder in ONNX's order, tests sorted by name. */
export function listCases(root = SUITE_ROOT): Case[] {
  const cases: Case[] = [];
  for (const folder of FOLDERS) {
    const base = join(root, folder);
    if (!existsSync(base)) continue;
    for (const name of readdirSync(base).sort()) {
      const dir = join(base, name);
      if (folder === 'real') {
        const info = JSON.parse(readFileSync(join(dir, 'data.json'), 'utf8')) as {
          url: string;
          rtol?: number;
          atol?: number;
        };
        // `onnx/backend/test/data/light/light_X.onnx`: the light model beside its expected output.
        const model = join(root, 'light', info.url.split('/').pop()!);
        const output = model.replace(/\.onnx$/, '_output_0.pb');
        cases.push({
          id: `${folder}/${name}`,
          folder,
          model,
          sets: [{ inputs: [], outputs: [output] }],
          rtol: info.rtol ?? 1e-3,
          atol: info.atol ?? 1e-7,
        });
        continue;
      }
      if (!existsSync(join(dir, 'model.onnx'))) continue;
      cases.push({
        id: `${folder}/${name}`,
        folder,
        model: join(dir, 'model.onnx'),
        sets: dataSets(dir),
        rtol: 1e-3,
        atol: 1e-7,
      });
    }
  }
  return cases;
}

/** ONNX element type codes by name (TensorProto.DataType). */
export const ELEMENT_TYPES: Readonly<Record<number, string>> = {
  1: 'float32',
  2: 'uint8',
  3: 'int8',
  4: 'uint16',
  5: 'int16',
  6: 'int32',
  7: 'int64',
  8: 'string',
  9: 'bool',
  10: 'float16',
  11: 'float64',
  12: 'uint32',
  13: 'uint64',
  14: 'complex64',
  15: 'complex128',
  16: 'bfloat16',
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

/** An expected value: its ONNX element type, shape and elements as numbers (int64 exact within ±2^53). */
export interface Expected {
  readonly type: string;
  readonly shape: readonly number[];
  readonly values: readonly number[];
  /** A string tensor's elements (type 'string'). */
  readonly strings?: readonly string[];
}

function half(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exp = (bits >> 10) & 0x1f;
  const frac = bits & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

/** Reads a serialized TensorProto (raw_data or the typed lists) into numbers; other element types keep their code. */
export function readTensorFile(path: string): Expected {
  return tensorOf(TensorProto.toObject(TensorProto.decode(readFileSync(path)), PROTO_OBJECT) as Record<string, any>);
}

const PROTO_OBJECT = { longs: String, arrays: true } as const;

/** An input or output of a case: a tensor, or an ONNX sequence or optional of them. */
export type ExpectedValue =
  Expected | { readonly sequence: readonly ExpectedValue[] } | { readonly optional: ExpectedValue | null };

/** Reads a case's file as the model declares the value: a TensorProto, SequenceProto or OptionalProto. */
export function readValueFile(path: string, kind: string): ExpectedValue {
  if (kind === 'sequence')
    return sequenceOf(SequenceProto.toObject(SequenceProto.decode(readFileSync(path)), PROTO_OBJECT) as Msg);
  if (kind === 'optional')
    return optionalOf(OptionalProto.toObject(OptionalProto.decode(readFileSync(path)), PROTO_OBJECT) as Msg);
  return readTensorFile(path);
}

type Msg = Record<string, any>;

function sequenceOf(msg: Msg): ExpectedValue {
  const items = [
    ...((msg.tensorValues as Msg[]) ?? []).map(tensorOf),
    ...((msg.sequenceValues as Msg[]) ?? []).map(sequenceOf),
    ...((msg.optionalValues as Msg[]) ?? []).map(optionalOf),
  ];
  return { sequence: items };
}

function optionalOf(msg: Msg): ExpectedValue {
  if (msg.tensorValue) return { optional: tensorOf(msg.tensorValue) };
  if (msg.sequenceValue) return { optional: sequenceOf(msg.sequenceValue) };
  if (msg.optionalValue) return { optional: optionalOf(msg.optionalValue) };
  return { optional: null };
}

function tensorOf(msg: Msg): Expected {
  const code = msg.dataType as number;
  const type = ELEMENT_TYPES[code] ?? `element type ${code}`;
  const shape = (msg.dims as string[]).map(Number);
  const raw: Uint8Array | undefined = msg.rawData;
  let values: number[] = [];
  if (type === 'string') {
    const decoder = new TextDecoder();
    return {
      type,
      shape,
      values,
      strings: ((msg.stringData as Uint8Array[] | undefined) ?? []).map((b) => decoder.decode(b)),
    };
  }
  if (raw && raw.length) {
    const buf = new Uint8Array(raw).buffer;
    const view = new DataView(buf);
    const n = shape.reduce((a, b) => a * b, 1);
    const read: Record<string, (i: number) => number> = {
      float32: (i) => view.getFloat32(4 * i, true),
      float64: (i) => view.getFloat64(8 * i, true),
      float16: (i) => half(view.getUint16(2 * i, true)),
      bfloat16: (i) => new Float32Array(new Uint32Array([view.getUint16(2 * i, true) << 16]).buffer)[0]!,
      uint8: (i) => view.getUint8(i),
      int8: (i) => view.getInt8(i),
      bool: (i) => view.getUint8(i),
      uint16: (i) => view.getUint16(2 * i, true),
      int16: (i) => view.getInt16(2 * i, true),
      int32: (i) => view.getInt32(4 * i, true),
      uint32: (i) => view.getUint32(4 * i, true),
      int64: (i) => Number(view.getBigInt64(8 * i, true)),
      uint64: (i) => Number(view.getBigUint64(8 * i, true)),
    };
    const at = read[type];
    if (at) values = Array.from({ length: n }, (_, i) => at(i));
    // Narrow types (int4, float8...): 4- and 2-bit elements packed into bytes, first in the lowest bits.
    if (isNarrowFormat(type)) values = Array.from(unpackFormat(type, new Uint8Array(buf), n));
  } else if (isNarrowFormat(type)) {
    const bytes = ((msg.int32Data as number[] | undefined) ?? []).map((v) => Number(v) & 0xff);
    values = Array.from(
      unpackFormat(
        type,
        bytes,
        shape.reduce((a, b) => a * b, 1),
      ),
    );
  } else {
    const list = [msg.floatData, msg.doubleData, msg.int64Data, msg.uint64Data, msg.int32Data].find(
      (l: unknown[] | undefined) => l && l.length,
    ) as (number | string)[] | undefined;
    values = (list ?? []).map(Number);
    if (type === 'float16') values = values.map(half);
    if (type === 'bfloat16')
      values = values.map((b) => new Float32Array(new Uint32Array([(b & 0xffff) << 16]).buffer)[0]!);
  }
  return { type, shape, values };
}

/** The outcome of one case: passed, a wrong result (value, dtype or shape), or refused with raf-op's message. */
export type Outcome =
  | { readonly status: 'pass' }
  | { readonly status: 'fail'; readonly reason: string }
  /**
   * Every value within float32 rounding of the output's scale (4 ulps of its largest magnitude) but not within the
   * runner's per-element atol: the stored output's own rounding, where an exact value is 0 (DFT's float32 FFT).
   */
  | { readonly status: 'rounding'; readonly reason: string }
  | { readonly status: 'refused'; readonly reason: string };

/** The first line of an error, without the stack, shortened so the expectations file stays readable. */
export function reasonOf(e: unknown): string {
  const text =
    e instanceof Error ? `${e.constructor.name === 'Error' ? '' : `${e.constructor.name}: `}${e.message}` : String(e);
  const line = text.split('\n')[0]!.trim();
  return line.length > 300 ? `${line.slice(0, 297)}...` : line;
}

/** Compares one output as ONNX's runner does; null when it matches, else what differs. */
export function compareOutput(
  name: string,
  got: { type: string; shape: readonly number[]; values: ArrayLike<number> },
  want: Expected,
  rtol: number,
  atol: number,
): string | null {
  if (got.type !== want.type) return `output '${name}' is ${got.type}, expected ${want.type}`;
  if (got.shape.join(',') !== want.shape.join(','))
    return `output '${name}' has shape [${got.shape.join(', ')}], expected [${want.shape.join(', ')}]`;
  const float = /float/.test(want.type);
  for (let i = 0; i < want.values.length; i++) {
    const g = Number(got.values[i]);
    const w = want.values[i]!;
    if (Number.isNaN(w) && Number.isNaN(g)) continue;
    const ok = float ? g === w || Math.abs(g - w) <= atol + rtol * Math.abs(w) : g === w;
    if (!ok) return `output '${name}' element ${i} is ${g}, expected ${w}`;
  }
  return null;
}

/** A raf-op tensor for an input file; element types raf-op has no tensor for are refused naming the input. */
function rafInput(name: string, e: Expected): Tensor {
  if (e.strings) return stringTensor(e.strings, e.shape);
  // A narrow type is fed in its carrier dtype (raf-op's formats.ts).
  if (isNarrowFormat(e.type)) return tensor(e.values, { dtype: carrierOf(e.type), shape: [...e.shape] });
  if (!isDType(e.type)) throw new Error(`input '${name}' has element type ${e.type}, which raf-op has no tensor for`);
  return tensor(e.values, { dtype: e.type as DType, shape: [...e.shape] });
}

/** A raf-op value for an input file: a tensor, an OnnxSequence (of `dtype` when empty) or an OnnxOptional. */
function rafValue(name: string, e: ExpectedValue, dtype: DType | null): OnnxValue {
  if ('sequence' in e)
    return new OnnxSequence(
      e.sequence.map((item) => rafValue(name, item, dtype) as Tensor),
      dtype,
    );
  if ('optional' in e)
    return new OnnxOptional(e.optional === null ? null : (rafValue(name, e.optional, dtype) as Tensor | OnnxSequence));
  return rafInput(name, e);
}

/**
 * Whether a float32 tensor output differs from the stored one only by float32 rounding relative to the output's
 * scale: every element within 4 · 2^-24 · max |stored| (and the same dtype and shape).
 */
function withinRounding(got: OnnxValue, want: ExpectedValue): boolean {
  if (!(got instanceof Tensor) || !('type' in want) || got.dtype !== want.type || want.type !== 'float32') return false;
  if (got.shape.join(',') !== want.shape.join(',')) return false;
  const values = got.dataSync() as ArrayLike<number>;
  const bound = 4 * 2 ** -24 * want.values.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
  return want.values.every((w, i) => Math.abs(values[i]! - w) <= bound);
}

/** Compares an output value with a case's: the same kind, sequences item by item, optionals both empty or equal. */
function compareValue(
  name: string,
  got: OnnxValue,
  want: ExpectedValue,
  rtol: number,
  atol: number,
  format?: string,
): string | null {
  if ('sequence' in want) {
    if (!(got instanceof OnnxSequence)) return `output '${name}' is not a sequence`;
    if (got.items.length !== want.sequence.length)
      return `output '${name}' holds ${got.items.length} tensors, expected ${want.sequence.length}`;
    for (let i = 0; i < got.items.length; i++) {
      const diff = compareValue(`${name}[${i}]`, got.items[i]!, want.sequence[i]!, rtol, atol);
      if (diff) return diff;
    }
    return null;
  }
  if ('optional' in want) {
    if (!(got instanceof OnnxOptional)) return `output '${name}' is not an optional`;
    if (want.optional === null || got.value === null)
      return want.optional === got.value ? null : `output '${name}' is ${got.value ? 'full' : 'empty'}`;
    return compareValue(name, got.value, want.optional, rtol, atol);
  }
  if (!(got instanceof Tensor)) return `output '${name}' is not a tensor`;
  if ('type' in want && want.strings) {
    if (!isStringTensor(got)) return `output '${name}' is ${got.dtype}, expected strings`;
    if (got.shape.join(',') !== want.shape.join(','))
      return `output '${name}' has shape [${got.shape.join(', ')}], expected [${want.shape.join(', ')}]`;
    const texts = stringsOf(got);
    const at = texts.findIndex((t, i) => t !== want.strings![i]);
    return at < 0
      ? null
      : `output '${name}' element ${at} is ${JSON.stringify(texts[at])}, expected ${JSON.stringify(want.strings[at])}`;
  }
  // An output of a narrow type (the session says which) is its carrier dtype holding the type's values.
  const type = isNarrowFormat(format) && got.dtype === carrierOf(format) ? format : got.dtype;
  return compareOutput(name, { type, shape: got.shape, values: got.dataSync() as ArrayLike<number> }, want, rtol, atol);
}

/**
 * Inputs of a `real` case as ONNX's runner makes them for a light model: each non-initializer input filled with
 * values from its declared shape (the runner's generated inputs are not stored; the light models' outputs do not
 * depend on them beyond their shape, since every weight is a constant).
 */
function madeInputs(model: Uint8Array): { name: string; value: Expected }[] {
  const m = decodeOnnx(model);
  const inits = new Set(m.initializers.map((t) => t.name));
  return m.inputs
    .filter((i) => !inits.has(i.name))
    .map((i) => {
      const shape = (i.shape ?? []).map((d) => (typeof d === 'number' ? d : 1));
      const n = shape.reduce((a, b) => a * b, 1);
      return { name: i.name, value: { type: i.dtype ?? 'float32', shape, values: new Array<number>(n).fill(0) } };
    });
}

/** Runs one case through raf-op's loadOnnx on the CPU. */
export function runRaf(c: Case): Outcome {
  let session: ReturnType<typeof loadOnnx>;
  const bytes = readFileSync(c.model);
  try {
    // No ort regions: the suite measures raf-op's own conversion and kernels, not onnxruntime's.
    session = loadOnnx(bytes, { ortRegions: false });
  } catch (e) {
    return { status: 'refused', reason: reasonOf(e) };
  }
  for (const set of c.sets) {
    const info = (name: string) => session.model.inputs.find((i) => i.name === name);
    const given: { name: string; value: ExpectedValue }[] =
      c.folder === 'real'
        ? madeInputs(bytes)
        : set.inputs.map((f, k) => {
            const name = session.inputNames[k] ?? `#${k}`;
            return { name, value: readValueFile(f, info(name)?.kind ?? 'tensor') };
          });
    let outs: Record<string, OnnxValue>;
    try {
      const feeds: Record<string, OnnxValue> = {};
      given.forEach(({ name, value }) => {
        const dtype = info(name)?.dtype;
        feeds[name] = rafValue(name, value, dtype && isDType(dtype) ? dtype : null);
      });
      outs = session.runValues(feeds);
    } catch (e) {
      return { status: 'refused', reason: reasonOf(e) };
    }
    for (let k = 0; k < set.outputs.length; k++) {
      const name = session.outputNames[k]!;
      const got = outs[name];
      if (!got) return { status: 'fail', reason: `output '${name}' is missing` };
      const declared = session.model.outputs.find((o) => o.name === name);
      const want = readValueFile(set.outputs[k]!, declared?.kind ?? 'tensor');
      const diff = compareValue(name, got, want, c.rtol, c.atol, declared?.format);
      if (diff) return { status: withinRounding(got, want) ? 'rounding' : 'fail', reason: diff };
    }
  }
  return { status: 'pass' };
}
