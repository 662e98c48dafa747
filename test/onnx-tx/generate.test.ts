// generateGreedy (@raf-op/runtime/onnx) on GPT-2 as torch's exporter writes it: 32 greedy tokens give the same ids as
// the same loop run by onnxruntime-node, for one prompt and for a batch of two.

import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { generateGreedy, loadOnnx } from '../../runtime/src/onnx.ts';

const PATH = resolve(dirname(fileURLToPath(import.meta.url)), '../../../shared/onnx-tx/gpt2-ts.onnx');

/** The reference loop: the whole sequence each step, argmax of the last position (lowest id on ties). */
async function ortGreedy(prompt: number[][], steps: number): Promise<number[][]> {
  const session = await ort.InferenceSession.create(PATH, { logSeverityLevel: 4, intraOpNumThreads: 1 });
  const ids = prompt.map((r) => [...r]);
  for (let s = 0; s < steps; s++) {
    const shape = [ids.length, ids[0]!.length];
    const flat = ids.flat();
    const feeds: Record<string, ort.Tensor> = {};
    for (const name of session.inputNames)
      feeds[name] = new ort.Tensor(
        'int64',
        BigInt64Array.from(name === 'attention_mask' ? flat.map(() => 1) : flat, (v) => BigInt(v)),
        shape,
      );
    const out = (await session.run(feeds))[session.outputNames[0]!]!;
    const [, length, vocab] = out.dims as number[];
    const data = out.data as Float32Array;
    ids.forEach((row, b) => {
      const at = (b * length! + length! - 1) * vocab!;
      let best = 0;
      for (let v = 1; v < vocab!; v++) if (data[at + v]! > data[at + best]!) best = v;
      row.push(best);
    });
  }
  return ids;
}

describe.runIf(existsSync(PATH))('generateGreedy (GPT-2, torch exporter)', () => {
  const session = loadOnnx(readFileSync(PATH));

  it("gives onnxruntime-node's 32 greedy tokens", async () => {
    const prompt = [[464, 2068, 7586, 21831, 18045, 625, 262]].map((r) => r.map((t) => t % 1000));
    const ours = generateGreedy(session, prompt[0]!, { steps: 32 });
    expect(ours[0]!.length).toBe(prompt[0]!.length + 32);
    expect(ours).toEqual(await ortGreedy(prompt, 32));
  }, 120_000);

  it('decodes a batch, row by row as onnxruntime-node does', async () => {
    const prompt = [
      [11, 250, 31, 7],
      [900, 3, 42, 600],
    ];
    expect(generateGreedy(session, prompt, { steps: 8 })).toEqual(await ortGreedy(prompt, 8));
  }, 60_000);

  it('refuses what it cannot feed, naming it', () => {
    expect(() => generateGreedy(session, [1, 2], { steps: 1, logits: 'nope' })).toThrow(
      "generateGreedy: the model has no output 'nope'",
    );
    expect(() => generateGreedy(session, [[1, 2], [3]], { steps: 1 })).toThrow(
      'every prompt row needs the same length',
    );
  });
});
