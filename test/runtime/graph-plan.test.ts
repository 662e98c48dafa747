// Execution plans: a CPU graph's later runs call the kernels its first run chose; they must agree with the dispatched
// executor and with float64 references computed here, across new shapes, shared values and repeated runs.

import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { loadOnnx, ops, randomUniform, setWasmThreads, tensor, type Tensor } from '../../runtime/src/index.ts';
import {
  execute,
  executeUnplanned,
  fuseEpilogues,
  fuseOps,
  Model,
  planStats,
  trace,
} from '../../runtime/src/graph/index.ts';
import { wasmHeap } from '../../runtime/src/dialects/wasm/module.ts';
import { WasmStorage } from '../../runtime/src/dialects/wasm/storage.ts';
import { feedsFor } from '../onnx-corpus/compare.ts';
import { CORPUS, corpusFile } from '../onnx-corpus/fetch.ts';
import { expectClose } from '../support/reference.ts';

const spec = (name: string, shape: number[]) => ({ name, shape, dtype: 'float32' as const });
const values = (t: Tensor): number[] => Array.from(t.dataSync() as Float32Array);

/** a = exp(x) feeds three later nodes (two of them after other intermediates die); b, c reuse freed buffers. */
const shared = (x: Tensor, w: Tensor): Tensor[] => {
  const a = ops.exp(x);
  const b = ops.multiply(a, 2);
  const c = ops.add(ops.matmul(x, w), 1);
  const d = ops.relu(ops.subtract(b, 3));
  return [ops.add(ops.multiply(d, c), a), ops.sum(a, [1])];
};

/** The same in float64, element by element. */
function sharedRef(x: number[], w: number[], m: number, k: number, n: number): number[][] {
  const out: number[] = [];
  const sums: number[] = [];
  for (let i = 0; i < m; i++) {
    let s = 0;
    for (let j = 0; j < n; j++) {
      let mm = 0;
      for (let t = 0; t < k; t++) mm += x[i * k + t]! * w[t * n + j]!;
      const a = Math.exp(x[i * k + j]!);
      out.push(Math.max(2 * a - 3, 0) * (mm + 1) + a);
      s += a;
    }
    sums.push(s);
  }
  return [out, sums];
}

describe('execution plans', () => {
  it('agree with the dispatched executor and a float64 reference, run after run', () => {
    const [m, k] = [5, 7];
    const w = randomUniform([k, k], { low: -1, high: 1, seed: 3 });
    const g = trace((x: Tensor) => shared(x, w), [spec('x', [m, k])]);
    const x = randomUniform([m, k], { low: -1, high: 1, seed: 4 });
    const ref = sharedRef(values(x), values(w), m, k, k);
    const before = planStats();
    const first = execute(g, [x]);
    expect(planStats().plans).toBe(before.plans + 1);
    const firstValues = first.map(values);
    for (let run = 0; run < 3; run++) {
      const launches = planStats().launches;
      const outs = execute(g, [x]);
      // Every call ran as a planned kernel launch, and the plan was not recorded again.
      expect(planStats().launches - launches).toBe(g.nodes.length);
      expect(planStats().plans).toBe(before.plans + 1);
      outs.forEach((t, i) => expectClose(values(t), ref[i]!));
      outs.forEach((t) => t.dispose());
    }
    // The first run's outputs were not overwritten by buffers later runs reused.
    first.forEach((t, i) => expect(values(t)).toEqual(firstValues[i]));
    const unplanned = executeUnplanned(g, [x]);
    unplanned.forEach((t, i) => expect(values(t)).toEqual(firstValues[i]));
  });

  it('are rebuilt when setWasmThreads swaps the wasm module, and still agree with the reference', () => {
    const [m, k] = [6, 9];
    const w = randomUniform([k, k], { low: -1, high: 1, seed: 11 });
    const g = trace((x: Tensor) => shared(x, w), [spec('x', [m, k])]);
    const x = randomUniform([m, k], { low: -1, high: 1, seed: 12 });
    const ref = sharedRef(values(x), values(w), m, k, k);
    execute(g, [x]).forEach((t, i) => expectClose(values(t), ref[i]!));
    execute(g, [x]).forEach((t, i) => expectClose(values(t), ref[i]!));
    const plans = planStats().plans;
    try {
      for (const n of [2, 1]) {
        setWasmThreads(n);
        // The plan recorded before the switch holds kernels of the old instance: a new one is recorded.
        execute(g, [x]).forEach((t, i) => expectClose(values(t), ref[i]!));
        execute(g, [x]).forEach((t, i) => expectClose(values(t), ref[i]!));
      }
      expect(planStats().plans).toBe(plans + 2);
    } finally {
      setWasmThreads(1);
    }
  });

  it('re-specializes on a new input shape (a new graph, a new plan) and keeps both', () => {
    const w = randomUniform([6, 6], { low: -1, high: 1, seed: 5 });
    class Net extends Model {
      forward(x: Tensor): Tensor[] {
        return shared(x, w);
      }
    }
    const net = new Net();
    const before = planStats().plans;
    for (const rows of [2, 9, 2, 9]) {
      const x = randomUniform([rows, 6], { low: -1, high: 1, seed: rows });
      const ref = sharedRef(values(x), values(w), rows, 6, 6);
      const outs = net.call(x) as Tensor[];
      outs.forEach((t, i) => expectClose(values(t), ref[i]!));
    }
    expect(planStats().plans).toBe(before + 2);
  });

  it('reads new input values every run (nothing of the first run is baked in)', () => {
    const g = trace(
      (x: Tensor, y: Tensor) => ops.divide(ops.add(x, y), ops.add(ops.exp(y), 1)),
      [spec('x', [3, 4]), spec('y', [4])],
    );
    for (let seed = 1; seed <= 3; seed++) {
      const x = randomUniform([3, 4], { low: -2, high: 2, seed });
      const y = randomUniform([4], { low: -2, high: 2, seed: seed + 10 });
      const [xs, ys] = [values(x), values(y)];
      const want = xs.map((v, i) => (v + ys[i % 4]!) / (Math.exp(ys[i % 4]!) + 1));
      expectClose(values(execute(g, [x, y])[0]!), want);
    }
  });

  it('goes through the dispatcher when an input requires grad', () => {
    const g = trace((x: Tensor) => ops.multiply(ops.exp(x), x), [spec('x', [4])]);
    const x = tensor([0.5, -1, 2, 0.25]).requireGrad();
    const launches = planStats().launches;
    const y = execute(g, [x])[0]!;
    expect(planStats().launches).toBe(launches);
    expectClose(
      values(y),
      [0.5, -1, 2, 0.25].map((v) => Math.exp(v) * v),
    );
  });

  it('runs fused groups and tuple ops in the plan as the dispatched executor does', () => {
    const g0 = trace(
      (x: Tensor) => {
        const [a, b] = ops.split(x, 2, 1) as Tensor[];
        const s = ops.softmax(ops.add(ops.multiply(a!, 2), 1), -1);
        return [ops.add(ops.sigmoid(b!), s), ops.exp(a!)];
      },
      [spec('x', [4, 6])],
    );
    const g = fuseOps(g0);
    const x = randomUniform([4, 6], { low: -1, high: 1, seed: 8 });
    const want = executeUnplanned(g0, [x]).map(values);
    for (let run = 0; run < 2; run++) execute(g, [x]).forEach((t, i) => expectClose(values(t), want[i]!));
  });

  it('reuses wasm memory: after the first run at a signature, runs neither grow the heap nor leave blocks behind', () => {
    const [m, k] = [16, 32];
    const w = randomUniform([k, k], { low: -1, high: 1, seed: 6 });
    const g = fuseOps(trace((x: Tensor) => shared(x, w), [spec('x', [m, k])]));
    const x = randomUniform([m, k], { low: -1, high: 1, seed: 7 });
    const ref = sharedRef(values(x), values(w), m, k, k);
    const heap = wasmHeap();
    const runOnce = () => {
      const outs = execute(g, [x]);
      outs.forEach((t, i) => expectClose(values(t), ref[i]!));
      outs.forEach((t) => t.dispose());
    };
    runOnce();
    runOnce();
    const [extent, live] = [heap.extent, heap.liveBytes];
    for (let run = 0; run < 5; run++) runOnce();
    expect(heap.extent).toBe(extent);
    expect(heap.liveBytes).toBe(live);
  });

  it('runs reshape, expand_dims, squeeze and flatten as views: wasm-resident values stay in wasm memory', () => {
    const [m, k] = [6, 8];
    const f = (x: Tensor): Tensor[] => {
      const a = ops.exp(x);
      const b = ops.squeeze(ops.expandDims(ops.reshape(a, [k, m]), 0), [0]);
      const c = ops.multiply(ops.flatten(ops.expandDims(b, 2), 0), 2);
      // A view of an input, and one the graph returns (which must not share storage with what the graph keeps).
      return [ops.add(ops.reshape(c, [m, k]), ops.reshape(x, [m, k])), ops.reshape(a, [k * m])];
    };
    const g = trace(f, [spec('x', [m, k])]);
    const x = randomUniform([m, k], { low: -1, high: 1, seed: 9 });
    const xs = values(x);
    const want = [xs.map((v) => 2 * Math.exp(v) + v), xs.map((v) => Math.exp(v))];
    const moveOut = vi.spyOn(WasmStorage.prototype, 'moveOut');
    try {
      for (let run = 0; run < 3; run++) {
        moveOut.mockClear();
        const outs = execute(g, [x]);
        // Nothing between the wasm kernels left wasm memory (the CPU reshape kernel used to read its input out).
        if (run > 0) expect(moveOut).not.toHaveBeenCalled();
        expect(outs[1]!.storage).not.toBe(outs[0]!.storage);
        outs.forEach((t, i) => expectClose(values(t), want[i]!));
        outs.forEach((t) => t.dispose());
      }
      expectClose(values(x), xs);
    } finally {
      moveOut.mockRestore();
    }
  });

  const committed = CORPUS.filter(
    (m) => ['oww-melspectrogram', 'ppocr-cls-mobile-v2'].includes(m.name) && corpusFile(m),
  );
  for (const m of committed) {
    it(`${m.name}: planned runs equal unplanned ones exactly, and fused pipelines agree with the import`, () => {
      const bytes = new Uint8Array(readFileSync(corpusFile(m)!));
      const feeds = feedsFor(m, bytes);
      let imported: number[][] | undefined;
      for (const passes of [[], [fuseOps], [fuseEpilogues]]) {
        const g = loadOnnx(bytes, { passes }).graphFor(feeds);
        const args = g.params.map((p) => feeds[p.hint!]!);
        const want = executeUnplanned(g, args).map(values);
        for (let run = 0; run < 2; run++) execute(g, args).forEach((t, i) => expect(values(t)).toEqual(want[i]));
        // Folded batch_norm and wasm epilogues round differently from the imported graph's calls, within float32.
        imported ??= want;
        want.forEach((v, i) => expectClose(v, imported![i]!, 1e-4));
      }
    });
  }
});
