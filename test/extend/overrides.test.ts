// `overrides: true`: a package's own kernel for a built-in op. It is a new dialect op (in the package's dialect
// `<package>:cpu`, on the CPU device) at a level above the built-in kernels, so dispatch picks it while the package is
// imported; the base op, its schema, gradient and the runtime's own dialect ops stay. Refusals name file:line:col.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emitAll } from '../../generators/src/emit/index.ts';
import { loadModel } from '../../generators/src/generate.ts';
import { SpecErrors } from '../../generators/src/spec/errors.ts';
import { allDialectOps, getOp, grad, ops, tensor, withDialect, type Tensor } from '../../runtime/src/index.ts';

const RUNTIME = resolve(__dirname, '../../runtime/src');
const OVERRIDE = `op: relu
overrides: true
doc: relu by a loop of our own, counted.
dialects: { cpu: 30 }
`;
// The hand-written kernel: relu, and a count of its calls so the test sees which kernel dispatch chose.
const KERNEL = `import { allocOut, finish } from '@raf-op/runtime/extend';
import type { ReluKernel } from '@raf-op/runtime/extend';
export const calls = { n: 0 };
export const reluCpu: ReluKernel = ({ x }, _attrs, out) => {
  calls.n++;
  const y = allocOut(out);
  const ys = y.dataSync();
  const xs = x.dataSync();
  for (let i = 0; i < ys.length; i++) ys[i] = xs[i]! > 0 ? xs[i]! : 0;
  return finish(y);
};
`;

let root: string;
const write = (path: string, text: string) => {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
};
const errorsOf = (fn: () => unknown): string[] => {
  try {
    fn();
  } catch (e) {
    if (e instanceof SpecErrors) return e.errors.map((x) => String(x).split('\n')[0]!);
    throw e;
  }
  return [];
};

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'raf-op-override-'));
  write('package.json', JSON.stringify({ name: 'my-ops', dependencies: { '@raf-op/runtime': '^0.1.0' } }));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('overrides: true in a package', () => {
  it('refuses what an override cannot do, each at its file:line:col', () => {
    const cases: [string, string][] = [
      [
        'op: my_relu\noverrides: true\ndialects: { cpu: 30 }\n',
        "specs/nn/o.yaml:1:5: error: op 'my_relu' is not a built-in op of @raf-op/runtime: there is nothing to override",
      ],
      [
        'op: relu\noverrides: true\nargs:\n  x: { type: Tensor }\ndialects: { cpu: 30 }\n',
        "specs/nn/o.yaml:3:1: error: an override only adds a kernel: 'args' would change the built-in op 'relu' (its schema, type function, gradient, casts and tests stay the runtime's)",
      ],
      [
        'op: relu\noverrides: true\ndialects: { cpu: 12 }\n',
        "specs/nn/o.yaml:3:18: error: level 12 does not outrank the built-in wasm kernel of 'relu' (level 15): dispatch would never pick this one",
      ],
      [
        'op: relu\noverrides: true\ndialects: { webgpu: 30 }\n',
        "specs/nn/o.yaml:3:13: error: an override's kernel runs on the CPU only: 'webgpu' kernels cannot be added to a built-in op from a package",
      ],
      [
        'op: relu\noverrides: yes\ndialects: { cpu: 30 }\n',
        'specs/nn/o.yaml:2:12: error: overrides: must be true (the spec then adds a kernel to the built-in op it names)',
      ],
    ];
    // One load (the built-in specs are the slow part): each case in its own file, each error at its own place.
    cases.forEach(([text], i) => write(`specs/nn/o${i}.yaml`, text));
    expect(errorsOf(() => loadModel(root))).toEqual(cases.map(([, error], i) => error.replace('o.yaml', `o${i}.yaml`)));
    cases.forEach((_, i) => rmSync(join(root, `specs/nn/o${i}.yaml`)));
  });

  it('is refused in this repository, whose ops are changed in their own specs', () => {
    const repo = mkdtempSync(join(tmpdir(), 'raf-op-override-repo-'));
    try {
      mkdirSync(join(repo, 'specs/nn'), { recursive: true });
      writeFileSync(join(repo, 'specs/nn/relu.yaml'), OVERRIDE);
      expect(errorsOf(() => loadModel(repo))).toEqual([
        "specs/nn/relu.yaml:2:1: error: overrides: is for a spec in an operator package (it adds that package's kernel to a built-in op)",
      ]);
    } finally {
      rmSync(repo, { recursive: true, force: true });
    }
  });

  it("registers a dialect op that dispatch picks over the built-in kernels, leaving the base op's registration", async () => {
    write('specs/nn/relu.yaml', OVERRIDE);
    const model = loadModel(root);
    expect(model.overrides).toEqual([
      {
        op: 'relu',
        file: 'specs/nn/relu.yaml',
        doc: 'relu by a loop of our own, counted.',
        device: 'cpu',
        dialect: 'my-ops:cpu',
        level: 30,
      },
    ]);
    const { generated, stubs } = emitAll(model);
    const paths = [...generated, ...stubs].map((f) => f.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'src/generated/overrides/relu.ts',
        'src/dialects/cpu/kernels/relu.ts',
        'test/generated/relu.test.ts',
      ]),
    );
    // No second definition of the op: no api, schema, type or gradient file for relu in the package.
    expect(paths.filter((p) => /\/(api|schema|type|grad)\/relu\.ts$/.test(p))).toEqual([]);
    const register = generated.find((f) => f.path === 'src/generated/register.ts')!.content;
    expect(register).toContain("import './overrides/relu.ts';");
    const test = generated.find((f) => f.path === 'test/generated/relu.test.ts')!.content;
    expect(test).toMatch(/["']?dialects["']?:\s*\[\s*'cpu',\s*'my-ops:cpu'\s*\]/);

    // Run the generated registration against this checkout's runtime, with the kernel above.
    const extend = pathToFileURL(join(RUNTIME, 'extend.ts')).href;
    const local = (text: string) => text.replace(/["']@raf-op\/runtime\/extend["']/g, `'${extend}'`);
    const module = generated.find((f) => f.path === 'src/generated/overrides/relu.ts')!.content;
    expect(module).toMatch(/from ["']@raf-op\/runtime\/extend["']/);
    write('src/generated/overrides/relu.ts', local(module));
    write('src/dialects/cpu/kernels/relu.ts', local(KERNEL));
    const base = getOp('relu');
    const before = allDialectOps('relu').map((d) => `${d.dialect}@${d.level}`);
    expect(before).not.toContain('my-ops:cpu@30');
    const x = tensor([[-2, -0.5, 0, 1.5, 3]], { dtype: 'float64' });
    const want = [0, 0, 0, 1.5, 3];
    expect(Array.from(ops.relu(x).dataSync())).toEqual(want);

    const { calls } = (await import(pathToFileURL(join(root, 'src/dialects/cpu/kernels/relu.ts')).href)) as {
      calls: { n: number };
    };
    await import(pathToFileURL(join(root, 'src/generated/overrides/relu.ts')).href);
    // A new dialect op on top; every built-in one is still there, and the op's definition is the same object.
    expect(allDialectOps('relu').map((d) => `${d.dialect}@${d.level}`)).toEqual(['my-ops:cpu@30', ...before]);
    expect(getOp('relu')).toBe(base);
    expect(Array.from(ops.relu(x).dataSync())).toEqual(want);
    expect(calls.n).toBe(1);
    // The built-in cpu kernel is still reachable by pinning its dialect, and the package's by pinning its own.
    expect(Array.from(withDialect(['cpu'], () => ops.relu(x)).dataSync())).toEqual(want);
    expect(calls.n).toBe(1);
    withDialect(['my-ops:cpu'], () => ops.relu(x));
    expect(calls.n).toBe(2);
    // The base op's gradient still applies (dx = dy where x > 0), now through the override's forward.
    const [dx] = grad((t: Tensor) => ops.relu(t))(tensor([[-1, 2]], { dtype: 'float64' }));
    expect(Array.from(dx!.dataSync())).toEqual([0, 1]);
  });
});
