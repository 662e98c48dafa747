// A package's generated suite runs its NaN/±inf case: the harness behind `generator-raf-op/testing` (its sources, the
// runtime it imports by package name resolving to this checkout's sources: vitest.config.ts) runs the suite literal the generator
// emits for softmax, and the file's last test checks that the non-finite cases were registered, ran and passed.

import { readFileSync } from 'node:fs';
import { describe, expect, it, type RunnerTestFile, type RunnerTestSuite } from 'vitest';
import { opSuite, type OpSuite } from '../../generators/src/testing/op-suite.ts';

/** The literal the generator passes to opSuite in test/generated/NAME.test.ts (importing it would run the repo's suite). */
function generatedSuite(op: string): OpSuite {
  const text = readFileSync(new URL(`../generated/${op}.test.ts`, import.meta.url), 'utf8');
  const literal = text.slice(text.indexOf('opSuite(') + 'opSuite('.length, text.lastIndexOf(');'));
  return new Function(`return (${literal});`)() as OpSuite;
}

const softmax = generatedSuite('softmax');
// One case and one dtype keep the rest of the suite short; the non-finite case is the generated one, whole.
opSuite({ ...softmax, dtypes: ['float32'], cases: softmax.cases.slice(0, 1), relay: null });

function find(tasks: RunnerTestFile['tasks'], name: string): RunnerTestSuite | undefined {
  for (const t of tasks) {
    if (t.type !== 'suite') continue;
    if (t.name === name) return t;
    const inner = find(t.tasks, name);
    if (inner) return inner;
  }
  return undefined;
}

describe('the packaged harness', () => {
  it("ran softmax's generated NaN/±inf case on every dialect it serves, and every case passed", ({ task }) => {
    const s = softmax.nonFiniteCases!;
    expect(s.reference).toBe('Softmax');
    const block = find(task.file.tasks, 'non-finite inputs (NaN, ±inf)');
    expect(block, 'the harness registered no non-finite block').toBeDefined();
    const tests = block!.tasks;
    // WebGPU joins only where the package's setup acquired a device before the suite was collected (none here).
    const dialects = softmax.dialects.filter((d) => d !== 'webgpu');
    expect(tests.length).toBe(s.calls.length * s.inputs.length * dialects.length);
    for (const d of dialects)
      expect(tests.filter((t) => t.name.startsWith(`${d} `)).length, d).toBe(s.calls.length * s.inputs.length);
    expect(tests.filter((t) => t.result?.state !== 'pass').map((t) => `${t.name}: ${t.result?.state}`)).toEqual([]);
  });
});
