// The bench harness itself: one tiny case of each kind, 2 runs, result structure, and raf-op's outputs equal to each peer's.

import { afterAll, describe, expect, it } from 'vitest';
import { releaseGpu } from '../../runtime/src/index.ts';
import type { BenchCase, ImplName } from '../../bench/case.ts';
import { fusionCase } from '../../bench/cases/fusion.ts';
import { matmulCase } from '../../bench/cases/matmul.ts';
import { onnxMlpCase } from '../../bench/cases/onnx_mlp.ts';
import { modelCase } from '../../bench/cases/onnx_models.ts';
import { CORPUS } from '../onnx-corpus/fetch.ts';
import { addGpuCase, matmulGpuCase, softmaxGpuCase } from '../../bench/cases/webgpu.ts';
import { webgpuReady } from '../../bench/gpu.ts';
import { render, runCases, type CaseResult } from '../../bench/harness.ts';

// CI and RAF_REQUIRE_WEBGPU=1 turn a missing adapter into a failure; elsewhere the WebGPU cases are reported as skipped.
const REQUIRE_GPU = Boolean(process.env.CI) || process.env.RAF_REQUIRE_WEBGPU === '1';
const gpu = await webgpuReady();
const hasGpu = typeof gpu === 'object';
if (REQUIRE_GPU && !hasGpu) throw new Error(`WebGPU is required here: ${gpu}`);

afterAll(() => releaseGpu());

const OPTIONS = { runs: 2, warmup: 0, slowMs: Infinity, slowRuns: 2 };

/** Every column ran twice without error, and each peer's outputs match raf-op's within `tol` of their scale. */
function expectSound(r: CaseResult, c: BenchCase, tol: number): void {
  expect(r.skipped).toBeUndefined();
  const impls = Object.keys(c.impls) as ImplName[];
  expect(Object.keys(r.results).sort()).toEqual([...impls].sort());
  for (const impl of impls) {
    const m = r.results[impl]!;
    expect(m.error, `${r.name} · ${impl}`).toBeUndefined();
    expect(m.runs).toBe(2);
    expect(m.median_ms).toBeGreaterThanOrEqual(0);
  }
  for (const impl of impls.filter((i) => i !== 'raf-op')) {
    const a = r.agreement[impl];
    expect(typeof a, `${r.name} · ${impl}: ${String(a)}`).toBe('object');
    const { max_abs_diff, scale } = a as { max_abs_diff: number; scale: number };
    expect(max_abs_diff, `${r.name} · ${impl} against raf-op`).toBeLessThanOrEqual(tol * Math.max(1, scale));
    expect(r.ratios[impl]).toBeGreaterThan(0);
  }
  expect(render([r], 2)).toContain(r.name);
}

describe('bench harness', () => {
  it('a CPU kernel case: raf-op (both columns), tfjs-cpu, tfjs-wasm and onnxruntime agree', async () => {
    const c = matmulCase(16);
    const [r] = await runCases([c], OPTIONS);
    expectSound(r!, c, 1e-5);
    expect(r!.target?.rule).toContain('tfjs-wasm');
  });

  it('graph mode on the CPU: fused equals unfused, and FromOnnx equals onnxruntime', async () => {
    const cases = [fusionCase('cpu', 8, 16), onnxMlpCase('cpu', 4, 8, 16, 3)];
    const rs = await runCases(cases, OPTIONS);
    rs.forEach((r, i) => expectSound(r, cases[i]!, 1e-5));
    expect(rs[0]!.results['raf-op']!.note).toBe('1 launch');
  });

  it('a real-model case (a committed corpus model): fused, unfused and onnxruntime agree, with the 2× target', async () => {
    const c = modelCase(CORPUS.find((m) => m.name === 'oww-melspectrogram')!);
    const [r] = await runCases([c], OPTIONS);
    expectSound(r!, c, 1e-4);
    expect(r!.target?.rule).toBe('≤ 2× ort');
  });

  it.skipIf(!hasGpu)(
    'WebGPU cases: raf-op and tfjs-webgpu on one adapter agree; graph mode on the GPU too',
    async () => {
      const cases = [
        softmaxGpuCase(4, 32),
        matmulGpuCase(16),
        addGpuCase(1000),
        fusionCase('webgpu', 8, 16),
        onnxMlpCase('webgpu', 4, 8, 16, 3),
      ];
      const rs = await runCases(cases, OPTIONS);
      rs.forEach((r, i) => expectSound(r, cases[i]!, 1e-4));
      expect(rs[0]!.results['raf-op']!.note).toBe('webgpu');
    },
  );

  it.skipIf(hasGpu)('without an adapter, WebGPU cases are skipped with the reason', async () => {
    const [r] = await runCases([addGpuCase(1000)], OPTIONS);
    expect(r!.skipped).toBeTruthy();
    expect(render([r!], 2)).toContain('skipped');
  });
});

describe('bench warm-up', () => {
  it('goes on past its run count until warmupMs have passed, then times exactly `runs` runs', async () => {
    const calls: number[] = [];
    const c: BenchCase = {
      name: 'warm-up probe',
      what: 'counts its runs',
      group: 'kernels',
      impls: { 'raf-op': { setup: () => ({ run: () => void calls.push(performance.now()) }) } },
    };
    const [r] = await runCases([c], { runs: 2, warmup: 1, warmupMs: 40, slowMs: Infinity, slowRuns: 2 });
    expect(r!.results['raf-op']!.runs).toBe(2);
    // The warm-up ran more than its one run, and the timed runs began only once its 40 ms had passed (30 leaves room
    // for the moment between the harness reading the clock and the first run).
    expect(calls.length - 2).toBeGreaterThan(1);
    expect(calls.at(-2)! - calls[0]!).toBeGreaterThanOrEqual(30);
  });
});
