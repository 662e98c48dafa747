// Cases: the kernel cases matmul 256³ and 1024³, conv2d 3×3 and add 2^20, and the real models of the ONNX corpus,
// again with 2 threads: raf-op after setWasmThreads(2) (as on Node by default, and pinned to its own kernels as in a
// browser) against onnxruntime with intraOpNumThreads 2 and onnxruntime-web with 2 threads (in a process of its own),
// in the same run as the single-threaded rows.

import { fork } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
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

const CHILD = join(dirname(fileURLToPath(import.meta.url)), '../ort-web-child.ts');

/**
 * The onnxruntime-web column of case `name` (exported by cases/`module`) with `THREADS` threads, run in a child
 * process: onnxruntime-web's wasm module takes its thread count once per process, and this one's is 1. Each run is
 * timed in the child, around the run alone.
 */
function ortWebThreaded(module: string, name: string): Impl {
  return {
    async setup() {
      // The child runs TypeScript through tsx's loader: the bench's own Node options where tsx started it, else
      // (under vitest, which transforms in-process) tsx's register hook.
      const execArgv = process.execArgv.some((a) => a.includes('tsx')) ? process.execArgv : ['--import', 'tsx'];
      const child = fork(CHILD, [], {
        execArgv,
        serialization: 'advanced',
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      let failed: Error | undefined;
      const waiting: ((r: Record<string, unknown>) => void)[] = [];
      child.on('message', (r: Record<string, unknown>) => waiting.shift()?.(r));
      child.on('exit', (code) => {
        failed = new Error(`onnxruntime-web's process ended (exit code ${code})`);
        for (const w of waiting.splice(0)) w({ error: failed.message });
      });
      const ask = (m: unknown): Promise<Record<string, unknown>> =>
        new Promise((resolve, reject) => {
          if (failed) return reject(failed);
          waiting.push((r) => (typeof r.error === 'string' ? reject(new Error(r.error)) : resolve(r)));
          child.send(m as object);
        });
      const { note } = await ask({ module, name, threads: THREADS });
      return {
        run: async () => (await ask('run')).ms,
        selfTimed: true,
        result: async () => (await ask('result')).result as Float32Array[],
        note: `${typeof note === 'string' ? note : ''} ×${THREADS}, own process`.trim(),
        dispose: async () => {
          if (!failed) await ask('dispose');
          child.kill();
        },
      };
    },
  };
}

/**
 * `c`'s raf-op and onnxruntime columns with 2 threads each (the smoke test runs a small one), and its onnxruntime-web
 * column where it has one, from `module` (its file under cases/, which a child process imports).
 */
export function threadedCase(c: BenchCase, module?: string): BenchCase {
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
      ...(module && c.impls['onnxruntime-web'] ? { 'onnxruntime-web': ortWebThreaded(module, c.name) } : {}),
    },
    gaps: {
      'tfjs-wasm':
        'tfjs-backend-wasm turns threads off under Node (its WASM_HAS_MULTITHREAD_SUPPORT flag is false when IS_NODE)',
    },
  });
}

export default [
  ...[matmulCase(256), matmulCase(1024)].map((c) => threadedCase(c, 'matmul.ts')),
  threadedCase(conv2d, 'conv2d.ts'),
  threadedCase(add, 'add.ts'),
  ...models.map((c) => threadedCase(c, 'onnx_models.ts')),
];
