// fuseOps recognizes layer normalization spelled out as ONNX exporters write it before opset 17 (mean, subtract,
// power, mean, add eps, sqrt, divide, multiply by scale, add bias) and runs it as one layer_norm call.

import { describe, expect, it } from 'vitest';
import { ops, tensor, type Tensor } from '../../runtime/src/index.ts';
import { execute, fuseEpilogues, fuseOps, printGraph, trace } from '../../runtime/src/graph/index.ts';
import { expectClose, lcgValues } from '../support/reference.ts';

const [rows, d] = [3, 10];
const spec = { name: 'x', shape: [rows, d], dtype: 'float32' as const };
const xs = lcgValues(rows * d, 5).map((v) => 3 * v + 1);
const scale = lcgValues(d, 6);
const bias = lcgValues(d, 7);
const EPS = 1e-3;

/** The spelled-out form; `extra` also reads the centered value once more (which must keep it spelled out). */
function spelled(x: Tensor, extra = false): Tensor[] {
  const m = ops.mean(x, [-1], true);
  const c = ops.subtract(x, m);
  const v = ops.mean(ops.power(c, 2), [-1], true);
  const y = ops.divide(c, ops.sqrt(ops.add(v, EPS)));
  const out = ops.add(ops.multiply(y, tensor(scale)), tensor(bias));
  return extra ? [out, ops.relu(c)] : [out];
}

function reference(): number[] {
  const out: number[] = [];
  for (let r = 0; r < rows; r++) {
    const row = xs.slice(r * d, (r + 1) * d);
    const mean = row.reduce((a, b) => a + b, 0) / d;
    const variance = row.reduce((a, b) => a + (b - mean) ** 2, 0) / d;
    row.forEach((v, i) => out.push(((v - mean) / Math.sqrt(variance + EPS)) * scale[i]! + bias[i]!));
  }
  return out;
}

describe('recognizeLayerNorm (in fuseOps)', () => {
  const x = tensor(xs, { shape: [rows, d] });
  for (const pass of [fuseOps, fuseEpilogues]) {
    it(`${pass.name}: nine calls become one layer_norm, agreeing with a float64 reference`, () => {
      const g = pass(trace((x: Tensor) => spelled(x), [spec]));
      const text = printGraph(g);
      expect(text).toContain('raf.op.layer_norm');
      expect(text).not.toContain('raf.op.sqrt');
      for (let run = 0; run < 2; run++)
        expectClose(Array.from(execute(g, [x])[0]!.dataSync() as Float32Array), reference(), 1e-5);
    });
  }

  it('leaves the calls alone when an intermediate is read elsewhere', () => {
    const g = fuseEpilogues(trace((x: Tensor) => spelled(x, true), [spec]));
    expect(printGraph(g)).not.toContain('raf.op.layer_norm');
    expectClose(Array.from(execute(g, [x])[0]!.dataSync() as Float32Array), reference(), 1e-5);
  });
});
