// The wasm dialect's resident budget (dialects/wasm/storage.ts): tensors nobody disposes stay in wasm memory until
// RESIDENT_BUDGET bytes are resident; then they move out to JavaScript memory, values intact, oldest first, except
// that one a kernel read since the budget last passed over it gets a second chance (the CLOCK approximation of least
// recently used). A tensor a wasm kernel keeps reading (a weight) outlives one-off tensors made after it.

import { afterEach, describe, expect, it } from 'vitest';
import { fromStorage, ops, toWasmMemory, withDialect, type Tensor } from '../../runtime/src/index.ts';
import { RESIDENT_BUDGET, WasmStorage } from '../../runtime/src/dialects/wasm/storage.ts';

const N = 1 << 20; // 4 MiB of float32 a tensor
const resident = (t: Tensor): boolean => t.storage instanceof WasmStorage && t.storage.ptr !== undefined;
/** Element i of tensor number k: distinct per tensor, so a value read from the wrong block shows. */
const valueOf = (k: number, i: number): number => k * 1000 + (i % 997);
const made: Tensor[] = [];
const resident4MiB = (k: number): Tensor => {
  const values = new Float32Array(N);
  for (let i = 0; i < N; i++) values[i] = valueOf(k, i);
  const t = toWasmMemory(fromStorage([N], 'float32', values));
  made.push(t);
  return t;
};

afterEach(() => {
  for (const t of made.splice(0)) t.dispose();
});

describe('wasm resident budget', () => {
  it('moves out the oldest tensors first and keeps one a kernel reads every step, values intact', () => {
    const fit = Math.floor(RESIDENT_BUDGET / (N * 4));
    const weight = resident4MiB(0);
    const others: Tensor[] = [];
    const sums: number[] = [];
    // Twice the budget's worth of one-off tensors, the weight read by a wasm reduction after each one is made.
    for (let k = 1; k <= 2 * fit; k++) {
      others.push(resident4MiB(k));
      const s = withDialect(['wasm'], () => ops.sum(weight));
      sums.push(s.item());
      s.dispose();
    }
    expect(resident(weight)).toBe(true);
    // The oldest one-off tensors moved out, the newest stayed; the ones resident are the newest ones.
    expect(resident(others[0]!)).toBe(false);
    expect(resident(others[others.length - 1]!)).toBe(true);
    const flags = others.map(resident);
    const firstResident = flags.indexOf(true);
    expect(firstResident).toBeGreaterThan(0);
    expect(flags.slice(firstResident).every(Boolean)).toBe(true);
    expect(flags.length - firstResident).toBeLessThan(fit);
    // Every value survives the move, and the weight's sum never changed.
    let want = 0;
    for (let i = 0; i < N; i++) want += valueOf(0, i);
    for (const s of sums) expect(Math.abs(s - want) / want).toBeLessThan(1e-5);
    for (const k of [1, firstResident, others.length]) {
      const got = others[k - 1]!.dataSync();
      for (const i of [0, 1, 996, 997, N - 1]) expect(got[i]).toBe(valueOf(k, i));
    }
  });

  it('moves out a tensor no kernel read before an older one a kernel read, which then waits behind the rest', () => {
    const fit = Math.floor(RESIDENT_BUDGET / (N * 4));
    const read = resident4MiB(1);
    withDialect(['wasm'], () => ops.sum(read)).dispose();
    const unread = resident4MiB(2);
    // Just past the budget: one tensor has to go, and it is the unread one although it is newer.
    for (let k = 3; k <= fit + 1; k++) resident4MiB(k);
    expect(resident(unread)).toBe(false);
    expect(resident(read)).toBe(true);
    // Its second chance put the read one behind the rest: the next to go is the oldest of those, unread.
    resident4MiB(fit + 2);
    expect(resident(made[2]!)).toBe(false);
    expect(resident(read)).toBe(true);
    expect(read.dataSync()[5]).toBe(valueOf(1, 5));
    expect(unread.dataSync()[N - 1]).toBe(valueOf(2, N - 1));
  });
});
