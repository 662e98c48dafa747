// The browser's onnxruntime: onnxruntime-web's wasm backend, run in Node, single-threaded.
//
// Its Node entry (package.json exports "node" → dist/ort.node.min.mjs) loads dist/ort-wasm-simd-threaded.{mjs,wasm}
// from the package folder; nothing is fetched. That build is the only one the package ships: 128-bit SIMD, the same
// width as raf-op's wasm module. The wasm module reads env.wasm.numThreads once, when the first session is made, and
// keeps it for the process: the single-threaded columns and a threaded one cannot share a process, so the threaded
// cases (cases/threads.ts) run their onnxruntime-web column in a child process (ort-web-child.ts).

import * as ortWeb from 'onnxruntime-web';

export { ortWeb };

let configured = false;
let threads = 1;

/** The thread count of this process's onnxruntime-web sessions: set before the first one is made, once. */
export function setOrtWebThreads(n: number): void {
  if (configured && n !== threads) throw new Error('onnxruntime-web: the thread count is set before the first session');
  threads = n;
}

function configure(): void {
  if (configured) return;
  ortWeb.env.wasm.numThreads = threads;
  ortWeb.env.wasm.proxy = false;
  ortWeb.env.logLevel = 'error';
  configured = true;
}

/** An onnxruntime-web session over `model` on the wasm execution provider (single-threaded unless set otherwise). */
export async function ortWebSession(model: Uint8Array): Promise<ortWeb.InferenceSession> {
  configure();
  return ortWeb.InferenceSession.create(model, {
    executionProviders: ['wasm'],
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    logSeverityLevel: 3,
  });
}

/** onnxruntime-web tensors with the same type, data and dims as `feeds` (onnxruntime-node's or plain arrays). */
export function ortWebFeeds(
  feeds: Record<string, { type: string; data: unknown; dims: readonly number[] }>,
): Record<string, ortWeb.Tensor> {
  return Object.fromEntries(
    Object.entries(feeds).map(([k, t]) => [
      k,
      new ortWeb.Tensor(t.type as 'float32', t.data as Float32Array, t.dims as number[]),
    ]),
  );
}
