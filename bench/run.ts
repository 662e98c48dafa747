// `npm run bench`: every case's implementations side by side in one process; medians, ratios, targets, a JSON file.

import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { GROUPS, type BenchCase } from './case.ts';
import { describeGpu, gpuSetup } from './gpu.ts';
import { render, runCases } from './harness.ts';
import { TARGETS } from './targets.ts';
import { wasmBuild } from '../runtime/src/index.ts';
import { wasmBuildFromArgs } from './raf.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
/** --filter matches a case's name or its group (kernels, webgpu, graph, training, generator). */
const filter = argv.includes('--filter') ? argv[argv.indexOf('--filter') + 1]! : null;
/** --impls raf-op,tfjs-wasm,onnxruntime runs only those columns (tfjs-cpu alone takes minutes on matmul and conv). */
const only = argv.includes('--impls') ? argv[argv.indexOf('--impls') + 1]!.split(',') : null;
/** --cpu-time: time by process CPU time instead of the wall clock (see HarnessOptions.clock). */
const cpuTime = argv.includes('--cpu-time');
/** --gc: a minor collection before every run (untimed), see HarnessOptions.gc. */
const gcRuns = argv.includes('--gc');
/** --wasm-build simd|relaxed-simd: which build of the wasm module raf-op runs (default: the engine's, as for users). */
wasmBuildFromArgs(argv);
const RUNS = quick ? 3 : 20;
const WARMUP = quick ? 1 : 3;
/** And at least this long per column (see HarnessOptions.warmupMs). */
const WARMUP_MS = quick ? 0 : 300;
const SLOW_MS = 1000;
const SLOW_RUNS = quick ? 1 : 5;
/** Within a group: kernel cases in the issue's order; cases other files add come after, by name. */
const ORDER = [
  'softmax',
  'matmul 256³',
  'matmul 1024³',
  'add 2^20',
  'add [1,C,1,1]',
  'conv2d 3×3',
  'layer_norm',
  'ewise chain',
  'gelu 2^20',
  'softplus 2^20',
  'mlp backward',
  'softmax 256×1024 · webgpu',
  'log_softmax 256×1024 · webgpu',
  'sum 256×1024 rows · webgpu',
  'sum 2^20 · webgpu',
  'matmul 256³ · webgpu',
  'matmul 1024³ · webgpu',
  'conv2d 3×3 · webgpu',
  'add 2^20 · webgpu',
  'fusion sum+5 ewise · cpu',
  'fusion sum+5 ewise · webgpu',
  'onnx mlp · cpu',
  'onnx mlp · webgpu',
  'gen full',
  'gen no-op',
  'yo raf-op',
];

async function loadCases(): Promise<BenchCase[]> {
  const dir = join(HERE, 'cases');
  const cases: BenchCase[] = [];
  for (const f of readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .sort()) {
    const mod = (await import(pathToFileURL(join(dir, f)).href)) as { default: BenchCase | BenchCase[] };
    cases.push(...(Array.isArray(mod.default) ? mod.default : [mod.default]));
  }
  const rank = (c: BenchCase) =>
    GROUPS.indexOf(c.group) * 100 + (ORDER.includes(c.name) ? ORDER.indexOf(c.name) : ORDER.length);
  return cases.sort((a, b) => rank(a) - rank(b) || (a.name < b.name ? -1 : 1));
}

async function main(): Promise<void> {
  const cases = (await loadCases())
    .filter((c) => (!filter || c.name.includes(filter) || c.group === filter) && !(quick && c.slow))
    .map((c) =>
      only ? { ...c, impls: Object.fromEntries(Object.entries(c.impls).filter(([k]) => only.includes(k))) } : c,
    );
  const results = await runCases(cases, {
    runs: RUNS,
    warmup: WARMUP,
    warmupMs: WARMUP_MS,
    slowMs: SLOW_MS,
    slowRuns: SLOW_RUNS,
    clock: cpuTime ? 'cpu' : 'wall',
    ...(gcRuns ? { gc: 'minor' as const } : {}),
    progress: (l) => process.stderr.write(l),
  });

  const machine = `${cpus()[0]?.model ?? 'unknown CPU'} ×${cpus().length}, Node ${process.version}, wasm build ${wasmBuild() ?? 'not loaded'}`;
  const gpu = await gpuSetup();
  const gpuLine = gpu === undefined ? undefined : typeof gpu === 'string' ? `no WebGPU: ${gpu}` : describeGpu(gpu);
  const software = typeof gpu === 'object' && gpu.raf.software;
  console.log(
    `\nraf-op benchmarks: median ${cpuTime ? 'CPU-time ' : ''}ms of ${RUNS} runs after a warm-up of ${WARMUP} runs${WARMUP_MS ? ` and at least ${WARMUP_MS} ms` : ''}${gcRuns ? ', a minor GC before each' : ''} (* = ${SLOW_RUNS} runs, one run took over ${SLOW_MS} ms); CPU columns single-threaded. ${machine}`,
  );
  if (gpuLine) console.log(`WebGPU adapter: ${gpuLine}`);
  if (software)
    console.log(
      '  a software adapter: WebGPU times measure the CPU it emulates on, so only ratios between columns mean anything',
    );
  console.log(render(results, RUNS));
  console.log(`\nTargets: ${TARGETS}`);
  // RAF_BENCH_RESULTS: another folder for latest.json (test/docs runs the documented commands without touching yours).
  const out = process.env.RAF_BENCH_RESULTS ?? join(HERE, 'results');
  mkdirSync(out, { recursive: true });
  const file = join(out, 'latest.json');
  const webgpu = typeof gpu === 'object' ? { ...gpu, software } : gpu === undefined ? null : { unavailable: gpu };
  writeFileSync(
    file,
    `${JSON.stringify({ date: new Date().toISOString(), machine, webgpu, quick, filter, runs: RUNS, warmup: WARMUP, warmupMs: WARMUP_MS, cases: results }, null, 2)}\n`,
  );
  console.log(`results: ${file}`);
}

await main();
// Dawn can keep Node's event loop alive after the last GPU call (crbug.com/387965810); the results are written by now.
process.exit(0);
