// Browser side of the wasm-threads browser test: bundled from the runtime's sources, it loads the wasm dialect, runs
// a few kernels on one thread, switches to two with initWasmThreads, runs them again and hands back both results.

import { initWasm, initWasmThreads, ops, tensor, wasmThreads, withDialect } from '../../runtime/src/index.ts';
import { threadStats, threadThresholds } from '../../runtime/src/dialects/wasm/threads/index.ts';

export interface ThreadsInput {
  readonly a: number[];
  readonly b: number[];
  readonly x: number[];
  readonly w: number[];
  readonly v: number[];
}

export interface ThreadsRun {
  readonly isolated: boolean;
  readonly threads: number;
  readonly splits: number;
  readonly one: number[][];
  readonly two: number[][];
  readonly refused?: string;
}

function kernels(i: ThreadsInput): number[][] {
  return withDialect(['wasm'], () => [
    ops.matmul(
      tensor(i.a, { shape: [67, 131], dtype: 'float32' }),
      tensor(i.b, { shape: [131, 29], dtype: 'float32' }),
    ),
    ops.conv2d(
      tensor(i.x, { shape: [1, 5, 12, 9], dtype: 'float32' }),
      tensor(i.w, { shape: [6, 5, 3, 3], dtype: 'float32' }),
      [1, 1],
      [1, 1, 1, 1],
    ),
    ops.add(tensor(i.v, { dtype: 'float32' }), tensor(i.v, { dtype: 'float32' })),
  ]).map((t) => Array.from(t.dataSync()));
}

(globalThis as unknown as { rafThreads: (i: ThreadsInput) => Promise<ThreadsRun> }).rafThreads = async (input) => {
  if (!(await initWasm('/raf.wasm'))) throw new Error('initWasm failed');
  const isolated = globalThis.crossOriginIsolated;
  if (!isolated) {
    const refused = await initWasmThreads(2).then(
      () => 'switched',
      (e: Error) => e.message,
    );
    return { isolated, threads: wasmThreads(), splits: 0, one: [], two: [], refused };
  }
  threadThresholds.products = 1;
  threadThresholds.elements = 1;
  const one = kernels(input);
  await initWasmThreads(2);
  const before = threadStats.splitCalls;
  const two = kernels(input);
  return { isolated, threads: wasmThreads(), splits: threadStats.splitCalls - before, one, two };
};
