// The float32 transformer files of ../shared/onnx-tx (torch's exporter: BERT, GPT-2, ViT, Whisper encoder) with
// recognizeAttention: every layer's attention subgraph becomes one attention call (printGraph shows it), and the
// outputs equal the spelled-out graph's and onnxruntime-node's within 1e-5 relative, with a padded row and a fully
// masked row (an all-zero attention mask) among the token inputs. Moved to WebGPU, the fused graph (the attention
// call's WGSL kernel) gives the CPU's outputs within 1e-5.

import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { loadOnnx, tensor, type Tensor } from '../../runtime/src/index.ts';
import { execute, moveGraph, printGraph } from '../../runtime/src/graph/index.ts';
import { useWebGpu } from '../support/webgpu-context.ts';

const DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../../shared/onnx-tx');
const FILES = ['bert-ts.onnx', 'gpt2-ts.onnx', 'vit-ts.onnx', 'whisper-enc-ts.onnx'];
const [BATCH, SEQ] = [3, 9];

/** max |a - b| / (1 + |b|). */
function maxRel(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < b.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!) / (1 + Math.abs(b[i]!)));
  return m;
}

/** Token ids, mask rows (full, the last two keys padded, nothing attended), zero token types; smooth floats. */
function feedsFor(session: ReturnType<typeof loadOnnx>): {
  feeds: Record<string, Tensor>;
  ortFeeds: Record<string, ort.Tensor>;
} {
  const feeds: Record<string, Tensor> = {};
  const ortFeeds: Record<string, ort.Tensor> = {};
  for (const input of session.model.inputs.filter((i) => session.inputNames.includes(i.name))) {
    let symbolic = 0;
    const shape = (input.shape ?? []).map((d) => (typeof d === 'number' ? d : symbolic++ === 0 ? BATCH : SEQ));
    const n = shape.reduce((a, b) => a * b, 1);
    const cols = shape[shape.length - 1]!;
    if (input.dtype === 'int64') {
      // Mask rows: full, the last two keys padded, nothing attended.
      const values = Array.from({ length: n }, (_, i) => {
        const [row, col] = [Math.floor(i / cols), i % cols];
        if (/mask/.test(input.name)) return row === 2 ? 0 : row === 1 && col >= cols - 2 ? 0 : 1;
        return /type/.test(input.name) ? 0 : (i * 37 + 11) % 1000;
      });
      feeds[input.name] = tensor(values, { dtype: 'int64', shape });
      ortFeeds[input.name] = new ort.Tensor('int64', BigInt64Array.from(values, BigInt), shape);
    } else {
      const values = Array.from({ length: n }, (_, i) => Math.sin(0.37 * i));
      feeds[input.name] = tensor(values, { dtype: 'float32', shape });
      ortFeeds[input.name] = new ort.Tensor('float32', Float32Array.from(values), shape);
    }
  }
  return { feeds, ortFeeds };
}

const needGpu = useWebGpu();

describe.each(FILES)('%s with recognizeAttention', (file) => {
  const path = resolve(DIR, file);
  it('runs each layer as one attention call, equal to the spelled-out graph and onnxruntime', async () => {
    expect(existsSync(path), `${path} is present`).toBe(true);
    const bytes = readFileSync(path);
    const plain = loadOnnx(bytes);
    const fused = loadOnnx(bytes, { attention: true });
    const { feeds, ortFeeds } = feedsFor(plain);
    const plainText = printGraph(plain.graphFor(feeds));
    const text = printGraph(fused.graphFor(feeds));
    const layers = (plainText.match(/raf\.op\.softmax\(/g) ?? []).length;
    expect(layers).toBeGreaterThan(0);
    expect((text.match(/raf\.op\.attention\(/g) ?? []).length).toBe(layers);
    expect(text).not.toContain('raf.op.softmax(');

    const session = await ort.InferenceSession.create(path, { logSeverityLevel: 4, intraOpNumThreads: 1 });
    const theirs = await session.run(ortFeeds);
    const [a, b] = [plain.run(feeds), fused.run(feeds)];
    for (const name of plain.outputNames) {
      const [want, got] = [a[name]!.dataSync() as Float32Array, b[name]!.dataSync() as Float32Array];
      const ref = theirs[name]!.data as Float32Array;
      expect(got.length).toBe(want.length);
      expect(Array.from(ref).every(Number.isFinite), `${name}: onnxruntime's output is finite`).toBe(true);
      expect(maxRel(got, want), `${name}: fused vs spelled out`).toBeLessThanOrEqual(1e-5);
      expect(maxRel(got, ref), `${name}: fused vs onnxruntime`).toBeLessThanOrEqual(1e-5);
    }
  });

  it("runs the fused graph on WebGPU with the CPU's outputs", async (ctx) => {
    needGpu(ctx);
    const session = loadOnnx(readFileSync(path), { attention: true });
    const { feeds } = feedsFor(session);
    const g = session.graphFor(feeds);
    expect(printGraph(g)).toMatch(/raf\.op\.attention\(/);
    const inputs = g.params.map((p) => feeds[p.hint!]!);
    const want = execute(g, inputs).map((t) => t.dataSync() as Float32Array);
    const gpu = await moveGraph(g, 'webgpu');
    const outs = execute(gpu, await Promise.all(inputs.map((t) => t.to('webgpu'))));
    for (const [i, t] of outs.entries()) {
      expect(t.device.kind).toBe('webgpu');
      expect(maxRel(Float32Array.from(await t.data()), want[i]!), `output ${i}: WebGPU vs CPU`).toBeLessThanOrEqual(
        1e-5,
      );
    }
  });
});
