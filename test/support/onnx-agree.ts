// One-node ONNX models run by raf-op's importer and by onnxruntime-node on the same bytes, every output compared
// (test/runtime/onnx-qlinear-forms.test.ts, onnx-ort-extra-forms.test.ts), and the seeded inputs they build.

import { expect } from 'vitest';
import { randomUniform, type Tensor } from '../../runtime/src/index.ts';
import { execute } from '../../runtime/src/graph/index.ts';
import { fromOnnx } from '../../runtime/src/graph/frontends/from-onnx.ts';
import { buildModel, type InitializerSpec, type NodeSpec } from './onnx-proto.ts';
import { runOnnxModel, toFloat64, type OracleTensor } from './onnx-oracle.ts';
import { assertAllClose } from './assert.ts';

export const MS = 'com.microsoft';

/** Codes from a seeded generator over the type's whole range. */
export function codes(dtype: 'uint8' | 'int8', shape: number[], seed: number): number[] {
  let s = seed >>> 0;
  const n = shape.reduce((a, b) => a * b, 1);
  return Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return (s >>> 24) - (dtype === 'int8' ? 128 : 0);
  });
}
export const q = (name: string, dtype: 'uint8' | 'int8', shape: number[], seed: number): InitializerSpec => ({
  name,
  dtype,
  shape,
  data: codes(dtype, shape, seed),
});
export const scalar = (
  name: string,
  dtype: 'float32' | 'uint8' | 'int8' | 'int32',
  value: number,
): InitializerSpec => ({
  name,
  dtype,
  shape: [],
  data: [value],
});
export const floats = (name: string, shape: number[], seed: number, low = -1, high = 1): InitializerSpec => ({
  name,
  dtype: 'float32',
  shape,
  data: Array.from(randomUniform(shape, { seed, low, high }).dataSync()),
});

function feedOf(t: Tensor): OracleTensor {
  const data = t.dataSync();
  if (t.dtype === 'uint8') return { dtype: 'uint8', shape: [...t.shape], data: Uint8Array.from(data) };
  if (t.dtype === 'int8') return { dtype: 'int8', shape: [...t.shape], data: Int8Array.from(data) };
  if (t.dtype === 'int32') return { dtype: 'int32', shape: [...t.shape], data: Int32Array.from(data) };
  if (t.dtype === 'uint16') return { dtype: 'uint16', shape: [...t.shape], data: Uint16Array.from(data) };
  if (t.dtype === 'int16') return { dtype: 'int16', shape: [...t.shape], data: Int16Array.from(data) };
  if (t.dtype === 'bool') return { dtype: 'bool', shape: [...t.shape], data: Uint8Array.from(data) };
  if (t.dtype === 'int64') return { dtype: 'int64', shape: [...t.shape], data: BigInt64Array.from(data, BigInt) };
  if (t.dtype === 'float64') return { dtype: 'float64', shape: [...t.shape], data: Float64Array.from(data) };
  return { dtype: 'float32', shape: [...t.shape], data: Float32Array.from(data) };
}

/**
 * One node over graph inputs `feeds` and initializers, run by raf-op and onnxruntime-node; every output compared:
 * quantized (8- or 16-bit) ones within one code, at most 5% of them off, over at least `spread` distinct codes; int32
 * and int64 ones exactly; float ones within `tol`. The model imports the default domain at `opset`, com.microsoft at 1 and ai.onnx.ml at `ml`.
 */
export async function agree(
  node: NodeSpec,
  feeds: Record<string, Tensor>,
  inits: InitializerSpec[],
  { tol = 1e-5, spread = 8, opset = 19, ml = 3 } = {},
): Promise<void> {
  const model = buildModel({
    nodes: [node],
    inputs: Object.entries(feeds).map(([name, t]) => ({ name, dtype: t.dtype as 'float32', shape: [...t.shape] })),
    outputs: node.outputs.filter(Boolean).map((name) => ({ name })),
    initializers: inits,
    opset: [
      { domain: '', version: opset },
      { domain: MS, version: 1 },
      { domain: 'ai.onnx.ml', version: ml },
    ],
  });
  const theirs = await runOnnxModel(model, Object.fromEntries(Object.entries(feeds).map(([n, t]) => [n, feedOf(t)])));
  const ours = execute(fromOnnx(model), Object.values(feeds));
  expect(ours.length).toBe(theirs.length);
  ours.forEach((t, i) => {
    const what = `${node.op} output ${i}`;
    expect([...t.shape], what).toEqual(theirs[i]!.shape);
    expect(t.dtype, what).toBe(theirs[i]!.dtype);
    const [a, b] = [Array.from(t.dataSync() as ArrayLike<number>), Array.from(toFloat64(theirs[i]!))];
    if (t.dtype === 'int32' || t.dtype === 'int64') expect(a, what).toEqual(b);
    else if (t.dtype.includes('int')) {
      const off = a.filter((x, j) => x !== b[j]);
      expect(Math.max(0, ...a.map((x, j) => Math.abs(x - b[j]!))), what).toBeLessThanOrEqual(1);
      expect(off.length, `${what}: codes off by one`).toBeLessThanOrEqual(Math.max(1, a.length * 0.05));
      expect(new Set(b).size, `${what}: distinct codes`).toBeGreaterThanOrEqual(Math.min(spread, b.length));
    } else assertAllClose(a, b, { atol: tol, rtol: tol }, what);
  });
}
