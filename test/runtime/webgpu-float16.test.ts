// float16 on WebGPU without shader-f16: packed storage, GPU casts, native elementwise kernels and widened ops, against the CPU's float16.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  call,
  gpuSync,
  ops,
  randomUniform,
  tensor,
  Tensor,
  valueAndGrad,
  withDialect,
  type DType,
} from '../../runtime/src/index.ts';
import { buildDialectKernel, type AnyDialectOp, type KernelInputs } from '../../runtime/src/dialect.ts';
import { float16Bits, float16FromBits } from '../../runtime/src/dtype.ts';
import {
  gpuBuffer,
  gpuByteSize,
  gpuUnavailableReason,
  initWebGpu,
  releaseGpu,
  type GpuContext,
} from '../../runtime/src/dialects/webgpu/index.ts';
import { assertAllClose } from '../support/assert.ts';
import { REQUIRE_WEBGPU } from '../support/webgpu-cases.ts';

let gpu: GpuContext | null = null;
beforeAll(async () => {
  gpu = await initWebGpu();
});
afterAll(async () => {
  await releaseGpu();
});

const needGpu = (ctx: { skip: (note?: string) => void }): GpuContext | undefined => {
  if (gpu) return gpu;
  if (REQUIRE_WEBGPU) throw new Error(`WebGPU required but unavailable: ${gpuUnavailableReason()}`);
  ctx.skip(`WebGPU unavailable: ${gpuUnavailableReason()}`);
  return undefined;
};

/** Values and their IEEE binary16 encodings, written out by hand: zeros, ties, overflow, subnormals, specials. */
const ENCODED: readonly (readonly [number, number])[] = [
  [0, 0x0000],
  [-0, 0x8000],
  [1, 0x3c00],
  [-2.5, 0xc100],
  [1 + 2 ** -11, 0x3c00], // halfway between 1 and 1 + 2^-10: to the even one
  [1 + 3 * 2 ** -11, 0x3c02], // halfway between 1 + 2^-10 and 1 + 2^-9: to the even one
  [0.1, 0x2e66],
  [1 / 3, 0x3555],
  [65504, 0x7bff],
  [65519, 0x7bff],
  [65520, 0x7c00], // halfway between 65504 and 2^16: overflows to inf
  [-1e6, 0xfc00],
  [Infinity, 0x7c00],
  [-Infinity, 0xfc00],
  [NaN, 0x7e00],
  [2 ** -14, 0x0400], // smallest normal
  [2 ** -14 - 2 ** -24, 0x03ff], // largest subnormal
  [2 ** -24, 0x0001], // smallest subnormal
  [2 ** -25, 0x0000], // halfway between 0 and 2^-24: to zero
  [3 * 2 ** -25, 0x0002],
  [-1e-10, 0x8000],
];
const VALUES = ENCODED.map(([v]) => v);

/** Compute passes `f` submits (queue copies are not passes). */
function launches(g: GpuContext, f: () => void): number {
  const before = g.pipelines.dispatches;
  f();
  return g.pipelines.dispatches - before;
}

/**
 * The pool buffers `f` acquires and has not released when it returns: tracked by identity, so buffers of earlier tests'
 * tensors, returned whenever the garbage collector finalizes them, cannot blur the count.
 */
function keptBy<R>(g: GpuContext, f: () => R): { result: R; kept: Set<GPUBuffer> } {
  const pool = g.pool;
  const { acquire, release } = pool;
  const kept = new Set<GPUBuffer>();
  pool.acquire = (...args) => {
    const b = acquire.apply(pool, args);
    kept.add(b);
    return b;
  };
  pool.release = (b) => {
    kept.delete(b);
    release.call(pool, b);
  };
  try {
    return { result: f(), kept };
  } finally {
    pool.acquire = acquire;
    pool.release = release;
  }
}

/**
 * The midpoint between each pair of adjacent non-negative float16 values (65520 last), and the float32 values just below
 * and above it, alternately negated: where round-half-to-even and overflow decide the result.
 */
function tiesAndNeighbours(): number[] {
  const bits = new Uint32Array(1);
  const f32 = new Float32Array(bits.buffer);
  const out: number[] = [];
  for (let h = 0; h < 0x7c00; h++) {
    f32[0] = (float16FromBits(h) + (h === 0x7bff ? 65536 : float16FromBits(h + 1))) / 2;
    const mid = bits[0]!;
    for (const b of [mid - 1, mid, mid + 1]) {
      bits[0] = b;
      out.push(h % 2 ? -f32[0]! : f32[0]!);
    }
  }
  return out;
}

/** Hosts the GPU result's values in a plain array (NaN, -0 and inf compare exactly with toEqual). */
const host = async (t: Tensor) => Array.from(await t.data());
const cpuValues = (t: Tensor) => Array.from(t.dataSync());
const half = (shape: number[], seed: number, low = -2, high = 2) =>
  randomUniform(shape, { dtype: 'float16', seed, low, high });
const onGpu = (...ts: Tensor[]) => Promise.all(ts.map((t) => t.to('webgpu')));

describe('float16 on webgpu', () => {
  it('encodes IEEE binary16 bits, rounding half to even', () => {
    expect(ENCODED.map(([v]) => float16Bits(v))).toEqual(ENCODED.map(([, bits]) => bits));
    // Every non-NaN pattern decodes to a value that encodes back to it.
    const patterns = Array.from({ length: 0x10000 }, (_, h) => h).filter(
      (h) => (h & 0x7c00) !== 0x7c00 || (h & 0x3ff) === 0,
    );
    expect(patterns.filter((h) => float16Bits(float16FromBits(h)) !== h)).toEqual([]);
    expect([
      gpuByteSize('float16', 1),
      gpuByteSize('float16', 4),
      gpuByteSize('float16', 5),
      gpuByteSize('float32', 5),
    ]).toEqual([4, 8, 12, 20]);
  });

  it('round-trips float16 tensors bit for bit, packed two per word, odd lengths included', async (ctx) => {
    const g = needGpu(ctx);
    if (!g) return;
    for (const n of [1, 2, 3, 8, VALUES.length]) {
      const cpu = tensor(VALUES.slice(0, n), { dtype: 'float16' });
      const t = await cpu.to('webgpu');
      expect(t.dtype).toBe('float16');
      expect(await host(t)).toEqual(cpuValues(cpu));
      // The buffer holds the IEEE bits, the even element in each word's low half (the byte layout of array<f16>).
      const bits = ENCODED.slice(0, n).map(([, b]) => b);
      const words = Array.from(
        { length: Math.ceil(n / 2) },
        (_, w) => (bits[2 * w]! | ((bits[2 * w + 1] ?? 0) << 16)) >>> 0,
      );
      expect(Array.from(await g.pool.readback(gpuBuffer(t), Uint16Array, n))).toEqual(bits);
      expect(Array.from(await g.pool.readback(gpuBuffer(t), Uint32Array, words.length))).toEqual(words);
      const back = await t.to('cpu');
      expect(back.dtype).toBe('float16');
      expect(back.dataSync()).toBeInstanceOf(Float32Array);
      expect(cpuValues(back)).toEqual(cpuValues(cpu));
      t.dispose();
    }
    expect(g.uncapturedErrors).toEqual([]);
  });

  // The values finite in float16 for the integer and bool targets: int32 of inf or NaN differs between JS and WGSL
  // (0 against a saturated or undefined value), for float32 just the same.
  const finite = VALUES.filter((v) => Math.abs(v) < 65520);
  const sources: readonly (readonly [string, Tensor])[] = [
    ['float32 (ties, overflow, subnormals, specials)', tensor(VALUES, { dtype: 'float32' })],
    [
      'float32 (every tie between finite halves and its float32 neighbours)',
      tensor(tiesAndNeighbours(), { dtype: 'float32' }),
    ],
    ['float32 (random)', randomUniform([7, 9], { seed: 3, low: -300, high: 300 })],
    ['int32', tensor([-70000, -65520, -2049, -3, 0, 1, 2049, 4097, 65519, 65520, 100000], { dtype: 'int32' })],
    ['bool', tensor([0, 1, 1, 0, 1], { dtype: 'bool' })],
    ['float16 (all)', tensor(VALUES, { dtype: 'float16' })],
    ['float16 (finite)', tensor(finite, { dtype: 'float16' })],
  ];
  const pairs = sources.flatMap(([what, x]): (readonly [string, Tensor, DType])[] =>
    x.dtype === 'float16'
      ? (what.includes('finite') ? (['int32', 'bool'] as const) : (['float32', 'float16'] as const)).map(
          (to) => [`${what} → ${to}`, x, to] as const,
        )
      : [[`${what} → float16`, x, 'float16'] as const],
  );
  it.for(pairs)('casts %s as the CPU does, exactly', async ([, x, to], ctx) => {
    const g = needGpu(ctx);
    if (!g) return;
    const want = withDialect(['cpu'], () => ops.cast(x, to));
    const [xg] = await onGpu(x);
    const y = withDialect(['webgpu'], () => ops.cast(xg!, to));
    expect(y.device.kind).toBe('webgpu');
    expect(y.dtype).toBe(to);
    expect(await host(y)).toEqual(cpuValues(want));
    for (const t of [xg!, y]) t.dispose();
    expect(g.uncapturedErrors).toEqual([]);
  });

  it('runs elementwise ops and broadcasts in float16 in one launch each, as the CPU does', async (ctx) => {
    const g = needGpu(ctx);
    if (!g) return;
    // 5×7 = 35 elements, so the last output word holds one element.
    const [x, y, row, col, a, b] = [
      half([5, 7], 1),
      half([5, 7], 2),
      half([7], 3),
      half([5, 1], 4),
      half([3, 1], 5),
      half([1, 4], 6),
    ];
    const gs = await onGpu(x!, y!, row!, col!, a!, b!);
    const [xg, yg, rowg, colg, ag, bg] = gs;
    const cases: readonly (readonly [string, (...ts: Tensor[]) => Tensor, Tensor[], Tensor[], boolean])[] = [
      // Exact: float32 arithmetic on two halves rounds once to float16 on both sides.
      ['add', (p, q) => ops.add(p!, q!), [x!, y!], [xg!, yg!], true],
      ['multiply (row broadcast)', (p, q) => ops.multiply(p!, q!), [x!, row!], [xg!, rowg!], true],
      ['subtract (column broadcast)', (p, q) => ops.subtract(p!, q!), [x!, col!], [xg!, colg!], true],
      ['add (both broadcast)', (p, q) => ops.add(p!, q!), [a!, b!], [ag!, bg!], true],
      ['relu', (p) => ops.relu(p!), [x!], [xg!], true],
      ['maximum', (p, q) => ops.maximum(p!, q!), [x!, y!], [xg!, yg!], true],
      ['greater (bool result)', (p, q) => ops.greater(p!, q!), [x!, y!], [xg!, yg!], true],
      ['where', (p, q) => ops.where(ops.greater(p!, q!), p!, q!), [x!, y!], [xg!, yg!], true],
      // Transcendentals: WGSL's exp and tanh are not correctly rounded, so the half may differ by an ulp.
      ['exp', (p) => ops.exp(p!), [x!], [xg!], false],
      ['tanh', (p) => ops.tanh(p!), [x!], [xg!], false],
      ['sigmoid', (p) => ops.sigmoid(p!), [x!], [xg!], false],
      ['divide', (p, q) => ops.divide(p!, ops.add(ops.exp(q!), q!)), [x!, y!], [xg!, yg!], false],
    ];
    for (const [what, f, cpuArgs, gpuArgs, exact] of cases) {
      const want = withDialect(['cpu'], () => f(...cpuArgs));
      const got = withDialect(['webgpu'], () => f(...gpuArgs));
      expect(got.dtype, what).toBe(want.dtype);
      expect(got.shape, what).toEqual(want.shape);
      if (exact) expect(await host(got), what).toEqual(cpuValues(want));
      else
        assertAllClose(
          await host(got),
          cpuValues(want),
          { atol: 1e-3, rtol: 2e-3 },
          `${what} in float16 on webgpu vs cpu`,
        );
      got.dispose();
    }
    // Native, not widened: no casts around the kernel.
    for (const f of [() => ops.add(xg!, rowg!), () => ops.exp(xg!), () => ops.greater(xg!, yg!)]) {
      expect(launches(g, () => withDialect(['webgpu'], f).dispose())).toBe(1);
    }
    expect(
      g.pipelines.compiledPipelineKeys().filter((k) => k.startsWith('webgpu:add|float16,float16>f16')),
    ).not.toHaveLength(0);
    for (const t of gs) t!.dispose();
    expect(g.uncapturedErrors).toEqual([]);
  });

  it('runs ops without a float16 kernel in float32 between GPU casts, as the CPU does in float16', async (ctx) => {
    const g = needGpu(ctx);
    if (!g) return;
    const x = half([4, 6], 11);
    const w = half([6, 5], 12);
    const img = half([2, 3, 6, 6], 13);
    const filt = half([4, 3, 3, 3], 14, -0.5, 0.5);
    const scale = half([6], 15);
    const bias = half([6], 16);
    const idx = tensor([3, 0, 2], { dtype: 'int32' });
    const cpu = [x, w, img, filt, scale, bias, idx];
    const gs = await onGpu(...cpu);
    const cases: readonly (readonly [string, (...ts: Tensor[]) => Tensor | Tensor[]])[] = [
      ['softmax', (x) => ops.softmax(x!, -1)],
      ['matmul', (x, w) => ops.matmul(x!, w!)],
      ['sum', (x) => ops.sum(x!, [1])],
      ['conv2d', (_x, _w, img, filt) => ops.conv2d(img!, filt!, [1, 1], [1, 1])],
      ['layer_norm', (x, _w, _i, _f, scale, bias) => ops.layerNorm(x!, scale!, bias!)],
      ['transpose', (x) => ops.transpose(x!)],
      ['argmax (int32 result)', (x) => ops.argmax(x!, 1)],
      ['take (int32 indices)', (x, _w, _i, _f, _s, _b, idx) => ops.take(x!, idx!, 0)],
      ['split (tuple result)', (x) => ops.split(x!, 3, 1)],
      ['concatenate (list input)', (x, w) => ops.concatenate([x!, ops.transpose(w!)], 0)],
    ];
    for (const [what, f] of cases) {
      const want = [withDialect(['cpu'], () => f(...cpu))].flat();
      const got = [withDialect(['webgpu'], () => f(...gs))].flat();
      expect(
        got.map((t) => t.dtype),
        what,
      ).toEqual(want.map((t) => t.dtype));
      for (const [k, t] of got.entries()) {
        expect(t.device.kind).toBe('webgpu');
        expect(t.shape).toEqual(want[k]!.shape);
        // Both compute in float32 and round once to float16, in a different order of summation.
        assertAllClose(
          await host(t),
          cpuValues(want[k]!),
          { atol: 1e-2, rtol: 1e-2 },
          `${what}[${k}] in float16 on webgpu vs cpu`,
        );
        t.dispose();
      }
    }
    // Widened: cast up, the float32 kernel, cast down.
    expect(launches(g, () => withDialect(['webgpu'], () => ops.softmax(gs[0]!, -1)).dispose())).toBe(3);
    // Transposed, concatenated, split: a float16 value comes back exactly.
    const [first] = withDialect(['webgpu'], () => ops.split(gs[0]!, 3, 1));
    expect(await host(first!)).toEqual(cpuValues(withDialect(['cpu'], () => ops.split(x, 3, 1))[0]!));
    first!.dispose();
    for (const t of gs) t.dispose();
    expect(g.uncapturedErrors).toEqual([]);
  });

  it('widens list and null inputs and tuple outputs through buildDialectKernel', async (ctx) => {
    const g = needGpu(ctx);
    if (!g) return;
    // A dialect op that serves float32 only: the fallback must hand it float32 everywhere float16 was.
    const probe: AnyDialectOp = {
      op: 'add',
      dialect: 'webgpu',
      level: 0,
      bridge: { inputs: () => ({}), attrs: () => ({}), key: () => '' },
      build: (_attrs, out: readonly { dtype: DType }[], inputs: KernelInputs) => {
        const ts = Object.values(inputs).flatMap((v) => (v === null ? [] : Array.isArray(v) ? v : [v as Tensor]));
        if (out[0]!.dtype !== 'float32' || ts.some((t) => t.dtype !== 'float32')) return null;
        return (kin: { x: Tensor; xs: Tensor[]; none: null }) => {
          expect(kin.none).toBeNull();
          return [ops.add(kin.x, kin.xs[1]!), ops.negative(kin.xs[0]!)];
        };
      },
    };
    const [x, p, q] = await onGpu(half([3], 21), half([3], 22), half([3], 23));
    const inputs = { x: x!, xs: [p!, q!], none: null };
    const out = [
      { shape: [3], dtype: 'float16' as const },
      { shape: [3], dtype: 'float32' as const },
    ];
    const kernel = buildDialectKernel(probe, {}, out, inputs)!;
    expect(kernel).not.toBeNull();
    const { result, kept } = keptBy(g, () => withDialect(['webgpu'], () => kernel(inputs, {}, out) as Tensor[]));
    const [sum, neg] = result;
    // The float32 copies of the inputs and the float32 sum went back to the pool; only the results' buffers are kept.
    expect(kept).toEqual(new Set([gpuBuffer(sum!), gpuBuffer(neg!)]));
    expect([sum!.dtype, neg!.dtype]).toEqual(['float16', 'float32']);
    const want = await Promise.all([x!, q!, p!].map(host));
    expect(await host(sum!)).toEqual(
      cpuValues(ops.add(tensor(want[0]!, { dtype: 'float16' }), tensor(want[1]!, { dtype: 'float16' }))),
    );
    expect(await host(neg!)).toEqual(want[2]!.map((v) => -v));
    for (const t of [x!, p!, q!, sum!, neg!]) t.dispose();
    expect(g.uncapturedErrors).toEqual([]);
  });

  it('differentiates float16 on the GPU as the CPU does', async (ctx) => {
    if (!needGpu(ctx)) return;
    const x = half([3, 4], 31);
    const w = half([4, 2], 32);
    const f = (x: Tensor, w: Tensor) => ops.sum(ops.softmax(ops.relu(ops.matmul(x, w)), -1));
    const want = withDialect(['cpu'], () => valueAndGrad(f)(x, w).grads);
    const [xg, wg] = await onGpu(x, w);
    const { value, grads } = withDialect(['webgpu'], () => valueAndGrad(f)(xg!, wg!));
    for (const [k, t] of grads.entries()) {
      expect(t.dtype).toBe('float16');
      expect(t.device.kind).toBe('webgpu');
      assertAllClose(
        await host(t),
        cpuValues(want[k]!),
        { atol: 1e-2, rtol: 1e-2 },
        `gradient ${k} in float16 on webgpu vs cpu`,
      );
    }
    for (const t of [value, ...grads, xg!, wg!]) t.dispose();
  });

  it('returns every buffer it takes: native, widened and cast calls keep none once their results are disposed', async (ctx) => {
    const g = needGpu(ctx);
    if (!g) return;
    const [x, w] = await onGpu(half([8, 16], 41), half([16, 4], 42));
    const created = g.pool.stats().created;
    const steps: ((t: Tensor) => Tensor[])[] = [
      (t) => [ops.exp(t)],
      (t) => [ops.softmax(t, -1)],
      (t) => [ops.add(t, x!)],
      (t) => [ops.sum(t, [0], true)],
      (t) => ops.split(t, 2, 1),
      (t) => [ops.cast(t, 'float32')],
      (t) => {
        const m = ops.matmul(t, w!);
        return [m, ops.reshape(m, [4, 8])];
      },
    ];
    const { kept } = keptBy(g, () =>
      withDialect(['webgpu'], () => {
        for (let i = 0; i < 350; i++) for (const y of steps[i % steps.length]!(x!)) y.dispose();
      }),
    );
    await gpuSync();
    expect(kept.size).toBe(0);
    expect(g.pool.stats().created - created).toBeLessThan(50);
    expect(g.uncapturedErrors).toEqual([]);
    x!.dispose();
    w!.dispose();
  });

  it('places plain numbers next to float16 GPU tensors', async (ctx) => {
    if (!needGpu(ctx)) return;
    const x = half([2, 3], 51);
    const [xg] = await onGpu(x);
    const y = withDialect(['webgpu'], () => call('where', [ops.greater(xg!, 0), xg!, 0]) as Tensor);
    expect(y.dtype).toBe('float16');
    expect(await host(y)).toEqual(
      cpuValues(withDialect(['cpu'], () => call('where', [ops.greater(x, 0), x, 0]) as Tensor)),
    );
    for (const t of [xg!, y]) t.dispose();
  });
});
