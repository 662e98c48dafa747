// Static memory plans: a planned graph run keeps every intermediate at a fixed offset of one block the plan owns, so
// it takes no wasm block from the heap except for the values it returns, and its results still equal the unplanned
// executor's exactly, on real models and across runs with other inputs.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ops, randomUniform, toWasmMemory, zeros, type Tensor } from '../../runtime/src/index.ts';
import {
  execute,
  executeUnplanned,
  fuseEpilogues,
  fuseOps,
  loadOnnx,
  memoryLayoutOf,
  trace,
  type Graph,
} from '../../runtime/src/graph/index.ts';
import { HEAP_LIMIT, wasmHeap } from '../../runtime/src/dialects/wasm/module.ts';
import { WasmStorage } from '../../runtime/src/dialects/wasm/storage.ts';
import { feedsFor } from '../onnx-corpus/compare.ts';
import { CORPUS, corpusFile } from '../onnx-corpus/fetch.ts';
import { expectClose } from '../support/reference.ts';

const values = (t: Tensor): number[] => Array.from(t.dataSync() as Float32Array);

/** Runs g once; its outputs' values, and the heap blocks the run took. */
function measuredRun(g: Graph, args: readonly Tensor[]): { out: Tensor[]; allocs: number; resident: number } {
  const heap = wasmHeap();
  const before = heap.allocs;
  const out = execute(g, args);
  const allocs = heap.allocs - before;
  // Outputs the caller owns: each may take one block (those in wasm memory), none lies in the plan's block.
  for (const t of out) if (t.storage instanceof WasmStorage) expect(t.storage.planned).toBe(false);
  return { out, allocs, resident: out.filter((t) => t.storage instanceof WasmStorage).length };
}

/**
 * Real models committed to the repository (so present on every clone), each with the passes the bench runs, on
 * raf-op's kernels (no ort regions: onnxruntime keeps its own memory).
 */
const MODELS = CORPUS.filter((m) =>
  ['oww-melspectrogram', 'ppocr-cls-mobile-v2', 'silero-vad-16k-op15'].includes(m.name),
);

describe('static memory plans', () => {
  it('cover the committed corpus models', () => {
    expect(MODELS.map((m) => corpusFile(m) !== undefined)).toEqual([true, true, true]);
  });

  for (const m of MODELS) {
    it(`${m.name}: planned runs take blocks only for their outputs and equal unplanned runs exactly`, () => {
      const bytes = new Uint8Array(readFileSync(corpusFile(m)!));
      const session = loadOnnx(bytes, { passes: [fuseEpilogues], ortRegions: false });
      const feeds = [feedsFor(m, bytes, 1), feedsFor(m, bytes, 7)];
      const g = session.graphFor(feeds[0]!);
      const argsOf = (f: Record<string, Tensor>) => g.params.map((p) => f[p.hint!]!);
      const want = feeds.map((f) => executeUnplanned(g, argsOf(f)).map(values));
      expect(want[0]).not.toEqual(want[1]);
      execute(g, argsOf(feeds[0]!)).forEach((t) => t.dispose());
      const layout = memoryLayoutOf(g)!;
      expect(layout.planned).toBeGreaterThan(g.nodes.length / 3);
      // Values whose lifetimes do not overlap share bytes.
      expect(layout.block.bytes).toBeLessThan(layout.unsharedBytes);
      const extent = wasmHeap().extent;
      const kept: Tensor[][] = [];
      for (let run = 0; run < 4; run++) {
        const { out, allocs, resident } = measuredRun(g, argsOf(feeds[run % 2]!));
        expect(allocs).toBe(resident);
        out.forEach((t, i) => expect(values(t)).toEqual(want[run % 2]![i]));
        kept.push(out);
      }
      expect(wasmHeap().extent).toBe(extent);
      // A run's outputs are the caller's: later runs, with other inputs, leave them as they were.
      kept.forEach((out, run) => out.forEach((t, i) => expect(values(t)).toEqual(want[run % 2]![i])));
      kept.flat().forEach((t) => t.dispose());
    });
  }

  it('place fused groups’ results and keep the caller’s outputs apart, agreeing with a float64 reference', () => {
    const [m, k] = [8, 12];
    const w = randomUniform([k / 2, k / 2], { low: -1, high: 1, seed: 2 });
    const f = (x: Tensor): Tensor[] => {
      const [a, b] = ops.split(x, 2, 1) as Tensor[];
      const h = ops.relu(ops.add(ops.matmul(ops.exp(a!), w), 0.5));
      return [ops.multiply(ops.sigmoid(b!), h), ops.sum(h, [1])];
    };
    const g = fuseOps(trace(f, [{ name: 'x', shape: [m, k], dtype: 'float32' }]));
    expect(g.nodes.some((n) => n.kind === 'fused')).toBe(true);
    const xs = [1, 2].map((seed) => randomUniform([m, k], { low: -1, high: 1, seed }));
    const ref = (x: number[]): number[][] => {
      const wv = values(w);
      const prod: number[] = [];
      const sums: number[] = [];
      for (let i = 0; i < m; i++) {
        let s = 0;
        for (let j = 0; j < k / 2; j++) {
          let acc = 0;
          for (let t = 0; t < k / 2; t++) acc += Math.exp(x[i * k + t]!) * wv[t * (k / 2) + j]!;
          const h = Math.max(acc + 0.5, 0);
          prod.push(h / (1 + Math.exp(-x[i * k + k / 2 + j]!)));
          s += h;
        }
        sums.push(s);
      }
      return [prod, sums];
    };
    execute(g, [xs[0]!]).forEach((t) => t.dispose());
    // exp's result and the matmul group's (split runs on the CPU dialect, whose results live in JavaScript memory).
    expect(memoryLayoutOf(g)!.planned).toBe(2);
    for (let run = 0; run < 4; run++) {
      const x = xs[run % 2]!;
      const { out, allocs, resident } = measuredRun(g, [x]);
      expect(allocs).toBe(resident);
      const want = ref(values(x));
      out.forEach((t, i) => expectClose(values(t), want[i]!, 1e-5));
      out.forEach((t) => t.dispose());
    }
  });

  it('survive the heap starting over in the middle of a run, and take their block again on the next', () => {
    const m = MODELS.find((c) => c.name === 'ppocr-cls-mobile-v2')!;
    const bytes = new Uint8Array(readFileSync(corpusFile(m)!));
    const g = loadOnnx(bytes, { passes: [fuseEpilogues], ortRegions: false }).graphFor(feedsFor(m, bytes));
    const args = g.params.map((p) => feedsFor(m, bytes)[p.hint!]!);
    const want = executeUnplanned(g, args).map(values);
    execute(g, args).forEach((t) => t.dispose());
    const layout = memoryLayoutOf(g)!;
    expect(layout.block.base).toBeGreaterThanOrEqual(0);
    // A block past the heap limit: the first kernel call of the next run moves everything out and restarts the heap,
    // which takes the plan's block away while the run is under way.
    const big = toWasmMemory(zeros([HEAP_LIMIT / 4 + 1024]));
    big.dispose();
    const epoch = wasmHeap().epoch;
    const during = execute(g, args);
    expect(wasmHeap().epoch).toBe(epoch + 1);
    during.forEach((t, i) => expect(values(t)).toEqual(want[i]));
    const { out, allocs, resident } = measuredRun(g, args);
    expect(layout.block.base).toBeGreaterThanOrEqual(0);
    out.forEach((t, i) => expect(values(t)).toEqual(want[i]));
    // The run after the restart took the plan's block, the shared scratch block and the weights' wasm copies again;
    // the next takes none of them.
    expect(allocs).toBeGreaterThan(resident + 2);
    expect(measuredRun(g, args).allocs).toBe(resident);
  });
});
