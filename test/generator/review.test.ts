// `raf-op diff` and `raf-op breaking` on git repositories with two commits of specs: one case per kind of change.

import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { breakingReport, diffReport, review } from '../../generators/src/review/report.ts';
import { SpecErrors } from '../../generators/src/spec/errors.ts';
import { SPECS, edited, twoCommits, writeFiles } from './review-fixtures.ts';
import { raf } from '../support/raf-cli.ts';

const roots: string[] = [];
const repo = (edit: Record<string, string | null>) => {
  const root = twoCommits(edit);
  roots.push(root);
  return root;
};
afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

const SOFTMAX = 'specs/nn/softmax.yaml';
const AFFINE = 'specs/math/affine.yaml';
const EXP = 'specs/math/exp.yaml';

interface Case {
  readonly name: string;
  readonly edit: Record<string, string | null>;
  /** The op and the Markdown line of its semantic change. */
  readonly op: string;
  readonly change: string;
  /** Rule ids the breaking check reports, in order; empty when the change breaks nothing. */
  readonly rules: readonly string[];
}

const CASES: readonly Case[] = [
  {
    name: 'default changed',
    edit: edited(SOFTMAX, 'default: -1', 'default: 1'),
    op: 'softmax',
    change: '**default changed** `axis`: `-1` → `1`',
    rules: ['DEFAULT_CHANGED'],
  },
  {
    name: 'default removed',
    edit: edited(AFFINE, 'alpha: { type: float, default: 1.0 }', 'alpha: { type: float }'),
    op: 'affine',
    change: '**default changed** `alpha`: `1` → `required`',
    rules: ['DEFAULT_REMOVED', 'DEFAULT_REMOVED'], // affine and its derived affine_dx share the args
  },
  {
    name: 'arg deleted',
    edit: { [AFFINE]: SPECS[AFFINE]!.replace(/ {2}beta: .*\n/, '').replaceAll(' + beta', '') },
    op: 'affine',
    change: '**arg removed** `beta: float = 0`',
    // affine_dx loses beta too, but its derived compute (dy * alpha) stays the same.
    rules: ['ARG_DELETED', 'COMPUTE_CHANGED', 'ARG_DELETED'],
  },
  {
    name: 'arg renamed',
    edit: {
      [SOFTMAX]: SPECS[SOFTMAX]!.replace('axis: { type', 'dim: { type')
        .replace('axis: [-1, 0]', 'dim: [-1, 0]')
        .replace(/attrs: \{ axis: axis \}/g, 'attrs: { axis: dim }')
        .replace('softmax_dx(y, dy, axis)', 'softmax_dx(y, dy, dim)'),
    },
    op: 'softmax',
    change: '**arg renamed** `axis` → `dim`',
    rules: ['ARG_RENAMED'],
  },
  {
    name: 'args reordered',
    edit: { [AFFINE]: SPECS[AFFINE]!.replace(/( {2}alpha: .*\n)( {2}beta: .*\n)/, '$2$1') },
    op: 'affine',
    change: '**args reordered**: `x, alpha, beta` → `x, beta, alpha`',
    rules: ['ARG_REORDERED', 'ARG_REORDERED'],
  },
  {
    name: 'type narrowed',
    edit: edited(AFFINE, 'alpha: { type: float, default: 1.0 }', 'alpha: { type: int, default: 1 }'),
    op: 'affine',
    change: '**arg retyped** `alpha`: `float` → `int` (narrowed)',
    rules: ['TYPE_NARROWED', 'TYPE_NARROWED'],
  },
  {
    name: 'type widened',
    edit: edited(SOFTMAX, 'axis: { type: int, default: -1', 'axis: { type: int?, default: -1'),
    op: 'softmax',
    change: '**arg retyped** `axis`: `int` → `int?` (widened)',
    rules: [],
  },
  {
    name: 'optional arg appended',
    edit: edited(
      AFFINE,
      '  beta: { type: float, default: 0.0 }\n',
      '  beta: { type: float, default: 0.0 }\n  gamma: { type: float, default: 2.0 }\n',
    ),
    op: 'affine',
    change: '**arg added** `gamma: float = 2`, last',
    rules: [],
  },
  {
    name: 'required arg added',
    edit: edited(EXP, '  x: { type: Tensor }\n', '  x: { type: Tensor }\n  base: { type: float }\n'),
    op: 'exp',
    change: '**arg added** `base: float`, last (required)',
    rules: ['ARG_REQUIRED_ADDED'],
  },
  {
    name: 'check added',
    edit: edited(
      AFFINE,
      'alpha: { type: float, default: 1.0 }',
      'alpha: { type: float, default: 1.0, check: positive }',
    ),
    op: 'affine',
    change: '**checks** `alpha`: `none` → `positive`',
    rules: ['CHECK_ADDED', 'CHECK_ADDED'],
  },
  {
    name: 'output rule',
    edit: edited('specs/math/multiply.yaml', 'out: broadcast(a, b)', 'out: same(a)'),
    op: 'multiply',
    change: '**output rule**: `broadcast(a, b)` → `same(a)`',
    rules: ['OUTPUT_CHANGED'],
  },
  {
    name: 'gradient removed',
    edit: { [EXP]: SPECS[EXP]!.replace(/grad:\n(.*\n){2}/, 'grad: none\n') },
    op: 'exp',
    change: '**gradient**: `saves y; x: dy * y` → `none`',
    rules: ['GRAD_REMOVED'],
  },
  {
    name: 'gradient formula changed',
    edit: edited(EXP, 'saves: [y]\n  x: dy * y', 'saves: [x]\n  x: dy * exp(x)'),
    op: 'exp',
    change: '**gradient**: `saves y; x: dy * y` → `saves x; x: dy * exp(x)`',
    rules: [],
  },
  {
    name: 'cast rule',
    edit: edited(EXP, 'rule: never', 'rule: always'),
    op: 'exp',
    change: '**cast rule**: `never (data args: x)` → `always (data args: x)`',
    rules: [],
  },
  {
    name: 'fusion pattern',
    edit: edited(EXP, 'fusion: elemwise', 'fusion: injective'),
    op: 'exp',
    change: '**fusion pattern**: `elemwise` → `injective`',
    rules: [],
  },
  {
    name: 'relay mapping removed',
    edit: edited(EXP, 'relay: { op: exp }\n', ''),
    op: 'exp',
    change: '**relay mapping**: `exp(x)` → `none`',
    rules: ['RELAY_REMOVED'],
  },
  {
    name: 'onnx mapping changed',
    edit: edited(SOFTMAX, 'opset: 13', 'opset: 21'),
    op: 'softmax',
    change: '**onnx mapping**: `Softmax(x), opset 13 with axis = axis` → `Softmax(x), opset 21 with axis = axis`',
    rules: [],
  },
  {
    name: 'dialect level',
    edit: edited(SOFTMAX, 'dialects: { cpu: 10 }', 'dialects: { cpu: 12 }'),
    op: 'softmax',
    change: '**dialect level** `cpu`: `cpu 10 (hand kernel)` → `cpu 12 (hand kernel)`',
    rules: [],
  },
  {
    name: 'dialect removed',
    edit: edited(EXP, 'dialects: { cpu: 10 }', 'dialects: {}'),
    op: 'exp',
    change: '**dialect removed** `cpu`: `cpu 10 (generated kernel)` → `none`',
    rules: ['DIALECT_REMOVED'],
  },
  {
    name: 'op removed',
    edit: { [EXP]: null },
    op: 'exp',
    change: '**op removed** `exp(x: Tensor) -> Tensor` (id 0x95f50fe2 is retired)',
    rules: ['OP_REMOVED'],
  },
  {
    name: 'op added',
    edit: {
      'specs/math/negative.yaml':
        'op: negative\ndoc: -x.\nargs:\n  x: { type: Tensor }\ncompute: -x\ngrad:\n  saves: []\n  x: negative(dy)\ndialects: { cpu: 10 }\n',
    },
    op: 'negative',
    change: '**op added** `negative(x: Tensor) -> Tensor`, id 0xc08a6a84',
    rules: [],
  },
];

describe('raf-op breaking, one kind of change per case', () => {
  it.each(CASES)('$name', ({ edit, op, change, rules }) => {
    const root = repo(edit);
    const r = review(root, 'HEAD~1');
    const d = r.diff.ops.find((o) => o.op === op)!;
    expect(d.changes.map((c) => c.text)).toContain(change);
    expect(r.breaks.map((b) => b.rule)).toEqual(rules);
    const { failed, markdown } = breakingReport(root, 'HEAD~1');
    expect(failed).toBe(rules.length > 0);
    if (rules.length) expect(markdown).toContain(`| \`${rules[0]}\` | ${op} |`);
    else expect(markdown).toContain('No breaking changes.');
  });
});

describe('raf-op diff', () => {
  it('prints the semantic change and, under it, the generated hunks it caused', async () => {
    const root = repo(edited(SOFTMAX, 'default: -1', 'default: 1'));
    const { markdown, files } = await diffReport(root, { against: 'HEAD~1' });
    expect(markdown).toContain('### `softmax` (changed) — specs/nn/softmax.yaml');
    expect(markdown).toContain('- **default changed** `axis`: `-1` → `1` ⚠️ `DEFAULT_CHANGED`');
    const schema = files.find((f) => f.path === 'runtime/src/generated/schema/softmax.ts')!;
    expect(schema).toMatchObject({ op: 'softmax', status: 'updated', added: 1, removed: 1 });
    // Formatted with the repository's prettier config, as `npm run gen` writes them.
    expect(schema.hunks).toContain(
      "-    { name: 'axis', type: 'int', default: -1 },\n+    { name: 'axis', type: 'int', default: 1 },",
    );
    // The test that relies on the default is dropped: axis 1 is out of range for the [3] case. softmax_dx's
    // tests follow softmax's cases, since it is checked as softmax's VJP.
    expect(files.map((f) => `${f.op ?? '*'} ${f.path} +${f.added} -${f.removed}`)).toEqual([
      '* docs/ops/nn.md +2 -2',
      '* docs/reference/formulas.md +1 -1',
      'softmax runtime/src/generated/api/softmax.ts +2 -2',
      'softmax runtime/src/generated/schema/softmax.ts +1 -1',
      'softmax test/generated/softmax.test.ts +0 -1',
      'softmax_dx test/generated/softmax_dx.test.ts +0 -1',
    ]);
    expect(markdown).toContain('### Generated files of ops whose spec did not change');
    // The hunks of generated Markdown (with its own ``` fences) sit in a longer fence.
    expect(markdown).toContain('  ````diff\n');
  });

  it('lists new ops with their stubs and the registry entries they add', async () => {
    const root = repo({
      'specs/math/square.yaml':
        'op: square\ndoc: x * x.\nargs:\n  x: { type: Tensor }\nout: same(x)\ngrad: custom\ndialects: { cpu: 10 }\n',
    });
    const { markdown, files } = await diffReport(root, { against: 'HEAD~1', summary: true });
    expect(markdown).toContain('**op added** `square(x: Tensor) -> Tensor`');
    const square = files.filter((f) => f.op === 'square');
    expect(square.every((f) => f.status === 'created')).toBe(true);
    expect(square.filter((f) => f.kind === 'stub').map((f) => f.path)).toEqual([
      'runtime/src/dialects/cpu/kernels/square.ts',
      'runtime/src/ops/square.grad.ts',
    ]);
    expect(square.map((f) => f.path)).toEqual(
      expect.arrayContaining([
        'runtime/src/generated/schema/square.ts',
        'runtime/src/generated/grad/square.ts',
        'runtime/src/generated/dialects/cpu/square.ts',
        'test/generated/square.test.ts',
      ]),
    );
    expect(files.find((f) => f.path === 'runtime/src/generated/op-ids.ts')!.hunks).toContain(`+  square: 0x`);
    expect(markdown).not.toContain('```diff');
  });

  it('says so when an edit changes only formatting and comments', async () => {
    const root = repo({
      [SOFTMAX]: `# a comment\n${SPECS[SOFTMAX]!.replace('axis: { type: int, default: -1, check: axis(x) }', 'axis: {type: int, check: axis(x), default: -1}')}`,
    });
    expect((await diffReport(root, { against: 'HEAD~1' })).markdown).toBe(
      '## raf-op diff: `HEAD~1` → working tree\n\nNo spec changes.\n',
    );
  });

  it('names the side whose specs do not build', () => {
    const root = repo(edited(SOFTMAX, 'out: same(x)', 'out: same(z)'));
    expect(() => review(root, 'HEAD~1')).toThrow(SpecErrors);
    try {
      review(root, 'HEAD~1');
    } catch (e) {
      expect(String((e as SpecErrors).errors[0])).toMatch(
        /^specs\/nn\/softmax\.yaml:6:6: error: \[working tree\] output rule names 'z'/,
      );
    }
  });

  it('rejects a ref that is not a commit', () => {
    const root = repo({});
    expect(() => review(root, 'no-such-branch')).toThrow(`'no-such-branch' is not a commit`);
  });
});

describe('allow-list', () => {
  it('excuses an intended break, with its reason, and fails one without a reason', () => {
    const root = repo(edited(SOFTMAX, 'default: -1', 'default: 1'));
    writeFiles(root, {
      'specs/breaking-allow.json': JSON.stringify({
        allow: [{ rule: 'DEFAULT_CHANGED', op: 'softmax', arg: 'axis', reason: 'match torch.softmax dim=1' }],
      }),
    });
    const ok = breakingReport(root, 'HEAD~1');
    expect(ok.failed).toBe(false);
    expect(ok.markdown).toContain(
      "| `DEFAULT_CHANGED` | softmax | default of 'axis' changed from -1 to 1 | allowed: match torch.softmax dim=1 |",
    );
    writeFiles(root, {
      'specs/breaking-allow.json': JSON.stringify({ allow: [{ rule: 'DEFAULT_CHANGED', op: 'softmax' }] }),
    });
    const bad = breakingReport(root, 'HEAD~1');
    expect(bad.failed).toBe(true);
    expect(bad.markdown).toContain('✗ specs/breaking-allow.json: allow[0]: DEFAULT_CHANGED on softmax gives no reason');
  });

  it('reports entries that excuse nothing, and unknown rule ids', () => {
    const root = repo(edited(EXP, 'rule: never', 'rule: always'));
    writeFiles(root, {
      'specs/breaking-allow.json': JSON.stringify({
        allow: [
          { rule: 'OP_REMOVED', op: 'sum', reason: 'old' },
          { rule: 'NOPE', op: 'x', reason: 'r' },
        ],
      }),
    });
    const r = breakingReport(root, 'HEAD~1');
    expect(r.markdown).toContain(
      'Allow-list entries that excuse nothing against `HEAD~1` (remove once merged): OP_REMOVED sum',
    );
    expect(r.markdown).toContain('allow[1]: rule "NOPE" is not one of OP_REMOVED, ARG_DELETED');
    expect(r.failed).toBe(true);
  });
});

describe('op id lock', () => {
  const lock = (ops: Record<string, string>) =>
    `${JSON.stringify({ hash: 'fnv1a32("raf.op." + name)', ops }, null, 2)}\n`;

  it('fails when a locked id is dropped or changed by hand', () => {
    const root = twoCommits(
      { 'specs/op-ids.lock.json': lock({ exp: '0x95f50fe2' }) },
      { ...SPECS, 'specs/op-ids.lock.json': lock({ exp: '0x95f50fe2', gone: '0x12345678' }) },
    );
    roots.push(root);
    expect(review(root, 'HEAD~1').breaks.map((b) => `${b.rule} ${b.op}`)).toEqual(['OP_ID_LOCK_EDITED gone']);
    writeFiles(root, { 'specs/op-ids.lock.json': lock({ exp: '0x00000001', gone: '0x12345678' }) });
    expect(review(root, 'HEAD~1').breaks.map((b) => `${b.rule} ${b.op}: ${b.message}`)).toEqual([
      'OP_ID_CHANGED exp: op id 0x00000001 in specs/op-ids.lock.json is now 0x95f50fe2',
      'OP_ID_LOCK_EDITED exp: locked id 0x95f50fe2 was changed to 0x00000001',
    ]);
  });
});

describe('the CLI', () => {
  it('`breaking` exits 1 on a break and `diff` prints Markdown', async () => {
    const root = repo(edited(SOFTMAX, 'default: -1', 'default: 1'));
    // In-process (test/support/raf-cli.ts): the same code as the executable, without a tsx start-up per call.
    const run = async (...args: string[]) => {
      const r = await raf(...args, '--root', root);
      return { code: r.code, out: r.stdout };
    };
    const b = await run('breaking', '--against', 'HEAD~1');
    expect(b.code).toBe(1);
    expect(b.out).toContain('1 breaking change, 1 not allowed.');
    const d = await run('diff', '--against', 'HEAD~1', '--summary');
    expect(d.code).toBe(0);
    expect(d.out).toContain('- `runtime/src/generated/schema/softmax.ts` updated (+1 −1)');
  }, 60_000);
});
