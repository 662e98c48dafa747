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
 * How long a thread spins, checking for the next job (a worker) or for the workers to finish (the caller), before it
 * sleeps in Atomics.wait. A model's split kernels come microseconds apart, and waking a sleeping thread costs tens of
 * microseconds each time (oww-embedding with 2 threads: 3.0 ms a run in the pool without spinning, 1.8 ms with). So a
 * process with threads on keeps its workers busy for at most this long after each split kernel, as onnxruntime's
 * spinning thread pool does.
 */
const SPIN_MS = 1;

/**
 * The workers' code, given `data` = { module, memory, control, index } (no file to locate after bundling). A worker
 * instantiates the module on the shared memory, points its conv panel tables and broadcast row scratch at its own
 * slices (conv_thread, rows_thread), then loops: spin for SPIN_MS, then wait, for a new generation, run its slot's export, count itself
 * done. Indented, so that no line starts with a call (the package's sideEffects test reads top-level calls by line).
 */
const WORKER_BODY = `
  const { module, memory, control, index } = data;
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
    const spinUntil = performance.now() + ${SPIN_MS};
    while (Atomics.load(ctrl, ${GEN}) === seen && performance.now() < spinUntil);
    Atomics.wait(ctrl, ${GEN}, seen);
    if (Atomics.load(ctrl, ${STOP})) break;
    const gen = Atomics.load(ctrl, ${GEN});
    // Woken with no new job (Pool.wake): spin for the job that is coming.
    if (gen === seen) continue;
    seen = gen;
    const fn = slot[0];
    if (fn >= 0) {
      const args = [];
      for (let i = 0; i < slot[1]; i++) args.push(slot[2 + i]);
      try { fns[fn](...args); } catch (e) { Atomics.store(ctrl, ${FAILED}, 1); }
    }
    if (Atomics.sub(ctrl, ${PENDING}, 1) === 1) Atomics.notify(ctrl, ${PENDING});
  }
`;
/** Node: a CommonJS script given the data as workerData. */
const NODE_WORKER_SOURCE = `
  const data = require('node:worker_threads').workerData;
  ${WORKER_BODY}
`;
/** Browsers: a classic worker script given the data by its first message. */
const BROWSER_WORKER_SOURCE = `
  self.onmessage = (event) => {
    const data = event.data;
    ${WORKER_BODY}
  };
`;

/** One call of a module export: its name and numeric arguments. */
export type Call = readonly [name: string, args: readonly number[]];

interface AnyWorker {
  terminate(): unknown;
}

export class Pool {
  private readonly ctrl: Int32Array;
  private readonly slots: Float64Array[];
  private readonly exportIndex: Map<string, number>;
  private readonly workers: AnyWorker[] = [];
  /** Threads a call can use: the workers and the main thread. */
  readonly size: number;

  private constructor(
    module: WebAssembly.Module,
    private readonly main: WebAssembly.Instance,
    private readonly control: SharedArrayBuffer,
    workers: number,
    /** Whether this thread may block in Atomics.wait; a page's main thread may not, so there run() spins. */
    private readonly canBlock: boolean,
  ) {
    this.ctrl = new Int32Array(control, 0, CONTROL_WORDS);
    this.slots = Array.from(
      { length: workers },
      (_, i) => new Float64Array(control, CONTROL_WORDS * 4 + i * SLOT_LEN * 8, SLOT_LEN),
    );
    this.exportIndex = new Map(WebAssembly.Module.exports(module).map((e, i) => [e.name, i]));
    this.size = workers + 1;
  }

  /** Node: starts `workers` worker_threads on `memory` and waits (blocking) until each has instantiated `module`. */
  static startNode(
    module: WebAssembly.Module,
    memory: WebAssembly.Memory,
    workers: number,
    main: WebAssembly.Instance,
  ): Pool {
    const wt = nodeBuiltin<typeof import('node:worker_threads')>('node:worker_threads');
    if (!wt) throw new Error('setWasmThreads: no worker_threads here; in a browser, `await initWasmThreads(n)`');
    const pool = new Pool(module, main, controlBlock(workers), workers, true);
    for (let index = 0; index < workers; index++) {
      // No inherited flags: the source is plain CommonJS, and loaders (tsx) or --input-type would only get in its way.
      const w = new wt.Worker(NODE_WORKER_SOURCE, {
        eval: true,
        execArgv: [],
        workerData: { module, memory, control: pool.control, index },
      });
      // Idle workers never keep the process alive: a program (or a test run) ends without closing the pool.
      w.unref();
      pool.workers.push(w);
    }
    // Every worker instantiates (and so rewrites the module's static data) before any kernel runs.
    const deadline = performance.now() + START_TIMEOUT_MS;
    for (let ready; (ready = Atomics.load(pool.ctrl, READY)) < workers;) {
      const left = deadline - performance.now();
      if (left <= 0) pool.fail(`${workers - ready} of ${workers} workers did not start`);
      Atomics.wait(pool.ctrl, READY, ready, left);
    }
    if (Atomics.load(pool.ctrl, FAILED)) pool.fail('a worker could not instantiate the shared-memory module');
    return pool;
  }

  /**
   * Browsers (cross-origin isolated, for shared memory): starts `workers` Web Workers and resolves once each has
   * instantiated `module`. A worker cannot start while the page's thread is blocked, so this waits asynchronously.
   */
  static async startBrowser(
    module: WebAssembly.Module,
    memory: WebAssembly.Memory,
    workers: number,
    main: WebAssembly.Instance,
  ): Promise<Pool> {
    const W = (globalThis as { Worker?: new (url: string) => AnyWorker & { postMessage(m: unknown): void } }).Worker;
    if (!W) throw new Error('initWasmThreads: no Worker here');
    const canBlock = typeof (globalThis as { document?: unknown }).document === 'undefined';
    const pool = new Pool(module, main, controlBlock(workers), workers, canBlock);
    const url = URL.createObjectURL(new Blob([BROWSER_WORKER_SOURCE], { type: 'text/javascript' }));
    try {
      for (let index = 0; index < workers; index++) {
        const w = new W(url);
        pool.workers.push(w);
        w.postMessage({ module, memory, control: pool.control, index });
      }
      const deadline = performance.now() + START_TIMEOUT_MS;
      for (let ready; (ready = Atomics.load(pool.ctrl, READY)) < workers;) {
        if (performance.now() > deadline) pool.fail(`${workers - ready} of ${workers} workers did not start`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    } finally {
      URL.revokeObjectURL(url);
    }
    if (Atomics.load(pool.ctrl, FAILED)) pool.fail('a worker could not instantiate the shared-memory module');
    return pool;
  }

  private fail(why: string): never {
    this.close();
    throw new Error(`wasm threads: ${why}`);
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
      const spinUntil = performance.now() + SPIN_MS;
      for (let left; (left = Atomics.load(this.ctrl, PENDING)) !== 0;)
        if (this.canBlock && performance.now() > spinUntil) Atomics.wait(this.ctrl, PENDING, left);
    }
    if (Atomics.exchange(this.ctrl, FAILED, 0)) throw new Error('wasm threads: a kernel failed in a worker');
  }

  /**
   * Wakes sleeping workers without a job, so that they spin for SPIN_MS from now: for a caller about to run kernels
   * that will split (a graph run). A worker asleep takes from tens of microseconds to over a millisecond (a virtual
   * machine's idle CPU) to wake, which the first split of each model run would otherwise wait for.
   */
  wake(): void {
    Atomics.notify(this.ctrl, GEN);
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

function controlBlock(workers: number): SharedArrayBuffer {
  return new SharedArrayBuffer(CONTROL_WORDS * 4 + workers * SLOT_LEN * 8);
}
