// Importing an ONNX model straight onto WebGPU (`loadOnnx(bytes, { device: device('webgpu') })`): the model's weights
// are initializers, decoded and folded on the CPU at import, and the graph computes on WebGPU. A Gather over an
// initializer (a transformer's embedding lookup: the table is a weight, the ids an input on the GPU) once refused
// with "indices is on webgpu(0) but weight is on cpu(0)"; the importer now places every weight a recorded node reads
// on that node's device, once. Checked against onnxruntime-node on a small embedding + dense + LayerNorm model built
// here, and on the BERT export of ../shared/onnx-tx (two embedding Gathers, a Gather along axis 1 of the pooler).

import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { device, loadOnnx, tensor, type Tensor } from '../../runtime/src/index.ts';
import { ModelProto } from '../support/onnx-proto.ts';
import { useWebGpu } from '../support/webgpu-context.ts';

const [FLOAT, INT64] = [1, 7];
const [VOCAB, D, SEQ] = [11, 8, 5];

const wave = (n: number, scale: number, phase: number): number[] =>
  Array.from({ length: n }, (_, i) => scale * Math.sin(0.53 * i + phase));
const TABLE = wave(VOCAB * D, 0.8, 0.2);
const POS = wave(SEQ * D, 0.3, 1.7);
const W = wave(D * D, 0.5, 0.9);
const GAMMA = wave(D, 0.2, 2.3).map((v) => v + 1);
const BETA = wave(D, 0.1, 0.4);
const IDS = [3, 0, 10, 7, 3, 1, 9, 2, 5, 10];

/**
 * e = Gather(table, ids) + Gather(pos, [0..SEQ)) (an initializer indexed by a Constant: folds at import);
 * y = LayerNorm(e·W); z = Gather(y, 1, axis=1) (the first token, as BERT's pooler reads it).
 */
function model(): Uint8Array {
  const f32 = (v: number[]) => new Uint8Array(Float32Array.from(v).buffer);
  const init = (name: string, dims: number[], v: number[]) => ({ name, dataType: FLOAT, dims, rawData: f32(v) });
  const info = (name: string, elemType: number, dims: number[]) => ({
    name,
    type: { tensorType: { elemType, shape: { dim: dims.map((dimValue) => ({ dimValue })) } } },
  });
  const positions = {
    name: 'positions',
    dataType: INT64,
    dims: [SEQ],
    rawData: new Uint8Array(BigInt64Array.from({ length: SEQ }, (_, i) => BigInt(i)).buffer),
  };
  const nodes = [
    { opType: 'Gather', input: ['table', 'ids'], output: ['tok'] },
    { opType: 'Constant', input: [], output: ['pos_ids'], attribute: [{ name: 'value', type: 4, t: positions }] },
    { opType: 'Gather', input: ['pos', 'pos_ids'], output: ['pe'] },
    { opType: 'Add', input: ['tok', 'pe'], output: ['e'] },
    { opType: 'MatMul', input: ['e', 'W'], output: ['m'] },
    {
      opType: 'LayerNormalization',
      input: ['m', 'gamma', 'beta'],
      output: ['y'],
      attribute: [
        { name: 'axis', type: 2, i: -1 },
        { name: 'epsilon', type: 1, f: 1e-5 },
      ],
    },
    { opType: 'Gather', input: ['y', 'first'], output: ['z'], attribute: [{ name: 'axis', type: 2, i: 1 }] },
  ];
  const msg = ModelProto.fromObject({
    irVersion: 8,
    opsetImport: [{ domain: '', version: 17 }],
    graph: {
      name: 'embed',
      node: nodes.map((n, k) => ({ name: `n${k}_${n.opType}`, ...n })),
      input: [info('ids', INT64, [2, SEQ])],
      output: [info('y', FLOAT, [2, SEQ, D]), info('z', FLOAT, [2, D])],
      initializer: [
        init('table', [VOCAB, D], TABLE),
        init('pos', [SEQ, D], POS),
        init('W', [D, D], W),
        init('gamma', [D], GAMMA),
        init('beta', [D], BETA),
        { name: 'first', dataType: INT64, dims: [], rawData: new Uint8Array(new BigInt64Array([0n]).buffer) },
      ],
    },
  });
  return ModelProto.encode(msg).finish();
}

type Feed = { readonly data: number[]; readonly shape: number[] };

async function runOrt(bytes: Uint8Array, feeds: Record<string, Feed>): Promise<Record<string, Float32Array>> {
  const session = await ort.InferenceSession.create(bytes, { logSeverityLevel: 4, intraOpNumThreads: 1 });
  const inputs = Object.fromEntries(
    Object.entries(feeds).map(([n, f]) => [n, new ort.Tensor('int64', BigInt64Array.from(f.data, BigInt), f.shape)]),
  );
  const out = await session.run(inputs);
  return Object.fromEntries(session.outputNames.map((n) => [n, out[n]!.data as Float32Array]));
}

/** Imports on WebGPU, feeds GPU tensors, and returns each output's values read back with its device. */
async function runWebGpu(bytes: Uint8Array, feeds: Record<string, Feed>) {
  const s = loadOnnx(bytes, { device: device('webgpu') });
  const gpuFeeds: Record<string, Tensor> = {};
  for (const [n, f] of Object.entries(feeds))
    gpuFeeds[n] = await tensor(f.data, { shape: f.shape, dtype: 'int64' }).to('webgpu');
  const out = s.run(gpuFeeds);
  const res: Record<string, { values: Float32Array; device: string; shape: readonly number[] }> = {};
  for (const [n, t] of Object.entries(out))
    res[n] = { values: Float32Array.from(await t.data()), device: t.device.kind, shape: t.shape };
  return { session: s, out: res };
}

/** max |a - b| / (1 + |b|). */
function maxRel(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length);
  let m = 0;
  for (let i = 0; i < b.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!) / (1 + Math.abs(b[i]!)));
  return m;
}

describe('loadOnnx on WebGPU: Gather over an initializer', () => {
  const needGpu = useWebGpu();

  it('an embedding model imported with device webgpu computes on the GPU and matches onnxruntime within 1e-5', async (ctx) => {
    needGpu(ctx);
    const bytes = model();
    const feeds = { ids: { data: IDS, shape: [2, SEQ] } };
    const want = await runOrt(bytes, feeds);
    const { out } = await runWebGpu(bytes, feeds);
    expect(out.y!.device).toBe('webgpu');
    expect(out.y!.shape).toEqual([2, SEQ, D]);
    expect(out.z!.shape).toEqual([2, D]);
    // LayerNorm of values of order 1 in float32: both sides round at ~1e-7; 1e-5 leaves room for the reduction order.
    expect(maxRel(out.y!.values, want.y!)).toBeLessThan(1e-5);
    expect(maxRel(out.z!.values, want.z!)).toBeLessThan(1e-5);
    // The reference is not degenerate: the rows differ and are not all zero.
    expect(Math.max(...want.y!.map(Math.abs))).toBeGreaterThan(0.5);
  });

  it('an index out of the table is refused naming the op, not read out of bounds', async (ctx) => {
    needGpu(ctx);
    const s = loadOnnx(model(), { device: device('webgpu') });
    const ids = await tensor(
      IDS.map((v, i) => (i === 3 ? VOCAB : v)),
      { shape: [2, SEQ], dtype: 'int64' },
    ).to('webgpu');
    expect(() => s.run({ ids })).toThrow(/out of (range|bounds)|index/i);
  });

  const bertFile = resolve(dirname(fileURLToPath(import.meta.url)), '../../../shared/onnx-tx/bert-ts.onnx');
  it.skipIf(!existsSync(bertFile))(
    'the BERT export (embedding Gathers over initializers) imported on WebGPU matches onnxruntime within 1e-4',
    async (ctx) => {
      needGpu(ctx);
      const bytes = new Uint8Array(readFileSync(bertFile));
      const seq = 8;
      const ids = Array.from({ length: 2 * seq }, (_, i) => (i * 37 + 5) % 1000);
      const mask = ids.map((_, i) => (i >= seq + 6 ? 0 : 1)); // the second row padded after 6 tokens
      const types = ids.map((_, i) => (i % seq >= seq / 2 ? 1 : 0));
      const feeds = {
        input_ids: { data: ids, shape: [2, seq] },
        attention_mask: { data: mask, shape: [2, seq] },
        token_type_ids: { data: types, shape: [2, seq] },
      };
      const want = await runOrt(bytes, feeds);
      const { session, out } = await runWebGpu(bytes, feeds);
      expect(session.outputNames.length).toBeGreaterThan(0);
      for (const n of session.outputNames) {
        expect(out[n]!.device).toBe('webgpu');
        expect(maxRel(out[n]!.values, want[n]!)).toBeLessThan(1e-4);
      }
    },
    60_000,
  );
});
