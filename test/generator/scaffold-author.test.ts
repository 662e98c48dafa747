// Issue 14's scaffolder items, without writing a tree: tuple outputs as flags and in the spec, wasm in --dialects,
// the ONNX mapping offered by name or by compute, --force starting from the existing spec, the saves default,
// and the checklist telling written kernels from stubs.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseArgs, parseDialects } from '../../generators/src/scaffold/answers.ts';
import { askAll, type Asker } from '../../generators/src/scaffold/ask.ts';
import { checklist } from '../../generators/src/scaffold/checklist.ts';
import { existingAnswers } from '../../generators/src/scaffold/existing.ts';
import { ScaffoldError } from '../../generators/src/scaffold/names.ts';
import { onnxOffer } from '../../generators/src/scaffold/onnx-match.ts';
import { dataArgs, specData } from '../../generators/src/scaffold/spec-text.ts';
import { buildModel } from '../../generators/src/spec/build.ts';
import { loadSpecText } from '../../generators/src/spec/load.ts';
import type { Model } from '../../generators/src/spec/model.ts';
import { emitTests } from '../../generators/src/emit/tests.ts';

const TOPK = `op: topk
doc: Top k.
args:
  x: { type: Tensor }
  k: { type: int, check: nonneg }
  axis: { type: int, default: -1, check: axis(x) }
out: { tuple: custom(topk_rule), outputs: [values, indices] }
grad: none
fusion: opaque
cast: { rule: never, data_args: 1 }
onnx: { op: TopK, opset: 11, inputs: [x, k], attrs: { axis: axis } }
dialects: { cpu: 10, webgpu: 20 }
tests:
  shapes: [[6], [3, 5]]
  grid: { k: [1, 2] }
  dtypes: [float32, int32]
`;

function modelOf(specs: Record<string, string>): Model {
  const raws = Object.entries(specs).map(([f, t]) => loadSpecText(f, t).spec!);
  const { model, errors } = buildModel(raws);
  expect(errors.map(String)).toEqual([]);
  return model;
}

const noPrompt: Asker = async () => {
  throw new Error('no question may be asked');
};

describe('multi-output ops in the scaffolder', () => {
  it('takes --out "tuple: custom(fn)" with --outputs and writes out: { tuple, outputs }', async () => {
    const ctx = { model: modelOf({}) };
    const answers = await askAll(
      ctx,
      {
        flags: {
          NAME: 'pick',
          category: 'tensor',
          args: 'x: Tensor, k: int',
          out: 'tuple: custom(pick_rule)',
          outputs: 'values, indices',
          grad: 'none',
        },
        yes: true,
      },
      noPrompt,
    );
    expect(answers.out).toBe('tuple: custom(pick_rule)');
    expect(answers.outputs).toEqual(['values', 'indices']);
    expect(specData(answers, ['x'], ['k']).out).toEqual({ tuple: 'custom(pick_rule)', outputs: ['values', 'indices'] });
  });

  it('refuses a tuple without a rule, naming the form to write', async () => {
    const ctx = { model: modelOf({}) };
    const run = askAll(ctx, { flags: { NAME: 'pick', args: 'x: Tensor', out: 'tuple: same(x)' }, yes: true }, noPrompt);
    await expect(run).rejects.toThrow('write tuple: custom(pick_rule), and name the outputs with --outputs');
  });

  it('a spec with named outputs gives the ONNX oracle that many outputs and takes one oracle formula per output', () => {
    const model = modelOf({ 'specs/tensor/topk.yaml': TOPK });
    expect(model.ops[0]!.out.outputs).toEqual(['values', 'indices']);
    const test = emitTests(model)[0]!.content;
    // The suite literal, before prettier: quoted keys, no spaces.
    expect(test).toContain("'op':'TopK','opset':11,'inputs':['x','k'],'attrs':{'axis':'axis'},'outputs':2}");
    expect(test).toContain("'outputs':['values','indices']");
    const bad = TOPK.replace(
      'dtypes: [float32, int32]',
      'dtypes: [float32, int32]\n  oracle: { values: x, indicez: x }',
    ).replace(/onnx: .*\n/, '');
    const raws = [loadSpecText('specs/tensor/topk.yaml', bad).spec!];
    expect(buildModel(raws).errors.map(String)).toEqual([
      "specs/tensor/topk.yaml:16:24: error: tests.oracle gives a formula for 'indicez', which is not an output of topk\n  hint: did you mean 'indices'?",
      "specs/tensor/topk.yaml:16:11: error: tests.oracle has no formula for output 'indices'\n  hint: give one formula per output (values, indices)",
    ]);
  });
});

describe('smaller scaffolder items', () => {
  it('the default cast rule does not count index-like tensor args as data', () => {
    expect(dataArgs(['x', 'indices'])).toBe(1);
    expect(dataArgs(['condition', 'x', 'y'])).toEqual(['x', 'y']);
    expect(dataArgs(['a', 'b'])).toBe(2);
  });

  it('records each accepted answer by flag, so a refused scaffold can be resumed', async () => {
    const record: Record<string, string> = {};
    const run = askAll(
      { model: modelOf({}) },
      { flags: { NAME: 'my_op', args: 'x: Tensor', fusion: 'sideways' }, yes: true, record },
      noPrompt,
    );
    await expect(run).rejects.toThrow("--fusion: fusion pattern 'sideways' is not one of");
    expect(record).toEqual({ NAME: 'my_op', args: 'x: Tensor' });
  });

  it("a missing backward op's hint never points at the forward op itself", () => {
    const spec = 'op: my_op\ndoc: Mine.\nargs:\n  x: { type: Tensor }\ngrad:\n  saves: []\n  x: my_op_dx(dy)\n';
    const errors = buildModel([loadSpecText('specs/nn/my_op.yaml', spec).spec!]).errors.map(String);
    expect(errors).toEqual([
      "specs/nn/my_op.yaml:7:6: error: backward op 'my_op_dx' is defined by no spec\n  hint: write its spec (npm run new -- my_op_dx); or scaffold my_op with npm run new, which scaffolds my_op_dx with it; or write grad: custom",
    ]);
  });

  it('accepts wasm in --dialects', () => {
    expect(parseDialects('cpu=10, wasm=15, webgpu=20')).toEqual({ cpu: 10, wasm: 15, webgpu: 20 });
    expect(() => parseDialects('cuda=3')).toThrow(ScaffoldError);
  });

  it('offers the ONNX mapping when the name or the compute expression is an ONNX operator', () => {
    const x = parseArgs('x: Tensor');
    expect(onnxOffer('hardswish', null, x)?.text).toBe('HardSwish opset=14');
    expect(onnxOffer('my_act', 'x * clamp(x + 3, 0, 6) / 6', x)?.text).toBe('HardSwish opset=14');
    expect(
      onnxOffer('instance_norm', null, parseArgs('x: Tensor, scale: Tensor, bias: Tensor, eps: float = 0.00001'))?.text,
    ).toBe('InstanceNormalization epsilon=eps');
    expect(onnxOffer('topk', null, parseArgs('x: Tensor, k: int, axis: int = -1'))?.text).toBe(
      'TopK opset=11 inputs=x,k axis=axis',
    );
    expect(onnxOffer('double_it', 'x * 2', x)).toBeUndefined();
  });

  it("does not save 'y' for a formula reading an arg named y, and says none for nothing", async () => {
    const ctx = { model: modelOf({}) };
    const answers = await askAll(
      ctx,
      { flags: { NAME: 'axpy', args: 'a: Tensor, b: Tensor, y: int = 1', grad: 'a: dy, b: dy' }, yes: true },
      noPrompt,
    );
    expect(answers.grad).toEqual({ kind: 'formulas', saves: [], formulas: { a: 'dy', b: 'dy' } });
  });

  it("--force starts from the existing spec's answers", async () => {
    const model = modelOf({ 'specs/tensor/topk.yaml': TOPK });
    const existing = existingAnswers(model.ops[0]!);
    expect(existing).toMatchObject({
      args: 'x: Tensor, k: int check nonneg, axis: int = -1 check axis(x)',
      out: 'tuple: custom(topk_rule)',
      outputs: 'values, indices',
      onnx: 'TopK opset=11 inputs=x,k axis=axis',
      dialects: 'cpu=10, webgpu=20',
      shapes: '[[6], [3, 5]]',
    });
    const answers = await askAll({ model }, { flags: { NAME: 'topk' }, yes: true }, noPrompt);
    expect(specData(answers, ['x'], ['k', 'axis'])).toMatchObject({
      args: { k: { type: 'int', check: 'nonneg' } },
      out: { tuple: 'custom(topk_rule)', outputs: ['values', 'indices'] },
      onnx: { op: 'TopK', opset: 11, inputs: ['x', 'k'], attrs: { axis: 'axis' } },
      dialects: { cpu: 10, webgpu: 20 },
    });
  });

  it('the checklist marks a filled-in kernel written and an untouched stub TO WRITE', () => {
    const model = modelOf({ 'specs/tensor/topk.yaml': TOPK });
    const root = mkdtempSync(join(tmpdir(), 'raf-checklist-'));
    try {
      const put = (p: string, t: string) => {
        mkdirSync(dirname(join(root, p)), { recursive: true });
        writeFileSync(join(root, p), t);
      };
      put('runtime/src/dialects/cpu/kernels/topk.ts', 'export const topkCpu = () => [];\n');
      put('runtime/src/dialects/webgpu/kernels/topk.ts', "throw new Error('not implemented: raf.op.webgpu.topk');\n");
      const stubs = ['cpu', 'webgpu'].map((d) => ({ path: `runtime/src/dialects/${d}/kernels/topk.ts` }));
      const items = checklist(model, 'topk', [], stubs as never, root);
      expect(items.find((i) => i.step === 'dialect cpu')!.status).toBe('written');
      expect(items.find((i) => i.step === 'dialect webgpu')!.status).toBe('stub');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
