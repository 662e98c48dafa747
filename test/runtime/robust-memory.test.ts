// Memory under real use: a graph run disposes every intermediate after its last use, the eager tape releases what it
// saved once its backward ran, and neither leaves GPU buffers behind over many runs of a real imported ONNX model.
import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  backward,
  gpuSync,
  ops,
  randomUniform,
  tensor,
  valueAndGrad,
  withDialect,
  type Tensor,
} from '../../runtime/src/index.ts';
import {
  execute,
  executeUnplanned,
  fromOnnx,
  fuseOps,
  moveGraph,
  trace,
  type Graph,
} from '../../runtime/src/graph/index.ts';
import { wasmHeap } from '../../runtime/src/dialects/wasm/module.ts';
import {
  gpuUnavailableReason,
  initWebGpu,
  releaseGpu,
  type GpuContext,
} from '../../runtime/src/dialects/webgpu/index.ts';
import { loadOnnx } from '../../runtime/src/index.ts';
import { feedsFor } from '../onnx-corpus/compare.ts';
import { CORPUS, corpusFile } from '../onnx-corpus/fetch.ts';
import { buildModel, type InitializerSpec, type NodeSpec } from '../support/onnx-proto.ts';
import { REQUIRE_WEBGPU } from '../support/webgpu-cases.ts';

let gpu: GpuContext | null = null;
beforeAll(async () => {
  gpu = await initWebGpu();
});
afterAll(async () => {
  await releaseGpu();
});

function needGpu(ctx: { skip: (why: string) => void }): GpuContext {
  if (!gpu) {
    if (REQUIRE_WEBGPU) throw new Error(`WebGPU required but unavailable: ${gpuUnavailableReason()}`);
    ctx.skip(`WebGPU unavailable: ${gpuUnavailableReason()}`);
  }
  return gpu!;
}

const weight = (name: string, shape: number[], seed: number): InitializerSpec => ({
  name,
  dtype: 'float32',
  shape,
  data: Array.from(randomUniform(shape, { seed, low: -0.5, high: 0.5 }).dataSync()),
});

/** The transformer block of graph-onnx.test.ts (attention, residuals, layer norms, feed-forward), as ONNX bytes. */
function transformerBlock(): Uint8Array {
  const [d, f] = [8, 16];
  const ln = (x: string, g: string, b: string, y: string): NodeSpec => ({
    op: 'LayerNormalization',
    inputs: [x, g, b],
    outputs: [y],
    attrs: { axis: -1, epsilon: { float: 1e-5 } },
  });
  return buildModel({
    nodes: [
      { op: 'MatMul', inputs: ['x', 'wq'], outputs: ['q'] },
      { op: 'MatMul', inputs: ['x', 'wk'], outputs: ['k'] },
      { op: 'MatMul', inputs: ['x', 'wv'], outputs: ['v'] },
      { op: 'Transpose', inputs: ['k'], outputs: ['kt'], attrs: { perm: [1, 0] } },
      { op: 'MatMul', inputs: ['q', 'kt'], outputs: ['s0'] },
      { op: 'Div', inputs: ['s0', 'scale'], outputs: ['s'] },
      { op: 'Softmax', inputs: ['s'], outputs: ['p'], attrs: { axis: -1 } },
      { op: 'MatMul', inputs: ['p', 'v'], outputs: ['a0'] },
      { op: 'MatMul', inputs: ['a0', 'wo'], outputs: ['a'] },
      { op: 'Add', inputs: ['x', 'a'], outputs: ['h0'] },
      ln('h0', 'g1', 'be1', 'h'),
      { op: 'MatMul', inputs: ['h', 'w1'], outputs: ['f0'] },
      { op: 'Add', inputs: ['f0', 'b1'], outputs: ['f1'] },
      { op: 'Relu', inputs: ['f1'], outputs: ['f2'] },
      { op: 'MatMul', inputs: ['f2', 'w2'], outputs: ['f3'] },
      { op: 'Add', inputs: ['h', 'f3'], outputs: ['y0'] },
      ln('y0', 'g2', 'be2', 'y'),
    ],
    inputs: [{ name: 'x', dtype: 'float32', shape: [5, d] }],
    outputs: [{ name: 'y' }],
    initializers: [
      ...['wq', 'wk', 'wv', 'wo'].map((n, i) => weight(n, [d, d], 11 + i)),
      weight('w1', [d, f], 15),
      weight('b1', [f], 16),
      weight('w2', [f, d], 17),
      ...['g1', 'be1', 'g2', 'be2'].map((n, i) => weight(n, [d], 18 + i)),
      { name: 'scale', dtype: 'float32', shape: [], data: [Math.sqrt(d)] },
    ],
    opset: 17,
  });
}

/** A full garbage collection (V8's gc(), exposed for this process), so heap figures compare live objects only. */
const gc = (() => {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
})();

/**
 * Collects garbage and lets FinalizationRegistry callbacks run (they give the buffers of earlier tests' unreachable
 * tensors back), so counts taken afterwards change only through what the test does. Within synchronous code no
 * callback runs, so counts taken there are exact; across an await they can only fall, hence `<=` after awaits.
 */
async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 0));
  }
}

/** Runs `g` 100 times on `x`, disposing each output; returns the pool's live count after, and its peak meanwhile. */
async function hundredRuns(pool: GpuContext['pool'], g: Graph, x: Tensor): Promise<{ after: number; peak: number }> {
  let peak = 0;
  for (let i = 0; i < 100; i++) {
    const [y] = execute(g, [x]);
    peak = Math.max(peak, pool.liveBufferCount());
    y!.dispose();
  }
  // Counted before any await: exact, no finalizer can have run since the caller's count.
  const after = pool.liveBufferCount();
  await gpuSync();
  return { after, peak };
}

describe('graph execution releases intermediates', () => {
  it('an imported transformer block run 100 times on WebGPU returns to its starting live buffers and memory', async (ctx) => {
    const { pool } = needGpu(ctx);
    const cpuGraph = fromOnnx(transformerBlock());
    const g = await moveGraph(cpuGraph, 'webgpu');
    const x = await randomUniform([5, 8], { seed: 3 }).to('webgpu');
    const expected = Array.from(execute(cpuGraph, [randomUniform([5, 8], { seed: 3 })])[0]!.dataSync());
    // One warm-up run builds the kernels and its result is the CPU's.
    const [y0] = execute(g, [x]);
    const got = Array.from(await y0!.data());
    got.forEach((v, i) => expect(Math.abs(v - expected[i]!)).toBeLessThan(1e-3));
    y0!.dispose();
    await gpuSync();
    await settle();
    const before = pool.liveBufferCount();
    const heapBefore = process.memoryUsage().heapUsed;
    const { after, peak } = await hundredRuns(pool, g, x);
    expect(after).toBe(before);
    // At most a handful of intermediates are live at once (17 nodes; the widest point holds q, k, v and x's copies).
    expect(peak - before).toBeLessThan(8);
    gc();
    // The JS heap comes back too (allowing for V8's own caches and the test's bookkeeping).
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(4 * 1024 * 1024);
    expect(gpu!.uncapturedErrors).toEqual([]);
    x.dispose();
  });

  it('the same with fused groups, and the inputs and weights stay readable', async (ctx) => {
    const { pool } = needGpu(ctx);
    const g = fuseOps(await moveGraph(fromOnnx(transformerBlock()), 'webgpu'));
    const x = await randomUniform([5, 8], { seed: 4 }).to('webgpu');
    execute(g, [x])[0]!.dispose();
    await gpuSync();
    await settle();
    const before = pool.liveBufferCount();
    const { after, peak } = await hundredRuns(pool, g, x);
    expect(after).toBe(before);
    expect(peak - before).toBeLessThan(8);
    // The input was never disposed, and a second run gives the same answer as the first.
    const a = Array.from(await execute(g, [x])[0]!.data());
    const b = Array.from(await execute(g, [x])[0]!.data());
    expect(b).toEqual(a);
    expect(Array.from(await x.data())).toEqual(Array.from(randomUniform([5, 8], { seed: 4 }).dataSync()));
    x.dispose();
  });
});

describe('real models on WebGPU', () => {
  // The committed corpus models: their fused groups run an anchor's own kernel (a convolution, a squeeze, a slice),
  // then the chain after it as one pipeline; the anchor's result is the group's and must go back to the pool.
  // Unfused, ppocr-cls's batch norms run the WebGPU batch_norm kernel, which is built from other ops.
  it.for([
    ['silero-vad-16k-op15', 'fused'],
    ['ppocr-cls-mobile-v2', 'fused'],
    ['oww-melspectrogram', 'fused'],
    ['ppocr-cls-mobile-v2', 'unfused'],
  ] as const)(
    '%s, %s, run 5 times returns to its starting live buffers, and matches the CPU',
    async ([name, how], ctx) => {
      const { pool } = needGpu(ctx);
      const m = CORPUS.find((c) => c.name === name)!;
      const bytes = new Uint8Array(readFileSync(corpusFile(m)!));
      const session = loadOnnx(bytes, { passes: how === 'fused' ? [fuseOps] : [] });
      const feeds = feedsFor(m, bytes);
      const cpu = session.graphFor(feeds);
      const g = await moveGraph(cpu, 'webgpu');
      const cpuInputs = g.params.map((p) => feeds[p.hint!]!);
      const inputs = await Promise.all(cpuInputs.map((t) => t.to('webgpu')));
      const want = execute(cpu, cpuInputs).map((t) => Array.from(t.dataSync()));
      for (const t of execute(g, inputs)) t.dispose();
      await gpuSync();
      await settle();
      const before = pool.liveBufferCount();
      for (let i = 0; i < 4; i++) {
        const outs = execute(g, inputs);
        // Counted before any await: only the outputs are new.
        expect(pool.liveBufferCount() - before).toBe(outs.length);
        for (const t of outs) t.dispose();
      }
      const outs = execute(g, inputs);
      const got = await Promise.all(outs.map(async (t) => Array.from(await t.data())));
      for (const t of outs) t.dispose();
      got.forEach((values, k) =>
        values.forEach((v, i) => expect(Math.abs(v - want[k]![i]!)).toBeLessThan(1e-4 * (1 + Math.abs(want[k]![i]!)))),
      );
      await gpuSync();
      expect(pool.liveBufferCount()).toBeLessThanOrEqual(before);
      for (const t of inputs) t.dispose();
    },
  );
});

describe('graph execution on the CPU and wasm dialects', () => {
  // The same models on the default dispatch: a fused group whose anchor (a transpose, a product) runs its own wasm
  // kernel gives that block back once the chain has read it, in planned runs and call by call.
  it.for(['silero-vad-16k-op15', 'ppocr-cls-mobile-v2', 'oww-melspectrogram'])(
    '%s, fused, run 5 times leaves the wasm heap live bytes where they started',
    (name) => {
      const m = CORPUS.find((c) => c.name === name)!;
      const bytes = new Uint8Array(readFileSync(corpusFile(m)!));
      const session = loadOnnx(bytes, { passes: [fuseOps] });
      const feeds = feedsFor(m, bytes);
      const g = session.graphFor(feeds);
      const inputs = g.params.map((p) => feeds[p.hint!]!);
      const want = executeUnplanned(g, inputs).map((t) => Array.from(t.dataSync()));
      for (const run of [executeUnplanned, execute]) {
        for (const t of run(g, inputs)) t.dispose();
        const before = wasmHeap().liveBytes;
        for (let i = 0; i < 5; i++) for (const t of run(g, inputs)) t.dispose();
        expect(wasmHeap().liveBytes).toBe(before);
        expect(run(g, inputs).map((t) => Array.from(t.dataSync()))).toEqual(want);
      }
    },
  );

  it.each(['cpu', 'wasm'] as const)(
    'the imported block run 100 times on %s returns the JS heap to its level',
    (dialect) => {
      const g = fromOnnx(transformerBlock());
      const x = randomUniform([5, 8], { seed: 7 });
      const first = Array.from(withDialect([dialect, 'cpu'], () => execute(g, [x]))[0]!.dataSync());
      gc();
      const heapBefore = process.memoryUsage().heapUsed;
      let last: number[] = [];
      withDialect([dialect, 'cpu'], () => {
        for (let i = 0; i < 100; i++) last = Array.from(execute(g, [x])[0]!.dataSync());
      });
      expect(last).toEqual(first);
      gc();
      expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(4 * 1024 * 1024);
    },
  );
});

describe('the eager tape releases what it saved', () => {
  const f = (x: Tensor, w: Tensor): Tensor => ops.sum(ops.softmax(ops.tanh(ops.matmul(x, w)), -1));

  it('200 valueAndGrad calls on WebGPU leave the live buffer count where it started', async (ctx) => {
    const { pool } = needGpu(ctx);
    const x = await randomUniform([4, 6], { seed: 1 }).to('webgpu');
    const w = await randomUniform([6, 3], { seed: 2 }).to('webgpu');
    const vg = valueAndGrad(f);
    await settle();
    const before = pool.liveBufferCount();
    let first: number[] | undefined;
    withDialect(['webgpu'], () => {
      for (let i = 0; i < 200; i++) {
        const { value, grads } = vg(x, w);
        // Only the value and the two gradients are new.
        expect(pool.liveBufferCount() - before).toBe(3);
        for (const t of [value, ...grads]) t.dispose();
      }
    });
    const { value, grads } = withDialect(['webgpu'], () => vg(x, w));
    first = Array.from(await grads[1]!.data());
    // The gradients still match the CPU's (nothing they need was freed early).
    const cpu = withDialect(['cpu'], () =>
      valueAndGrad(f)(randomUniform([4, 6], { seed: 1 }), randomUniform([6, 3], { seed: 2 })),
    );
    cpu.grads[1]!.dataSync().forEach((v, i) => expect(Math.abs(v - first![i]!)).toBeLessThan(1e-3));
    expect(Math.abs((await value.data())[0]! - cpu.value.item())).toBeLessThan(1e-3);
    for (const t of [value, ...grads]) t.dispose();
    await gpuSync();
    expect(pool.liveBufferCount()).toBeLessThanOrEqual(before);
    x.dispose();
    w.dispose();
  });

  it('backward lets go of saved values and refuses a second pass with a clear error', () => {
    const x = randomUniform([3, 4], { seed: 5 }).requireGrad();
    const y = ops.exp(x);
    const s = ops.sum(y);
    expect(s.node!.released).toBe(false);
    expect(y.node!.saved.y).toBe(y);
    backward(s);
    expect(s.node!.released).toBe(true);
    expect(y.node!.saved).toEqual({});
    // d/dx sum(exp x) = exp x
    Array.from(x.grad!.dataSync()).forEach((v, i) => expect(v).toBeCloseTo(Math.exp(x.dataSync()[i]!), 5));
    expect(() => backward(s)).toThrow(/raf\.op\.sum was already differentiated/);
  });

  it('a graph traced inside valueAndGrad keeps its constants (they outlive the call)', () => {
    const x = randomUniform([2], { seed: 8 });
    let g: Graph | undefined;
    valueAndGrad((t: Tensor) => {
      const c = ops.exp(tensor([1, 2])); // made inside f, then baked into a graph as a constant
      g = trace((y: Tensor) => ops.add(y, c), [t]);
      return ops.sum(ops.multiply(t, c));
    })(x);
    const [y] = execute(g!, [x]);
    Array.from(y!.dataSync()).forEach((v, i) => expect(v).toBeCloseTo(x.dataSync()[i]! + Math.exp(i + 1), 5));
  });

  it('a value returned by valueAndGrad is detached and stays readable', () => {
    const x = randomUniform([2, 3], { seed: 6 });
    const { value, grads } = valueAndGrad((t: Tensor) => ops.multiply(t, t))(x);
    expect(value.node).toBeUndefined();
    expect(value.isDisposed).toBe(false);
    Array.from(value.dataSync()).forEach((v, i) => expect(v).toBeCloseTo(x.dataSync()[i]! ** 2, 6));
    Array.from(grads[0]!.dataSync()).forEach((v, i) => expect(v).toBeCloseTo(2 * x.dataSync()[i]!, 6));
    expect(x.isDisposed).toBe(false);
  });
});
