// float16 ONNX models as onnxruntime's float16 converter writes them (float16 weights, Casts at the float32 inputs and
// outputs, its input Cast appended last). On the CPU they compute in float32 (float16 weights widened exactly at
// import, the converter's Casts gone): the graph holds no float16 value but the rounding of a float16 output, computes
// what a float32 twin of the model (the same weights, as float32) computes, bit for bit, fuses into as many kernels,
// and stays as close to onnxruntime's float16 result as onnxruntime's own float16 and float32 results are to each
// other. `float16: 'float16'` rounds after every op instead, and a graph so imported runs on WebGPU (packed float16,
// or shader-f16 where the adapter has it) with the CPU's result. The transformer files of ../shared/onnx-tx (every
// -fp16 file beside its float32 file) import with no float16 op and as many kernels and attention calls as their
// float32 files.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { loadOnnx, tensor, type Tensor } from '../../runtime/src/index.ts';
import {
  countKernels,
  execute,
  fuseEpilogues,
  moveGraph,
  printGraph,
  recognizeAttention,
  type Graph,
} from '../../runtime/src/graph/index.ts';
import { definedVars, nodeInputs } from '../../runtime/src/graph/ir.ts';
import { ModelProto } from '../support/onnx-proto.ts';
import { useWebGpu } from '../support/webgpu-context.ts';

/** IEEE binary16 bits of x, rounded to nearest, ties to even (finite |x| below 65504 here). */
function halfBits(x: number): number {
  const sign = x < 0 || Object.is(x, -0) ? 0x8000 : 0;
  const a = Math.abs(x);
  if (a === 0) return sign;
  let e = Math.max(Math.floor(Math.log2(a)), -14);
  const ulp = 2 ** (e - 10);
  const scaled = a / ulp;
  let q = Math.floor(scaled);
  const rest = scaled - q;
  if (rest > 0.5 || (rest === 0.5 && q % 2 === 1)) q++;
  if (q < 1024) return sign | q; // subnormal (e = -14)
  if (q === 2048) [e, q] = [e + 1, 1024];
  return sign | ((e + 15) << 10) | (q - 1024);
}

/** The value of binary16 bits. */
function halfValue(bits: number): number {
  const [s, e, m] = [bits >> 15 ? -1 : 1, (bits >> 10) & 31, bits & 1023];
  if (e === 31) return m ? NaN : s * Infinity;
  return e === 0 ? s * m * 2 ** -24 : s * (1 + m / 1024) * 2 ** (e - 15);
}

const toHalf = (x: number): number => halfValue(halfBits(x));

/** max |a - b| / (1 + |b|). */
function maxRel(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < b.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!) / (1 + Math.abs(b[i]!)));
  return m;
}

const [FLOAT, FLOAT16] = [1, 10];
const D = 8;
const X_SHAPE = [2, 3, D];

/** Smooth deterministic values, already on the float16 grid (so both models hold the same numbers). */
const grid = (n: number, scale: number, phase: number): number[] =>
  Array.from({ length: n }, (_, i) => toHalf(scale * Math.sin(0.61 * i + phase)));
const W = grid(D * D, 0.5, 0.3);
const BIAS = grid(D, 0.2, 1.1);
const GAMMA = grid(D, 0.4, 2.0).map((v) => toHalf(v + 1));
const BETA = grid(D, 0.1, 0.7);
const K = 0.7998046875; // on the float16 grid

/**
 * y = Softmax(LayerNorm(Relu(x·W + b))) and z = LayerNorm(...)·k. The float16 file holds its weights as float16 and
 * casts x in and y out (its Cast of x last in the node list, as the converter appends it); z stays float16, a declared
 * float16 output. With `halfIo` (the converter without keep_io_types) x and y are float16 too, with no Cast. The
 * float32 twin holds the same weights as float32 and has no Cast.
 */
function model(half: boolean, halfIo = false): Uint8Array {
  const type = half ? FLOAT16 : FLOAT;
  const raw = (v: number[]) =>
    half ? new Uint8Array(Uint16Array.from(v, halfBits).buffer) : new Uint8Array(Float32Array.from(v).buffer);
  const init = (name: string, dims: number[], v: number[]) => ({ name, dataType: type, dims, rawData: raw(v) });
  const info = (name: string, elemType: number, dims: number[]) => ({
    name,
    type: { tensorType: { elemType, shape: { dim: dims.map((dimValue) => ({ dimValue })) } } },
  });
  const casts = half && !halfIo;
  const xIn = casts ? 'x_half' : 'x';
  const nodes = [
    { opType: 'MatMul', input: [xIn, 'W'], output: ['m'] },
    { opType: 'Add', input: ['m', 'b'], output: ['a'] },
    { opType: 'Relu', input: ['a'], output: ['r'] },
    {
      opType: 'LayerNormalization',
      input: ['r', 'gamma', 'beta'],
      output: ['ln'],
      attribute: [
        { name: 'axis', type: 2, i: -1 },
        { name: 'epsilon', type: 1, f: 1e-5 },
      ],
    },
    { opType: 'Softmax', input: ['ln'], output: [casts ? 's' : 'y'], attribute: [{ name: 'axis', type: 2, i: -1 }] },
    { opType: 'Mul', input: ['ln', 'k'], output: ['z'] },
    ...(casts
      ? [
          { opType: 'Cast', input: ['s'], output: ['y'], attribute: [{ name: 'to', type: 2, i: FLOAT }] },
          { opType: 'Cast', input: ['x'], output: ['x_half'], attribute: [{ name: 'to', type: 2, i: FLOAT16 }] },
        ]
      : []),
  ];
  const msg = ModelProto.fromObject({
    irVersion: 8,
    opsetImport: [{ domain: '', version: 17 }],
    graph: {
      name: half ? 'fp16' : 'fp32',
      node: nodes.map((n, k) => ({ name: `n${k}_${n.opType}`, ...n })),
      input: [info('x', halfIo ? FLOAT16 : FLOAT, X_SHAPE)],
      output: [info('y', halfIo ? FLOAT16 : FLOAT, X_SHAPE), info('z', type, X_SHAPE)],
      initializer: [
        init('W', [D, D], W),
        init('b', [D], BIAS),
        init('gamma', [D], GAMMA),
        init('beta', [D], BETA),
        init('k', [], [K]),
      ],
    },
  });
  return ModelProto.encode(msg).finish();
}

const X = Array.from({ length: X_SHAPE.reduce((a, b) => a * b) }, (_, i) => 1.3 * Math.cos(0.37 * i + 0.2));

async function runOrt(bytes: Uint8Array): Promise<Record<string, number[]>> {
  const session = await ort.InferenceSession.create(bytes, { logSeverityLevel: 4, intraOpNumThreads: 1 });
  const out = await session.run({ x: new ort.Tensor('float32', Float32Array.from(X), X_SHAPE) });
  return Object.fromEntries(
    session.outputNames.map((n) => {
      const t = out[n]!;
      // float16 comes back as its bits (Uint16Array) where the runtime has no Float16Array.
      const values =
        t.type === 'float16' && t.data instanceof Uint16Array
          ? Array.from(t.data, halfValue)
          : Array.from(t.data as ArrayLike<number>, Number);
      return [n, values];
    }),
  );
}

/** Every dtype a graph's nodes compute or read, with the ops that compute float16. */
function dtypesOf(g: Graph): { dtypes: Set<string>; halfOps: string[] } {
  const dtypes = new Set<string>();
  const halfOps: string[] = [];
  for (const n of g.nodes) {
    for (const a of nodeInputs(n)) dtypes.add(a.kind === 'var' ? a.type.dtype : a.value.dtype);
    for (const v of definedVars(n)) {
      dtypes.add(v.type.dtype);
      if (v.type.dtype === 'float16') halfOps.push(n.kind === 'call' ? n.op.name : 'fused');
    }
  }
  return { dtypes, halfOps };
}

const values = (t: Tensor): number[] => Array.from(t.dataSync() as ArrayLike<number>, Number);

describe('a float16 model on the CPU', () => {
  const [half, twin] = [model(true), model(false)];
  const feeds = { x: tensor(X, { shape: X_SHAPE }) };

  it('computes in float32: no float16 value but the rounding of its float16 output', () => {
    const g = loadOnnx(half).graphFor(feeds);
    const { dtypes, halfOps } = dtypesOf(g);
    expect(halfOps).toEqual(['cast']);
    expect([...dtypes].sort()).toEqual(['float16', 'float32']);
    // The one float16 value is the graph's output z; nothing reads it.
    expect(g.nodes.flatMap((n) => nodeInputs(n)).some((a) => a.kind === 'var' && a.type.dtype === 'float16')).toBe(
      false,
    );
  });

  it("gives its float32 twin's results bit for bit, z rounded to float16 once", () => {
    const ours = loadOnnx(half).run(feeds);
    const theirs = loadOnnx(twin).run(feeds);
    expect(ours.y!.dtype).toBe('float32');
    expect(ours.z!.dtype).toBe('float16');
    expect(values(ours.y!)).toEqual(values(theirs.y!));
    expect(values(ours.z!)).toEqual(values(theirs.z!).map(toHalf));
  });

  it('with float16 inputs and outputs (no Casts), reads its float16 input into float32 and rounds each output once', () => {
    const session = loadOnnx(model(true, true));
    const xh = X.map(toHalf);
    const g = session.graphFor({ x: tensor(xh, { dtype: 'float16', shape: X_SHAPE }) });
    expect(g.params.map((p) => p.type.dtype)).toEqual(['float32']);
    expect(dtypesOf(g).halfOps).toEqual(['cast', 'cast']);
    const ours = session.run({ x: tensor(xh, { dtype: 'float16', shape: X_SHAPE }) });
    const theirs = loadOnnx(twin).run({ x: tensor(xh, { shape: X_SHAPE }) });
    for (const name of ['y', 'z']) {
      expect(ours[name]!.dtype, name).toBe('float16');
      expect(values(ours[name]!), name).toEqual(values(theirs[name]!).map(toHalf));
    }
  });

  it('widens every float16 bit pattern of a weight to its exact value', () => {
    const bits = Uint16Array.from({ length: 0x10000 }, (_, h) => h);
    const bytes = ModelProto.encode(
      ModelProto.fromObject({
        irVersion: 8,
        opsetImport: [{ domain: '', version: 17 }],
        graph: {
          name: 'all-halves',
          node: [
            { opType: 'Cast', input: ['w'], output: ['w32'], attribute: [{ name: 'to', type: 2, i: FLOAT }] },
            { opType: 'Mul', input: ['w32', 'one'], output: ['y'] },
          ],
          input: [{ name: 'one', type: { tensorType: { elemType: FLOAT, shape: { dim: [{ dimValue: 1 }] } } } }],
          output: [{ name: 'y', type: { tensorType: { elemType: FLOAT, shape: { dim: [{ dimValue: 0x10000 }] } } } }],
          initializer: [{ name: 'w', dataType: FLOAT16, dims: [0x10000], rawData: new Uint8Array(bits.buffer) }],
        },
      }),
    ).finish();
    const got = values(loadOnnx(bytes).run({ one: tensor([1]) }).y!);
    const want = Array.from(bits, halfValue);
    expect(got.map((v) => Object.is(v, -0))).toEqual(want.map((v) => Object.is(v, -0)));
    expect(got.map((v) => (Number.isNaN(v) ? 'NaN' : v))).toEqual(want.map((v) => (Number.isNaN(v) ? 'NaN' : v)));
  });

  it('fuses into as many kernels as its float32 twin (plus the output rounding)', () => {
    const count = (bytes: Uint8Array) =>
      countKernels(loadOnnx(bytes, { ortRegions: false, passes: [fuseEpilogues] }).graphFor(feeds));
    expect(count(half)).toBe(count(twin) + 1);
  });

  it("is no further from onnxruntime's float16 result than onnxruntime's float16 and float32 results are apart", async () => {
    const ours = loadOnnx(half).run(feeds);
    const [ort16, ort32] = [await runOrt(half), await runOrt(twin)];
    for (const name of ['y', 'z']) {
      const apart = maxRel(ort16[name]!, ort32[name]!);
      expect(maxRel(values(ours[name]!), ort16[name]!), name).toBeLessThanOrEqual(apart + 2 ** -10);
    }
  });

  it("with float16: 'float16', rounds after every op and stays within onnxruntime's float16 rounding", async () => {
    const session = loadOnnx(half, { float16: 'float16' });
    const { halfOps } = dtypesOf(session.graphFor(feeds));
    for (const op of ['matmul', 'add', 'relu', 'softmax', 'multiply']) expect(halfOps, op).toContain(op);
    const ours = session.run(feeds);
    expect(ours.z!.dtype).toBe('float16');
    const [ort16, ort32] = [await runOrt(half), await runOrt(twin)];
    for (const name of ['y', 'z']) {
      const apart = maxRel(ort16[name]!, ort32[name]!);
      expect(maxRel(values(ours[name]!), ort16[name]!), name).toBeLessThanOrEqual(apart + 2 ** -10);
    }
  });
});

const needGpu = useWebGpu();

describe('a float16 model on WebGPU', () => {
  it("imported with float16: 'float16' and moved, gives the CPU's float16 result", async (ctx) => {
    const gpu = needGpu(ctx);
    const feeds = { x: tensor(X, { shape: X_SHAPE }) };
    const session = loadOnnx(model(true), { float16: 'float16' });
    const g = session.graphFor(feeds);
    const want = execute(g, [feeds.x]).map(values);
    const moved = await moveGraph(g, 'webgpu');
    const outs = execute(moved, [await feeds.x.to('webgpu')]);
    expect(outs.map((t) => t.dtype)).toEqual(['float32', 'float16']);
    for (const [i, t] of outs.entries()) {
      expect(t.device.kind).toBe('webgpu');
      const got = Array.from((await t.data()) as ArrayLike<number>, Number);
      // Each op rounds to float16 on both; a sum in another order may land one float16 step away.
      expect(maxRel(got, want[i]!), `output ${i} (shader-f16: ${gpu.hasF16})`).toBeLessThanOrEqual(2 ** -9);
    }
  });
});

const DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../../shared/onnx-tx');
const PAIRS = existsSync(DIR)
  ? readdirSync(DIR)
      .filter((f) => f.endsWith('-fp16.onnx') && existsSync(resolve(DIR, f.replace('-fp16', ''))))
      .sort()
  : [];

/** Token ids, a full mask, zero token types; smooth floats for pixels and mel features. */
function txFeeds(session: ReturnType<typeof loadOnnx>): Record<string, Tensor> {
  const feeds: Record<string, Tensor> = {};
  for (const input of session.model.inputs.filter((i) => session.inputNames.includes(i.name))) {
    let symbolic = 0;
    const shape = (input.shape ?? []).map((d) => (typeof d === 'number' ? d : symbolic++ === 0 ? 2 : 9));
    const n = shape.reduce((a, b) => a * b, 1);
    feeds[input.name] =
      input.dtype === 'int64'
        ? tensor(
            Array.from({ length: n }, (_, i) => (/mask/.test(input.name) ? 1 : /type/.test(input.name) ? 0 : i % 500)),
            { dtype: 'int64', shape },
          )
        : tensor(
            Array.from({ length: n }, (_, i) => Math.sin(0.37 * i)),
            { shape },
          );
  }
  return feeds;
}

describe('the float16 transformer files of ../shared/onnx-tx on the CPU', () => {
  it('are present beside their float32 files', () => {
    expect(PAIRS.length).toBeGreaterThanOrEqual(4);
  });

  it.each(PAIRS)(
    '%s: no float16 op, the graph of its float32 file (its constants rounded), as many kernels',
    (file) => {
      const graphs = [file, file.replace('-fp16', '')].map((f) => {
        const bytes = readFileSync(resolve(DIR, f));
        const feeds = txFeeds(loadOnnx(bytes));
        return {
          // raf-op's calls only (no ort regions): the graphs compared are the import's.
          fused: loadOnnx(bytes, { ortRegions: false, passes: [fuseEpilogues] }).graphFor(feeds),
          attention: printGraph(loadOnnx(bytes, { ortRegions: false, passes: [recognizeAttention] }).graphFor(feeds)),
        };
      });
      const [half, full] = graphs as [(typeof graphs)[0], (typeof graphs)[0]];
      expect(dtypesOf(half.fused).halfOps).toEqual([]);
      expect(countKernels(half.fused)).toBe(countKernels(full.fused));
      const calls = (text: string) => (text.match(/raf\.op\.attention\(/g) ?? []).length;
      expect(calls(full.attention)).toBeGreaterThan(0);
      expect(calls(half.attention)).toBe(calls(full.attention));
      // Op for op the same graph: only the scalar constants differ (the float16 file's are rounded to float16).
      const shape = (g: Graph) => printGraph(g).replace(/-?\d+\.\d+(e[-+]?\d+)?f?/g, '<float>');
      expect(shape(half.fused)).toBe(shape(full.fused));
    },
  );

  it("bert-ts-fp16.onnx imported with float16: 'float16' runs on WebGPU within float16 rounding of onnxruntime", async (ctx) => {
    needGpu(ctx);
    const path = resolve(DIR, 'bert-ts-fp16.onnx');
    const session = loadOnnx(readFileSync(path), { float16: 'float16' });
    const feeds = txFeeds(session);
    const g = await moveGraph(session.graphFor(feeds), 'webgpu');
    const outs = execute(g, await Promise.all(g.params.map((p) => feeds[p.hint!]!.to('webgpu'))));
    const ortFeeds = Object.fromEntries(
      Object.entries(feeds).map(([n, t]) => [
        n,
        t.dtype === 'int64'
          ? new ort.Tensor('int64', BigInt64Array.from(values(t), BigInt), t.shape)
          : new ort.Tensor('float32', Float32Array.from(values(t)), t.shape),
      ]),
    );
    const [ort16, ort32] = await Promise.all(
      [path, path.replace('-fp16', '')].map(async (p) => {
        const s = await ort.InferenceSession.create(p, { logSeverityLevel: 4, intraOpNumThreads: 1 });
        const out = await s.run(ortFeeds);
        return s.outputNames.map((n) => Array.from(out[n]!.data as ArrayLike<number>, Number));
      }),
    );
    expect(outs.length).toBe(ort16!.length);
    for (const [i, t] of outs.entries()) {
      expect(t.device.kind).toBe('webgpu');
      const got = Array.from((await t.data()) as ArrayLike<number>, Number);
      const apart = maxRel(ort16![i]!, ort32![i]!);
      expect(maxRel(got, ort16![i]!), `output ${i}`).toBeLessThanOrEqual(apart + 2 ** -10);
    }
  });
});
