// The bench's threaded cases (bench/cases/threads.ts) on a small product: raf-op with 2 wasm threads (by default, and
// pinned to its own kernels) and onnxruntime with 2 intra-op threads run twice without error and agree, and the
// raf-op columns leave one thread behind them; onnxruntime-web with 2 threads runs in a child process and agrees.

import { describe, expect, it } from 'vitest';
import { wasmThreads } from '../../runtime/src/index.ts';
import { threadStats } from '../../runtime/src/dialects/wasm/threads/index.ts';
import { matmulCase } from '../../bench/cases/matmul.ts';
import { threadedCase } from '../../bench/cases/threads.ts';
import { runCases } from '../../bench/harness.ts';

describe('threaded bench cases', () => {
  it('matmul 96³ with 2 threads: raf-op (split across threads) and onnxruntime agree', async () => {
    // 96³ multiply-adds is over the split threshold, so the raf-op column really runs on two threads.
    const c = threadedCase(matmulCase(96));
    const before = threadStats.splitCalls;
    const [r] = await runCases([c], { runs: 2, warmup: 0, slowMs: Infinity, slowRuns: 2 });
    expect(threadStats.splitCalls).toBeGreaterThan(before);
    expect(wasmThreads()).toBe(1);
    expect(r!.name).toBe('matmul 96³ · 2 threads');
    for (const impl of ['raf-op', 'raf-op wasm', 'onnxruntime'] as const) {
      expect(r!.results[impl]!.error, impl).toBeUndefined();
      expect(r!.results[impl]!.runs).toBe(2);
    }
    // 'raf-op' is Node's default dispatch with 2 threads, 'raf-op wasm' the same pinned to raf-op's own kernels.
    expect(r!.results['raf-op']!.note).toMatch(/ ×2$/);
    expect(r!.results['raf-op wasm']!.note).toBe('wasm ×2');
    const w = r!.agreement['raf-op wasm'] as { max_abs_diff: number; scale: number };
    expect(typeof w).toBe('object');
    expect(w.max_abs_diff).toBeLessThanOrEqual(1e-5 * Math.max(1, w.scale));
    const a = r!.agreement.onnxruntime as { max_abs_diff: number; scale: number };
    expect(typeof a).toBe('object');
    expect(a.max_abs_diff).toBeLessThanOrEqual(1e-5 * Math.max(1, a.scale));
  });

  it("matmul 256³ with 2 threads: onnxruntime-web's column runs in a process of its own and agrees", async () => {
    // onnxruntime-web takes its thread count once per process: the column is the case of cases/matmul.ts, set up in a
    // child process with 2 threads, each run timed there.
    const c = threadedCase(matmulCase(256), 'matmul.ts');
    const [r] = await runCases(
      [{ ...c, impls: { 'raf-op': c.impls['raf-op']!, 'onnxruntime-web': c.impls['onnxruntime-web']! } }],
      {
        runs: 2,
        warmup: 0,
        slowMs: Infinity,
        slowRuns: 2,
      },
    );
    const web = r!.results['onnxruntime-web']!;
    expect(web.error).toBeUndefined();
    expect(web.runs).toBe(2);
    expect(web.median_ms).toBeGreaterThan(0);
    expect(web.note).toBe('wasm simd ×2, own process');
    const a = r!.agreement['onnxruntime-web'] as { max_abs_diff: number; scale: number };
    expect(typeof a).toBe('object');
    expect(a.max_abs_diff).toBeLessThanOrEqual(1e-5 * Math.max(1, a.scale));
  }, 60_000);
});
