// The ort dialect in graph mode: planned runs (kernels chosen at the first run, intermediates at fixed offsets of the
// plan's wasm block) send heavy calls to onnxruntime-node as eager dispatch does, and compute what a float64 loop
// written here computes on every run, not only the first.

import { describe, expect, it } from 'vitest';
import { fromStorage, ops, withDialect, type Tensor } from '../../runtime/src/index.ts';
import { execute, fuseEpilogues, planStats, trace } from '../../runtime/src/graph/index.ts';
import { ortMinWork, ortStats } from '../../runtime/src/dialects/ort/index.ts';
import { assertAllClose, tolerance } from '../support/assert.ts';

const values = (n: number, seed: number): Float32Array => {
  let a = seed >>> 0;
  return Float32Array.from({ length: n }, () => {
    a = (a * 1664525 + 1013904223) >>> 0;
    return a / 2147483648 - 1;
  });
};
const f32 = (shape: number[], seed: number) =>
  fromStorage(
    shape,
    'float32',
    values(
      shape.reduce((p, q) => p * q, 1),
      seed,
    ),
  );

// n×n matmuls at 3n² elements of work, above the ort threshold.
const n = 256;

/**
 * t = tanh(x); y = t·W + bias (one fused group whose anchor runs in onnxruntime, which moves the weight's wasm copy,
 * made in that step, out to JavaScript memory); z = yᵀ ⊙ t. Before the memory-plan fix the second and later planned
 * runs placed y where the weight's copy had been (a block free after its step), and the transpose wrote over y while
 * reading it. Each case has weights of its own: the copy is made at the first run that reads them.
 */
function modelCase(seed: number) {
  const W = f32([n, n], seed);
  const bias = f32([n], seed + 1);
  const model = (x: Tensor) => {
    const t = ops.tanh(x);
    return ops.multiply(ops.transpose(ops.add(ops.matmul(t, W), bias), [1, 0]), t);
  };
  const reference = (x: Tensor): Float64Array => {
    const [xs, w, b] = [x.dataSync(), W.dataSync(), bias.dataSync()];
    const t = Float64Array.from(xs, Math.tanh);
    const y = new Float64Array(n * n);
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++) {
        let s = b[j]!;
        for (let k = 0; k < n; k++) s += t[i * n + k]! * w[k * n + j]!;
        y[i * n + j] = s;
      }
    const z = new Float64Array(n * n);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) z[i * n + j] = y[j * n + i]! * t[i * n + j]!;
    return z;
  };
  return { model, reference };
}

describe('ort dialect in graph mode', () => {
  const inputs = [f32([n, n], 1), f32([n, n], 2)];

  for (const [name, pin, seed] of [
    ['by threshold (unpinned)', null, 10],
    ['pinned', ['ort', 'wasm', 'cpu'], 20],
  ] as const) {
    it(`a fused matmul+add anchored in ort, ${name}: every planned run matches a float64 loop`, () => {
      expect(3 * n * n).toBeGreaterThanOrEqual(ortMinWork('matmul')!);
      const { model, reference } = modelCase(seed);
      const g = fuseEpilogues(trace(model, [inputs[0]!]));
      const wants = inputs.map(reference);
      const run = (x: Tensor) => execute(g, [x])[0]!;
      const runsBefore = ortStats().runs;
      const launchesBefore = planStats().launches;
      for (let r = 0; r < 3; r++)
        inputs.forEach((x, k) => {
          const got = pin ? withDialect(pin, () => run(x)) : run(x);
          assertAllClose(got.dataSync(), wants[k]!, tolerance('float32'), `${name}, run ${r}, input ${k}`);
        });
      // The matmul went to onnxruntime on every run, and the runs after the first went through the plan.
      // (Pinned with ort first, the elementwise calls run there too.)
      if (pin) expect(ortStats().runs - runsBefore).toBeGreaterThanOrEqual(6);
      else expect(ortStats().runs - runsBefore).toBe(6);
      expect(planStats().launches).toBeGreaterThan(launchesBefore);
    });
  }

  it('chooses in a graph as eager dispatch does: a matmul below the threshold stays out of onnxruntime', () => {
    const m = 8;
    expect(3 * m * m).toBeLessThan(ortMinWork('matmul')!);
    const a = f32([m, m], 5);
    const b = f32([m, m], 6);
    const small = trace((x: Tensor) => ops.relu(ops.matmul(x, b)), [a]);
    const before = ortStats().runs;
    const got = execute(small, [a])[0]!.dataSync();
    execute(small, [a]);
    expect(ortStats().runs).toBe(before);
    const [xa, xb] = [a.dataSync(), b.dataSync()];
    const want = new Float64Array(m * m);
    for (let i = 0; i < m; i++)
      for (let j = 0; j < m; j++) {
        let s = 0;
        for (let k = 0; k < m; k++) s += xa[i * m + k]! * xb[k * m + j]!;
        want[i * m + j] = Math.max(s, 0);
      }
    assertAllClose(got, want, tolerance('float32'), 'small matmul+relu');
  });
});
