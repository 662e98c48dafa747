// Tensors that live in wasm memory: a kernel's output stays where the next wasm kernel reads it, and moves to
// JavaScript memory only when something else reads it (another dialect, the user) or the resident budget is full.

import type { Storage } from '../../dtype.ts';
import { CPU } from '../../device.ts';
import { OWNED, type TensorStorage } from '../../tensor.ts';
import { inPlacedBlock, planHooks, setSpill, wasmHeap, type Heap } from './module.ts';

/**
 * Resident storages in the order they were (re)inserted, each with its `stamp` at that time (a Map iterates in
 * insertion order), held strongly: the heap cannot tell a tensor still referenced from one the collector has not
 * reached yet, and a WeakRef would keep its target (and, once read out, its array) alive until the current job ends,
 * which in a loop of awaits is never. So a tensor nobody disposes stays resident until the budget needs its bytes;
 * then it moves out to JavaScript memory, as every output did before (see makeRoom for which go first).
 */
const live = new Map<WasmStorage, number>();
let residentBytes = 0;
/** Counts uses: a storage's `stamp` is the count at its last use (made, or read by a kernel). */
let clock = 0;

/** How many bytes resident tensors may hold before the oldest move out to JavaScript memory. */
export const RESIDENT_BUDGET = 64 << 20;

/**
 * CPU-device storage whose elements sit in a wasm heap block (`ptr`) until the first synchronous read copies them to
 * a typed array and frees the block; from then on it behaves as CPU storage. dispose() frees the block at once.
 */
export class WasmStorage implements TensorStorage {
  readonly device = CPU;
  [OWNED] = false;
  private block: number | undefined;
  private array: Storage | undefined;
  private readonly epoch: number;
  /** The clock at its last use; makeRoom compares it with the stamp it was inserted into `live` with. */
  stamp: number;
  /** Where the block began, kept after it is released (a graph plan's recording matches blocks by address). */
  readonly blockAt: number;
  /** The block lies in a graph plan's memory, which owns it: releasing it gives nothing back to the heap. */
  readonly planned: boolean;
  constructor(
    private readonly heap: Heap,
    ptr: number,
    private readonly bytes: number,
    private readonly ctor: Float32ArrayConstructor | Float64ArrayConstructor,
    private readonly length: number,
  ) {
    this.block = ptr;
    this.blockAt = ptr;
    this.planned = inPlacedBlock(ptr);
    this.epoch = heap.epoch;
    this.stamp = ++clock;
    live.set(this, this.stamp);
    if (this.planned) planHooks.place!.handed.push(this);
    else {
      residentBytes += bytes;
      planHooks.log?.made.push(this);
    }
  }
  /** The block's address while the elements are still in wasm memory; undefined once they moved out. */
  get ptr(): number | undefined {
    return this.block;
  }
  /** Whether the elements moved out to JavaScript memory (still live there), as opposed to disposed. */
  get movedOut(): boolean {
    return this.array !== undefined;
  }
  /**
   * Marks it just used, so the budget moves it out last (inputs used every step outlive one-off intermediates). Only
   * the stamp changes: makeRoom reorders `live` lazily, so a weight read on every call costs no Map work.
   */
  touch(): void {
    this.stamp = ++clock;
  }
  readSync(): Storage {
    return this.moveOut(false);
  }
  read(): Promise<Storage> {
    return Promise.resolve(this.readSync());
  }
  dispose(): void {
    this.release(false);
  }
  /** Copies the elements to JavaScript memory and gives the block back (`later`: see release). */
  moveOut(later: boolean): Storage {
    if (!this.array) {
      this.array = this.heap.copyOut(this.ctor, this.block!, this.length) as Storage;
      this.release(later);
    }
    return this.array;
  }
  /** `later`: the call under way may still read the block (an input of it), so it is freed when the next begins. */
  private release(later: boolean): void {
    if (this.block === undefined) return;
    const p = this.block;
    this.block = undefined;
    live.delete(this);
    if (this.planned) return;
    residentBytes -= this.bytes;
    // A block from before a heap restart is already gone.
    if (this.epoch !== this.heap.epoch) return;
    if (later) this.heap.releaseLater(p, this.bytes);
    else this.heap.release(p, this.bytes);
  }
}

/**
 * Moves resident tensors out until `bytes` more fit in the budget (call before allocating them), oldest first in
 * `live`'s order, except that one used since it was put there goes to the back with its new stamp instead: a second
 * chance, the CLOCK approximation of least recently used, which costs a use no Map work. Entries put back while
 * iterating are visited again, so the loop ends once every one has had its chance.
 */
export function makeRoom(bytes: number): void {
  if (residentBytes + bytes <= RESIDENT_BUDGET) return;
  for (const [s, insertedAt] of live) {
    if (residentBytes + bytes <= RESIDENT_BUDGET) break;
    if (s.stamp !== insertedAt) {
      live.delete(s);
      live.set(s, s.stamp);
    } else s.moveOut(true);
  }
}

// Over the heap limit a call first moves every resident tensor out, so the heap can start over.
setSpill(() => {
  for (const s of [...live.keys()]) s.moveOut(false);
});

/** Wraps a heap block that now holds a kernel's output. */
export function residentStorage(
  heap: Heap,
  ptr: number,
  bytes: number,
  ctor: Float32ArrayConstructor | Float64ArrayConstructor,
  length: number,
): WasmStorage {
  wasmHeap();
  return new WasmStorage(heap, ptr, bytes, ctor, length);
}
