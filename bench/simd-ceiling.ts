// How fast wasm SIMD can multiply-add on this machine, against raf-op's and onnxruntime's float32 matrix products:
// `npx tsx bench/simd-ceiling.ts [--wasm-build simd|relaxed-simd]`. The ceiling is a loop of independent f32x4
// multiply-adds on registers only (no loads, no stores), compiled here from AssemblyScript as the wasm dialect is, in
// two forms: a multiply then an add (wasm SIMD) and one fused f32x4.relaxed_madd (relaxed SIMD). The script turns on
// V8's relaxed SIMD for itself (as `node --experimental-wasm-relaxed-simd` would on Node 20) so that both loops run;
// raf-op runs the build --wasm-build names (default: the relaxed one).
// Each round times both loops, raf-op's matmul and onnxruntime's MatMul (one thread) in turn; medians of the rounds.

import asc from 'assemblyscript/asc';
import { ops, wasmBuild } from '../runtime/src/index.ts';
import { onnxMatmul } from './cases/matmul.ts';
import { data } from './peers.ts';
import { allowRelaxedSimd, input, raf, wasmBuildFromArgs } from './raf.ts';
import type { Runner } from './case.ts';

// Twelve accumulator chains (f32x4.add has a latency of a few cycles, so fewer would wait on it; 6 and 8 measured
// slower), each adding x·c to itself; x moves every iteration so the products cannot be hoisted out of the loop.
// Twelve multiply-adds of four lanes an iteration: 48 MACs. `step(a)` is one multiply-add into accumulator a.
const MACS_PER_ITER = 48;
const loop = (step: (a: string) => string) => `
export function peak(iters: i32, seed: f32): f32 {
  let a0 = f32x4.splat(0), a1 = f32x4.splat(0), a2 = f32x4.splat(0), a3 = f32x4.splat(0);
  let a4 = f32x4.splat(0), a5 = f32x4.splat(0), a6 = f32x4.splat(0), a7 = f32x4.splat(0);
  let a8 = f32x4.splat(0), a9 = f32x4.splat(0), a10 = f32x4.splat(0), a11 = f32x4.splat(0);
  let x = f32x4.splat(seed);
  const c = f32x4.splat(0.5), d = f32x4.splat(1e-7);
  for (let i = 0; i < iters; i++) {
    ${Array.from({ length: 12 }, (_, i) => `a${i} = ${step(`a${i}`)};`).join('\n    ')}
    x = f32x4.add(x, d);
  }
  const s = f32x4.add(f32x4.add(f32x4.add(a0, a1), f32x4.add(a2, a3)), f32x4.add(f32x4.add(a4, a5), f32x4.add(a6, a7)));
  return f32x4.extract_lane(f32x4.add(s, f32x4.add(f32x4.add(a8, a9), f32x4.add(a10, a11))), 0);
}
`;

async function ceiling(source: string, enable: string[]): Promise<(iters: number, seed: number) => number> {
  const out = await asc.compileString(source, { optimizeLevel: 3, runtime: 'stub', noAssert: true, enable });
  if (out.error || !out.binary) throw new Error(`asc failed: ${out.error?.message}\n${out.stderr.toString()}`);
  const module = new WebAssembly.Module(new Uint8Array(out.binary));
  const instance = new WebAssembly.Instance(module, { env: { abort: () => {} } });
  return instance.exports.peak as (iters: number, seed: number) => number;
}

const sizes = [256, 1024];
const rounds = 15;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

// The fused loop needs relaxed SIMD whichever build raf-op runs.
allowRelaxedSimd();
wasmBuildFromArgs(process.argv.slice(2), 'relaxed-simd');
const loops = {
  'mul + add': await ceiling(
    loop((a) => `f32x4.add(${a}, f32x4.mul(x, c))`),
    ['simd'],
  ),
  'fused (relaxed_madd)': await ceiling(
    loop((a) => `f32x4.relaxed_madd(x, c, ${a})`),
    ['simd', 'relaxed-simd'],
  ),
};
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
for (const peak of Object.values(loops)) peak(iters, 1);
for (const c of columns) for (let i = 0; i < 3; i++) (await c.raf.run(), await c.ort.run());
const got = {
  peak: Object.keys(loops).map(() => [] as number[]),
  raf: sizes.map(() => [] as number[]),
  ort: sizes.map(() => [] as number[]),
};
for (let r = 0; r < rounds; r++) {
  for (const [i, peak] of Object.values(loops).entries())
    got.peak[i]!.push(await rate(iters * MACS_PER_ITER, () => peak(iters, 1)));
  for (const [i, c] of columns.entries()) {
    got.raf[i]!.push(await rate(c.size ** 3, () => c.raf.run()));
    got.ort[i]!.push(await rate(c.size ** 3, () => c.ort.run()));
  }
}
for (const c of columns) await c.ort.dispose?.();

const peaks = Object.keys(loops).map((name, i) => [name, median(got.peak[i]!)] as const);
for (const [name, p] of peaks)
  console.log(
    `wasm SIMD128 multiply-adds on registers only, ${name}: ${p.toFixed(1)} GMAC/s (median of ${rounds} rounds)`,
  );
const p = Math.max(...peaks.map(([, v]) => v));
console.log(`raf-op runs the ${wasmBuild()} build.`);
console.log('| product | raf-op (wasm) GMAC/s | onnxruntime GMAC/s | onnxruntime / fastest wasm rate |');
console.log('|---|---|---|---|');
for (const [i, n] of sizes.entries()) {
  const [r, o] = [median(got.raf[i]!), median(got.ort[i]!)];
  console.log(`| matmul ${n}³ | ${r.toFixed(1)} | ${o.toFixed(1)} | ${(o / Math.max(p, r)).toFixed(2)}× |`);
}
console.log(
  'The last column is how much faster onnxruntime multiply-adds than the fastest of the register-only loops and',
  "raf-op: a wasm kernel at that rate would still take this many times onnxruntime's time.",
);
process.exit(0);
