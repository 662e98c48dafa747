// Worker threads that run wasm kernels on the shared memory beside the main thread. Each worker holds its own
// instance of the shared-memory module. A split kernel is a table of calls (an export and its arguments each) in a
// small SharedArrayBuffer; the caller and the workers take calls from it until none is left, and the caller waits
// (Atomics.wait/notify) for the last one, so a kernel stays synchronous, as dispatch needs.

import { nodeBuiltin } from '../sources.mjs';

/**
 * Words of the control block (Int32Array): the job generation, the claim word, calls finished, workers ready, stop,
 * error. The claim word holds the job's call count (bits 16 and up) and the next call to take (bits 0–15): a thread
 * claims a call with one Atomics.add, and the count it gets back belongs to the same job as the index, so a claim that
 * lands on a finished job's word (index past its count) is refused however late it comes.
 */
const GEN = 0;
const CLAIM = 1;
const DONE = 2;
const READY = 3;
const STOP = 4;
const FAILED = 5;
const CONTROL_WORDS = 8;
/** Per call of the table: the export's index, the argument count, then the arguments. */
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
 * slices (conv_thread, rows_thread), then loops: spin for SPIN_MS, then wait, for a new generation, then take calls
 * from the table until none is left, counting each done. Indented, so that no line starts with a call (the package's
 * sideEffects test reads top-level calls by line).
 */
const WORKER_BODY = `
  const { module, memory, control, index } = data;
  const ctrl = new Int32Array(control, 0, ${CONTROL_WORDS});
  const table = new Float64Array(control, ${CONTROL_WORDS * 4});
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
    // Take calls until none is left (see CLAIM). A claim on a newer job's word is that job's: its table was written
    // before the word was.
    for (;;) {
      const claim = Atomics.add(ctrl, ${CLAIM}, 1);
      const count = claim >>> 16;
      const i = claim & 0xffff;
      if (i >= count) break;
      const at = i * ${SLOT_LEN};
      const args = [];
      for (let a = 0; a < table[at + 1]; a++) args.push(table[at + 2 + a]);
      try { fns[table[at]](...args); } catch (e) { Atomics.store(ctrl, ${FAILED}, 1); }
      if (Atomics.add(ctrl, ${DONE}, 1) + 1 === count) Atomics.notify(ctrl, ${DONE});
    }
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
  private readonly table: Float64Array;
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
    this.table = new Float64Array(control, CONTROL_WORDS * 4);
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
   * Runs the calls side by side and returns when all have finished. At most `size` calls. This thread and the
   * workers take them in order from the table, so a call waits for no particular thread: a worker not yet awake (or
   * descheduled on a busy machine) leaves its share to this thread, which then does no worse than running alone.
   */
  run(calls: readonly Call[]): void {
    if (calls.length > this.size) throw new Error(`wasm threads: ${calls.length} calls for ${this.size} threads`);
    calls.forEach(([name, args], i) => {
      const fn = this.exportIndex.get(name);
      if (fn === undefined) throw new Error(`wasm threads: the module has no export ${name}`);
      if (args.length > MAX_ARGS)
        throw new Error(`wasm threads: ${name} takes ${args.length} arguments, over ${MAX_ARGS}`);
      const at = i * SLOT_LEN;
      this.table[at] = fn;
      this.table[at + 1] = args.length;
      for (let a = 0; a < args.length; a++) this.table[at + 2 + a] = args[a]!;
    });
    const n = calls.length;
    Atomics.store(this.ctrl, DONE, 0);
    // Publishes the job (after its table): claims from now on take its calls.
    Atomics.store(this.ctrl, CLAIM, n << 16);
    Atomics.add(this.ctrl, GEN, 1);
    Atomics.notify(this.ctrl, GEN);
    try {
      for (let i; (i = Atomics.add(this.ctrl, CLAIM, 1) & 0xffff) < n;) {
        const [name, args] = calls[i]!;
        try {
          (this.main.exports[name] as (...a: number[]) => void)(...args);
        } finally {
          Atomics.add(this.ctrl, DONE, 1);
        }
      }
    } finally {
      // The workers write this job's output: never return (not even on an error) while one still runs.
      const spinUntil = performance.now() + SPIN_MS;
      for (let done; (done = Atomics.load(this.ctrl, DONE)) < n;)
        if (this.canBlock && performance.now() > spinUntil) Atomics.wait(this.ctrl, DONE, done);
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

  /**
   * Makes the workers leave their loop: from then on this thread takes every call itself (run() waits for no
   * worker). close() does this first; tests use it alone, as a worker that never comes back.
   */
  stopWorkers(): void {
    Atomics.store(this.ctrl, STOP, 1);
    Atomics.add(this.ctrl, GEN, 1);
    Atomics.notify(this.ctrl, GEN);
  }

  /** Stops the workers (they exit their loop, then are terminated). */
  close(): void {
    this.stopWorkers();
    for (const w of this.workers) void w.terminate();
    this.workers.length = 0;
  }
}

/** The control words, then a table of one call per thread (the workers and the caller). */
function controlBlock(workers: number): SharedArrayBuffer {
  return new SharedArrayBuffer(CONTROL_WORDS * 4 + (workers + 1) * SLOT_LEN * 8);
}
