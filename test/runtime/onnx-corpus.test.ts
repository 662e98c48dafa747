// Real third-party ONNX models (test/onnx-corpus/models.json) import as shipped and agree with onnxruntime-node.
// Three small ones are committed (test/onnx-corpus/committed/); the rest run once `npx tsx test/onnx-corpus/fetch.ts`
// has put them in node_modules/.cache/onnx-corpus, and are reported as skipped (not passed) until then.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { initWebGpu, loadOnnx, randomUniform } from '../../runtime/src/index.ts';
import { execute, fuseOps, moveGraph } from '../../runtime/src/graph/index.ts';
import { compareModel, feedsFor } from '../onnx-corpus/compare.ts';
import { CORPUS, corpusFile } from '../onnx-corpus/fetch.ts';
import { buildModel } from '../support/onnx-proto.ts';

// CI and RAF_REQUIRE_WEBGPU=1 turn a missing adapter into a failure; elsewhere the WebGPU runs are skipped.
const REQUIRE_GPU = Boolean(process.env.CI) || process.env.RAF_REQUIRE_WEBGPU === '1';
const gpu = await initWebGpu().catch(() => false);
if (REQUIRE_GPU && !gpu) throw new Error('WebGPU is required here but no adapter was found');

const present = CORPUS.filter((m) => corpusFile(m));
const absent = CORPUS.filter((m) => !corpusFile(m));

describe('real ONNX models vs onnxruntime-node (CPU)', () => {
  it('has at least three committed models, so every run checks some', () => {
    expect(present.length).toBeGreaterThanOrEqual(3);
  });

  for (const m of present) {
    const bytes = () => new Uint8Array(readFileSync(corpusFile(m)!));
    if (m.refuses) {
      it(`${m.name} (${m.kind}) is refused with a message naming the node: ${m.refuses}`, async () => {
        const c = await compareModel(m, bytes());
        expect(c.error).toMatch(/^FromOnnx node \d+ \(/);
        expect(c.error).toContain(m.refuses);
      });
      continue;
    }
    it(`${m.name} (${m.kind}) agrees within 1e-4`, async () => {
      const c = await compareModel(m, bytes());
      expect(c.error).toBeNull();
      expect(c.outputs).toBeGreaterThan(0);
      expect(c.maxErr).toBeLessThanOrEqual(1e-4);
    });
  }

  for (const m of absent) it.skip(`${m.name}: not fetched (npx tsx test/onnx-corpus/fetch.ts)`, () => {});
});

describe.skipIf(!gpu)('real ONNX models on WebGPU vs the CPU dialect', () => {
  // As imported, and after fuseOps (fused WGSL groups: a layer norm's x ** 2 of negative values once gave NaN there).
  for (const [m, fused] of present
    .filter((c) => !c.refuses)
    .flatMap((c) => [[c, false] as const, [c, true] as const])) {
    it(`${m.name}${fused ? ' after fuseOps' : ''} agrees within 1e-4`, async () => {
      const bytes = new Uint8Array(readFileSync(corpusFile(m)!));
      const s = loadOnnx(bytes, fused ? { passes: [fuseOps] } : {});
      const feeds = feedsFor(m, bytes);
      const cpu = s.run(feeds);
      const g = await moveGraph(s.graphFor(feeds), 'webgpu');
      const outs = execute(g, await Promise.all(g.params.map((p) => feeds[p.hint!]!.to('webgpu'))));
      let err = 0;
      for (const [i, n] of s.outputNames.entries()) {
        const [a, b] = [await outs[i]!.data(), cpu[n]!.dataSync()];
        expect(a.length).toBe(b.length);
        for (let k = 0; k < a.length; k++) err = Math.max(err, Math.abs(a[k]! - b[k]!) / (1 + Math.abs(b[k]!)));
      }
      expect(err).toBeLessThanOrEqual(1e-4);
    });
  }
});

describe('OnnxSession', () => {
  const m = CORPUS.find((c) => c.name === 'silero-vad-16k-op15')!;
  const bytes = new Uint8Array(readFileSync(corpusFile(m)!));

  it('keeps ONNX names and runs by name, converting once per input signature', () => {
    const s = loadOnnx(bytes);
    expect(s.inputNames).toEqual(['input', 'state', 'sr']);
    const a = s.run(feedsFor(m, bytes, 1));
    expect(Object.keys(a).sort()).toEqual([...s.outputNames].sort());
    s.run(feedsFor(m, bytes, 2));
    expect(s.specializations).toBe(1);
    // Another batch size is another signature: a new graph, the same session.
    const batch2 = feedsFor({ ...m, shapes: { input: [2, 512], state: [2, 2, 128] } }, bytes, 3);
    const b = s.run(batch2);
    expect(s.specializations).toBe(2);
    expect(b.output!.shape[0]).toBe(2);
  });

  it('refuses a feed with a missing or unknown name', () => {
    const s = loadOnnx(bytes);
    const { sr: _sr, ...noSr } = feedsFor(m, bytes);
    expect(() => s.run(noSr)).toThrow("missing input(s) 'sr'");
    expect(() => s.run({ ...feedsFor(m, bytes), extra: feedsFor(m, bytes).input! })).toThrow(
      "unknown input(s) 'extra'",
    );
  });

  it("refuses a feed whose rank or fixed dimension contradicts the model's declaration, naming the input", () => {
    const s = loadOnnx(bytes);
    const feeds = feedsFor(m, bytes);
    // input is declared [batch, sequence], state [2, batch, 128].
    expect(() => s.run({ ...feeds, input: randomUniform([1, 2, 512]) })).toThrow(
      "input 'input' has shape [1, 2, 512], the model declares [batch, sequence] (rank 2)",
    );
    expect(() => s.run({ ...feeds, state: randomUniform([3, 1, 128]) })).toThrow(
      "input 'state' has shape [3, 1, 128], the model declares [2, batch, 128] (dimension 0 is fixed at 2)",
    );
    expect(s.specializations).toBe(0);
  });
});

describe('OnnxSession runs that repeat the last signature', () => {
  // y = a + relu(b), a and b float32 [n, 3].
  const bytes = buildModel({
    nodes: [
      { op: 'Relu', inputs: ['b'], outputs: ['r'] },
      { op: 'Add', inputs: ['a', 'r'], outputs: ['y'] },
    ],
    inputs: [
      { name: 'a', dtype: 'float32', shape: ['n', 3] },
      { name: 'b', dtype: 'float32', shape: ['n', 3] },
    ],
    outputs: [{ name: 'y' }],
  });
  const feeds = (n: number, seed: number) => ({
    a: randomUniform([n, 3], { seed, low: -1 }),
    b: randomUniform([n, 3], { seed: seed + 1, low: -1 }),
  });
  const want = (f: ReturnType<typeof feeds>) => {
    const [a, b] = [f.a.dataSync(), f.b.dataSync()];
    // One float32 rounding of the exact sum, as the kernel rounds it.
    return Array.from(a, (v, k) => Math.fround(v + Math.max(b[k]!, 0)));
  };

  it('are checked as any run: names, rank, fixed sizes and a new signature after a repeat', () => {
    const s = loadOnnx(bytes, { ortRegions: false });
    for (const seed of [1, 3, 5]) {
      const f = feeds(2, seed);
      expect(Array.from(s.run(f).y!.dataSync())).toEqual(want(f));
    }
    const f = feeds(2, 7);
    expect(() => s.run({ a: f.a, c: f.b } as never)).toThrow("missing input(s) 'b'");
    expect(() => s.run({ ...f, c: f.b } as never)).toThrow("unknown input(s) 'c'");
    expect(() => s.run({ ...f, b: randomUniform([2, 3, 1]) })).toThrow(
      "input 'b' has shape [2, 3, 1], the model declares [n, 3] (rank 2)",
    );
    expect(() => s.run({ ...f, b: randomUniform([2, 4]) })).toThrow('dimension 1 is fixed at 3');
    expect(s.specializations).toBe(1);
    const longer = feeds(5, 9);
    expect(Array.from(s.run(longer).y!.dataSync())).toEqual(want(longer));
    expect(s.specializations).toBe(2);
    expect(Array.from(s.run(f).y!.dataSync())).toEqual(want(f));
    expect(s.specializations).toBe(2);
  });
});
