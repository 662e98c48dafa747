// What a benchmark case is: a name, and per implementation a setup that returns the timed function.

/** Columns of the table, in order; a case fills the ones it can. */
export const IMPLS = ['raf-op', 'raf-op cpu', 'tfjs-cpu', 'tfjs-wasm', 'onnxruntime'] as const;
export type ImplName = (typeof IMPLS)[number];

/** The timed body; it must finish the work (read results back) before it returns or resolves. */
export interface Runner {
  run(): unknown;
  /** Untimed, before every run: resets state a run consumes (a temp repository, a fresh op name). */
  before?(): void;
  dispose?(): void | Promise<void>;
  /** Shown beside the time, e.g. the raf-op dialect that served the call. */
  note?: string;
  /** The median restated per unit of work (ms per op for the generator). */
  perUnit?: (ms: number) => string;
}

export interface Impl {
  setup(): Runner | Promise<Runner>;
}

export interface BenchCase {
  readonly name: string;
  /** One line: sizes and what is measured. */
  readonly what: string;
  readonly group: 'kernels' | 'generator';
  readonly impls: Partial<Record<ImplName, Impl>>;
  /** Why a column is empty (no spec, no peer API), printed under the table. */
  readonly gaps?: Partial<Record<ImplName, string>>;
  /** Skipped by --quick (slow peers make it minutes long). */
  readonly slow?: boolean;
}

export const defineCase = (c: BenchCase): BenchCase => c;
