// The wasm dialect's module: loaded synchronously on first use (rebuilt when its sources changed), and its linear memory.

import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { STAMP, sourcesHash, WASM } from './build.mjs';

type Ptr = number;

/** The exports of as/index.ts; generated elementwise kernels are looked up by name (`add_f32`). */
export interface WasmExports {
  readonly memory: WebAssembly.Memory;
  heap_base(): Ptr;
  matmul_scratch_bytes(): number;
  matmul_f32(a: Ptr, aRow: number, aCol: number, b: Ptr, bRow: number, bCol: number, c: Ptr, m: number, n: number, k: number, scratch: Ptr): void;
  matmul_f64(a: Ptr, aRow: number, aCol: number, b: Ptr, bRow: number, bCol: number, c: Ptr, m: number, n: number, k: number): void;
  softmax_f32(x: Ptr, y: Ptr, outer: number, len: number, inner: number, log: boolean): void;
  softmax_f64(x: Ptr, y: Ptr, outer: number, len: number, inner: number, log: boolean): void;
  sum_f32(x: Ptr, y: Ptr, outer: number, len: number, inner: number): void;
  sum_f64(x: Ptr, y: Ptr, outer: number, len: number, inner: number): void;
  readonly [kernel: string]: unknown;
}

let loaded: WasmExports | undefined;
let failure: string | undefined;

function load(): WasmExports | undefined {
  if (loaded || failure) return loaded;
  try {
    const fresh = existsSync(WASM) && existsSync(STAMP) && readFileSync(STAMP, 'utf8') === sourcesHash();
    if (!fresh) {
      // A spec edit regenerated an elementwise kernel (or this is a fresh clone without `npm install`): rebuild once.
      const script = fileURLToPath(new URL('./build.mjs', import.meta.url));
      const r = spawnSync(process.execPath, [script], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`npm run build:wasm failed:\n${r.stderr || r.stdout}`);
    }
    const module = new WebAssembly.Module(readFileSync(WASM));
    const instance = new WebAssembly.Instance(module, {
      env: {
        abort: () => {
          throw new Error('wasm dialect: kernel aborted');
        },
      },
    });
    loaded = instance.exports as unknown as WasmExports;
    arena = new Arena(loaded);
  } catch (e) {
    failure = (e as Error).message;
  }
  return loaded;
}

/** Why the dialect cannot run (its module failed to build or load), or undefined when it can. */
export function wasmUnavailable(): string | undefined {
  load();
  return failure;
}

export function wasm(): WasmExports {
  const w = load();
  if (!w) throw new Error(`wasm dialect unavailable: ${failure}`);
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
