// The wasm dialect's module: in Node loaded synchronously on first use (rebuilt when its sources changed); in browsers by `await initWasm()`.

import { nodeBuiltin, SOURCE_DIR_URLS, sourcesHash, STAMP_URL, WASM_URL } from './sources.mjs';

type Ptr = number;

/** The exports of as/index.ts; generated elementwise kernels are looked up by name (`add_f32`). */
export interface WasmExports {
  readonly memory: WebAssembly.Memory;
  heap_base(): Ptr;
  matmul_scratch_bytes(): number;
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
  sum_f32(x: Ptr, y: Ptr, outer: number, len: number, inner: number): void;
  sum_f64(x: Ptr, y: Ptr, outer: number, len: number, inner: number): void;
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
  readonly [kernel: string]: unknown;
}

let loaded: WasmExports | undefined;
let failure: string | undefined;

const IMPORTS = {
  env: {
    abort: () => {
      throw new Error('wasm dialect: kernel aborted');
    },
  },
};

function adopt(instance: WebAssembly.Instance): WasmExports {
  loaded = instance.exports as unknown as WasmExports;
  arena = new Arena(loaded);
  failure = undefined;
  return loaded;
}

/**
 * Node only: reads build/raf.wasm synchronously, since dispatch is synchronous. Built-ins come from
 * process.getBuiltinModule rather than static imports, so bundling the runtime for a page pulls in no Node module.
 */
function loadInNode(): WasmExports | undefined {
  const fs = nodeBuiltin<typeof import('node:fs')>('node:fs');
  if (!fs) return undefined;
  // An installed package ships the built module without its AssemblyScript sources: nothing to rebuild from.
  const shipped = !fs.existsSync(SOURCE_DIR_URLS[0]!);
  const fresh =
    fs.existsSync(WASM_URL) &&
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
  return adopt(new WebAssembly.Instance(new WebAssembly.Module(fs.readFileSync(WASM_URL)), IMPORTS));
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
 * where build/raf.wasm is served (default: next to this module, which a bundle usually moves) or its bytes. Resolves
 * to false, with the reason in wasmUnavailable(), when it cannot; until then wasm kernels decline and dispatch uses
 * the CPU dialect.
 */
export async function initWasm(source?: string | URL | Response | BufferSource): Promise<boolean> {
  if (loaded) return true;
  if (source === undefined && load()) return true;
  try {
    const given = source ?? WASM_URL;
    const bytes =
      given instanceof Response
        ? await given.arrayBuffer()
        : typeof given === 'string' || given instanceof URL
          ? await (await fetch(given)).arrayBuffer()
          : given;
    const { instance } = await WebAssembly.instantiate(bytes, IMPORTS);
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

export function wasm(): WasmExports {
  const w = load();
  if (!w) throw new Error(`wasm dialect unavailable: ${failure ?? NOT_LOADED}`);
  return w;
}

/**
 * Tensors are copied into linear memory per call, laid out from the heap base up and released together at the
 * start of the next call. Buffers are padded to whole 16-byte vectors so SIMD loops need no scalar tail.
 */
export class Arena {
  private readonly base: number;
  private top: number;
  constructor(private readonly w: WasmExports) {
    this.base = alignUp(w.heap_base(), 64);
    this.top = this.base;
  }
  /** Frees everything; pointers from before are dead. */
  reset(): this {
    this.top = this.base;
    return this;
  }
  alloc(bytes: number): Ptr {
    const p = this.top;
    this.top = alignUp(p + bytes, 64);
    const have = this.w.memory.buffer.byteLength;
    if (this.top > have) this.w.memory.grow(Math.ceil((this.top - have) / 65536));
    return p;
  }
  /** A view of wasm memory; take views only after the last alloc of a call, since growing detaches them. */
  view(ctor: Float32ArrayConstructor | Float64ArrayConstructor, p: Ptr, length: number): Float32Array | Float64Array {
    return new ctor(this.w.memory.buffer, p, length);
  }
}

let arena: Arena | undefined;

/** The arena, reset for a new call. */
export function callArena(): Arena {
  wasm();
  return arena!.reset();
}

export function alignUp(n: number, to: number): number {
  return Math.ceil(n / to) * to;
}
