// The speed targets of issue 7, checked against a case's medians (in the benchmark, never in tests).

import type { ImplName } from './case.ts';
import type { Measured } from './harness.ts';

export const TARGETS =
  'every kernel case at least as fast as tfjs-wasm; within 2× of onnxruntime for softmax, elementwise and layer_norm, ' +
  'within 3× for matmul and conv2d; each real model (graph) within 2× of onnxruntime; full regeneration under 5 ms per op; no-op regeneration under 300 ms; a scaffold of one elementwise op ≤ 3 s, a refused one and a regeneration after one spec edit ≤ 1 s.';

/** Allowed raf-op / onnxruntime ratio per kernel case; cases not named only need to match tfjs-wasm. */
const ORT_FACTOR: Readonly<Record<string, number>> = {
  softmax: 2,
  log_softmax: 2,
  'sum last axis': 2,
  'mean last axis': 2,
  'max last axis': 2,
  'add 2^20': 2,
  'add [1,C,1,1]': 2,
  'ewise chain': 2,
  layer_norm: 2,
  'matmul 256³': 3,
  'matmul 1024³': 3,
  'conv2d 3×3': 3,
};

export function checkTarget(
  name: string,
  res: Partial<Record<ImplName, Measured>>,
): { met: boolean; rule: string } | undefined {
  const raf = res['raf-op']?.median_ms;
  if (raf === null || raf === undefined) return undefined;
  if (name === 'gen full') {
    const ops = Number(/(\d+) ops/.exec(res['raf-op']?.per_unit ?? '')?.[1] ?? NaN);
    return { met: raf / ops < 5, rule: '< 5 ms/op' };
  }
  if (name === 'gen no-op') return { met: raf < 300, rule: '< 300 ms' };
  // Authoring (issue 14): a scaffold as the process a user runs, a refused one, a regeneration after one spec edit.
  if (name === 'scaffold elementwise op') return { met: raf <= 3000, rule: '≤ 3 s' };
  if (name === 'scaffold refused' || name === 'gen one spec') return { met: raf <= 1000, rule: '≤ 1 s' };
  // Real models (issue 15): within 2× of onnxruntime single-threaded.
  if (name.startsWith('model ')) {
    const o = res.onnxruntime?.median_ms;
    return o ? { met: raf <= 2 * o, rule: '≤ 2× ort' } : undefined;
  }
  const wasm = res['tfjs-wasm']?.median_ms;
  const ort = res.onnxruntime?.median_ms;
  if (!wasm) return undefined;
  const factor = ORT_FACTOR[name];
  const rules = [`≤ tfjs-wasm`, ...(factor && ort ? [`≤ ${factor}× ort`] : [])];
  const met = raf <= wasm && (!factor || !ort || raf <= factor * ort);
  return { met, rule: rules.join(', ') };
}
