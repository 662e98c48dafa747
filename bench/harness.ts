// Runs cases: timed medians per column (the columns' runs interleaved), one untimed run per column to check the
// columns agree, and the tables.

import { readFileSync } from 'node:fs';
import v8 from 'node:v8';
import vm from 'node:vm';
import { GROUPS, IMPLS, type BenchCase, type Group, type ImplName, type Runner } from './case.ts';
import { checkTarget } from './targets.ts';

export interface Measured {
  readonly median_ms: number | null;
  readonly runs: number;
  readonly note?: string;
  readonly per_unit?: string;
  readonly error?: string;
}

/** How far a column's outputs are from raf-op's: the largest absolute difference, and the peer's largest magnitude. */
export interface Agreement {
  readonly max_abs_diff: number;
  readonly scale: number;
}

export interface CaseResult {
  readonly name: string;
  readonly what: string;
  readonly group: Group;
  readonly skipped?: string;
  readonly results: Partial<Record<ImplName, Measured>>;
  /** Per column other than raf-op: agreement with raf-op's outputs, or why they were not compared. */
  readonly agreement: Partial<Record<ImplName, Agreement | string>>;
  readonly gaps?: object;
  readonly ratios: Partial<Record<ImplName, number>>;
  readonly target?: { met: boolean; rule: string };
}

export interface HarnessOptions {
  /** Median of `runs` after `warmup`; a column slower than `slowMs` per run gets `slowRuns` instead. */
  readonly runs: number;
  readonly warmup: number;
  /**
   * Warm-up goes on, past `warmup` runs, until this many ms have passed: V8 optimizes a function only after it has run
   * a while, so a case of a few hundred µs is still partly interpreted after three runs while a native peer is not.
   * Every column gets the same rule.
   */
  readonly warmupMs?: number;
  readonly slowMs: number;
  readonly slowRuns: number;
  /** 'cpu': time runs by this process's CPU time (user + system) rather than the wall clock, for a machine shared
   * with other work, where waiting for a core would count against whichever column happened to wait. */
  readonly clock?: 'wall' | 'cpu';
  /** 'minor': a young-generation collection before every run (untimed), so each run's results are freed before the
   * next allocates its own: see collectGarbage. */
  readonly gc?: 'minor';
  /** Called before and after each column, for progress on stderr. */
  readonly progress?: (line: string) => void;
}

let gcHandle: ((options?: { type: 'minor' | 'major' }) => void) | undefined;
/**
 * A minor collection now. Without one, the arrays each run reads its results into (4 MiB for add 2^20) live on until
 * V8's external-memory limit starts a collection, so for many runs in a row every result lands in memory the
 * allocator must fetch from the kernel again: one page fault per 4 KiB, about 3 µs each on this VM (3 ms for 4 MiB),
 * paid by whichever column runs while it lasts, the first in a process most (raf-op's). Collecting before each run
 * frees the last run's arrays, so every column reads into reused memory and the medians compare kernels and copies.
 */
function collectGarbage(): void {
  if (!gcHandle) {
    v8.setFlagsFromString('--expose-gc');
    gcHandle = vm.runInNewContext('gc') as typeof gcHandle;
  }
  gcHandle!({ type: 'minor' });
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
/** The message's first line, and the next one when the first only introduces it ("yo raf-op failed:"). */
const firstLine = (e: unknown) => {
  const lines = (e instanceof Error ? e.message : String(e))
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return lines[0]?.endsWith(':') && lines[1] ? `${lines[0]} ${lines[1]}` : (lines[0] ?? '');
};

/**
 * CPU time (user + system, ms) of the child processes this one has waited for, from /proc/self/stat's cutime and
 * cstime (in clock ticks, 100 a second on Linux); 0 where there is no /proc.
 */
function childrenCpuMs(): number {
  try {
    // The fields after the command name (which may hold spaces, so split after its closing parenthesis).
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[13]) + Number(f[14])) * 10; // cutime, cstime: fields 16 and 17 of the whole line
  } catch {
    return 0;
  }
}

/** A column's median (or error) and the outputs of its untimed run. */
interface Outcome {
  readonly m: Measured;
  readonly out?: Float32Array[] | string;
}

/** A column set up for timing: its runner, how many timed runs it gets, and the times so far. */
interface Timed {
  readonly impl: ImplName;
  readonly runner: Runner;
  readonly once: () => Promise<number>;
  runs: number;
  readonly times: number[];
  error?: string;
}

async function prepare(c: BenchCase, impl: ImplName, o: HarnessOptions): Promise<Timed | Measured> {
  let runner: Runner;
  try {
    runner = await c.impls[impl]!.setup();
  } catch (e) {
    return { median_ms: null, runs: 0, error: `setup: ${firstLine(e)}` };
  }
  const once = async () => {
    await runner.activate?.();
    runner.before?.();
    if (o.gc) collectGarbage();
    if (runner.selfTimed) return Number(await runner.run());
    if (o.clock === 'cpu' && !c.wallClock) {
      const c0 = process.cpuUsage();
      const k0 = childrenCpuMs();
      await runner.run();
      const c = process.cpuUsage(c0);
      // A case that runs a process (npm run new) is timed by that process's CPU time too.
      return (c.user + c.system) / 1000 + (childrenCpuMs() - k0);
    }
    const t0 = performance.now();
    await runner.run();
    return performance.now() - t0;
  };
  return { impl, runner, once, runs: o.runs, times: [] };
}

/** Warm up, but stop after one run that already takes over slowMs (the JIT has long settled by then). */
async function warm(col: Timed, o: HarnessOptions): Promise<void> {
  try {
    let first = 0;
    const warmEnd = performance.now() + (o.warmupMs ?? 0);
    for (let i = 0; (i < o.warmup || performance.now() < warmEnd) && first <= o.slowMs; i++) first = await col.once();
    if (first > o.slowMs) col.runs = o.slowRuns;
  } catch (e) {
    col.error = firstLine(e);
  }
}

/** One timed run of a column still short of its count; a throwing run ends the column with its error. */
async function timedRun(col: Timed): Promise<void> {
  try {
    col.times.push(await col.once());
  } catch (e) {
    col.error = firstLine(e);
  }
}

const pending = (col: Timed) => !col.error && col.times.length < col.runs;

/** The column's median, and its outputs from one more (untimed) run; then its runner is disposed. */
async function finish(col: Timed): Promise<Outcome> {
  try {
    if (col.error) return { m: { median_ms: null, runs: 0, error: col.error } };
    const med = median(col.times);
    let out: Float32Array[] | string | undefined;
    if (col.runner.result)
      out = await Promise.resolve(col.runner.activate?.())
        .then(() => col.runner.result!())
        .catch((e: unknown) => `result: ${firstLine(e)}`);
    const m = {
      median_ms: med,
      runs: col.runs,
      ...(col.runner.note ? { note: col.runner.note } : {}),
      ...(col.runner.perUnit ? { per_unit: col.runner.perUnit(med) } : {}),
    };
    return { m, out };
  } catch (e) {
    return { m: { median_ms: null, runs: 0, error: firstLine(e) } };
  } finally {
    await col.runner.dispose?.();
  }
}

const isTimed = (x: Timed | Measured): x is Timed => 'runner' in x;

/**
 * Times a case's columns. By default they are interleaved: every column is set up and warmed up, then the timed runs
 * go round the columns (one run each per round, the round's first column rotating), so a change in the machine's
 * speed while the case runs (this VM's neighbours come and go, and every column's times move together, by up to 2×
 * within a second) reaches every column alike and the ratios hold. A `sequential` case does the same for one column
 * at a time, each set up and disposed before the next.
 */
async function measureCase(
  c: BenchCase,
  impls: readonly ImplName[],
  o: HarnessOptions,
): Promise<Partial<Record<ImplName, Outcome>>> {
  const done: Partial<Record<ImplName, Outcome>> = {};
  for (const together of c.sequential ? impls.map((impl) => [impl]) : [impls]) {
    const cols: Timed[] = [];
    for (const impl of together) {
      const col = await prepare(c, impl, o);
      if (isTimed(col)) cols.push(col);
      else done[impl] = { m: col };
    }
    for (const col of cols) await warm(col, o);
    for (let round = 0; cols.some(pending); round++)
      for (let k = 0; k < cols.length; k++) {
        const col = cols[(round + k) % cols.length]!;
        if (pending(col)) await timedRun(col);
      }
    for (const col of cols) done[col.impl] = await finish(col);
    for (const impl of together) {
      const m = done[impl]!.m;
      o.progress?.(`  ${c.name} · ${impl}: ${m.error ?? `${fmt(m.median_ms)} ms`}\n`);
    }
  }
  return done;
}

function agreement(
  ours: Float32Array[] | string | undefined,
  theirs: Float32Array[] | string | undefined,
): Agreement | string {
  if (typeof ours === 'string') return `raf-op ${ours}`;
  if (typeof theirs === 'string') return theirs;
  if (!ours || !theirs) return 'no outputs to compare';
  const shapes = (xs: Float32Array[]) => xs.map((x) => x.length).join(',');
  if (shapes(ours) !== shapes(theirs)) return `outputs differ in count or size (${shapes(ours)} vs ${shapes(theirs)})`;
  let diff = 0;
  let scale = 0;
  ours.forEach((o, k) => {
    const t = theirs[k]!;
    for (let i = 0; i < o.length; i++) {
      const d = Math.abs(o[i]! - t[i]!);
      // NaN on either side must show as a disagreement, not vanish in Math.max.
      diff = Number.isNaN(d) ? Infinity : Math.max(diff, d);
      scale = Math.max(scale, Math.abs(t[i]!));
    }
  });
  return { max_abs_diff: diff, scale };
}

/** Runs every case in order; within a case, the columns' timed runs are interleaved (see measureCase). */
export async function runCases(cases: readonly BenchCase[], o: HarnessOptions): Promise<CaseResult[]> {
  const results: CaseResult[] = [];
  for (const c of cases) {
    const skipped = await c.unavailable?.();
    if (skipped) {
      o.progress?.(`  ${c.name}: skipped (${skipped})\n`);
      results.push({ name: c.name, what: c.what, group: c.group, skipped, results: {}, agreement: {}, ratios: {} });
      continue;
    }
    const res: Partial<Record<ImplName, Measured>> = {};
    const outs: Partial<Record<ImplName, Float32Array[] | string>> = {};
    const measured = await measureCase(
      c,
      IMPLS.filter((impl) => c.impls[impl]),
      o,
    );
    for (const [impl, { m, out }] of Object.entries(measured) as [ImplName, Outcome][]) {
      res[impl] = m;
      if (out) outs[impl] = out;
    }
    const agree: Partial<Record<ImplName, Agreement | string>> = {};
    for (const impl of IMPLS) {
      if (impl === 'raf-op' || !c.impls[impl] || !res[impl] || res[impl]!.error) continue;
      agree[impl] = c.incomparable?.[impl] ?? agreement(outs['raf-op'], outs[impl]);
    }
    const raf = res['raf-op']?.median_ms;
    const ratios = Object.fromEntries(
      IMPLS.filter((p) => p !== 'raf-op' && raf && res[p]?.median_ms).map((p) => [p, raf! / res[p]!.median_ms!]),
    );
    const target = checkTarget(c.name, c.group, res);
    results.push({
      name: c.name,
      what: c.what,
      group: c.group,
      results: res,
      agreement: agree,
      ...(c.gaps ? { gaps: c.gaps } : {}),
      ratios,
      ...(target ? { target } : {}),
    });
  }
  return results;
}

export const fmt = (ms: number | null | undefined): string =>
  ms === null || ms === undefined
    ? '—'
    : ms >= 100
      ? ms.toFixed(0)
      : ms >= 10
        ? ms.toFixed(1)
        : ms >= 1
          ? ms.toFixed(2)
          : ms.toFixed(3);
const ratio = (a: number | null | undefined, b: number | null | undefined) => (a && b ? `${(a / b).toFixed(2)}×` : '—');

/** The largest disagreement of any peer with raf-op, relative to the peer's scale (at least 1). */
function worst(r: CaseResult): string {
  const xs = Object.values(r.agreement);
  if (!xs.length) return '';
  if (xs.some((a) => typeof a !== 'object'))
    return xs.every((a) => typeof a !== 'object') ? 'n/a' : `${worstOf(xs)} (some n/a)`;
  return worstOf(xs);
}
function worstOf(xs: readonly (Agreement | string)[]): string {
  const w = Math.max(
    ...xs.filter((a): a is Agreement => typeof a === 'object').map((a) => a.max_abs_diff / Math.max(1, a.scale)),
  );
  return w === 0 ? '0' : w.toExponential(1);
}

interface Column {
  readonly head: string;
  readonly cell: (r: CaseResult) => string;
}

function columnsFor(group: Group, fullRuns: number): Column[] {
  const time =
    (i: ImplName, withNote = false) =>
    (r: CaseResult) => {
      const m = r.results[i];
      if (!m) return '';
      if (m.error) return 'error';
      return `${fmt(m.median_ms)}${m.note && withNote ? ` (${m.note})` : ''}${m.runs < fullRuns ? '*' : ''}`;
    };
  const vs = (head: string, a: ImplName, b: ImplName): Column => ({
    head,
    cell: (r) => ratio(r.results[a]?.median_ms, r.results[b]?.median_ms),
  });
  const agree: Column = { head: 'max |Δ| (rel)', cell: worst };
  switch (group) {
    case 'kernels':
      return [
        { head: 'raf-op (dialect)', cell: time('raf-op', true) },
        { head: 'raf-op cpu', cell: time('raf-op cpu') },
        { head: 'tfjs-cpu', cell: time('tfjs-cpu') },
        { head: 'tfjs-wasm', cell: time('tfjs-wasm') },
        { head: 'raf-op wasm', cell: time('raf-op wasm') },
        { head: 'onnxruntime', cell: time('onnxruntime') },
        { head: 'ort-web (wasm)', cell: time('onnxruntime-web') },
        vs('raf/tfjs-wasm', 'raf-op', 'tfjs-wasm'),
        vs('raf/ort', 'raf-op', 'onnxruntime'),
        vs('raf wasm/ort-web', 'raf-op wasm', 'onnxruntime-web'),
        { head: 'target', cell: (r) => (r.target ? `${r.target.met ? 'met' : 'MISSED'}: ${r.target.rule}` : '') },
        agree,
      ];
    case 'training':
      return [
        { head: 'raf-op (dialect)', cell: time('raf-op', true) },
        { head: 'raf-op cpu', cell: time('raf-op cpu') },
        { head: 'tfjs-cpu', cell: time('tfjs-cpu') },
        { head: 'tfjs-wasm', cell: time('tfjs-wasm') },
        { head: 'tfjs-webgpu', cell: time('tfjs-webgpu') },
        vs('raf/tfjs-wasm', 'raf-op', 'tfjs-wasm'),
        vs('raf/tfjs-cpu', 'raf-op', 'tfjs-cpu'),
        vs('raf/tfjs-webgpu', 'raf-op', 'tfjs-webgpu'),
        agree,
      ];
    case 'webgpu':
      return [
        { head: 'raf-op webgpu (dialect)', cell: time('raf-op', true) },
        { head: 'tfjs-webgpu', cell: time('tfjs-webgpu') },
        vs('raf/tfjs-webgpu', 'raf-op', 'tfjs-webgpu'),
        agree,
      ];
    case 'graph':
      return [
        { head: 'raf-op (fused / graph)', cell: time('raf-op', true) },
        { head: 'raf-op unfused', cell: time('raf-op unfused', true) },
        { head: 'raf-op wasm', cell: time('raf-op wasm') },
        { head: 'onnxruntime (cpu)', cell: time('onnxruntime') },
        { head: 'ort-web (wasm)', cell: time('onnxruntime-web') },
        vs('fusion speed-up', 'raf-op unfused', 'raf-op'),
        vs('raf/ort', 'raf-op', 'onnxruntime'),
        vs('raf wasm/ort-web', 'raf-op wasm', 'onnxruntime-web'),
        { head: 'target', cell: (r) => (r.target ? `${r.target.met ? 'met' : 'MISSED'}: ${r.target.rule}` : '') },
        agree,
      ];
    case 'generator':
      return [
        {
          head: 'raf-op',
          cell: (r) =>
            `${time('raf-op')(r)}${r.results['raf-op']?.per_unit ? ` = ${r.results['raf-op'].per_unit}` : ''}`,
        },
      ];
  }
}

function table(rows: readonly string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: readonly string[]) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(rows[0]!), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.slice(1).map(line)].join('\n');
}

const TITLES: Record<Group, string> = {
  kernels: 'CPU kernels (eager)',
  webgpu: 'WebGPU kernels (eager; raf-op and tfjs on the same adapter, each run ends with a queue sync)',
  graph: 'Graph mode (fusion: fused against unfused; FromOnnx MLP against onnxruntime)',
  training: 'Training steps (one optimizer step on one batch, loss read back)',
  generator: 'Generator',
};

/** One markdown table per group that has results, then errors, gaps and skips under each. */
export function render(results: readonly CaseResult[], fullRuns: number): string {
  const out: string[] = [];
  for (const g of GROUPS) {
    const rs = results.filter((r) => r.group === g);
    if (!rs.length) continue;
    const cols = columnsFor(g, fullRuns);
    const rows = [
      ['case', ...cols.map((c) => c.head)],
      ...rs.map((r) => [r.name, ...cols.map((c) => (r.skipped ? (c === cols[0] ? 'skipped' : '') : c.cell(r)))]),
    ];
    out.push(`\n${TITLES[g]}\n\n${table(rows)}`);
    for (const r of rs) {
      if (r.skipped) out.push(`  ${r.name}: skipped: ${r.skipped}`);
      for (const [impl, m] of Object.entries(r.results)) if (m?.error) out.push(`  ${r.name} · ${impl}: ${m.error}`);
      for (const [impl, why] of Object.entries(r.gaps ?? {})) out.push(`  ${r.name} · ${impl}: ${why}`);
      for (const [impl, a] of Object.entries(r.agreement))
        if (typeof a === 'string') out.push(`  ${r.name} · ${impl}: not compared: ${a}`);
    }
  }
  return out.join('\n');
}
