// How fast wasm SIMD can multiply-add on this machine, against raf-op's and onnxruntime's float32 matrix products:
// `npx tsx bench/simd-ceiling.ts`. The ceiling is a loop of independent f32x4 multiply-adds on registers only (no
// loads, no stores), compiled here from AssemblyScript as the wasm dialect is.
// Each round times the loop, raf-op's matmul and onnxruntime's MatMul (one thread) in turn; medians of the rounds.

import asc from 'assemblyscript/asc';
import { ops } from '../runtime/src/index.ts';
import { onnxMatmul } from './cases/matmul.ts';
import { data } from './peers.ts';
import { input, raf } from './raf.ts';
import type { Runner } from './case.ts';

// Twelve accumulator chains (f32x4.add has a latency of a few cycles, so fewer would wait on it; 6 and 8 measured
// slower), each adding x·c to itself; x moves every iteration so the products cannot be hoisted out of the loop.
// Twelve multiply-adds of four lanes an iteration: 48 MACs.
const MACS_PER_ITER = 48;
const source = `
export function peak(iters: i32, seed: f32): f32 {
  let a0 = f32x4.splat(0), a1 = f32x4.splat(0), a2 = f32x4.splat(0), a3 = f32x4.splat(0);
  let a4 = f32x4.splat(0), a5 = f32x4.splat(0), a6 = f32x4.splat(0), a7 = f32x4.splat(0);
  let a8 = f32x4.splat(0), a9 = f32x4.splat(0), a10 = f32x4.splat(0), a11 = f32x4.splat(0);
  let x = f32x4.splat(seed);
  const c = f32x4.splat(0.5), d = f32x4.splat(1e-7);
  for (let i = 0; i < iters; i++) {
    a0 = f32x4.add(a0, f32x4.mul(x, c)); a1 = f32x4.add(a1, f32x4.mul(x, c)); a2 = f32x4.add(a2, f32x4.mul(x, c));
    a3 = f32x4.add(a3, f32x4.mul(x, c)); a4 = f32x4.add(a4, f32x4.mul(x, c)); a5 = f32x4.add(a5, f32x4.mul(x, c));
    a6 = f32x4.add(a6, f32x4.mul(x, c)); a7 = f32x4.add(a7, f32x4.mul(x, c)); a8 = f32x4.add(a8, f32x4.mul(x, c));
    a9 = f32x4.add(a9, f32x4.mul(x, c)); a10 = f32x4.add(a10, f32x4.mul(x, c)); a11 = f32x4.add(a11, f32x4.mul(x, c));
    x = f32x4.add(x, d);
  }
  const s = f32x4.add(f32x4.add(f32x4.add(a0, a1), f32x4.add(a2, a3)), f32x4.add(f32x4.add(a4, a5), f32x4.add(a6, a7)));
  return f32x4.extract_lane(f32x4.add(s, f32x4.add(f32x4.add(a8, a9), f32x4.add(a10, a11))), 0);
}
`;

async function ceiling(): Promise<(iters: number, seed: number) => number> {
  const out = await asc.compileString(source, { optimizeLevel: 3, runtime: 'stub', noAssert: true, enable: ['simd'] });
  if (out.error || !out.binary) throw new Error(`asc failed: ${out.error?.message}\n${out.stderr.toString()}`);
  const module = new WebAssembly.Module(new Uint8Array(out.binary));
  const instance = new WebAssembly.Instance(module, { env: { abort: () => {} } });
  return instance.exports.peak as (iters: number, seed: number) => number;
}

const sizes = [256, 1024];
const rounds = 15;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

const peak = await ceiling();
const columns: { size: number; raf: Runner; ort: Runner }[] = [];
for (const n of sizes) {
  const [a, b] = [data(n * n, 1), data(n * n, 2)];
  const build = () => {
    const [ta, tb] = [input([n, n], a), input([n, n], b)];
    return () => ops.matmul(ta, tb);
  };
  const ort = await onnxMatmul(n, a, b).setup();
  columns.push({ size: n, raf: await raf('matmul', build).setup(), ort });
}

/** GMAC/s of one timed call of f doing `macs` multiply-adds. */
async function rate(macs: number, f: () => unknown): Promise<number> {
  const t0 = performance.now();
  await f();
  return macs / ((performance.now() - t0) * 1e6);
}

const iters = 2_000_000;
peak(iters, 1);
for (const c of columns) for (let i = 0; i < 3; i++) (await c.raf.run(), await c.ort.run());
const got = { peak: [] as number[], raf: sizes.map(() => [] as number[]), ort: sizes.map(() => [] as number[]) };
for (let r = 0; r < rounds; r++) {
  got.peak.push(await rate(iters * MACS_PER_ITER, () => peak(iters, 1)));
  for (const [i, c] of columns.entries()) {
    got.raf[i]!.push(await rate(c.size ** 3, () => c.raf.run()));
    got.ort[i]!.push(await rate(c.size ** 3, () => c.ort.run()));
  }
}
for (const c of columns) await c.ort.dispose?.();

const p = median(got.peak);
console.log(`wasm SIMD128 multiply-adds on registers only: ${p.toFixed(1)} GMAC/s (median of ${rounds} rounds)`);
console.log('| product | raf-op (wasm) GMAC/s | onnxruntime GMAC/s | onnxruntime / fastest wasm rate |');
console.log('|---|---|---|---|');
for (const [i, n] of sizes.entries()) {
  const [r, o] = [median(got.raf[i]!), median(got.ort[i]!)];
  console.log(`| matmul ${n}³ | ${r.toFixed(1)} | ${o.toFixed(1)} | ${(o / Math.max(p, r)).toFixed(2)}× |`);
}
console.log(
  'The last column is how much faster onnxruntime multiply-adds than the faster of the register-only loop and raf-op: a',
  "wasm kernel at that rate would still take this many times onnxruntime's time.",
);
process.exit(0);
