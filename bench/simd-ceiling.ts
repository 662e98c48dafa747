// How fast wasm SIMD can multiply-add on this machine, against raf-op's and onnxruntime's float32 matrix products:
// `npx tsx bench/simd-ceiling.ts [--wasm-build simd|relaxed-simd]`. Three loops, compiled here from AssemblyScript as
// the wasm dialect is:
// - the ceiling: independent fused multiply-adds (relaxed SIMD's f32x4.relaxed_madd) on registers only, no loads;
// - the matrix product's 4×8 tile loop with its operands in L1 (a 4-row panel of A splat as it loads, an 8-wide
//   panel of B), once multiplying then adding (wasm SIMD, the plain build) and once fused (the relaxed build).
// There is no register-only loop of multiply then add: with every accumulator adding the same product, V8 computes
// the product once an iteration (the loop then times adds alone), and with a different constant for each it spills.
// The script turns on V8's relaxed SIMD for itself (as `node --experimental-wasm-relaxed-simd` would on Node 20) so
// that every loop runs; raf-op runs the build --wasm-build names (default: the relaxed one).
// Each round times the loops, raf-op's matmul and onnxruntime's MatMul (one thread) in turn; medians of the rounds.

import asc from 'assemblyscript/asc';
import { ops, wasmBuild } from '../runtime/src/index.ts';
import { onnxMatmul } from './cases/matmul.ts';
import { data } from './peers.ts';
import { allowRelaxedSimd, input, raf, wasmBuildFromArgs } from './raf.ts';
import type { Runner } from './case.ts';

type Madd = (a: string, b: string, c: string) => string;
const fused: Madd = (a, b, c) => `f32x4.relaxed_madd(${a}, ${b}, ${c})`;
const mulAdd: Madd = (a, b, c) => `f32x4.add(${c}, f32x4.mul(${a}, ${b}))`;

// Twelve accumulator chains (a multiply-add has a latency of several cycles, so fewer would wait on it; 6 and 8
// measured slower), each adding x·c to itself; x moves every iteration so the products cannot be hoisted out of the
// loop. Twelve multiply-adds of four lanes an iteration: 48 MACs.
const registerLoop = `
export function run(iters: i32): f32 {
  let a0 = f32x4.splat(0), a1 = f32x4.splat(0), a2 = f32x4.splat(0), a3 = f32x4.splat(0);
  let a4 = f32x4.splat(0), a5 = f32x4.splat(0), a6 = f32x4.splat(0), a7 = f32x4.splat(0);
  let a8 = f32x4.splat(0), a9 = f32x4.splat(0), a10 = f32x4.splat(0), a11 = f32x4.splat(0);
  let x = f32x4.splat(1);
  const c = f32x4.splat(0.5), d = f32x4.splat(1e-7);
  for (let i = 0; i < iters; i++) {
    ${Array.from({ length: 12 }, (_, i) => `a${i} = ${fused('x', 'c', `a${i}`)};`).join('\n    ')}
    x = f32x4.add(x, d);
  }
  const s = f32x4.add(f32x4.add(f32x4.add(a0, a1), f32x4.add(a2, a3)), f32x4.add(f32x4.add(a4, a5), f32x4.add(a6, a7)));
  return f32x4.extract_lane(f32x4.add(s, f32x4.add(f32x4.add(a8, a9), f32x4.add(a10, a11))), 0);
}
`;

// runtime/src/dialects/wasm/as/matmul.ts's tileKernel loop over a 256-deep pair of panels (A 4 KiB, B 8 KiB, both in
// L1 after the first pass), once per iteration: 256 steps of eight multiply-adds of four lanes, 8192 MACs.
const TILE_DEPTH = 256;
const tileLoop = (madd: Madd) => `
export function run(iters: i32): f32 {
  const ap: usize = 1024;
  const bp: usize = ap + ${TILE_DEPTH * 16};
  let c00 = f32x4.splat(0), c01 = f32x4.splat(0), c10 = f32x4.splat(0), c11 = f32x4.splat(0);
  let c20 = f32x4.splat(0), c21 = f32x4.splat(0), c30 = f32x4.splat(0), c31 = f32x4.splat(0);
  for (let i = 0; i < iters; i++) {
    let a = ap, b = bp;
    for (let p = 0; p < ${TILE_DEPTH}; p++) {
      const b0 = v128.load(b), b1 = v128.load(b, 16);
      let av = v128.load32_splat(a);
      c00 = ${madd('av', 'b0', 'c00')}; c01 = ${madd('av', 'b1', 'c01')};
      av = v128.load32_splat(a, 4);
      c10 = ${madd('av', 'b0', 'c10')}; c11 = ${madd('av', 'b1', 'c11')};
      av = v128.load32_splat(a, 8);
      c20 = ${madd('av', 'b0', 'c20')}; c21 = ${madd('av', 'b1', 'c21')};
      av = v128.load32_splat(a, 12);
      c30 = ${madd('av', 'b0', 'c30')}; c31 = ${madd('av', 'b1', 'c31')};
      a += 16;
      b += 32;
    }
  }
  const s = f32x4.add(f32x4.add(f32x4.add(c00, c01), f32x4.add(c10, c11)), f32x4.add(f32x4.add(c20, c21), f32x4.add(c30, c31)));
  return f32x4.extract_lane(s, 0);
}
`;

interface Loop {
  run: () => unknown;
  macs: number;
}

async function compile(source: string, enable: string[], iters: number, macsPerIter: number): Promise<Loop> {
  const out = await asc.compileString(source, {
    optimizeLevel: 3,
    runtime: 'stub',
    noAssert: true,
    enable,
    initialMemory: 1,
  });
  if (out.error || !out.binary) throw new Error(`asc failed: ${out.error?.message}\n${out.stderr.toString()}`);
  const module = new WebAssembly.Module(new Uint8Array(out.binary));
  const instance = new WebAssembly.Instance(module, { env: { abort: () => {} } });
  const run = instance.exports.run as (iters: number) => number;
  return { run: () => run(iters), macs: iters * macsPerIter };
}

const sizes = [256, 1024];
const rounds = 15;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

// The fused loops need relaxed SIMD whichever build raf-op runs.
allowRelaxedSimd();
wasmBuildFromArgs(process.argv.slice(2), 'relaxed-simd');
const loops: Record<string, Loop> = {
  'registers only, fused (the ceiling)': await compile(registerLoop, ['simd', 'relaxed-simd'], 2_000_000, 48),
  '4×8 tile from L1, mul + add': await compile(tileLoop(mulAdd), ['simd'], 4000, TILE_DEPTH * 32),
  '4×8 tile from L1, fused': await compile(tileLoop(fused), ['simd', 'relaxed-simd'], 4000, TILE_DEPTH * 32),
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

for (const loop of Object.values(loops)) loop.run();
for (const c of columns) for (let i = 0; i < 3; i++) (await c.raf.run(), await c.ort.run());
const got = {
  peak: Object.keys(loops).map(() => [] as number[]),
  raf: sizes.map(() => [] as number[]),
  ort: sizes.map(() => [] as number[]),
};
for (let r = 0; r < rounds; r++) {
  for (const [i, loop] of Object.values(loops).entries()) got.peak[i]!.push(await rate(loop.macs, loop.run));
  for (const [i, c] of columns.entries()) {
    got.raf[i]!.push(await rate(c.size ** 3, () => c.raf.run()));
    got.ort[i]!.push(await rate(c.size ** 3, () => c.ort.run()));
  }
}
for (const c of columns) await c.ort.dispose?.();

const peaks = Object.keys(loops).map((name, i) => [name, median(got.peak[i]!)] as const);
for (const [name, p] of peaks)
  console.log(`wasm SIMD128 multiply-adds, ${name}: ${p.toFixed(1)} GMAC/s (median of ${rounds} rounds)`);
const p = Math.max(...peaks.map(([, v]) => v));
console.log(`raf-op runs the ${wasmBuild()} build.`);
console.log('| product | raf-op (wasm) GMAC/s | onnxruntime GMAC/s | onnxruntime / fastest wasm rate |');
console.log('|---|---|---|---|');
for (const [i, n] of sizes.entries()) {
  const [r, o] = [median(got.raf[i]!), median(got.ort[i]!)];
  console.log(`| matmul ${n}³ | ${r.toFixed(1)} | ${o.toFixed(1)} | ${(o / Math.max(p, r)).toFixed(2)}× |`);
}
console.log(
  'The last column is how much faster onnxruntime multiply-adds than the fastest of the loops above and raf-op: a',
  "wasm kernel at that rate would still take this many times onnxruntime's time.",
);
process.exit(0);
