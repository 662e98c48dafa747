// A backward op and its forward op scaffold in either order, or together: a forward op whose gradient calls a backward
// op no spec defines gets that op scaffolded with it; scaffolded first, the backward op is simply there to call.
// Both ways end in a tree that `gen --check` accepts, with the forward op's generated files the same either way.

import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generate } from '../../generators/src/generate.ts';
import { prepareScaffold } from '../../generators/src/scaffold/run.ts';
import { apply } from '../../generators/src/write.ts';
import { REPO, smallRepo } from './robust-repo.ts';

const roots: string[] = [];
afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

const noPrompt = async (): Promise<string> => {
  throw new Error('no question may be asked');
};

/** What `npm run new -- ... --yes` does, in-process. */
async function scaffold(root: string, flags: Record<string, string>) {
  const prepared = await prepareScaffold(root, { flags, yes: true, resume: false, force: false }, noPrompt);
  apply(root, prepared.plan.changes);
  return prepared.plan;
}

async function freshRoot(prefix: string): Promise<string> {
  const root = smallRepo(prefix);
  roots.push(root);
  // The scaffolder recognizes this repository by its spec schema.
  mkdirSync(join(root, 'generators/schema'), { recursive: true });
  cpSync(join(REPO, 'generators/schema/op-spec.schema.json'), join(root, 'generators/schema/op-spec.schema.json'));
  await generate(root);
  return root;
}

const FORWARD = {
  NAME: 'my_scale',
  args: 'x: Tensor, alpha: float = 2',
  out: 'same(x)',
  grad: 'x: my_scale_dx(dy, alpha)',
};
const BACKWARD = { NAME: 'my_scale_dx', args: 'dy: Tensor, alpha: float = 2', out: 'same(dy)', grad: 'none' };
const read = (root: string, p: string) => readFileSync(join(root, p), 'utf8');

describe('backward and forward ops in either order', () => {
  let together: string;
  let backwardFirst: string;

  it('forward first: the backward op its gradient calls is scaffolded with it, and the tree checks', async () => {
    together = await freshRoot('order-fwd');
    const plan = await scaffold(together, FORWARD);
    expect(plan.together.map((t) => t.op)).toEqual(['my_scale_dx']);
    expect(read(together, 'specs/nn/my_scale_dx.yaml')).toContain(
      'args:\n  dy: { type: Tensor }\n  alpha: { type: float, default: 2 }\nout: same(dy)\ngrad: none\n',
    );
    for (const p of ['runtime/src/generated/api/my_scale_dx.ts', 'runtime/src/dialects/cpu/kernels/my_scale_dx.ts'])
      expect(existsSync(join(together, p)), p).toBe(true);
    expect((await generate(together, { check: true })).changes).toEqual([]);
  });

  it('backward first, then forward: nothing more is scaffolded, and the forward op comes out the same', async () => {
    backwardFirst = await freshRoot('order-bwd');
    expect((await scaffold(backwardFirst, BACKWARD)).together).toEqual([]);
    expect((await scaffold(backwardFirst, FORWARD)).together).toEqual([]);
    expect((await generate(backwardFirst, { check: true })).changes.map((c) => `${c.action} ${c.path}`)).toEqual([]);
    for (const p of ['grad/my_scale.ts', 'api/my_scale.ts', 'type/my_scale_dx.ts', 'schema/my_scale_dx.ts'])
      expect(read(backwardFirst, `runtime/src/generated/${p}`), p).toBe(read(together, `runtime/src/generated/${p}`));
  });

  it('refuses to guess a backward op called with an expression, naming the form to write', async () => {
    const root = await freshRoot('order-expr');
    await expect(scaffold(root, { ...FORWARD, grad: 'x: my_scale_dx(dy * 2, alpha)' })).rejects.toThrow(
      /my_scale_dx is scaffolded with my_scale, from its call in the gradient; argument 1 is an expression/,
    );
    expect(existsSync(join(root, 'specs/nn/my_scale.yaml'))).toBe(false);
  });
});
