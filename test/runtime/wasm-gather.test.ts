// Layout ops on the wasm dialect gather through index tables kept in wasm memory: the same table serves repeated eager
// calls (new attrs objects every time), survives the heap starting over, and the values match a transpose written here.

import { describe, expect, it } from 'vitest';
import { ops, randomUniform, toWasmMemory, withDialect, zeros, type Tensor } from '../../runtime/src/index.ts';
import { HEAP_LIMIT, wasmHeap } from '../../runtime/src/dialects/wasm/module.ts';

const values = (t: Tensor): number[] => Array.from(t.dataSync() as Float32Array);

/** x [a, b, c] transposed to [c, a, b], element by element. */
function transposeRef(x: number[], [a, b, c]: number[]): number[] {
  const out: number[] = [];
  for (let k = 0; k < c; k++) for (let i = 0; i < a; i++) for (let j = 0; j < b; j++) out.push(x[(i * b + j) * c + k]!);
  return out;
}

describe('wasm gathers', () => {
  const shape = [5, 6, 7];
  const x = randomUniform(shape, { low: -1, high: 1, seed: 4 });
  const want = transposeRef(values(x), shape);
  const run = () => withDialect(['wasm'], () => ops.transpose(x, [2, 0, 1]));

  it('reuse one index table across eager calls: each later call takes one heap block, its output', () => {
    run().dispose();
    const heap = wasmHeap();
    for (let i = 0; i < 3; i++) {
      const before = heap.allocs;
      const y = run();
      // The input is copied in as a temporary (a JavaScript tensor) and the output is resident: two blocks, no table.
      expect(heap.allocs - before).toBe(2);
      expect(values(y)).toEqual(want);
      y.dispose();
    }
  });

  it('gather in JavaScript when the table is too large to keep in wasm memory (over 4 Mi entries)', () => {
    const n = (1 << 21) + 3;
    const big = randomUniform([2, n], { low: -1, high: 1, seed: 5 });
    const xs = values(big);
    const y = withDialect(['wasm'], () => ops.transpose(big, [1, 0]));
    const ys = y.dataSync() as Float32Array;
    let wrong = 0;
    for (let i = 0; i < n; i++) if (ys[2 * i] !== xs[i] || ys[2 * i + 1] !== xs[n + i]) wrong++;
    expect(wrong).toBe(0);
    y.dispose();
  });

  it('copy their table into wasm memory again after the heap starts over', () => {
    run().dispose();
    toWasmMemory(zeros([HEAP_LIMIT / 4 + 1024])).dispose();
    const epoch = wasmHeap().epoch;
    const y = run();
    expect(wasmHeap().epoch).toBe(epoch + 1);
    expect(values(y)).toEqual(want);
  });
});
