// Cases: the kernel cases matmul 256³ and 1024³, conv2d 3×3 and add 2^20, and the real models of the ONNX corpus,
// again with 2 threads: raf-op after setWasmThreads(2) (as on Node by default, and pinned to its own kernels as in a
// browser) against onnxruntime with intraOpNumThreads 2, in the same run as the single-threaded rows.

import { setWasmThreads, withDialect } from '../../runtime/src/index.ts';
import { defineCase, type BenchCase, type Impl } from '../case.ts';
import { withOrtThreads } from '../peers.ts';
import add from './add.ts';
import conv2d from './conv2d.ts';
import { matmulCase } from './matmul.ts';
import models from './onnx_models.ts';

const THREADS = 2;

/** raf-op's own kernels: the ort dialect, which would take a large matmul to onnxruntime, is left out of these. */
const OWN = ['wasm', 'cpu'];

/**
 * A raf-op column run with `THREADS` wasm threads: switched on for its setup and inputs, off again when disposed.
 * `own` pins it to raf-op's own threaded kernels (the 'raf-op wasm' column, a browser's case); otherwise it runs as
 * on Node by default, where ort regions and the ort dialect open their onnxruntime sessions with as many threads.
 */
function threaded(impl: Impl, own: boolean): Impl {
  const pin = <T>(f: () => T): T => (own ? withDialect(OWN, f) : f());
  return {
    async setup() {
      setWasmThreads(THREADS);
      const r = await pin(() => impl.setup());
      return {
        ...r,
        run: () => pin(r.run),
        ...(r.result ? { result: () => pin(r.result!) } : {}),
        // A getter in a model column (its node count after the runs) is read when the table is made.
        get note() {
          return `${r.note ?? ''} ×${THREADS}`.trim();
        },
        dispose: async () => {
          await r.dispose?.();
          setWasmThreads(1);
        },
      };
    },
  };
}

/** `c`'s raf-op and onnxruntime columns with 2 threads each (the smoke test runs a small one). */
export function threadedCase(c: BenchCase): BenchCase {
  return defineCase({
    name: `${c.name} · ${THREADS} threads`,
    what: `${c.what}; ${THREADS} threads each`,
    group: c.group,
    slow: c.slow,
    // Process CPU time sums every thread's: it would time the work, not how long the call takes.
    wallClock: true,
    sequential: true,
    unavailable: c.unavailable,
    impls: {
      'raf-op': threaded(c.impls['raf-op']!, false),
      'raf-op wasm': threaded(c.impls['raf-op']!, true),
      onnxruntime: withOrtThreads(c.impls.onnxruntime!, THREADS),
    },
    gaps: {
      'tfjs-wasm':
        'tfjs-backend-wasm turns threads off under Node (its WASM_HAS_MULTITHREAD_SUPPORT flag is false when IS_NODE)',
    },
  });
}

export default [matmulCase(256), matmulCase(1024), conv2d, add, ...models].map(threadedCase);
