// onnxruntime-node on the same cases, compared the same way: the reference column of the conformance table.

import { readFileSync } from 'node:fs';
import * as ort from 'onnxruntime-node';
import { decodeOnnx } from '../../runtime/src/graph/onnx/proto.ts';
import { compareOutput, readTensorFile, type Case, type Expected } from './suite.ts';

const ORT_TYPES: Readonly<Record<string, (v: readonly number[]) => ort.Tensor['data']>> = {
  float32: (v) => Float32Array.from(v),
  float64: (v) => Float64Array.from(v),
  int32: (v) => Int32Array.from(v),
  int64: (v) => BigInt64Array.from(v, (x) => BigInt(x)),
  uint64: (v) => BigUint64Array.from(v, (x) => BigInt(x)),
  int16: (v) => Int16Array.from(v),
  uint16: (v) => Uint16Array.from(v),
  uint32: (v) => Uint32Array.from(v),
  int8: (v) => Int8Array.from(v),
  uint8: (v) => Uint8Array.from(v),
  bool: (v) => Uint8Array.from(v),
  float16: (v) => Uint16Array.from(v, halfBits),
};

/** float32 → IEEE half bits, rounding to nearest even (the values in the suite's files are halves already). */
function halfBits(x: number): number {
  const f = new Float32Array([x]);
  const u = new Uint32Array(f.buffer)[0]!;
  const sign = (u >>> 16) & 0x8000;
  const exp = (u >>> 23) & 0xff;
  const mant = u & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 31) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    const m = (mant | 0x800000) >>> (1 - e + 13);
    return sign | m;
  }
  return sign | (e << 10) | (mant >>> 13);
}

function fromHalf(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exp = (bits >> 10) & 0x1f;
  const frac = bits & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

function ortTensor(e: Expected): ort.Tensor {
  const make = ORT_TYPES[e.type];
  if (!make) throw new Error(`no onnxruntime-node tensor for ${e.type}`);
  return new ort.Tensor(e.type as 'float32', make(e.values) as Float32Array, [...e.shape]);
}

/** Whether onnxruntime-node passes a case (loads it, runs every data set, matches every output). */
export async function runOrt(c: Case): Promise<boolean> {
  try {
    const bytes = readFileSync(c.model);
    // onnxruntime-node has no JavaScript array for 2- and 4-bit or 8-bit float outputs (reading one can exhaust memory).
    for (const set of c.sets) for (const f of set.outputs) if (!ORT_TYPES[readTensorFile(f).type]) return false;
    const session = await ort.InferenceSession.create(bytes, { logSeverityLevel: 4 });
    for (const set of c.sets) {
      const feeds: Record<string, ort.Tensor> = {};
      if (c.folder === 'real') {
        const m = decodeOnnx(bytes);
        const inits = new Set(m.initializers.map((t) => t.name));
        for (const i of m.inputs.filter((i) => !inits.has(i.name))) {
          const shape = (i.shape ?? []).map((d) => (typeof d === 'number' ? d : 1));
          feeds[i.name] = ortTensor({
            type: i.dtype ?? 'float32',
            shape,
            values: new Array(shape.reduce((a, b) => a * b, 1)).fill(0),
          });
        }
      } else set.inputs.forEach((f, k) => (feeds[session.inputNames[k]!] = ortTensor(readTensorFile(f))));
      const outs = await session.run(feeds);
      for (let k = 0; k < set.outputs.length; k++) {
        const t = outs[session.outputNames[k]!]!;
        const values = Array.from(t.data as ArrayLike<number | bigint>, Number);
        if (t.type === 'float16') for (let i = 0; i < values.length; i++) values[i] = fromHalf(values[i]!);
        const diff = compareOutput(
          '',
          { type: t.type === 'float32' ? 'float32' : t.type, shape: t.dims, values },
          readTensorFile(set.outputs[k]!),
          c.rtol,
          c.atol,
        );
        if (diff) {
          if (process.env.RAF_ORT_DEBUG) console.log(c.id, diff);
          return false;
        }
      }
    }
    return true;
  } catch (e) {
    if (process.env.RAF_ORT_DEBUG) console.log(c.id, (e as Error).message.split('\n')[0]);
    return false;
  }
}
