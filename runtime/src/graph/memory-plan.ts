// A graph plan's static memory: the first planned run records which wasm blocks each step's outputs take and when the
// run frees them; later runs put every intermediate at a fixed offset of one block the plan owns (two values share
// bytes only when their lifetimes do not overlap) and every kernel temporary in a scratch block all plans share. A
// planned run then takes no block from the heap except for the values it returns, which the caller owns.

import {
  alignUp,
  allocKeptBlock,
  freeKeptBlock,
  HEAP_LIMIT,
  planHooks,
  reservePlanScratch,
  type AllocLog,
  type Placement,
  type KeptBlock,
} from '../dialects/wasm/module.ts';
import { WasmStorage } from '../dialects/wasm/storage.ts';
import { Tensor, type TensorStorage } from '../tensor.ts';

/** What the run loop tells a memory plan (recording it, or running it): steps begin and end, storages are disposed. */
export interface StepMemory<Token> {
  beginStep(step: number): Token;
  endStep(token: Token, step: number, result: Tensor | readonly Tensor[]): void;
  disposed?(storage: TensorStorage, step: number): void;
}

/** An output block of the recording: the `seq`-th block step `from` kept (see endStep), freed after step `to`. */
interface Value {
  readonly from: number;
  readonly seq: number;
  readonly bytes: number;
  to: number;
  offset: number;
}

const storagesOf = (r: Tensor | readonly Tensor[]) => (r instanceof Tensor ? [r.storage] : r.map((t) => t.storage));

/** Watches a plan's first run; `layout()` then lays its intermediates out. */
export class MemoryRecorder implements StepMemory<AllocLog | null> {
  private readonly values = new Map<TensorStorage, Value>();
  /** Per step, the sizes of its output blocks in the order the step asked for them. */
  private readonly sizes: number[][] = [];
  private scratch = 0;

  beginStep(): AllocLog | null {
    const outer = planHooks.log;
    planHooks.log = { outs: [], tempNow: 0, tempPeak: 0, made: [] };
    return outer;
  }

  endStep(outer: AllocLog | null, step: number, result: Tensor | readonly Tensor[]): void {
    const log = planHooks.log!;
    planHooks.log = outer;
    this.scratch = Math.max(this.scratch, log.tempPeak);
    // Each output block with the storage made over it (a block freed within the step may be handed out again).
    const made = log.made as WasmStorage[];
    const matched = new Set<WasmStorage>();
    const results = storagesOf(result);
    const sizes: number[] = [];
    for (let k = 0; k < log.outs.length; k += 2) {
      const s = made.find((m) => m.blockAt === log.outs[k] && !matched.has(m));
      if (!s) continue;
      matched.add(s);
      // Kept: the step's results (planned unless the graph returns them), and values the step made and freed itself
      // (a fused group's inner results, alive during that step only). A block still held by anything else (a weight
      // copied into wasm memory on first use) is left out: later runs need not make it again. So is one whose elements
      // moved out during the step (a weight copied in, then read by another dialect, as onnxruntime reads its inputs):
      // it is alive, not freed, and later runs do not make it again; planned, its offset (free after this step) would
      // go to the step's result, which the next steps' outputs could then overwrite while it is still read.
      const inner = !results.includes(s);
      if (inner && (s.ptr !== undefined || s.movedOut)) continue;
      if (!this.values.has(s))
        this.values.set(s, {
          from: step,
          seq: sizes.length,
          bytes: log.outs[k + 1]!,
          to: inner ? step : -1,
          offset: -1,
        });
      sizes.push(log.outs[k + 1]!);
    }
    this.sizes[step] = sizes;
  }

  disposed(storage: TensorStorage, step: number): void {
    const v = this.values.get(storage);
    if (v && v.to < 0) v.to = step;
  }

  /**
   * Offsets for the values the run freed (the rest, the graph's outputs, stay the caller's): largest first, each at
   * the lowest 64-byte-aligned offset clear of every value already placed whose lifetime overlaps its own. A value
   * freed after step t and one made by step t overlap (step t reads the first while writing the second).
   */
  layout(steps: number): MemoryLayout | null {
    const values = [...this.values.values()].filter((v) => v.to >= 0);
    values.sort((a, b) => b.bytes - a.bytes || a.from - b.from);
    const placed: Value[] = [];
    let end = 0;
    for (const v of values) {
      const size = alignUp(v.bytes, 64);
      const clashes = placed.filter((p) => p.from <= v.to && v.from <= p.to).sort((a, b) => a.offset - b.offset);
      let offset = 0;
      for (const c of clashes) {
        if (offset + size <= c.offset) break;
        offset = Math.max(offset, c.offset + alignUp(c.bytes, 64));
      }
      v.offset = offset;
      placed.push(v);
      end = Math.max(end, offset + size);
    }
    const scratch = alignUp(this.scratch, 64);
    if (end + scratch === 0 || end > HEAP_LIMIT / 2 || scratch > HEAP_LIMIT / 4) return null;
    const offsets = this.sizes.map((s) => s.map(() => -1));
    for (const v of placed) offsets[v.from]![v.seq] = v.offset;
    // A plan with no value to place still gets a 64-byte block: its steps' temporaries go to scratch all the same.
    const block: KeptBlock = { base: -1, bytes: Math.max(end, 64) };
    const places: Placement[] = [];
    for (let i = 0; i < steps; i++)
      places.push({
        block,
        offsets: offsets[i] ?? [],
        sizes: this.sizes[i] ?? [],
        taken: (this.sizes[i] ?? []).map(() => false),
        handed: [],
      });
    const unshared = placed.reduce((sum, v) => sum + alignUp(v.bytes, 64), 0);
    return new MemoryLayout(block, places, placed.length, unshared, scratch);
  }
}

/** A layout the collector took (its graph is gone) gives its block back to the heap. */
const unused = new FinalizationRegistry<KeptBlock>((block) => freeKeptBlock(block));

/**
 * A plan's memory layout, used by its runs: each step's placement is installed while the step runs. Should a block of
 * the plan's end up anywhere but in the step's results (the kernels asked for other blocks than on the recording), it
 * is moved out to JavaScript memory at once and the layout is not used again; values a run returns never lie in it.
 */
export class MemoryLayout implements StepMemory<Placement | null> {
  private broken = false;
  constructor(
    readonly block: KeptBlock,
    private readonly places: readonly Placement[],
    /** How many values have a fixed offset: the graph's intermediates and fused groups' inner results. */
    readonly planned: number,
    /** Bytes they would take with a block each (the plan's block, `block.bytes`, is what they take shared). */
    readonly unsharedBytes: number,
    /** The most bytes of temporaries one kernel call of the plan asks for (from the scratch block all plans share). */
    readonly scratchBytes: number,
  ) {
    unused.register(this, block);
  }

  /** Whether the block was dropped by a heap restart (the plan's constants lost their wasm copies with it). */
  get lost(): boolean {
    return !this.broken && this.block.base < 0;
  }

  /**
   * Makes sure the block is allocated (when the plan is made, and again after the heap started over); false: run
   * without it. Call it with no views of wasm memory held, since it may grow memory.
   */
  reserve(): boolean {
    if (this.broken) return false;
    return reservePlanScratch(this.scratchBytes) && (this.block.base >= 0 || allocKeptBlock(this.block));
  }

  beginStep(step: number): Placement | null {
    const outer = planHooks.place;
    const p = this.places[step]!;
    const taken = p.taken;
    for (let k = 0; k < taken.length; k++) taken[k] = false;
    planHooks.place = p;
    planHooks.top = 0;
    return outer;
  }

  endStep(outer: Placement | null, step: number, result: Tensor | readonly Tensor[]): void {
    planHooks.place = outer;
    const handed = this.places[step]!.handed as WasmStorage[];
    if (handed.length === 0) return;
    for (const s of handed)
      if (
        s.ptr !== undefined &&
        !(result instanceof Tensor ? result.storage === s : result.some((t) => t.storage === s))
      )
        this.abandon(s);
    handed.length = 0;
  }

  /**
   * After a run: an output lying in the block (which a layout never plans) is moved out and the layout given up; a
   * layout given up frees its block once the run is over (its intermediates are gone by then).
   */
  endRun(outputs: readonly Tensor[]): void {
    for (const t of outputs) {
      const s = t.storage;
      if (s instanceof WasmStorage && s.planned && s.ptr !== undefined) this.abandon(s);
    }
    if (this.broken) freeKeptBlock(this.block);
  }

  private abandon(s: WasmStorage): void {
    s.moveOut(false);
    this.broken = true;
  }
}
