// fuseOps on the CPU: inference batch_norm folds into the conv2d before it, spelled-out hardswish becomes one call, and
// conv2d / dense groups with a bias, an activation, a scalar affine and a residual run as one wasm epilogue. Checked
// against float64 references computed here, and against the CPU dialect's JavaScript loops (the fallback when wasm is
// pinned off).

import { describe, expect, it } from 'vitest';
import { ops, randomUniform, tensor, withDialect, type Tensor } from '../../runtime/src/index.ts';
import { execute, executeUnplanned, fuseEpilogues, fuseOps, printGraph, trace } from '../../runtime/src/graph/index.ts';
import { expectClose } from '../support/reference.ts';

const f32 = (name: string, shape: number[]) => ({ name, shape, dtype: 'float32' as const });
const values = (t: Tensor): number[] => Array.from(t.dataSync() as Float32Array);

/** float64 NCHW convolution, stride 1, `pad` on every side, one image. */
function convRef(x: number[], w: number[], c: number, h: number, wd: number, o: number, k: number, pad: number) {
  const [oh, ow] = [h + 2 * pad - k + 1, wd + 2 * pad - k + 1];
  const y = new Array<number>(o * oh * ow).fill(0);
  for (let oc = 0; oc < o; oc++)
    for (let i = 0; i < oh; i++)
      for (let j = 0; j < ow; j++) {
        let s = 0;
        for (let ic = 0; ic < c; ic++)
          for (let a = 0; a < k; a++)
            for (let b = 0; b < k; b++) {
              const [r, q] = [i + a - pad, j + b - pad];
              if (r >= 0 && r < h && q >= 0 && q < wd)
                s += x[(ic * h + r) * wd + q]! * w[((oc * c + ic) * k + a) * k + b]!;
            }
        y[(oc * oh + i) * ow + j] = s;
      }
  return y;
}

const hswish = (v: number) => (v * Math.min(Math.max(v + 3, 0), 6)) / 6;

describe('conv2d epilogues after fuseOps', () => {
  const [c, h, wd, o] = [3, 6, 7, 3];
  const w = randomUniform([o, c, 3, 3], { low: -1, high: 1, seed: 11 });
  const scale = randomUniform([o], { low: 0.5, high: 1.5, seed: 12 });
  const bias = randomUniform([o], { low: -1, high: 1, seed: 13 });
  const mean = randomUniform([o], { low: -0.5, high: 0.5, seed: 14 });
  const variance = randomUniform([o], { low: 0.2, high: 2, seed: 15 });
  const cb = randomUniform([o, 1, 1], { low: -1, high: 1, seed: 16 });
  const eps = 1e-3;
  // conv (+ its own bias, as ONNX Conv imports) → batch_norm → x·clip(x+3, 0, 6)/6 → + residual.
  const block = (x: Tensor, r: Tensor): Tensor => {
    const y = ops.batchNorm(ops.add(ops.conv2d(x, w, [1, 1], [1, 1, 1, 1]), cb), scale, bias, mean, variance, 1, eps);
    const hs = ops.divide(ops.multiply(y, ops.clip(ops.add(y, 3), 0, 6)), 6);
    return ops.add(hs, r);
  };
  const ref = (x: number[], r: number[]): number[] => {
    const y = convRef(x, values(w), c, h, wd, o, 3, 1);
    const [sc, bi, mu, va, b0] = [scale, bias, mean, variance, cb].map(values);
    const plane = h * wd;
    return y.map((v, i) => {
      const k = Math.floor(i / plane);
      const bn = ((v + b0![k]! - mu![k]!) / Math.sqrt(va![k]! + eps)) * sc![k]! + bi![k]!;
      return hswish(bn) + r[i]!;
    });
  };

  it('folds batch_norm into the conv, recognizes hardswish, and runs the block as one group', () => {
    const g = fuseOps(trace(block, [f32('x', [1, c, h, wd]), f32('r', [1, o, h, wd])]));
    const text = printGraph(g);
    expect(text).not.toContain('batch_norm');
    expect(text).toContain('raf.op.hardswish');
    expect(g.nodes).toHaveLength(1);
    for (const seed of [1, 2]) {
      const x = randomUniform([1, c, h, wd], { low: -2, high: 2, seed });
      const r = randomUniform([1, o, h, wd], { low: -1, high: 1, seed: seed + 5 });
      const want = ref(values(x), values(r));
      // Twice: the first run records the plan, the second runs it.
      for (let run = 0; run < 2; run++) expectClose(values(execute(g, [x, r])[0]!), want, 1e-4);
      // The JavaScript loops (wasm pinned off) agree too: the epilogue's fallback.
      withDialect(['cpu'], () => expectClose(values(execute(g, [x, r])[0]!), want, 1e-4));
    }
  });

  it('applies relu, leaky_relu, clip, maximum, minimum, hard_sigmoid and sigmoid epilogues after a conv bias', () => {
    const acts: [string, (t: Tensor) => Tensor, (v: number) => number][] = [
      ['relu', (t) => ops.relu(t), (v) => Math.max(v, 0)],
      ['leaky_relu', (t) => ops.leakyRelu(t, 0.1), (v) => (v > 0 ? v : 0.1 * v)],
      // Past 1, α·v exceeds v for positive v: not the max(α·v, v) of 0 ≤ α ≤ 1.
      ['leaky_relu α = 1.5', (t) => ops.leakyRelu(t, 1.5), (v) => (v > 0 ? v : 1.5 * v)],
      ['clip', (t) => ops.clip(t, -0.5, 0.75), (v) => Math.min(Math.max(v, -0.5), 0.75)],
      ['maximum with a constant', (t) => ops.maximum(t, -0.25), (v) => Math.max(v, -0.25)],
      ['minimum with a constant', (t) => ops.minimum(t, 0.3), (v) => Math.min(v, 0.3)],
      ['hard_sigmoid', (t) => ops.hardSigmoid(t, 0.2, 0.5), (v) => Math.min(Math.max(0.2 * v + 0.5, 0), 1)],
      ['sigmoid', (t) => ops.sigmoid(t), (v) => 1 / (1 + Math.exp(-v))],
    ];
    const x = randomUniform([1, c, h, wd], { low: -2, high: 2, seed: 21 });
    const conv = convRef(values(x), values(w), c, h, wd, o, 3, 0);
    const b0 = values(cb);
    const plane = (h - 2) * (wd - 2);
    for (const [name, f, fr] of acts) {
      const g = fuseOps(trace((x: Tensor) => f(ops.add(ops.conv2d(x, w), cb)), [f32('x', [1, c, h, wd])]));
      expect(g.nodes, name).toHaveLength(1);
      const want = conv.map((v, i) => fr(v + b0[Math.floor(i / plane)]!));
      for (let run = 0; run < 2; run++) expectClose(values(execute(g, [x])[0]!), want, 1e-5);
    }
  });

  it('a scalar affine after the activation (PP-LCNet: · s + t) runs in the same wasm epilogue', () => {
    // Padding 1: 6×7 planes, whole vectors and a two-element tail per channel.
    const x = randomUniform([1, c, h, wd], { low: -2, high: 2, seed: 23 });
    const conv = convRef(values(x), values(w), c, h, wd, o, 3, 1);
    const b0 = values(cb);
    const plane = h * wd;
    const s = tensor([0.63], { shape: [1], dtype: 'float32' });
    const t = tensor([-0.55], { shape: [1], dtype: 'float32' });
    const [sv, tv] = [values(s)[0]!, values(t)[0]!];
    const blocks: [string, (y: Tensor) => Tensor, (v: number) => number][] = [
      ['hardswish · s + t', (y) => ops.add(ops.multiply(s, ops.hardswish(y)), t), (v) => hswish(v) * sv + tv],
      ['relu · s', (y) => ops.multiply(ops.relu(y), s), (v) => Math.max(v, 0) * sv],
      ['leaky_relu + t', (y) => ops.add(ops.leakyRelu(y, 0.1), t), (v) => (v > 0 ? v : 0.1 * v) + tv],
    ];
    for (const [name, f, fr] of blocks) {
      const g = fuseEpilogues(
        trace((x: Tensor) => f(ops.add(ops.conv2d(x, w, [1, 1], [1, 1, 1, 1]), cb)), [f32('x', [1, c, h, wd])]),
      );
      expect(g.nodes, name).toHaveLength(1);
      const want = conv.map((v, i) => fr(v + b0[Math.floor(i / plane)]!));
      for (let run = 0; run < 2; run++) expectClose(values(execute(g, [x])[0]!), want, 1e-5);
    }
  });

  it('epilogues keep a NaN from the convolution NaN, as the unfused ops do', () => {
    const acts: [string, (t: Tensor) => Tensor][] = [
      ['hardswish', (t) => ops.hardswish(t)],
      ['hard_sigmoid', (t) => ops.hardSigmoid(t, 0.2, 0.5)],
      ['relu', (t) => ops.relu(t)],
      ['clip', (t) => ops.clip(t, -0.5, 0.75)],
      ['leaky_relu', (t) => ops.leakyRelu(t, 0.1)],
      ['leaky_relu α = 1.5', (t) => ops.leakyRelu(t, 1.5)],
      ['maximum with a constant', (t) => ops.maximum(t, -0.25)],
      ['minimum with a constant', (t) => ops.minimum(t, 0.3)],
    ];
    const xs = values(randomUniform([1, c, h, wd], { low: -2, high: 2, seed: 22 }));
    xs[wd + 2] = NaN; // channel 0, row 1, column 2: every output whose window covers it is NaN
    const x = tensor(xs, { shape: [1, c, h, wd], dtype: 'float32' });
    for (const [name, f] of acts) {
      const g = fuseOps(trace((x: Tensor) => f(ops.add(ops.conv2d(x, w), cb)), [f32('x', [1, c, h, wd])]));
      expect(g.nodes, name).toHaveLength(1);
      const got = values(execute(g, [x])[0]!);
      const want = withDialect(['cpu'], () => values(f(ops.add(ops.conv2d(x, w), cb))));
      expect(got.map(Number.isNaN), name).toEqual(want.map(Number.isNaN));
      expect(got.filter(Number.isNaN).length, name).toBeGreaterThan(0);
      expectClose(
        got.filter((v) => !Number.isNaN(v)),
        want.filter((v) => !Number.isNaN(v)),
        1e-5,
      );
    }
  });

  it('a standalone batch_norm becomes a per-channel scale and shift that fuses', () => {
    const g0 = trace(
      (x: Tensor) => ops.relu(ops.batchNorm(ops.exp(x), scale, bias, mean, variance, 1, eps)),
      [f32('x', [2, o, 4])],
    );
    const g = fuseOps(g0);
    expect(printGraph(g)).not.toContain('batch_norm');
    const x = randomUniform([2, o, 4], { low: -1, high: 1, seed: 31 });
    const [sc, bi, mu, va] = [scale, bias, mean, variance].map(values);
    const want = values(x).map((v, i) => {
      const k = Math.floor(i / 4) % o;
      return Math.max(((Math.exp(v) - mu![k]!) / Math.sqrt(va![k]! + eps)) * sc![k]! + bi![k]!, 0);
    });
    expectClose(values(execute(g, [x])[0]!), want, 1e-5);
    expectClose(values(executeUnplanned(g0, [x])[0]!), want, 1e-5);
  });
});

describe('fuseEpilogues', () => {
  it('keeps conv2d + bias + leaky_relu + maximum as one wasm group and returns other groups to single calls', () => {
    const [c, h, wd, o] = [2, 5, 6, 4];
    const w = randomUniform([o, c, 1, 1], { low: -1, high: 1, seed: 51 });
    const b = randomUniform([o, 1, 1], { low: -1, high: 1, seed: 52 });
    const g0 = trace(
      (x: Tensor) => {
        const y = ops.maximum(ops.leakyRelu(ops.add(ops.conv2d(x, w), b), 0.2), -0.1);
        return ops.multiply(ops.exp(y), 0.5);
      },
      [f32('x', [1, c, h, wd])],
    );
    const g = fuseEpilogues(g0);
    expect(g.nodes.map((n) => (n.kind === 'fused' ? 'fused' : n.op.name))).toEqual(['fused', 'exp', 'multiply']);
    const x = randomUniform([1, c, h, wd], { low: -2, high: 2, seed: 53 });
    const conv = convRef(values(x), values(w), c, h, wd, o, 1, 0);
    const bs = values(b);
    const want = conv.map((v, i) => {
      const t = v + bs[Math.floor(i / (h * wd))]!;
      return Math.exp(Math.max(t > 0 ? t : 0.2 * t, -0.1)) * 0.5;
    });
    for (let run = 0; run < 2; run++) expectClose(values(execute(g, [x])[0]!), want);
  });
});

describe('dense and matmul epilogues after fuseOps', () => {
  it('dense + relu and matmul + bias + leaky_relu run in wasm and match float64', () => {
    const [m, k, n] = [3, 10, 7];
    const w = randomUniform([n, k], { low: -1, high: 1, seed: 41 });
    const b = randomUniform([n], { low: -1, high: 1, seed: 42 });
    const x = randomUniform([m, k], { low: -1, high: 1, seed: 43 });
    const [xs, ws, bs] = [x, w, b].map(values);
    const dot = (i: number, j: number) => {
      let s = 0;
      for (let t = 0; t < k; t++) s += xs![i * k + t]! * ws![j * k + t]!;
      return s;
    };
    const dense = fuseOps(trace((x: Tensor) => ops.relu(ops.dense(x, w, b)), [f32('x', [m, k])]));
    const wt = ops.transpose(w, [1, 0]);
    const mm = fuseOps(trace((x: Tensor) => ops.leakyRelu(ops.add(ops.matmul(x, wt), b), 0.2), [f32('x', [m, k])]));
    expect(dense.nodes).toHaveLength(1);
    expect(mm.nodes).toHaveLength(1);
    const want1: number[] = [];
    const want2: number[] = [];
    for (let i = 0; i < m; i++)
      for (let j = 0; j < n; j++) {
        const v = dot(i, j) + bs![j]!;
        want1.push(Math.max(v, 0));
        want2.push(v > 0 ? v : 0.2 * v);
      }
    for (let run = 0; run < 2; run++) {
      expectClose(values(execute(dense, [x])[0]!), want1);
      expectClose(values(execute(mm, [x])[0]!), want2);
    }
  });

  it('matmul + bias + hardswish · s + t runs in wasm (rows of 7: whole vectors and a tail)', () => {
    const [m, k, n] = [3, 10, 7];
    const w = randomUniform([k, n], { low: -1, high: 1, seed: 44 });
    const b = randomUniform([n], { low: -1, high: 1, seed: 45 });
    const x = randomUniform([m, k], { low: -1, high: 1, seed: 46 });
    const [xs, ws, bs] = [x, w, b].map(values);
    const g = fuseEpilogues(
      trace(
        (x: Tensor) => ops.add(ops.multiply(ops.hardswish(ops.add(ops.matmul(x, w), b)), 1.5), -0.25),
        [f32('x', [m, k])],
      ),
    );
    expect(g.nodes).toHaveLength(1);
    const want: number[] = [];
    for (let i = 0; i < m; i++)
      for (let j = 0; j < n; j++) {
        let v = bs![j]!;
        for (let t = 0; t < k; t++) v += xs![i * k + t]! * ws![t * n + j]!;
        want.push(hswish(v) * 1.5 - 0.25);
      }
    for (let run = 0; run < 2; run++) expectClose(values(execute(g, [x])[0]!), want);
  });
});
