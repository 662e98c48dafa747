// The WebGPU matrix products on both pipelines (16 × 16 tiles for small outputs, 64 × 64 blocks from BLOCKED_FROM on
// a GPU, from 32 × 32 on a software adapter, shared out by adapter), with partial tiles, transposes, broadcast batches
// and a bias, against float64.
import { describe, expect, it } from 'vitest';

import { ops, randomUniform, type Tensor } from '../../runtime/src/index.ts';
import { BLOCKED_FROM, blockedProduct } from '../../runtime/src/dialects/webgpu/matrix-product.ts';
import { useWebGpu } from '../support/webgpu-context.ts';

const needGpu = useWebGpu();

/** a·b in float64 over broadcast batches; aT/bT read a or b transposed (their last two axes swapped). */
function reference(
  a: Tensor,
  b: Tensor,
  aT: boolean,
  bT: boolean,
  bias?: Tensor,
): { data: Float64Array; shape: number[] } {
  const [A, B] = [a.dataSync(), b.dataSync()];
  const [ar, br] = [a.shape.length, b.shape.length];
  const [m, k] = aT ? [a.shape[ar - 1]!, a.shape[ar - 2]!] : [a.shape[ar - 2]!, a.shape[ar - 1]!];
  const n = bT ? b.shape[br - 2]! : b.shape[br - 1]!;
  const aBatch = a.shape.slice(0, -2);
  const bBatch = b.shape.slice(0, -2);
  const rank = Math.max(aBatch.length, bBatch.length);
  const pad = (s: number[]) => [...Array<number>(rank - s.length).fill(1), ...s];
  const [pa, pb] = [pad(aBatch), pad(bBatch)];
  const batch = pa.map((d, i) => Math.max(d, pb[i]!));
  const count = batch.reduce((p, q) => p * q, 1);
  const C = bias?.dataSync();
  const out = new Float64Array(count * m * n);
  for (let z = 0; z < count; z++) {
    let [rem, ia, ib] = [z, 0, 0];
    for (let d = rank - 1, sa = 1, sb = 1; d >= 0; d--) {
      const c = rem % batch[d]!;
      rem = Math.floor(rem / batch[d]!);
      ia += (pa[d] === 1 ? 0 : c) * sa;
      ib += (pb[d] === 1 ? 0 : c) * sb;
      sa *= pa[d]!;
      sb *= pb[d]!;
    }
    for (let i = 0; i < m; i++)
      for (let j = 0; j < n; j++) {
        let s = C ? C[j]! : 0;
        for (let q = 0; q < k; q++)
          s += A[ia * m * k + (aT ? q * m + i : i * k + q)]! * B[ib * k * n + (bT ? j * k + q : q * n + j)]!;
        out[z * m * n + i * n + j] = s;
      }
  }
  return { data: out, shape: [...batch, m, n] };
}

const CASES: {
  name: string;
  a: number[];
  b: number[];
  op: 'matmul' | 'matmul_nt' | 'matmul_tn' | 'dense';
}[] = [
  // Small: the 16 × 16 pipeline.
  { name: 'matmul 33×20 · 20×17', a: [33, 20], b: [20, 17], op: 'matmul' },
  // One partial block on a software adapter, the 16 × 16 pipeline on a GPU.
  { name: 'matmul_nt 40×70 · (50×70)ᵀ', a: [40, 70], b: [50, 70], op: 'matmul_nt' },
  // Blocked: partial 64-tiles on both sides, k not a multiple of 16, broadcast batches.
  { name: 'matmul [2,1,130,37] · [3,37,700]', a: [2, 1, 130, 37], b: [3, 37, 700], op: 'matmul' },
  { name: 'matmul 520×33 · 33×530', a: [520, 33], b: [33, 530], op: 'matmul' },
  { name: 'matmul_nt 600×50 · (500×50)ᵀ', a: [600, 50], b: [500, 50], op: 'matmul_nt' },
  { name: 'matmul_tn (45×512)ᵀ · 45×520', a: [45, 512], b: [45, 520], op: 'matmul_tn' },
  { name: 'dense 513×40 · (515×40)ᵀ + bias', a: [513, 40], b: [515, 40], op: 'dense' },
];

describe('webgpu matrix products against float64', () => {
  it('the cases take the pipeline each adapter kind gives them', () => {
    for (const software of [false, true]) {
      expect(blockedProduct(software, 520, 530, 1)).toBe(true);
      expect(blockedProduct(software, 130, 700, 6)).toBe(true);
      expect(blockedProduct(software, 33, 17, 1)).toBe(false);
    }
    expect(520 * 530).toBeGreaterThanOrEqual(BLOCKED_FROM);
    expect(blockedProduct(false, 40, 50, 1)).toBe(false);
    expect(blockedProduct(true, 40, 50, 1)).toBe(true);
    // A GPU keeps the 16 × 16 pipeline below BLOCKED_FROM outputs, whose blocks would leave it mostly idle.
    expect(blockedProduct(false, 128, 256, 1)).toBe(false);
    expect(blockedProduct(true, 128, 256, 1)).toBe(true);
  });

  it.for(CASES)('$name', async ({ a: as, b: bs, op }, ctx) => {
    const gpu = needGpu(ctx);
    const a = randomUniform(as, { seed: as.length + as[0]!, low: -1, high: 1 });
    const b = randomUniform(bs, { seed: bs.length + bs[0]!, low: -1, high: 1 });
    const bias = op === 'dense' ? randomUniform([bs[0]!], { seed: 3, low: -1, high: 1 }) : undefined;
    const want = reference(a, b, op === 'matmul_tn', op === 'matmul_nt' || op === 'dense', bias);
    const [ag, bg] = [await a.to('webgpu'), await b.to('webgpu')];
    const biasG = bias && (await bias.to('webgpu'));
    const y =
      op === 'matmul'
        ? ops.matmul(ag, bg)
        : op === 'matmul_nt'
          ? ops.matmulNt(ag, bg)
          : op === 'matmul_tn'
            ? ops.matmulTn(ag, bg)
            : ops.dense(ag, bg, biasG!);
    expect(y.shape).toEqual(want.shape);
    const got = await y.data();
    let worst = 0;
    for (let i = 0; i < want.data.length; i++) worst = Math.max(worst, Math.abs(got[i]! - want.data[i]!));
    // Sums of up to 50 products of values in [-1, 1], in float32.
    expect(worst).toBeLessThan(1e-4);
    for (const t of [ag, bg, biasG, y]) t?.dispose();
    expect(gpu.uncapturedErrors).toEqual([]);
  });

  it("served the cases with both pipelines, blocked as the adapter's kind wants", async (ctx) => {
    const gpu = needGpu(ctx);
    const keys = gpu.pipelines.compiledPipelineKeys().map((k) => k.replace(/#main$/, ''));
    // 8 × 8 outputs per invocation on a software adapter, 4 × 4 on a GPU.
    const blocked = gpu.info.software ? 'b64r8' : 'b64r4';
    expect(keys).toContain('webgpu:matrix_product|f32');
    expect(keys).toContain(`webgpu:matrix_product|f32|${blocked}`);
    expect(keys).toContain(`webgpu:matrix_product_bias|f32|${blocked}`);
  });
});
