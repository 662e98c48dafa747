// recognizeAttention (in fuseOps and fuseEpilogues) turns scaled dot-product attention spelled out as exporters write
// it (q·kᵀ scaled on the product or on q and kᵀ, an added or Where-filled mask or none, Softmax on the last axis, an
// optional IsNaN guard, ·v) into one attention call, agreeing with a float64 reference written from the ops'
// definitions, fully masked rows included; a Softmax on another axis or an intermediate read elsewhere stays spelled.

import { describe, expect, it } from 'vitest';
import { ops, tensor, withDialect, type Tensor } from '../../runtime/src/index.ts';
import {
  execute,
  fuseEpilogues,
  fuseOps,
  moveGraph,
  printGraph,
  recognizeAttention,
  trace,
} from '../../runtime/src/graph/index.ts';
import { expectClose, lcgValues } from '../support/reference.ts';
import { useWebGpu } from '../support/webgpu-context.ts';
import { edit, errorsWith, where } from '../bad-input/spec-texts.ts';

const [B, H, Sq, Skv, D, Dv] = [2, 3, 4, 6, 8, 5];
const LOWEST = -3.4028234663852886e38;
const qv = lcgValues(B * H * Sq * D, 11).map((x) => 2 * x);
const kv = lcgValues(B * H * Skv * D, 12).map((x) => 2 * x); // laid out [B, H, Skv, D]
const vv = lcgValues(B * H * Skv * Dv, 13);
/** Key padding per batch: batch 0 attends every key, batch 1 none (a fully masked row in every head). */
const pad = (b: number, j: number): boolean => b === 0 || j >= Skv;
/** Causal with an offset of 2 keys and key padding for batch 0's last two keys; batch 1 query 0 is fully masked. */
const attends = (b: number, i: number, j: number): boolean => (b === 0 ? j <= i + 2 && j < Skv - 2 : i > 0 && j <= i);

const f32 = { dtype: 'float32' as const };
const specs = {
  q: { name: 'q', shape: [B, H, Sq, D], ...f32 },
  k: { name: 'k', shape: [B, H, Skv, D], ...f32 },
  kRaw: { name: 'k', shape: [B, Skv, H, D], ...f32 },
  kT: { name: 'kT', shape: [B, H, D, Skv], ...f32 },
  v: { name: 'v', shape: [B, H, Skv, Dv], ...f32 },
};
const kRawValues = Array.from({ length: B * Skv * H * D }, (_, t) => {
  const [b, j, h, e] = [Math.floor(t / (Skv * H * D)), Math.floor(t / (H * D)) % Skv, Math.floor(t / D) % H, t % D];
  return kv[((b * H + h) * Skv + j) * D + e]!;
});
const kTValues = Array.from({ length: B * H * D * Skv }, (_, t) => {
  const [bh, e, j] = [Math.floor(t / (D * Skv)), Math.floor(t / Skv) % D, t % Skv];
  return kv[(bh * Skv + j) * D + e]!;
});
const inputs = {
  q: tensor(qv, { shape: specs.q.shape }),
  k: tensor(kv, { shape: specs.k.shape }),
  kRaw: tensor(kRawValues, { shape: specs.kRaw.shape }),
  kT: tensor(kTValues, { shape: specs.kT.shape }),
  v: tensor(vv, { shape: specs.v.shape }),
  padMask: tensor(
    Array.from({ length: B * Skv }, (_, t) => (pad(Math.floor(t / Skv), t % Skv) ? 1 : 0)),
    { shape: [B, 1, 1, Skv], dtype: 'float32' },
  ),
  causal: tensor(
    Array.from({ length: B * Sq * Skv }, (_, t) =>
      attends(Math.floor(t / (Sq * Skv)), Math.floor(t / Skv) % Sq, t % Skv),
    ),
    { shape: [B, 1, Sq, Skv], dtype: 'bool' },
  ),
};

/**
 * softmax(scale · q·kᵀ + bias) · v per (batch, head, query), in float64 from the definitions: `bias(b, i, j)` the
 * added mask (the float32 sum rounded once, as a float32 add is); a row whose scores are all -inf is NaN (softmax's
 * 0/0), or zeros with the guard.
 */
function reference(bias: (b: number, i: number, j: number) => number, guarded: boolean): number[] {
  const out: number[] = [];
  const scale = 1 / Math.sqrt(D);
  for (let b = 0; b < B; b++)
    for (let h = 0; h < H; h++)
      for (let i = 0; i < Sq; i++) {
        const s: number[] = [];
        for (let j = 0; j < Skv; j++) {
          let dot = 0;
          for (let e = 0; e < D; e++) dot += qv[((b * H + h) * Sq + i) * D + e]! * kv[((b * H + h) * Skv + j) * D + e]!;
          s.push(Math.fround(dot * scale + bias(b, i, j)));
        }
        const max = Math.max(...s);
        const p = s.map((x) => Math.exp(x - max));
        const sum = p.reduce((x, y) => x + y, 0);
        for (let e = 0; e < Dv; e++) {
          let y = 0;
          for (let j = 0; j < Skv; j++) y += (p[j]! / sum) * vv[((b * H + h) * Skv + j) * Dv + e]!;
          out.push(max === -Infinity ? (guarded ? 0 : NaN) : y);
        }
      }
  return out;
}

/** Like expectClose, but a NaN wanted must be a NaN got. */
function expectSame(got: ArrayLike<number>, want: readonly number[]): void {
  const nan = want.map((w) => Number.isNaN(w));
  expect(Array.from(got, (g) => Number.isNaN(g))).toEqual(nan);
  expectClose(
    Array.from(got).filter((_, i) => !nan[i]),
    want.filter((_, i) => !nan[i]),
    1e-5,
  );
}

/** A boolean mask as an added float32 one: 0 where it attends, -inf elsewhere. */
const additive = (c: Tensor): Tensor =>
  ops.where(c, tensor([0], { shape: [1], ...f32 }), tensor([-Infinity], { shape: [1], ...f32 }));
const guard = (p: Tensor): Tensor => ops.where(ops.isnan(p), 0, p);
const kT = (k: Tensor): Tensor => ops.transpose(k, [0, 1, 3, 2]);

interface Spelling {
  readonly name: string;
  readonly params: (keyof typeof inputs)[];
  readonly f: (...xs: Tensor[]) => Tensor;
  readonly want: () => number[];
}

const spellings: Spelling[] = [
  {
    name: 'scale dividing the product, no mask, no guard',
    params: ['q', 'k', 'v'],
    f: (q, k, v) => ops.matmul(ops.softmax(ops.divide(ops.matmul(q, kT(k)), Math.sqrt(D)), -1), v),
    want: () => reference(() => 0, false),
  },
  {
    name: "√scale on q and on kᵀ (transposed from [batch, seq, heads, dim]), BERT's (1 - mask) · lowest added",
    params: ['q', 'kRaw', 'v', 'padMask'],
    f: (q, k, v, m) => {
      const c = D ** -0.25;
      const s = ops.matmul(ops.multiply(q, c), ops.multiply(ops.transpose(k, [0, 2, 3, 1]), c));
      return ops.matmul(ops.softmax(ops.add(ops.multiply(ops.subtract(1, m), LOWEST), s), 3), v);
    },
    // A fully padded row averages v: every score rounds to the lowest float, as in the spelled-out graph.
    want: () => reference((b, _i, j) => (pad(b, j) ? 0 : LOWEST), false),
  },
  {
    name: 'kᵀ given as it is (transposed back by a new call), the scale constant on the left of the multiply',
    params: ['q', 'kT', 'v'],
    f: (q, kt, v) => ops.matmul(ops.softmax(ops.multiply(1 / Math.sqrt(D), ops.matmul(q, kt)), -1), v),
    want: () => reference(() => 0, false),
  },
  {
    name: 'scale multiplying the product, a -inf mask from Where added, IsNaN guard',
    params: ['q', 'k', 'v', 'causal'],
    f: (q, k, v, c) => {
      const s = ops.multiply(ops.matmul(q, kT(k)), 1 / Math.sqrt(D));
      return ops.matmul(guard(ops.softmax(ops.add(s, additive(c)), -1)), v);
    },
    want: () => reference((b, i, j) => (attends(b, i, j) ? 0 : -Infinity), true),
  },
  {
    name: 'a -inf mask added, no guard: a fully masked row is NaN as softmax makes it',
    params: ['q', 'k', 'v', 'causal'],
    f: (q, k, v, c) => {
      const s = ops.divide(ops.matmul(q, kT(k)), Math.sqrt(D));
      return ops.matmul(ops.softmax(ops.add(additive(c), s), -1), v);
    },
    want: () => reference((b, i, j) => (attends(b, i, j) ? 0 : -Infinity), false),
  },
  {
    name: 'boolean mask as a masked fill, where(mask, scores, -inf), IsNaN guard',
    params: ['q', 'k', 'v', 'causal'],
    f: (q, k, v, c) => {
      const s = ops.multiply(ops.matmul(q, kT(k)), 1 / Math.sqrt(D));
      return ops.matmul(guard(ops.softmax(ops.where(c, s, -Infinity), -1)), v);
    },
    want: () => reference((b, i, j) => (attends(b, i, j) ? 0 : -Infinity), true),
  },
];

const paramSpecs = (sp: Spelling) =>
  sp.params.map((p) =>
    p === 'padMask'
      ? { name: 'm', shape: [B, 1, 1, Skv], ...f32 }
      : p === 'causal'
        ? { name: 'c', shape: [B, 1, Sq, Skv], dtype: 'bool' as const }
        : specs[p as 'q' | 'k' | 'kRaw' | 'kT' | 'v'],
  );

describe('recognizeAttention (in fuseOps and fuseEpilogues)', () => {
  for (const sp of spellings)
    for (const pass of [fuseOps, fuseEpilogues])
      it(`${pass.name}: ${sp.name}`, () => {
        const traced = trace((...xs: Tensor[]) => [sp.f(...xs)], paramSpecs(sp));
        const g = pass(traced);
        const text = printGraph(g);
        expect(text).toMatch(/raf\.op\.attention\(/);
        for (const gone of ['softmax', 'matmul', 'isnan']) expect(text).not.toContain(`raf.op.${gone}(`);
        const args = sp.params.map((p) => inputs[p]);
        const want = sp.want();
        expectSame(execute(g, args)[0]!.dataSync() as Float32Array, want);
        // The blocked wasm kernel ran above; the plain CPU kernel agrees as well.
        expectSame(
          withDialect(['cpu'], () => execute(g, args)[0]!.dataSync() as Float32Array),
          want,
        );
        // The unfused graph agrees too (the reference is the ops' definition, not the fused kernel's).
        expectSame(execute(traced, args)[0]!.dataSync() as Float32Array, want);
      });

  it('leaves float16 attention spelled out (its graph rounds each step to float16)', () => {
    const h = (sp: { name: string; shape: number[] }) => ({ ...sp, dtype: 'float16' as const });
    const f = (q: Tensor, k: Tensor, v: Tensor) => [
      ops.matmul(ops.softmax(ops.multiply(ops.matmul(q, kT(k)), 0.5), -1), v),
    ];
    expect(printGraph(fuseOps(trace(f, [h(specs.q), h(specs.k), h(specs.v)])))).not.toContain('raf.op.attention(');
  });

  it('leaves a Softmax over another axis spelled out', () => {
    const f = (q: Tensor, k: Tensor, v: Tensor) => [
      ops.matmul(ops.softmax(ops.multiply(ops.matmul(q, kT(k)), 0.5), 2), v),
    ];
    const g = fuseOps(trace(f, [specs.q, specs.k, specs.v]));
    expect(printGraph(g)).not.toContain('raf.op.attention(');
  });

  it('leaves the calls alone when an intermediate is read elsewhere', () => {
    const f = (q: Tensor, k: Tensor, v: Tensor) => {
      const s = ops.multiply(ops.matmul(q, kT(k)), 1 / Math.sqrt(D));
      return [ops.matmul(ops.softmax(s, -1), v), ops.sum(s, [3])];
    };
    const traced = trace(f, [specs.q, specs.k, specs.v]);
    const g = fuseOps(traced);
    expect(printGraph(g)).not.toContain('raf.op.attention(');
    expectSame(
      execute(g, [inputs.q, inputs.k, inputs.v])[0]!.dataSync() as Float32Array,
      reference(() => 0, false),
    );
  });

  it('leaves a mask that broadcasts along the key axis spelled out (the op pads a short key axis as masked)', () => {
    const f = (q: Tensor, k: Tensor, v: Tensor, m: Tensor) => [
      ops.matmul(ops.softmax(ops.add(ops.matmul(q, kT(k)), m), -1), v),
    ];
    const g = fuseOps(trace(f, [specs.q, specs.k, specs.v, { name: 'm', shape: [B, 1, Sq, 1], ...f32 }]));
    expect(printGraph(g)).not.toContain('raf.op.attention(');
  });
});

describe('the fused attention call on WebGPU', () => {
  const needGpu = useWebGpu();
  for (const sp of spellings)
    it(`runs the WebGPU kernel, agreeing with the float64 reference: ${sp.name}`, async (ctx) => {
      needGpu(ctx);
      const g = await moveGraph(
        recognizeAttention(trace((...xs: Tensor[]) => [sp.f(...xs)], paramSpecs(sp))),
        'webgpu',
      );
      expect(printGraph(g)).toMatch(/raf\.op\.attention\(/);
      const args = await Promise.all(sp.params.map((p) => inputs[p].to('webgpu')));
      // Pinned to the webgpu dialect: a CPU fallback would fail rather than pass unseen.
      const out = withDialect(['webgpu'], () => execute(g, args)[0]!);
      expect(out.device.kind).toBe('webgpu');
      expectSame(Float32Array.from(await out.data()), sp.want());
    });
});

describe("the attention spec's recognize: declaration", () => {
  const FILE = 'specs/nn/attention.yaml';
  it('refuses a role naming an op no spec defines, at its file:line:col with a hint', () => {
    const text = edit(FILE, 'softmax: [softmax]', 'softmax: [sofmax]');
    expect(errorsWith({ [FILE]: text }).filter((e) => e.startsWith(FILE))).toEqual([
      `${where(FILE, text, 'sofmax]')}: error: recognize.softmax names 'sofmax', which no spec defines\n` +
        "  hint: did you mean 'softmax'?",
    ]);
  });
});
