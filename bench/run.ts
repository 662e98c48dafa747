// `npm run bench`: every case's implementations side by side in one process; medians, ratios, targets, a JSON file.

import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { IMPLS, type BenchCase, type ImplName } from './case.ts';
import { checkTarget, TARGETS } from './targets.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
const filter = argv.includes('--filter') ? argv[argv.indexOf('--filter') + 1]! : null;
/** Median of RUNS after WARMUP; an implementation slower than SLOW_MS per run gets SLOW_RUNS instead. */
const RUNS = quick ? 3 : 20;
const WARMUP = quick ? 1 : 3;
const SLOW_MS = 1000;
const SLOW_RUNS = quick ? 1 : 5;
/** Kernel cases first, in the issue's order; cases other files add come after, by name. */
const ORDER = ['softmax', 'matmul 256³', 'matmul 1024³', 'add 2^20', 'conv2d 3×3', 'layer_norm', 'ewise chain', 'mlp backward', 'gen full', 'gen no-op', 'yo raf-op'];

export interface Measured {
  readonly median_ms: number | null;
  readonly runs: number;
  readonly note?: string;
  readonly per_unit?: string;
  readonly error?: string;
}

async function loadCases(): Promise<BenchCase[]> {
  const dir = join(HERE, 'cases');
  const cases: BenchCase[] = [];
  for (const f of readdirSync(dir).filter((f) => f.endsWith('.ts')).sort()) {
    const mod = (await import(pathToFileURL(join(dir, f)).href)) as { default: BenchCase | BenchCase[] };
    cases.push(...(Array.isArray(mod.default) ? mod.default : [mod.default]));
  }
  const rank = (c: BenchCase) => (ORDER.includes(c.name) ? ORDER.indexOf(c.name) : ORDER.length);
  return cases.sort((a, b) => rank(a) - rank(b) || (a.name < b.name ? -1 : 1));
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

async function measure(c: BenchCase, impl: ImplName): Promise<Measured> {
  let runner;
  try {
    runner = await c.impls[impl]!.setup();
  } catch (e) {
    return { median_ms: null, runs: 0, error: `setup: ${(e as Error).message.split('\n')[0]}` };
  }
  try {
    const once = async () => {
      runner.before?.();
      const t0 = performance.now();
      await runner.run();
      return performance.now() - t0;
    };
    // Warm up, but stop after one run that already takes over SLOW_MS (the JIT has long settled by then).
    let first = 0;
    for (let i = 0; i < WARMUP && first <= SLOW_MS; i++) first = await once();
    const runs = first > SLOW_MS ? SLOW_RUNS : RUNS;
    const times: number[] = [];
    for (let i = 0; i < runs; i++) times.push(await once());
    const m = median(times);
    return { median_ms: m, runs, ...(runner.note ? { note: runner.note } : {}), ...(runner.perUnit ? { per_unit: runner.perUnit(m) } : {}) };
  } catch (e) {
    return { median_ms: null, runs: 0, error: (e as Error).message.split('\n')[0] };
  } finally {
    await runner.dispose?.();
  }
}

const fmt = (ms: number | null | undefined) =>
  ms === null || ms === undefined ? '—' : ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms >= 1 ? ms.toFixed(2) : ms.toFixed(3);
const ratio = (a: number | null | undefined, b: number | null | undefined) => (a && b ? `${(a / b).toFixed(2)}×` : '—');

function table(rows: readonly string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: readonly string[]) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(rows[0]!), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.slice(1).map(line)].join('\n');
}

async function main(): Promise<void> {
  const cases = (await loadCases()).filter((c) => (!filter || c.name.includes(filter)) && !(quick && c.slow));
  const results: { name: string; what: string; group: string; results: Partial<Record<ImplName, Measured>>; gaps?: object; ratios: object; target?: object }[] = [];
  for (const c of cases) {
    const res: Partial<Record<ImplName, Measured>> = {};
    for (const impl of IMPLS) {
      if (!c.impls[impl]) continue;
      process.stderr.write(`  ${c.name} · ${impl} …`);
      res[impl] = await measure(c, impl);
      process.stderr.write(` ${res[impl]!.error ?? `${fmt(res[impl]!.median_ms)} ms`}\n`);
    }
    const raf = res['raf-op']?.median_ms;
    const ratios = Object.fromEntries(
      (['tfjs-cpu', 'tfjs-wasm', 'onnxruntime'] as const).filter((p) => raf && res[p]?.median_ms).map((p) => [p, raf! / res[p]!.median_ms!]),
    );
    results.push({ name: c.name, what: c.what, group: c.group, results: res, ...(c.gaps ? { gaps: c.gaps } : {}), ratios, target: checkTarget(c.name, res) });
  }

  const header = ['case', 'raf-op (dialect)', 'raf-op cpu', 'tfjs-cpu', 'tfjs-wasm', 'onnxruntime', 'raf/tfjs-wasm', 'raf/ort', 'target'];
  const rows = [header];
  for (const r of results) {
    const cell = (i: ImplName) => {
      const m = r.results[i];
      if (!m) return '';
      if (m.error) return 'error';
      return `${fmt(m.median_ms)}${m.note && i === 'raf-op' ? ` (${m.note})` : ''}${m.runs < RUNS ? '*' : ''}`;
    };
    const raf = r.results['raf-op'];
    const rafCell = r.group === 'generator' && raf?.per_unit ? `${cell('raf-op')} = ${raf.per_unit}` : cell('raf-op');
    const t = r.target as ReturnType<typeof checkTarget>;
    rows.push([
      r.name, rafCell, cell('raf-op cpu'), cell('tfjs-cpu'), cell('tfjs-wasm'), cell('onnxruntime'),
      ratio(raf?.median_ms, r.results['tfjs-wasm']?.median_ms), ratio(raf?.median_ms, r.results.onnxruntime?.median_ms),
      t ? `${t.met ? 'met' : 'MISSED'}: ${t.rule}` : '',
    ]);
  }
  const machine = `${cpus()[0]?.model ?? 'unknown CPU'} ×${cpus().length}, Node ${process.version}`;
  console.log(`\nraf-op benchmarks: median ms of ${RUNS} runs after ${WARMUP} warm-up (* = ${SLOW_RUNS} runs, one run took over ${SLOW_MS} ms); all single-threaded. ${machine}\n`);
  console.log(table(rows));
  for (const r of results) {
    for (const [impl, m] of Object.entries(r.results)) if (m?.error) console.log(`  ${r.name} · ${impl}: ${m.error}`);
    for (const [impl, why] of Object.entries(r.gaps ?? {})) console.log(`  ${r.name} · ${impl}: ${why}`);
  }
  console.log(`\nTargets (issue 7): ${TARGETS}`);
  const out = join(HERE, 'results');
  mkdirSync(out, { recursive: true });
  const file = join(out, 'latest.json');
  writeFileSync(file, `${JSON.stringify({ date: new Date().toISOString(), machine, quick, runs: RUNS, warmup: WARMUP, cases: results }, null, 2)}\n`);
  console.log(`results: ${file}`);
}

await main();
