// Real third-party ONNX models (test/onnx-corpus/models.json) import as shipped and agree with onnxruntime-node.
// Three small ones are committed (test/onnx-corpus/committed/); the rest run once `npx tsx test/onnx-corpus/fetch.ts`
// has put them in node_modules/.cache/onnx-corpus, and are reported as skipped (not passed) until then.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadOnnx } from '../../runtime/src/index.ts';
import { compareModel, feedsFor } from '../onnx-corpus/compare.ts';
import { CORPUS, corpusFile } from '../onnx-corpus/fetch.ts';

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
});
