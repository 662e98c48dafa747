// The order the harness runs columns in: interleaved rounds (rotating which column goes first) after each column's
// warm-up, `activate` before every run and before `result`, a failing column that leaves the others timed; and one
// column after another for a `sequential` case.

import { describe, expect, it } from 'vitest';
import { defineCase, type Impl, type ImplName } from '../../bench/case.ts';
import { runCases } from '../../bench/harness.ts';

/** A column that logs `<name>:<event>` for setup, activate, run, result and dispose; `failAt` makes that run throw. */
function logged(log: string[], name: string, failAt?: number): Impl {
  let runs = 0;
  return {
    setup: () => {
      log.push(`${name}:setup`);
      return {
        activate: () => void log.push(`${name}:activate`),
        run: () => {
          log.push(`${name}:run`);
          if (++runs === failAt) throw new Error(`${name} broke`);
        },
        result: async () => {
          log.push(`${name}:result`);
          return [new Float32Array([1, 2])];
        },
        dispose: () => void log.push(`${name}:dispose`),
      };
    },
  };
}

const OPTIONS = { runs: 3, warmup: 1, slowMs: Infinity, slowRuns: 3 };
/** The log without the activate entries, which the first test checks on their own. */
const events = (log: string[]) => log.filter((e) => !e.endsWith(':activate'));

describe('bench harness: column order', () => {
  it('warms each column, then interleaves the timed runs in rotating rounds', async () => {
    const log: string[] = [];
    const c = defineCase({
      name: 'order',
      what: 'three logged columns',
      group: 'kernels',
      impls: { 'raf-op': logged(log, 'A'), 'tfjs-wasm': logged(log, 'B'), onnxruntime: logged(log, 'C') },
    });
    const [r] = await runCases([c], OPTIONS);
    expect(events(log)).toEqual([
      'A:setup',
      'B:setup',
      'C:setup',
      // warm-up: one run each, in column order
      'A:run',
      'B:run',
      'C:run',
      // rounds: ABC, BCA, CAB
      'A:run',
      'B:run',
      'C:run',
      'B:run',
      'C:run',
      'A:run',
      'C:run',
      'A:run',
      'B:run',
      'A:result',
      'A:dispose',
      'B:result',
      'B:dispose',
      'C:result',
      'C:dispose',
    ]);
    // Every run and every result comes right after its own column's activate.
    log.forEach((e, i) => {
      if (e.endsWith(':run') || e.endsWith(':result')) expect(log[i - 1], `before #${i} ${e}`).toBe(`${e[0]}:activate`);
    });
    for (const impl of ['raf-op', 'tfjs-wasm', 'onnxruntime'] as ImplName[]) expect(r!.results[impl]!.runs).toBe(3);
  });

  it('a column whose run throws reports its error; the others keep their runs', async () => {
    const log: string[] = [];
    const c = defineCase({
      name: 'broken',
      what: 'B throws on its third run (the second timed one)',
      group: 'kernels',
      impls: { 'raf-op': logged(log, 'A'), onnxruntime: logged(log, 'B', 3) },
    });
    const [r] = await runCases([c], OPTIONS);
    expect(r!.results.onnxruntime).toEqual({ median_ms: null, runs: 0, error: 'B broke' });
    expect(r!.results['raf-op']!.runs).toBe(3);
    expect(events(log).filter((e) => e === 'A:run')).toHaveLength(4);
    expect(events(log).filter((e) => e === 'B:run')).toHaveLength(3);
    expect(log).toContain('B:dispose');
    expect(r!.ratios).toEqual({});
  });

  it('a sequential case times one column at a time, each set up and disposed on its own', async () => {
    const log: string[] = [];
    const c = defineCase({
      name: 'sequential',
      what: 'two logged columns, one after the other',
      group: 'kernels',
      sequential: true,
      impls: { 'raf-op': logged(log, 'A'), onnxruntime: logged(log, 'B') },
    });
    await runCases([c], OPTIONS);
    const run4 = (n: string) => [`${n}:setup`, ...Array<string>(4).fill(`${n}:run`), `${n}:result`, `${n}:dispose`];
    expect(events(log)).toEqual([...run4('A'), ...run4('B')]);
  });
});
