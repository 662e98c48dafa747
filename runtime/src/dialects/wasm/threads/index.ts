// Threads for the wasm dialect, opt in: setWasmThreads(n) moves the module onto a shared memory and starts n − 1
// workers; matmul and conv2d products (by columns when wider than tall, else by rows or output channels), Winograd's
// transforms and large elementwise ops then split across them and the main thread. Every output element is computed
// by one thread in the order the single-threaded kernel uses, so results are bit-identical to setWasmThreads(1).

import { clearKernelCache } from '../../../dispatch.ts';
import { replaceWasmInstance, wasm, wasmModuleSource, wasmUnavailable, type Arena } from '../module.ts';
import { nodeBuiltin } from '../sources.mjs';
import { Pool, type Call } from './pool.ts';
import { MAX_PAGES, sharedMemoryVariant } from './shared-module.ts';

/** The most threads setWasmThreads accepts (the module holds conv panel tables for this many). */
export const MAX_WASM_THREADS = 16;

/**
 * Work below which a kernel stays on one thread, since waking the workers costs tens of microseconds: multiply-adds
 * for matmul and conv2d, elements for elementwise ops. Tests lower them to reach the threaded paths with small inputs.
 */
export const threadThresholds = { products: 1 << 19, elements: 1 << 16 };

/**
 * Kernel calls split across threads so far; of those, matmul and conv2d products split by columns and by rows, and
 * batches of whole Winograd products (tests check which paths ran).
 */
export const threadStats = { splitCalls: 0, columnSplits: 0, rowSplits: 0, batchSplits: 0 };

let pool: Pool | undefined;

function runSplit(p: Pool, calls: readonly Call[]): void {
  threadStats.splitCalls++;
  p.run(calls);
}

/**
 * Tests only: the workers stop taking calls while the pool stays on, as workers that never get a CPU again would; split
 * kernels must then finish on the calling thread alone. setWasmThreads starts fresh workers.
 */
export function stopWasmWorkers(): void {
  pool?.stopWorkers();
}

/** Wakes the idle workers, when threads are on, ahead of kernels that will split (see Pool.wake). */
export function wakeWasmThreads(): void {
  pool?.wake();
}

/** How many threads wasm kernels use (1: the main thread alone, the default). */
export function wasmThreads(): number {
  return pool?.size ?? 1;
}

/**
 * Runs wasm kernels on `n` threads: the main thread and n − 1 worker threads on a shared WebAssembly memory. 1 (the
 * default) goes back to one thread and a private memory. Node (worker_threads); in a browser, `await
 * initWasmThreads(n)`. Resident wasm tensors move out to JavaScript memory on a switch; call it once at startup,
 * before loading models. Idle workers do not keep the process alive.
 */
export function setWasmThreads(n: number): void {
  const start = begin('setWasmThreads', n);
  if (!start) return;
  if (n === 1) return start.adopt(new WebAssembly.Instance(new WebAssembly.Module(start.bytes), start.imports));
  const shared = sharedMemoryVariant(start.bytes);
  const module = new WebAssembly.Module(shared.bytes);
  const memory = sharedMemory(shared.initialPages);
  const main = new WebAssembly.Instance(module, start.importsWith(memory));
  // Workers instantiate after the main instance: an instantiation rewrites the module's static data, which must not
  // happen mid-kernel, and the pool returns only once every worker has.
  start.adopt(main, Pool.startNode(module, memory, n - 1, main));
}

/**
 * setWasmThreads for any environment, browsers included: there the page must be cross-origin isolated (shared
 * memory), workers are Web Workers started asynchronously, and the page's thread spins while they run a kernel.
 */
export async function initWasmThreads(n: number): Promise<void> {
  const start = begin('initWasmThreads', n);
  if (!start) return;
  if (n === 1) return start.adopt(await WebAssembly.instantiate(await WebAssembly.compile(start.bytes), start.imports));
  if ((globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === false)
    throw new Error(
      'initWasmThreads: this page is not cross-origin isolated (serve it with Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: require-corp), so it has no shared memory',
    );
  const shared = sharedMemoryVariant(start.bytes);
  const module = await WebAssembly.compile(shared.bytes);
  const memory = sharedMemory(shared.initialPages);
  const main = await WebAssembly.instantiate(module, start.importsWith(memory));
  const next = nodeBuiltin('node:worker_threads')
    ? Pool.startNode(module, memory, n - 1, main)
    : await Pool.startBrowser(module, memory, n - 1, main);
  start.adopt(main, next);
}

/** Checks n, and unless it is the current count, stops the workers and returns how to finish the switch. */
function begin(api: string, n: number) {
  if (!Number.isInteger(n) || n < 1 || n > MAX_WASM_THREADS)
    throw new Error(`${api}: n must be an integer from 1 to ${MAX_WASM_THREADS}; got ${n}`);
  if (n === wasmThreads()) return null;
  const why = wasmUnavailable();
  if (why) throw new Error(`${api}: the wasm dialect is unavailable: ${why}`);
  const { bytes, imports } = wasmModuleSource();
  const adopt = (instance: WebAssembly.Instance, next?: Pool) => {
    pool?.close();
    pool = next;
    replaceWasmInstance(instance);
    clearKernelCache();
  };
  return {
    bytes,
    imports,
    importsWith: (memory: WebAssembly.Memory) => ({ ...imports, env: { ...(imports['env'] as object), memory } }),
    adopt,
  };
}

function sharedMemory(initialPages: number): WebAssembly.Memory {
  return new WebAssembly.Memory({ initial: initialPages, maximum: MAX_PAGES, shared: true });
}

/** Splits `total` into at most `parts` runs whose lengths are multiples of `align` (the last takes the remainder). */
export function splitRuns(total: number, parts: number, align: number): [start: number, length: number][] {
  const units = Math.floor(total / align);
  const n = Math.max(1, Math.min(parts, units));
  const per = Math.floor(units / n);
  const extra = units % n;
  const runs: [number, number][] = [];
  let start = 0;
  for (let i = 0; i < n; i++) {
    const length = i === n - 1 ? total - start : (per + (i < extra ? 1 : 0)) * align;
    runs.push([start, length]);
    start += length;
  }
  return runs;
}

const BYTES = { f32: 4, f64: 8 } as const;

/**
 * matmul_<width> over rows split between the threads when threads are on and the product is large enough; false
 * (nothing run) otherwise. f32 runs keep whole 4-row tiles and at least 4 rows, so each takes the blocked path the
 * whole product takes. `scratch` is the caller's f32 scratch, used by the main thread; workers get their own.
 */
export function threadedMatmul(
  arena: Arena,
  width: 'f32' | 'f64',
  a: number,
  aRow: number,
  aCol: number,
  b: number,
  bRow: number,
  bCol: number,
  c: number,
  m: number,
  n: number,
  k: number,
  scratch: number,
  scratchBytes: number,
): boolean {
  if (!pool || m * n * k < threadThresholds.products) return false;
  // Wider than tall (a convolution's Winograd products, a batch of a few rows): each thread takes a range of columns,
  // 8-wide register tiles whole, and packs only its part of b, where a split by rows would have every thread pack all
  // of it. Below 4 rows matmul_f32 takes its row-at-a-time path, which the column export does not have.
  // Not a product of few columns either: matmul_f32 dots those, which the column export does not.
  const cols =
    width === 'f32' && n >= m && m >= 4 && !wasm().matmul_few_columns(n, k, aCol, bCol)
      ? splitRuns(n, pool.size, 8)
      : [];
  if (cols.length > 1) {
    threadStats.columnSplits++;
    runSplit(
      pool,
      cols.map(([j0, count], t) => [
        'matmul_cols_f32',
        [a, aRow, aCol, b, bRow, bCol, c, m, n, k, t === 0 ? scratch : arena.alloc(scratchBytes), j0, j0 + count],
      ]),
    );
    return true;
  }
  // Below one 4-row tile per thread, matmul_f32 may take its row-at-a-time path, summing in another order.
  const runs = splitRuns(m, pool.size, width === 'f32' ? 4 : 1);
  if (runs.length < 2) return false;
  threadStats.rowSplits++;
  const bytes = BYTES[width];
  const calls: Call[] = runs.map(([r0, rows], t) => {
    const args = [a + r0 * aRow * bytes, aRow, aCol, b, bRow, bCol, c + r0 * n * bytes, rows, n, k];
    if (width === 'f32') args.push(t === 0 ? scratch : arena.alloc(scratchBytes));
    return [`matmul_${width}`, args];
  });
  runSplit(pool, calls);
  return true;
}

/**
 * `count` float32 products of one shape, contiguous operands (U_t m×k at a + t·aFloats floats, V_t k×n at b +
 * t·bFloats, M_t m×n at c + t·cFloats: a Winograd convolution's), run whole on the threads side by side when each is
 * too small to split itself and all of them are not; false (nothing run) otherwise. Each is summed as matmul_f32 alone
 * sums it. `scratch` serves the main thread.
 */
export function threadedBatch(
  arena: Arena,
  count: number,
  a: number,
  aFloats: number,
  b: number,
  bFloats: number,
  c: number,
  cFloats: number,
  m: number,
  n: number,
  k: number,
  scratch: number,
  scratchBytes: number,
): boolean {
  const each = m * n * k;
  if (!pool || each >= threadThresholds.products || count * each < threadThresholds.products) return false;
  const runs = splitRuns(count, pool.size, 1);
  if (runs.length < 2) return false;
  threadStats.batchSplits++;
  runSplit(
    pool,
    runs.map(([t0, length], t) => [
      'matmul_batch_f32',
      [a, aFloats, b, bFloats, c, cFloats, m, n, k, t === 0 ? scratch : arena.alloc(scratchBytes), t0, t0 + length],
    ]),
  );
  return true;
}

/** How many threads a kernel of `products` multiply-adds splits across: 1 (none) when threads are off or it is small. */
export function threadsFor(products: number): number {
  return pool && products >= threadThresholds.products ? pool.size : 1;
}

/**
 * An export `name(...args, part, parts)` that does its `part` of `parts` equal shares of the work itself, run as
 * `parts` calls side by side; false (nothing run) when `parts` is 1.
 */
export function threadedParts(name: string, parts: number, args: readonly number[]): boolean {
  if (!pool || parts < 2) return false;
  runSplit(
    pool,
    Array.from({ length: parts }, (_, t): Call => [name, [...args, t, parts]]),
  );
  return true;
}

/**
 * A per-plane export `name(src, dst, planes, ...rest)` (pad_planes_f32) over ranges of `planes` split `parts` ways:
 * planes of `srcPlane` and `dstPlane` elements (float32). False (nothing run) when `parts` is 1.
 */
export function threadedPlanes(
  name: string,
  parts: number,
  src: number,
  srcPlane: number,
  dst: number,
  dstPlane: number,
  planes: number,
  rest: readonly number[],
): boolean {
  if (!pool || parts < 2) return false;
  const runs = splitRuns(planes, parts, 1);
  if (runs.length < 2) return false;
  runSplit(
    pool,
    runs.map(([c0, count]) => [name, [src + c0 * srcPlane * 4, dst + c0 * dstPlane * 4, count, ...rest]]),
  );
  return true;
}

/**
 * conv2d_f32 (one image and group, all its positions) split between the threads, by positions or by output channels;
 * false when not threaded. The arguments are conv2d_f32's; `scratch` serves the main thread.
 */
export function threadedConv2d(
  arena: Arena,
  args: readonly number[],
  outChannels: number,
  taps: number,
  positions: number,
  scratchBytes: number,
): boolean {
  if (!pool || outChannels * taps * positions < threadThresholds.products) return false;
  // conv2d_f32(x, w, y, cg, h, wd, kh, kw, sh, sw, dh, dw, pt, pl, oh, ow, o, scratch, j0, j1): a run changes the
  // scratch and either the range of positions j0..j1 or the output channels (w, y and o).
  const [x, w, y] = args as [number, number, number];
  const geometry = args.slice(3, 16);
  const scratch = args[17]!;
  const own = (t: number) => (t === 0 ? scratch : arena.alloc(scratchBytes));
  // More positions than channels: ranges of positions, so that each thread packs only its own im2col panels rather
  // than all of them.
  const cols = positions >= outChannels ? splitRuns(positions, pool.size, 8) : [];
  if (cols.length > 1) {
    threadStats.columnSplits++;
    runSplit(
      pool,
      cols.map(([j0, count], t) => ['conv2d_f32', [...args.slice(0, 17), own(t), j0, j0 + count]]),
    );
    return true;
  }
  const runs = splitRuns(outChannels, pool.size, 1);
  if (runs.length < 2) return false;
  threadStats.rowSplits++;
  const calls: Call[] = runs.map(([o0, count], t) => [
    'conv2d_f32',
    [x, w + o0 * taps * 4, y + o0 * positions * 4, ...geometry, count, own(t), 0, positions],
  ]);
  runSplit(pool, calls);
  return true;
}

/**
 * conv2d_dw_f32 (one image, c channels of h×wd, kernels kh×kw, output oh×ow) over channels split between the
 * threads; false when not threaded. `args` are conv2d_dw_f32's.
 */
export function threadedDepthwise(args: readonly number[]): boolean {
  const [x, w, y, c, h, wd, kh, kw] = args as [number, number, number, number, number, number, number, number];
  const [oh, ow] = [args[14]!, args[15]!];
  if (!pool || c * kh * kw * oh * ow < threadThresholds.elements) return false;
  const runs = splitRuns(c, pool.size, 1);
  if (runs.length < 2) return false;
  runSplit(
    pool,
    runs.map(([c0, count]) => [
      'conv2d_dw_f32',
      [x + c0 * h * wd * 4, w + c0 * kh * kw * 4, y + c0 * oh * ow * 4, count, ...args.slice(4)],
    ]),
  );
  return true;
}

/**
 * A flat elementwise export `name(out, ...inputs, ...attrs, n)` over ranges of n split between the threads (whole
 * 64-byte lines each); false when not threaded or n is small.
 */
export function threadedFlat(
  name: string,
  width: 'f32' | 'f64',
  out: number,
  inputs: readonly number[],
  attrs: readonly number[],
  n: number,
): boolean {
  if (!pool || n < threadThresholds.elements) return false;
  const bytes = BYTES[width];
  const runs = splitRuns(n, pool.size, 64 / bytes);
  if (runs.length < 2) return false;
  runSplit(
    pool,
    runs.map(([i0, count]) => [name, [out + i0 * bytes, ...inputs.map((p) => p + i0 * bytes), ...attrs, count]]),
  );
  return true;
}

/**
 * A broadcast elementwise export `name(out, ...inputs, ...starts, ...steps, ...attrs, rows, inner)` over its rows
 * split between the threads (each input's run starts are an int32 table, one entry per row); false when not threaded
 * or the output is small.
 */
export function threadedRows(
  name: string,
  width: 'f32' | 'f64',
  out: number,
  inputs: readonly number[],
  starts: readonly number[],
  steps: readonly number[],
  attrs: readonly number[],
  rows: number,
  inner: number,
): boolean {
  if (!pool || rows * inner < threadThresholds.elements) return false;
  const runs = splitRuns(rows, pool.size, 1);
  if (runs.length < 2) return false;
  runSplit(
    pool,
    runs.map(([r0, count]) => [
      name,
      [out + r0 * inner * BYTES[width], ...inputs, ...starts.map((s) => s + r0 * 4), ...steps, ...attrs, count, inner],
    ]),
  );
  return true;
}
