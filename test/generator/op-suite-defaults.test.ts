// Defaults are tested: the generated suite calls the op with optional args omitted, and its ONNX oracle leaves the
// matching attributes out of the node, so ONNX's own default applies. A default changed in the spec (cumsum's
// `exclusive` to true, as a slip would) then fails the op's own suite, and cumprod's, which reuses cumsum's schema.
// The suite is emitted from the edited spec in memory; the regenerated runtime's call with the args omitted is the
// call with the case's `full` args (the spec's defaults filled in), which is what the edited runtime would compute.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildModel } from '../../generators/src/spec/build.ts';
import { loadSpecText } from '../../generators/src/spec/load.ts';
import { specFiles } from '../../generators/src/layout.ts';
import { emitTests } from '../../generators/src/emit/tests.ts';
import { makeInputs, onnxExpected, type OpSuite } from '../support/op-suite.ts';
import { assertAllClose, tolerance } from '../support/assert.ts';
import { call } from '../../runtime/src/dispatch.ts';
import type { Tensor } from '../../runtime/src/index.ts';

const REPO = new URL('../../', import.meta.url);
const SPECS = new Map(specFiles(REPO.pathname).map((f) => [f, readFileSync(new URL(f, REPO), 'utf8')]));
const CUMSUM = 'specs/tensor/cumsum.yaml';
const EXCLUSIVE = 'exclusive: { type: bool, default: false';

/** The suite literal the test emitter writes for `op`, from the repository's specs with `changes` applied. */
function emittedSuite(op: string, changes: Record<string, string> = {}): OpSuite {
  const raws = Object.entries({ ...Object.fromEntries(SPECS), ...changes }).map(([f, t]) => loadSpecText(f, t).spec!);
  const { model } = buildModel(raws);
  const file = emitTests(model).find((f) => f.path === `test/generated/${op}.test.ts`)!;
  const literal = /opSuite\(([\s\S]*)\);\s*$/.exec(file.content)![1]!;
  return new Function(`return (${literal});`)() as OpSuite;
}

/** The case that leaves every defaulted arg out of the call. */
const defaultsCase = (s: OpSuite) => s.cases.find((c) => !('exclusive' in c.args))!;

/** The defaults case's forward check, as the suite runs it: the op (computing with `args`) against onnxruntime. */
async function forwardCheck(s: OpSuite, args: Record<string, unknown>): Promise<void> {
  const c = defaultsCase(s);
  const o = s.oracle as Extract<OpSuite['oracle'], { kind: 'onnx' }>;
  const inputs = makeInputs(c.shapes, 'float64', s.domain, 1, s.inputs);
  const got = call(s.op, [], { ...inputs, ...args }) as Tensor;
  const expected = await onnxExpected(o, inputs, c.full, s.floats, c.args);
  assertAllClose(Array.from(got.dataSync()), expected.values[0]!, tolerance('float64'), `raf.op.${s.op}`);
}

describe('a changed default fails the op suite', () => {
  it('emits a case that omits the defaulted args, with the documented defaults for the oracle', () => {
    const s = emittedSuite('cumsum');
    expect(defaultsCase(s)).toEqual({
      shapes: { x: [5] },
      args: {},
      full: { axis: null, dtype: null, exclusive: false },
    });
    expect(s.oracle).toMatchObject({ kind: 'onnx', op: 'CumSum', attrs: { exclusive: 'exclusive' } });
  });

  it('passes with the committed default (exclusive: false, which is ONNX CumSum’s default 0)', async () => {
    for (const op of ['cumsum', 'cumprod']) {
      const s = emittedSuite(op);
      // The runtime as built: the args omitted, so its own default applies.
      await forwardCheck(s, defaultsCase(s).args);
    }
  });

  it("fails cumsum's and cumprod's suites when cumsum's exclusive default becomes true", async () => {
    const edited = SPECS.get(CUMSUM)!.replace(EXCLUSIVE, 'exclusive: { type: bool, default: true');
    expect(edited).not.toBe(SPECS.get(CUMSUM));
    for (const op of ['cumsum', 'cumprod']) {
      const s = emittedSuite(op, { [CUMSUM]: edited });
      const c = defaultsCase(s);
      expect(c.full.exclusive).toBe(true);
      // The regenerated runtime computes the omitted exclusive as true; ONNX, told nothing, as 0.
      await expect(forwardCheck(s, c.full)).rejects.toThrow(/^raf\.op\.cum(sum|prod): element \d+ is .*, expected /);
    }
  });

  it('passes an attribute whose ONNX default differs from ours (ReduceSum keepdims: 1, ours false)', async () => {
    const s = emittedSuite('sum');
    expect(s.oracle).toMatchObject({ kind: 'onnx', differs: ['keepdims'] });
    const c = s.cases.find((k) => !('keepdims' in k.args))!;
    const inputs = makeInputs(c.shapes, 'float64', s.domain, 1, s.inputs);
    const expected = await onnxExpected(s.oracle as never, inputs, c.full, s.floats, c.args);
    const got = call('sum', [], { ...inputs, ...c.args }) as Tensor;
    expect(expected.shapes[0]).toEqual([...got.shape]);
    assertAllClose(Array.from(got.dataSync()), expected.values[0]!, tolerance('float64'), 'raf.op.sum');
  });

  it("passes an attribute ONNX requires (Concat's axis), which has no ONNX default to test", async () => {
    const s = emittedSuite('concatenate');
    const c = s.cases.find((k) => !('axis' in k.args))!;
    expect(c).toBeDefined();
    const inputs = makeInputs(c.shapes, 'float64', s.domain, 1, s.inputs);
    const expected = await onnxExpected(s.oracle as never, inputs, c.full, s.floats, c.args);
    const got = call('concatenate', [], { ...inputs, ...c.args }) as Tensor;
    assertAllClose(Array.from(got.dataSync()), expected.values[0]!, tolerance('float64'), 'raf.op.concatenate');
  });
});
