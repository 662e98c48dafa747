// The seeds' "add an operator" checklist for one op, each step marked generated, stub to fill, or not applicable.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EmittedFile } from '../emit/files.ts';
import { paths } from '../emit/files.ts';
import { packagePath } from '../layout.ts';
import type { StubFile } from '../emit/stubs.ts';
import type { Model, OpModel } from '../spec/model.ts';

/** `written`: a hand-written piece whose stub has been filled in (it no longer throws "not implemented"). */
export type ItemStatus = 'generated' | 'stub' | 'written' | 'n/a';

export interface ChecklistItem {
  /** The step's name in RAF's guide (schema, symbol, declare, type, gradient, ...). */
  readonly step: string;
  readonly status: ItemStatus;
  /** Where it lives, or why it does not apply. */
  readonly detail: string;
}

export function checklist(
  model: Model,
  opName: string,
  generated: readonly EmittedFile[],
  stubs: readonly StubFile[],
  root?: string,
): ChecklistItem[] {
  const op = model.ops.find((o) => o.name === opName)!;
  // In a user's package the files were relocated (runtime/src/ → src/): look them up and show them there.
  const at = model.builtin ? packagePath : (path: string) => path;
  const made = new Set(generated.map((f) => f.path));
  const stubbed = new Set(stubs.map((f) => f.path));
  const file = (path: string, note = ''): ChecklistItem['detail'] => `${at(path)}${note}`;
  const items: ChecklistItem[] = [];
  const add = (step: string, status: ItemStatus, detail: string) => items.push({ step, status, detail });

  add(
    'schema',
    'generated',
    file(paths.schema(op.schema), op.schema !== op.name ? ` (reuses ${op.schema}'s schema)` : ''),
  );
  add('symbol', 'generated', file(paths.api(op.name)));
  const rule = op.out.shape.kind === 'custom' || op.out.shape.kind === 'host';
  if (op.out.shape.kind === 'host') add('declare', 'stub', file(paths.ruleStub(op.name), ' (host value)'));
  else add('declare', 'generated', file(paths.type(op.name)));
  add(
    'type',
    rule ? 'stub' : 'generated',
    rule ? file(paths.ruleStub(op.name), ' (output rule)') : file(paths.type(op.name)),
  );
  add('gradient', ...gradient(op, model));
  add(
    'relay conversion',
    op.relay ? 'generated' : 'n/a',
    op.relay ? file(paths.relay(op.name), ` (${op.relay.op})`) : 'no relay mapping in the spec',
  );
  add(
    'cast rule',
    op.cast ? 'generated' : 'n/a',
    op.cast ? file(paths.passes(op.name), ` (${op.cast.rule})`) : 'no cast rule in the spec',
  );
  add('fusion pattern', 'generated', file(paths.passes(op.name), ` (${op.fusion})`));
  for (const d of op.dialects) {
    const step = `dialect ${d.name}`;
    const kernel = paths.kernelStub(d.name, op.name);
    if (op.out.shape.kind === 'host') add(step, 'n/a', 'a host op has no kernel');
    else if (d.kernel === 'generated' && made.has(at(paths.dialect(d.name, op.name))))
      add(step, 'generated', file(paths.dialect(d.name, op.name), ' (kernel from compute)'));
    else if (stubbed.has(at(kernel))) add(step, 'stub', file(kernel));
    else
      add(
        step,
        'stub',
        `raf-op emits nothing for the ${d.name} dialect yet: write raf.op.${d.name}.${op.name} by hand`,
      );
  }
  add('tests', 'generated', file(paths.test(op.name), ` (${oracle(op)})`));
  // A stub that exists and no longer throws "not implemented" has been written (a --force rerun keeps it).
  if (root === undefined) return items;
  return items.map((i) => {
    const path = i.detail.split(' ')[0]!;
    if (i.status !== 'stub' || !existsSync(join(root, path))) return i;
    return readFileSync(join(root, path), 'utf8').includes('not implemented') ? i : { ...i, status: 'written' };
  });
}

function gradient(op: OpModel, model: Model): [ItemStatus, string] {
  const at = model.builtin ? packagePath : (path: string) => path;
  switch (op.grad.kind) {
    case 'none':
      return ['n/a', 'grad: none'];
    case 'custom':
      return ['stub', at(paths.gradStub(op.name))];
    case 'derived': {
      const dx = model.ops.find((o) => o.name === (op.grad as { dxOp: string }).dxOp);
      return [
        'generated',
        `${at(paths.grad(op.name))} (derived: backward op ${dx?.name}, d/dx = ${dx?.compute?.source})`,
      ];
    }
    case 'formulas':
      return [
        'generated',
        `${at(paths.grad(op.name))} (${op.grad.inputs.map((i) => `${i.name}: ${i.source}`).join('; ')})`,
      ];
  }
}

function oracle(op: OpModel): string {
  if (op.onnx) return `forward vs onnxruntime ${op.onnx.op}${op.grad.kind === 'none' ? '' : ', gradcheck'}`;
  if (op.compute) return `forward vs its compute expression${op.grad.kind === 'none' ? '' : ', gradcheck'}`;
  return `no forward oracle: add an onnx mapping${op.grad.kind === 'none' ? '' : '; gradcheck'}`;
}

const MARK: Record<ItemStatus, string> = {
  generated: 'generated',
  stub: 'TO WRITE ',
  written: 'written  ',
  'n/a': 'n/a      ',
};

export function formatChecklist(op: string, items: readonly ChecklistItem[]): string {
  const width = Math.max(...items.map((i) => i.step.length));
  const lines = items.map(
    (i) =>
      `  [${i.status === 'generated' || i.status === 'written' ? 'x' : i.status === 'stub' ? ' ' : '-'}] ${i.step.padEnd(width)}  ${MARK[i.status]}  ${i.detail}`,
  );
  const todo = items.filter((i) => i.status === 'stub').length;
  const tail = todo
    ? `${todo} hand-written piece${todo === 1 ? '' : 's'} left: each stub throws "not implemented: ..." until you fill it in.`
    : `Nothing left by hand: raf.op.${op} is complete.`;
  return `Checklist for raf.op.${op} (RAF's "add an operator" steps):\n${lines.join('\n')}\n${tail}`;
}
