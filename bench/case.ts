// What a benchmark case is: a name, a group, and per implementation a setup that returns the timed function.

/** Every column any group shows; a case fills the ones it can. */
export const IMPLS = [
  'raf-op',
  'raf-op cpu',
  'raf-op unfused',
  'raf-op wasm',
  'tfjs-cpu',
  'tfjs-wasm',
  'tfjs-webgpu',
  'onnxruntime',
  'onnxruntime-web',
] as const;
export type ImplName = (typeof IMPLS)[number];

/** Groups print as separate tables, in this order: CPU kernels, WebGPU kernels, graph mode, training, the generator. */
export const GROUPS = ['kernels', 'webgpu', 'graph', 'training', 'generator'] as const;
export type Group = (typeof GROUPS)[number];

/** The timed body; it must finish the work (read results back, or wait for the GPU queue) before it returns or resolves. */
export interface Runner {
  run(): unknown;
  /**
   * `run` resolves to its own time in ms, which the harness takes instead of timing the call: a column run in another
   * process (bench/ort-web-child.ts), timed there, without the messages between the processes.
   */
  selfTimed?: boolean;
  /** Untimed, before every run: resets state a run consumes (a temp repository, a fresh op name). */
  before?(): void;
  /**
   * Untimed, before every run and before `result`: makes the column's library state current again (tfjs's active
   * backend), since the harness interleaves the runs of a case's columns.
   */
  activate?(): void | Promise<void>;
  dispose?(): void | Promise<void>;
  /** Shown beside the time, e.g. the raf-op dialect that served the call. */
  note?: string;
  /** The median restated per unit of work (ms per op for the generator). */
  perUnit?: (ms: number) => string;
  /** Untimed: one more run whose outputs are read back, so columns can be checked against each other. */
  result?(): Promise<Float32Array[]>;
}

export interface Impl {
  setup(): Runner | Promise<Runner>;
}

export interface BenchCase {
  readonly name: string;
  /** One line: sizes and what is measured. */
  readonly what: string;
  readonly group: Group;
  readonly impls: Partial<Record<ImplName, Impl>>;
  /** Why a column is empty (no spec, no peer API), printed under the table. */
  readonly gaps?: Partial<Record<ImplName, string>>;
  /** Why a column's outputs cannot be compared with raf-op's (another layout, other outputs). */
  readonly incomparable?: Partial<Record<ImplName, string>>;
  /** Skipped by --quick (slow peers make it minutes long). */
  readonly slow?: boolean;
  /** Timed by the wall clock even under --cpu-time: its columns run on several threads, whose CPU times add up. */
  readonly wallClock?: boolean;
  /**
   * Time the columns one after another instead of interleaving their runs: for threaded columns, whose idle workers
   * (onnxruntime's spin a while after each run) would take a core from the next column's run.
   */
  readonly sequential?: boolean;
  /** Resolves to why the case cannot run here (no WebGPU adapter), or undefined when it can. */
  readonly unavailable?: () => Promise<string | undefined>;
}

export const defineCase = (c: BenchCase): BenchCase => c;

/** Float32 copies of whatever a column read back, so results from every library compare alike. */
export const asFloat32 = (xs: readonly ArrayLike<number>[]): Float32Array[] => xs.map((x) => Float32Array.from(x));
