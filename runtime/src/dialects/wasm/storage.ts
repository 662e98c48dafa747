// Tensors that live in wasm memory: a kernel's output stays where the next wasm kernel reads it, and moves to
// JavaScript memory only when something else reads it (another dialect, the user) or the heap needs room.

import type { Storage } from '../../dtype.ts';
import { CPU } from '../../device.ts';
import type { TensorStorage } from '../../tensor.ts';
import { setSpill, wasmHeap, type Heap } from './module.ts';

/** What the heap must know to free a block, kept apart from the storage so the finalizer can run after it is gone. */
interface Block {
  readonly ptr: number;
  readonly bytes: number;
  readonly epoch: number;
  readonly ref: WeakRef<WasmStorage>;
  done: boolean;
}

const live = new Set<Block>();

function releaseBlock(heap: Heap, b: Block): void {
  if (b.done) return;
  b.done = true;
  live.delete(b);
  finalizer.unregister(b);
  // A block from before a heap restart is already gone.
  if (b.epoch === heap.epoch) heap.release(b.ptr, b.bytes);
}

// A tensor dropped without dispose() gives its block back once collected.
const finalizer = new FinalizationRegistry<Block>((b) => {
  if (!b.done) releaseBlock(wasmHeap(), b);
});

/**
 * CPU-device storage whose elements sit in a wasm heap block (`ptr`) until the first synchronous read copies them to
 * a typed array and frees the block; from then on it behaves as CPU storage. The block is freed by dispose() or,
 * for tensors dropped without it, by a FinalizationRegistry.
 */
export class WasmStorage implements TensorStorage {
  readonly device = CPU;
  private block: Block | undefined;
  private array: Storage | undefined;
  constructor(
    private readonly heap: Heap,
    ptr: number,
    bytes: number,
    private readonly ctor: Float32ArrayConstructor | Float64ArrayConstructor,
    private readonly length: number,
  ) {
    const b: Block = { ptr, bytes, epoch: heap.epoch, ref: new WeakRef(this), done: false };
    this.block = b;
    live.add(b);
    finalizer.register(this, b, b);
  }
  /** The block's address while the elements are still in wasm memory; undefined once they moved out. */
  get ptr(): number | undefined {
    return this.block?.ptr;
  }
  readSync(): Storage {
    if (!this.array) {
      const b = this.block!;
      this.array = this.heap.view(this.ctor, b.ptr, this.length).slice() as Storage;
      this.block = undefined;
      releaseBlock(this.heap, b);
    }
    return this.array;
  }
  read(): Promise<Storage> {
    return Promise.resolve(this.readSync());
  }
  dispose(): void {
    if (this.block) releaseBlock(this.heap, this.block);
    this.block = undefined;
  }
}

/** Moves every resident tensor still referenced to JavaScript memory; blocks of collected ones are just dropped. */
function spillAll(): void {
  const heap = wasmHeap();
  for (const b of [...live]) {
    const s = b.ref.deref();
    if (s) s.readSync();
    else releaseBlock(heap, b);
  }
}

setSpill(spillAll);

/** Wraps a heap block that now holds a kernel's output. */
export function residentStorage(
  heap: Heap,
  ptr: number,
  bytes: number,
  ctor: Float32ArrayConstructor | Float64ArrayConstructor,
  length: number,
): WasmStorage {
  return new WasmStorage(heap, ptr, bytes, ctor, length);
}
