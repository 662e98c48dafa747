// Worker threads that run wasm kernels on the shared memory beside the main thread. Each worker holds its own
// instance of the shared-memory module; a call hands every thread one export and its arguments through a small
// SharedArrayBuffer and waits with Atomics.wait/notify, so a kernel stays synchronous, as dispatch needs.

import { nodeBuiltin } from '../sources.mjs';

/** Words of the control block (Int32Array): the job generation, workers still running, workers ready, stop, error. */
const GEN = 0;
const PENDING = 1;
const READY = 2;
const STOP = 3;
const FAILED = 4;
const CONTROL_WORDS = 8;
/** Per worker: the export's index (−1: nothing to do), the argument count, then the arguments. */
const SLOT_LEN = 32;
const MAX_ARGS = SLOT_LEN - 2;
/** How long a new pool waits for its workers to instantiate the module before giving up. */
const START_TIMEOUT_MS = 60_000;

/**
 * The workers' code, evaluated as a CommonJS script by worker_threads (no file to locate after bundling). A worker
 * instantiates the module on the shared memory, points its conv panel tables and broadcast row scratch at its own
 * slices (conv_thread, rows_thread), then loops: wait for a new generation, run its slot's export, count itself
 * done. Indented, so that no line starts with a call (the package's sideEffects test reads top-level calls by line).
 */
const WORKER_SOURCE = `
  const { workerData } = require('node:worker_threads');
  const { module, memory, control, index } = workerData;
  const ctrl = new Int32Array(control, 0, ${CONTROL_WORDS});
  const slot = new Float64Array(control, ${CONTROL_WORDS * 4} + index * ${SLOT_LEN * 8}, ${SLOT_LEN});
  let fns;
  try {
    const instance = new WebAssembly.Instance(module, {
      env: { memory, abort() { throw new Error('wasm dialect: kernel aborted'); } },
    });
    fns = WebAssembly.Module.exports(module).map((e) => instance.exports[e.name]);
    instance.exports.conv_thread(index + 1);
    instance.exports.rows_thread(index + 1);
  } catch (e) {
    Atomics.store(ctrl, ${FAILED}, 1);
  }
  Atomics.add(ctrl, ${READY}, 1);
  Atomics.notify(ctrl, ${READY});
  let seen = 0;
  while (fns) {
    Atomics.wait(ctrl, ${GEN}, seen);
    if (Atomics.load(ctrl, ${STOP})) break;
    seen = Atomics.load(ctrl, ${GEN});
    const fn = slot[0];
    if (fn >= 0) {
      const args = [];
      for (let i = 0; i < slot[1]; i++) args.push(slot[2 + i]);
      try { fns[fn](...args); } catch (e) { Atomics.store(ctrl, ${FAILED}, 1); }
    }
    if (Atomics.sub(ctrl, ${PENDING}, 1) === 1) Atomics.notify(ctrl, ${PENDING});
  }
`;

/** One call of a module export: its name and numeric arguments. */
export type Call = readonly [name: string, args: readonly number[]];

interface NodeWorker {
  unref(): void;
  terminate(): Promise<number>;
}

export class Pool {
  private readonly ctrl: Int32Array;
  private readonly slots: Float64Array[];
  private readonly exportIndex: Map<string, number>;
  private readonly workers: NodeWorker[] = [];
  /** Threads a call can use: the workers and the main thread. */
  readonly size: number;

  constructor(
    module: WebAssembly.Module,
    memory: WebAssembly.Memory,
    workers: number,
    private readonly main: WebAssembly.Instance,
  ) {
    const wt = nodeBuiltin<typeof import('node:worker_threads')>('node:worker_threads');
    if (!wt)
      throw new Error(
        'setWasmThreads: threads need Node worker_threads here; browsers (cross-origin isolated) are not supported yet',
      );
    const control = new SharedArrayBuffer(CONTROL_WORDS * 4 + workers * SLOT_LEN * 8);
    this.ctrl = new Int32Array(control, 0, CONTROL_WORDS);
    this.slots = Array.from(
      { length: workers },
      (_, i) => new Float64Array(control, CONTROL_WORDS * 4 + i * SLOT_LEN * 8, SLOT_LEN),
    );
    this.exportIndex = new Map(WebAssembly.Module.exports(module).map((e, i) => [e.name, i]));
    this.size = workers + 1;
    for (let index = 0; index < workers; index++) {
      // No inherited flags: the source is plain CommonJS, and loaders (tsx) or --input-type would only get in its way.
      const w = new wt.Worker(WORKER_SOURCE, {
        eval: true,
        execArgv: [],
        workerData: { module, memory, control, index },
      });
      // Idle workers never keep the process alive: a program (or a test run) ends without closing the pool.
      w.unref();
      this.workers.push(w);
    }
    // Every worker instantiates (and so rewrites the module's static data) before any kernel runs.
    const deadline = performance.now() + START_TIMEOUT_MS;
    for (let ready; (ready = Atomics.load(this.ctrl, READY)) < workers;) {
      const left = deadline - performance.now();
      if (left <= 0) {
        this.close();
        throw new Error(`setWasmThreads: ${workers - ready} of ${workers} workers did not start`);
      }
      Atomics.wait(this.ctrl, READY, ready, left);
    }
    if (Atomics.load(this.ctrl, FAILED)) {
      this.close();
      throw new Error('setWasmThreads: a worker could not instantiate the shared-memory module');
    }
  }

  /**
   * Runs calls[0] on this thread and calls[i] on worker i−1 at once, returning when all have finished. At most
   * `size` calls; workers past the last call sit this one out.
   */
  run(calls: readonly Call[]): void {
    if (calls.length > this.size) throw new Error(`wasm threads: ${calls.length} calls for ${this.size} threads`);
    for (let i = 0; i < this.slots.length; i++) {
      const slot = this.slots[i]!;
      const call = calls[i + 1];
      if (!call) {
        slot[0] = -1;
        continue;
      }
      const [name, args] = call;
      const fn = this.exportIndex.get(name);
      if (fn === undefined) throw new Error(`wasm threads: the module has no export ${name}`);
      if (args.length > MAX_ARGS)
        throw new Error(`wasm threads: ${name} takes ${args.length} arguments, over ${MAX_ARGS}`);
      slot[0] = fn;
      slot[1] = args.length;
      for (let a = 0; a < args.length; a++) slot[2 + a] = args[a]!;
    }
    Atomics.store(this.ctrl, PENDING, this.slots.length);
    Atomics.add(this.ctrl, GEN, 1);
    Atomics.notify(this.ctrl, GEN);
    try {
      const [name, args] = calls[0]!;
      (this.main.exports[name] as (...a: number[]) => void)(...args);
    } finally {
      // The workers write this call's output: never return (not even on an error) while one still runs.
      for (let left; (left = Atomics.load(this.ctrl, PENDING)) !== 0;) Atomics.wait(this.ctrl, PENDING, left);
    }
    if (Atomics.exchange(this.ctrl, FAILED, 0)) throw new Error('wasm threads: a kernel failed in a worker');
  }

  /** Stops the workers (they exit their loop, then are terminated). */
  close(): void {
    Atomics.store(this.ctrl, STOP, 1);
    Atomics.add(this.ctrl, GEN, 1);
    Atomics.notify(this.ctrl, GEN);
    for (const w of this.workers) void w.terminate();
    this.workers.length = 0;
  }
}
