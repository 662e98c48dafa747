// The wasm dialect's module: in Node loaded synchronously on first use (rebuilt when its sources changed); in browsers by `await initWasm()`.

import { nodeBuiltin, RELAXED_WASM_URL, SOURCE_DIR_URLS, sourcesHash, STAMP_URL, WASM_URL } from './sources.mjs';

type Ptr = number;

/**
 * The transforms of the 3×3 Winograd convolutions, F(2×2, 3×3) and F(4×4, 3×3) alike (as/winograd.ts): U_t and V_t
 * from the kernels w and the padded image x (`part` of `parts`), and y from the products M_t.
 */
type WinogradIn = (
  x: Ptr,
  w: Ptr,
  c: number,
  h: number,
  wd: number,
  o: number,
  u: Ptr,
  uFloats: number,
  v: Ptr,
  vFloats: number,
  part: number,
  parts: number,
) => void;
type WinogradOut = (
  y: Ptr,
  oh: number,
  ow: number,
  o: number,
  m: Ptr,
  mFloats: number,
  part: number,
  parts: number,
) => void;

/** The exports of as/index.ts; generated elementwise kernels are looked up by name (`add_f32`). */
export interface WasmExports {
  readonly memory: WebAssembly.Memory;
  heap_base(): Ptr;
  matmul_scratch_bytes(): number;
  /** 1 where matmul_f32 takes its few-columns path (dot products against b's columns as rows), else 0. */
  matmul_few_columns(n: number, k: number, aCol: number, bCol: number): number;
  matmul_f32(
    a: Ptr,
    aRow: number,
    aCol: number,
    b: Ptr,
    bRow: number,
    bCol: number,
    c: Ptr,
    m: number,
    n: number,
    k: number,
    scratch: Ptr,
  ): void;
  matmul_f64(
    a: Ptr,
    aRow: number,
    aCol: number,
    b: Ptr,
    bRow: number,
    bCol: number,
    c: Ptr,
    m: number,
    n: number,
    k: number,
  ): void;
  softmax_f32(x: Ptr, y: Ptr, outer: number, len: number, inner: number, log: boolean): void;
  softmax_f64(x: Ptr, y: Ptr, outer: number, len: number, inner: number, log: boolean): void;
  /** kind: 0 sum (divided by div), 1 max, 2 min; see as/reduce.ts. */
  reduce_f32(x: Ptr, y: Ptr, outer: number, len: number, inner: number, kind: number, div: number): void;
  reduce_f64(x: Ptr, y: Ptr, outer: number, len: number, inner: number, kind: number, div: number): void;
  conv2d_f32(
    x: Ptr,
    w: Ptr,
    y: Ptr,
    cg: number,
    h: number,
    wd: number,
    kh: number,
    kw: number,
    sh: number,
    sw: number,
    dh: number,
    dw: number,
    pt: number,
    pl: number,
    oh: number,
    ow: number,
    o: number,
    scratch: Ptr,
    j0: number,
    j1: number,
  ): void;
  conv2d_dw_f32(
    x: Ptr,
    w: Ptr,
    y: Ptr,
    c: number,
    h: number,
    wd: number,
    kh: number,
    kw: number,
    sh: number,
    sw: number,
    dh: number,
    dw: number,
    pt: number,
    pl: number,
    oh: number,
    ow: number,
  ): void;
  conv_few_f32(w: Ptr, col: Ptr, ld: number, y: Ptr, o: number, k: number, p: number, scratch: Ptr): void;
  conv_few_part_f32(
    w: Ptr,
    col: Ptr,
    ld: number,
    y: Ptr,
    o: number,
    k: number,
    p: number,
    scratch: Ptr,
    part: number,
    parts: number,
  ): void;
  conv_frames_f32(w: Ptr, x: Ptr, step: number, y: Ptr, o: number, k: number, p: number): void;
  conv_frames_part_f32(
    w: Ptr,
    x: Ptr,
    step: number,
    y: Ptr,
    o: number,
    k: number,
    p: number,
    part: number,
    parts: number,
  ): void;
  wino3_in_f32(
    x: Ptr,
    w: Ptr,
    c: number,
    h: number,
    wd: number,
    kh: number,
    o: number,
    alongW: boolean,
    u: Ptr,
    uFloats: number,
    v: Ptr,
    vFloats: number,
    four: boolean,
    part: number,
    parts: number,
  ): void;
  wino3_out_f32(
    y: Ptr,
    h: number,
    wd: number,
    kh: number,
    o: number,
    alongW: boolean,
    m: Ptr,
    mFloats: number,
    part: number,
    parts: number,
  ): void;
  wino43_out_f32(
    y: Ptr,
    h: number,
    wd: number,
    kh: number,
    o: number,
    alongW: boolean,
    m: Ptr,
    mFloats: number,
    oh: number,
    ow: number,
    part: number,
    parts: number,
  ): void;
  wino33_in_f32: WinogradIn;
  wino33_out_f32: WinogradOut;
  wino44_in_f32: WinogradIn;
  wino44_out_f32: WinogradOut;
  pad_planes_f32(
    x: Ptr,
    dst: Ptr,
    c: number,
    h: number,
    w: number,
    pt: number,
    pl: number,
    hp: number,
    wp: number,
  ): void;
  im2col_f32(
    x: Ptr,
    col: Ptr,
    ld: number,
    c: number,
    h: number,
    w: number,
    kh: number,
    kw: number,
    sh: number,
    sw: number,
    dh: number,
    dw: number,
    pt: number,
    pl: number,
    oh: number,
    ow: number,
  ): void;
  im2col_f64(
    x: Ptr,
    col: Ptr,
    c: number,
    h: number,
    w: number,
    kh: number,
    kw: number,
    sh: number,
    sw: number,
    dh: number,
    dw: number,
    pt: number,
    pl: number,
    oh: number,
    ow: number,
  ): void;
  layer_norm_f32(x: Ptr, scale: Ptr, bias: Ptr, y: Ptr, rows: number, d: number, epsilon: number): void;
  layer_norm_f64(x: Ptr, scale: Ptr, bias: Ptr, y: Ptr, rows: number, d: number, epsilon: number): void;
  /** 1 in the relaxed-SIMD build, 0 in the plain one. */
  relaxed_simd(): number;
  readonly [kernel: string]: unknown;
}

let loaded: WasmExports | undefined;
let failure: string | undefined;
/** The module's bytes as loaded: threads/ derives its shared-memory variant from them. */
let moduleBytes: Uint8Array<ArrayBuffer> | undefined;

/**
 * The two builds of the module, from the same sources: 'simd' (build/raf.wasm, wasm SIMD) and 'relaxed-simd'
 * (build/raf-relaxed.wasm, also relaxed SIMD, whose multiply-adds are fused where the CPU has FMA: matrix products,
 * convolutions and recurrent steps run faster, and their float32 results differ in the last bits).
 */
export type WasmBuild = 'simd' | 'relaxed-simd';
let wanted: WasmBuild | 'auto' = 'auto';

// The smallest module using relaxed SIMD: one function (v128, v128, v128) → v128 doing f32x4.relaxed_madd.
// prettier-ignore
const RELAXED_PROBE = new Uint8Array([
  0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, // magic, version
  1, 8, 1, 0x60, 3, 0x7b, 0x7b, 0x7b, 1, 0x7b, // type section: (v128 v128 v128) → v128
  3, 2, 1, 0, // function section
  10, 13, 1, 11, 0, 0x20, 0, 0x20, 1, 0x20, 2, 0xfd, 0x85, 0x02, 0x0b, // code: local.get ×3, f32x4.relaxed_madd
]);

/**
 * Whether this engine runs relaxed SIMD: Node ≥ 22, Chrome and Edge ≥ 114, and Node 20 started with
 * `--experimental-wasm-relaxed-simd`.
 */
export function relaxedSimdSupported(): boolean {
  return WebAssembly.validate(RELAXED_PROBE);
}

/** The build to load now: the one asked for, or under 'auto' the relaxed one wherever the engine supports it. */
function buildToLoad(): WasmBuild {
  if (wanted !== 'auto') return wanted;
  return relaxedSimdSupported() ? 'relaxed-simd' : 'simd';
}

/** Where the build to load now lies: next to this module (Node reads it there; pages fetch it by default). */
const urlToLoad = (): URL => (buildToLoad() === 'relaxed-simd' ? RELAXED_WASM_URL : WASM_URL);

/**
 * Chooses the module's build: 'auto' (the default: relaxed SIMD wherever the engine supports it), 'simd' (the same
 * float32 results on every machine) or 'relaxed-simd'. Call it at startup: in Node a module already loaded is
 * replaced (resident tensors move out to JavaScript memory first); in a browser, call it before initWasm().
 */
export function setWasmBuild(build: WasmBuild | 'auto'): void {
  if (build !== 'auto' && build !== 'simd' && build !== 'relaxed-simd')
    throw new Error(`setWasmBuild: build must be 'auto', 'simd' or 'relaxed-simd', not ${JSON.stringify(build)}`);
  if (build === 'relaxed-simd' && !relaxedSimdSupported())
    throw new Error(
      "setWasmBuild('relaxed-simd'): this engine has no relaxed SIMD (it needs Node ≥ 22, Chrome ≥ 114, or Node 20 " +
        'started with --experimental-wasm-relaxed-simd)',
    );
  const before = wanted;
  wanted = build;
  if (!loaded || wasmBuild() === buildToLoad()) return;
  const fs = nodeBuiltin<typeof import('node:fs')>('node:fs');
  const problem =
    loaded.memory.buffer instanceof SharedArrayBuffer
      ? 'the wasm dialect runs on threads: call it before setWasmThreads(n > 1), or after setWasmThreads(1)'
      : !fs
        ? 'the module is loaded already: call it before initWasm()'
        : undefined;
  if (problem) {
    wanted = before;
    throw new Error(`setWasmBuild(${JSON.stringify(build)}): ${problem}`);
  }
  const bytes = new Uint8Array(fs!.readFileSync(urlToLoad()));
  replaceWasmInstance(new WebAssembly.Instance(new WebAssembly.Module(bytes), IMPORTS));
  moduleBytes = bytes;
}

/** Which build of the module is loaded, or undefined before it is. */
export function wasmBuild(): WasmBuild | undefined {
  return loaded ? (loaded.relaxed_simd() ? 'relaxed-simd' : 'simd') : undefined;
}

const IMPORTS = {
  env: {
    abort: () => {
      throw new Error('wasm dialect: kernel aborted');
    },
  },
};

function adopt(instance: WebAssembly.Instance): WasmExports {
  dropKeptBlocks(false);
  loaded = instance.exports as unknown as WasmExports;
  heap = new Heap(loaded);
  arena = new Arena(heap);
  failure = undefined;
  return loaded;
}

/**
 * Node only: reads the build (build/raf.wasm or build/raf-relaxed.wasm) synchronously, since dispatch is synchronous.
 * Built-ins come from process.getBuiltinModule rather than static imports, so bundling the runtime for a page pulls in
 * no Node module.
 */
function loadInNode(): WasmExports | undefined {
  const fs = nodeBuiltin<typeof import('node:fs')>('node:fs');
  if (!fs) return undefined;
  // An installed package ships the built module without its AssemblyScript sources: nothing to rebuild from.
  const shipped = !fs.existsSync(SOURCE_DIR_URLS[0]!);
  const fresh =
    fs.existsSync(WASM_URL) &&
    fs.existsSync(RELAXED_WASM_URL) &&
    (shipped || (fs.existsSync(STAMP_URL) && fs.readFileSync(STAMP_URL, 'utf8') === sourcesHash()));
  if (!fresh) {
    // A spec edit regenerated an elementwise kernel (or this is a fresh clone without `npm install`): rebuild once.
    const { spawnSync } = nodeBuiltin<typeof import('node:child_process')>('node:child_process')!;
    const { fileURLToPath } = nodeBuiltin<typeof import('node:url')>('node:url')!;
    const r = spawnSync(process.execPath, [fileURLToPath(new URL('./build.mjs', import.meta.url))], {
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`npm run build:wasm failed:\n${r.stderr || r.stdout}`);
  }
  moduleBytes = new Uint8Array(fs.readFileSync(urlToLoad()));
  return adopt(new WebAssembly.Instance(new WebAssembly.Module(moduleBytes), IMPORTS));
}

function load(): WasmExports | undefined {
  if (loaded || failure) return loaded;
  try {
    if (!loadInNode()) {
      // Not a failure: initWasm() can still load it, so the reason is not remembered.
      return undefined;
    }
  } catch (e) {
    failure = (e as Error).message;
  }
  return loaded;
}

const NOT_LOADED =
  'the wasm module is not loaded here (no synchronous file access outside Node); call `await initWasm(url)` first';

/**
 * Loads the module asynchronously, for browsers (in Node the first kernel call does it synchronously). `source` is
 * where a build is served, or its bytes. The default is the build setWasmBuild() picks (build/raf-relaxed.wasm
 * where relaxedSimdSupported(), else build/raf.wasm), next to this module, which a bundle usually moves: a page
 * that serves the files itself passes the URL of the one it wants. Resolves to false, with the reason in
 * wasmUnavailable(), when it cannot; until then wasm kernels decline and dispatch uses the CPU dialect.
 */
export async function initWasm(source?: string | URL | Response | BufferSource): Promise<boolean> {
  if (loaded) return true;
  if (source === undefined && load()) return true;
  try {
    const given = source ?? urlToLoad();
    const bytes =
      given instanceof Response
        ? await given.arrayBuffer()
        : typeof given === 'string' || given instanceof URL
          ? await (await fetch(given)).arrayBuffer()
          : given;
    const { instance } = await WebAssembly.instantiate(bytes, IMPORTS);
    moduleBytes = ArrayBuffer.isView(bytes)
      ? new Uint8Array(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.byteLength)
      : new Uint8Array(bytes);
    adopt(instance);
    return true;
  } catch (e) {
    failure = `initWasm: ${(e as Error).message}`;
    return false;
  }
}

/** Why the dialect cannot run (its module failed to build or load, or is not loaded yet), or undefined when it can. */
export function wasmUnavailable(): string | undefined {
  if (load()) return undefined;
  return failure ?? NOT_LOADED;
}

/** The loaded module's bytes and the imports its ordinary instance takes (for threads/). */
export function wasmModuleSource(): { readonly bytes: Uint8Array<ArrayBuffer>; readonly imports: WebAssembly.Imports } {
  wasm();
  return { bytes: moduleBytes!, imports: IMPORTS };
}

/**
 * Puts another instance of the module in place (threads/: one on shared memory, or back to a private one). Resident
 * tensors first move out to JavaScript memory, since they live in the old instance's memory.
 */
export function replaceWasmInstance(instance: WebAssembly.Instance): void {
  wasm();
  spill?.();
  adopt(instance);
}

export function wasm(): WasmExports {
  const w = load();
  if (!w) throw new Error(`wasm dialect unavailable: ${failure ?? NOT_LOADED}`);
  return w;
}

/**
 * Linear memory above the heap base: blocks of whole 64-byte lines, reused through free lists by exact size. Tensors
 * the dialect produces keep their block between calls (see storage.ts); a kernel's temporaries (inputs copied in from
 * JavaScript, scratch) are freed when the next call begins. Buffers are padded to whole 16-byte vectors so SIMD
 * loops need no scalar tail.
 */
export class Heap {
  readonly base: number;
  private top: number;
  private readonly free = new Map<number, number[]>();
  private temps: number[] = [];
  /** Bytes in blocks handed out and not yet released. */
  liveBytes = 0;
  /** Bumped by reset(): blocks from an earlier epoch are gone and must not be released again. */
  epoch = 0;
  /** Blocks handed out by alloc() so far (from a free list or new): a planned graph run adds none. */
  allocs = 0;
  constructor(private readonly w: WasmExports) {
    this.base = alignUp(w.heap_base(), 64);
    this.top = this.base;
  }
  /** Bytes between the heap base and the highest block ever handed out since the last reset. */
  get extent(): number {
    return this.top - this.base;
  }
  alloc(bytes: number): Ptr {
    const size = blockSize(bytes);
    this.allocs++;
    this.liveBytes += size;
    const reused = this.free.get(size)?.pop();
    if (reused !== undefined) return reused;
    const p = this.top;
    this.top += size;
    const have = this.w.memory.buffer.byteLength;
    // Grow by half again at least: a grow can copy the whole memory, so growing a block at a time is quadratic.
    if (this.top > have) this.w.memory.grow(Math.ceil(Math.max(this.top - have, have / 2) / 65536));
    return p;
  }
  release(p: Ptr, bytes: number): void {
    const size = blockSize(bytes);
    this.liveBytes -= size;
    let list = this.free.get(size);
    if (!list) this.free.set(size, (list = []));
    list.push(p);
  }
  /**
   * A block for a kernel's output, which outlives the call: where the graph plan of the step under way puts it when
   * there is one (the n-th output block of a step goes where the plan's recording saw a block of the same size),
   * else a block of its own; logged while a plan records.
   */
  allocOut(bytes: number): Ptr {
    const pl = planHooks.place;
    if (pl && pl.block.base >= 0) {
      const { sizes, taken } = pl;
      for (let n = 0; n < sizes.length; n++) {
        if (sizes[n] !== bytes || taken[n]) continue;
        taken[n] = true;
        if (pl.offsets[n]! < 0) break;
        return pl.block.base + pl.offsets[n]!;
      }
    }
    const p = this.alloc(bytes);
    planHooks.log?.outs.push(p, bytes);
    return p;
  }
  /** Frees a block when the next call begins (the call under way may still read it). */
  releaseLater(p: Ptr, bytes: number): void {
    this.temps.push(p, bytes);
  }
  /** A block freed when the next call begins. */
  temp(bytes: number): Ptr {
    const size = blockSize(bytes);
    // A planned step's temporaries bump through the plans' scratch block, which the next call starts over.
    const sc = planScratch;
    if (planHooks.place && sc.base >= 0 && planHooks.top + size <= sc.bytes) {
      const p = sc.base + planHooks.top;
      planHooks.top += size;
      return p;
    }
    const p = this.alloc(bytes);
    this.temps.push(p, bytes);
    const log = planHooks.log;
    if (log) log.tempPeak = Math.max(log.tempPeak, (log.tempNow += size));
    return p;
  }
  /** Frees the last call's temporaries. */
  endCall(): void {
    for (let i = 0; i < this.temps.length; i += 2) this.release(this.temps[i]!, this.temps[i + 1]!);
    this.temps = [];
    planHooks.top = 0;
    if (planHooks.log) planHooks.log.tempNow = 0;
  }
  /** Forgets every block (all must be released or abandoned): the next alloc starts at the base again. */
  reset(): void {
    this.top = this.base;
    this.free.clear();
    this.temps = [];
    this.liveBytes = 0;
    this.epoch++;
  }
  /** A view of wasm memory; take views only after the last alloc of a call, since growing detaches them. */
  view(ctor: Float32ArrayConstructor | Float64ArrayConstructor, p: Ptr, length: number): Float32Array | Float64Array {
    return new ctor(this.w.memory.buffer, p, length);
  }
  /**
   * A copy of `length` elements at p, in a new array of JavaScript memory (not shared, in a threaded build too).
   * TypedArray slice() of a view: on Node 20 it takes a seventh of ArrayBuffer.prototype.slice's time for a few
   * elements (0.1 against 0.74 µs) and a quarter of it for 64 K (6 against 27 µs), where every small result of a graph
   * that leaves wasm for a JavaScript kernel pays it.
   */
  copyOut(
    ctor: Float32ArrayConstructor | Float64ArrayConstructor,
    p: Ptr,
    length: number,
  ): Float32Array | Float64Array {
    return new ctor(this.w.memory.buffer, p, length).slice();
  }
  /** Copies `bytes` bytes from src to dst within wasm memory. */
  copy(dst: Ptr, src: Ptr, bytes: number): void {
    new Uint8Array(this.w.memory.buffer).copyWithin(dst, src, src + bytes);
  }
  /** Copies int32 values to p (index tables such as a broadcast walk's run starts). */
  writeI32(p: Ptr, values: Int32Array): void {
    new Int32Array(this.w.memory.buffer, p, values.length).set(values);
  }
}

const blockSize = (bytes: number) => alignUp(Math.max(bytes, 16), 64);

/** One kernel call's view of the heap: alloc hands out temporaries, freed when the next call begins. */
export class Arena {
  constructor(readonly heap: Heap) {}
  alloc(bytes: number): Ptr {
    return this.heap.temp(bytes);
  }
  view(ctor: Float32ArrayConstructor | Float64ArrayConstructor, p: Ptr, length: number): Float32Array | Float64Array {
    return this.heap.view(ctor, p, length);
  }
}

let heap: Heap | undefined;
let arena: Arena | undefined;
/** Set by storage.ts: moves every resident tensor out to JavaScript memory, so the heap can start over. */
let spill: (() => void) | undefined;
export function setSpill(f: () => void): void {
  spill = f;
}

/**
 * Above this extent a new call first moves resident tensors out (those still referenced are copied to JavaScript
 * memory; collected ones just drop) and restarts the heap, so tensors nobody disposes cannot grow memory forever.
 */
export const HEAP_LIMIT = 128 << 20;

/** The heap, once the module is loaded. */
export function wasmHeap(): Heap {
  wasm();
  return heap!;
}

/** The arena for a new call: the previous call's temporaries are freed (and the heap restarted when over its limit). */
export function callArena(): Arena {
  wasm();
  heap!.endCall();
  if (heap!.extent > HEAP_LIMIT) {
    spill?.();
    dropKeptBlocks(true);
    if (heap!.liveBytes === 0) heap!.reset();
  }
  return arena!;
}

// ---------------------------------------------------------------------------------------------------------------------
// Blocks kept across calls: graph plans' memory (see graph/memory-plan.ts) and layout ops' index tables

/**
 * A block of wasm memory kept across calls (a graph plan's values, a layout op's index table): base is -1 until it is
 * allocated and after it is dropped, which happens to every kept block when the heap starts over.
 */
export interface KeptBlock {
  base: number;
  readonly bytes: number;
}

/** The output blocks and the temporaries' peak of one step while a plan records (outs: ptr, bytes pairs). */
export interface AllocLog {
  readonly outs: number[];
  tempNow: number;
  tempPeak: number;
  /** The storages made over those blocks (a step's results, or values of its own it frees before it ends). */
  readonly made: object[];
}

/**
 * Where the step under way of a planned run puts its output blocks. The ones its recording saw, in order: sizes[n]
 * bytes at block.base + offsets[n] (-1: a block of its own, for a value the graph returns); an output block takes the
 * first entry of its size not yet taken (so a block the recording run made once, a weight copied in on first use,
 * does not shift the rest). Its temporaries go to the scratch block all plans share.
 */
export interface Placement {
  readonly block: KeptBlock;
  readonly offsets: readonly number[];
  readonly sizes: readonly number[];
  readonly taken: boolean[];
  /** The storages made over the plan's blocks during the step (the run checks each is one of the step's results). */
  readonly handed: object[];
}

/**
 * What the heap does for the step under way: log it (a plan recording), place it (a planned run), or neither; `top`
 * is the next free byte of the scratch block in a planned step.
 */
export const planHooks: { log: AllocLog | null; place: Placement | null; top: number } = {
  log: null,
  place: null,
  top: 0,
};

/**
 * Scratch space for planned steps' temporaries, shared by every plan: steps never run at once, and a call's
 * temporaries are dead once the next call begins, even when that call is a nested graph's. Sized to the largest need.
 */
const planScratch = { base: -1, bytes: 0 };

/** Whether p lies in the block of the graph plan whose step is under way (a block its storage must not free). */
export function inPlacedBlock(p: Ptr): boolean {
  const block = planHooks.place?.block;
  return block !== undefined && block.base >= 0 && p >= block.base && p < block.base + block.bytes;
}

/** Kept blocks allocated from the current heap. */
const keptBlocks = new Set<KeptBlock>();

/**
 * Allocates `block` from the heap (the caller holds no views: this may grow memory); false when the module is not
 * loaded. Dropped with every other when the heap starts over; its owner then allocates (and fills) it again.
 */
export function allocKeptBlock(block: KeptBlock): boolean {
  if (!loaded) return false;
  block.base = heap!.alloc(block.bytes);
  keptBlocks.add(block);
  return true;
}

/** Makes the shared scratch block at least `bytes` long (call between runs, holding no views); false: it is not. */
export function reservePlanScratch(bytes: number): boolean {
  if (!loaded) return false;
  if (planScratch.base >= 0 && planScratch.bytes >= bytes) return true;
  if (planScratch.base >= 0) heap!.release(planScratch.base, planScratch.bytes);
  planScratch.bytes = Math.max(bytes, planScratch.bytes);
  planScratch.base = heap!.alloc(planScratch.bytes);
  return true;
}

/** Gives a kept block back (its owner is gone). */
export function freeKeptBlock(block: KeptBlock): void {
  if (block.base < 0 || !keptBlocks.delete(block)) return;
  heap!.release(block.base, block.bytes);
  block.base = -1;
}

/** Forgets every kept block; `release`: give them back to the heap first (it starts over only when nothing is live). */
function dropKeptBlocks(release: boolean): void {
  for (const b of [...keptBlocks, planScratch]) {
    if (b.base < 0) continue;
    if (release) heap!.release(b.base, b.bytes);
    b.base = -1;
  }
  keptBlocks.clear();
}

export function alignUp(n: number, to: number): number {
  return Math.ceil(n / to) * to;
}
