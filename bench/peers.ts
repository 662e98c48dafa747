// The peers, set up the same way for every case: tfjs (cpu and wasm backends), onnxruntime-node and onnxruntime-web's
// wasm backend (the browser's onnxruntime, see ort-web.ts), all single-threaded.

import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
import { setThreadsCount, setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import * as ort from 'onnxruntime-node';
import { buildModel, type ModelSpec } from '../test/support/onnx-proto.ts';
import { asFloat32, type Impl } from './case.ts';
import { ortWebFeeds, ortWebSession } from './ort-web.ts';

export { tf };

const require = createRequire(import.meta.url);
let wasmReady = false;

async function useBackend(name: 'cpu' | 'wasm'): Promise<void> {
  if (name === 'wasm' && !wasmReady) {
    // Node reads the .wasm from the package folder; one thread, like every other column.
    setWasmPaths(`${join(dirname(require.resolve('@tensorflow/tfjs-backend-wasm')), '')}/`);
    setThreadsCount(1);
    wasmReady = true;
  }
  if (!(await tf.setBackend(name))) throw new Error(`tfjs backend ${name} failed to initialize`);
  await tf.ready();
}

/**
 * A tfjs column: `build` makes inputs on the active backend and returns the op chain; the timed run also reads the
 * result back (dataSync), since raf-op's CPU results are already in JavaScript memory.
 */
export function tfjs(backend: 'cpu' | 'wasm', build: () => () => tf.Tensor | tf.Tensor[]): Impl {
  return {
    async setup() {
      await useBackend(backend);
      const f = build();
      return {
        run: () =>
          tf.tidy(() => {
            const r = f();
            for (const t of Array.isArray(r) ? r : [r]) t.dataSync();
          }),
        result: async () => {
          const ts = tf.tidy(() => {
            const r = f();
            return Array.isArray(r) ? r : [r];
          });
          const out = await Promise.all(ts.map((t) => t.data()));
          tf.dispose(ts);
          return asFloat32(out as ArrayLike<number>[]);
        },
        activate: async () => {
          if (tf.getBackend() !== backend) await useBackend(backend);
        },
        note: backend === 'wasm' ? (tf.env().getBool('WASM_HAS_SIMD_SUPPORT') ? 'simd' : 'no simd') : undefined,
      };
    },
  };
}

/** onnxruntime's intra-op threads for sessions made now: 1, except inside withOrtThreads (the threaded cases). */
let ortThreads = 1;

/** The intra-op threads a session made now should have (for columns that make their own sessions). */
export const ortThreadCount = (): number => ortThreads;

/** `impl` (an onnx() column) with its session made for `threads` intra-op threads. */
export function withOrtThreads(impl: Impl, threads: number): Impl {
  return {
    async setup() {
      ortThreads = threads;
      try {
        return await impl.setup();
      } finally {
        ortThreads = 1;
      }
    },
  };
}

/** An onnxruntime column: one session over `model`, intra- and inter-op threads 1, feeds made once. */
export function onnx(model: ModelSpec, feeds: () => Record<string, { dims: number[]; data: Float32Array }>): Impl {
  return {
    async setup() {
      const session = await ort.InferenceSession.create(buildModel(model), {
        intraOpNumThreads: ortThreads,
        interOpNumThreads: 1,
        executionMode: 'sequential',
        graphOptimizationLevel: 'all',
      });
      const f = Object.fromEntries(
        Object.entries(feeds()).map(([k, v]) => [k, new ort.Tensor('float32', v.data, v.dims)]),
      );
      return {
        run: async () => {
          const out = await session.run(f);
          for (const t of Object.values(out)) t.dispose();
        },
        result: async () => {
          const out = await session.run(f);
          return asFloat32(session.outputNames.map((n) => out[n]!.data as Float32Array));
        },
        dispose: () => session.release(),
      };
    },
  };
}

/** An onnxruntime-web column (wasm backend, 1 thread) over the same model and feeds as onnx(). */
export function onnxWeb(model: ModelSpec, feeds: () => Record<string, { dims: number[]; data: Float32Array }>): Impl {
  return {
    async setup() {
      const session = await ortWebSession(buildModel(model));
      const f = ortWebFeeds(
        Object.fromEntries(Object.entries(feeds()).map(([k, v]) => [k, { type: 'float32', ...v }])),
      );
      return {
        run: async () => {
          const out = await session.run(f);
          for (const t of Object.values(out)) t.dispose();
        },
        result: async () => {
          const out = await session.run(f);
          return asFloat32(session.outputNames.map((n) => out[n]!.data as Float32Array));
        },
        note: 'wasm simd',
        dispose: () => session.release(),
      };
    },
  };
}

/** Deterministic float32 data in [-1, 1), shared by every column of a case. */
export function data(n: number, seed = 1): Float32Array {
  let a = seed >>> 0;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    a = (a * 1664525 + 1013904223) >>> 0;
    out[i] = a / 2147483648 - 1;
  }
  return out;
}
