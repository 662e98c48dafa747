// Generation into an operator author's package: built-in ops visible to specs, collisions refused with file:line:col,
// files relocated to src/, and every runtime import a package import (none by relative path).

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emitAll } from '../../generators/src/emit/index.ts';
import { relocate } from '../../generators/src/emit/package.ts';
import { loadModel } from '../../generators/src/generate.ts';
import { runtimeSpecifier, targetOf } from '../../generators/src/layout.ts';
import { SpecErrors } from '../../generators/src/spec/errors.ts';
import type { EmittedFile } from '../../generators/src/emit/files.ts';

const SWISH = `op: my_swish
doc: x times sigmoid(x).
args:
  x: { type: Tensor }
compute: x * sigmoid(x)
out: same(x)
dialects: { cpu: 10, webgpu: 20 }
`;
const CUBE = `op: my_cube
doc: x cubed, by a hand-written kernel; its gradient and oracle name built-in ops.
schema: exp
out: same(x)
grad:
  saves: [x]
  x: multiply(dy, x * x * 3)
fusion: opaque
dialects: { cpu: 10 }
tests:
  shapes: [[3]]
  oracle: multiply(x, multiply(x, x))
`;

let root: string;
let model: ReturnType<typeof loadModel>;
let emitted: ReturnType<typeof emitAll>;
const write = (path: string, text: string) => {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
};
const errorsOf = (fn: () => unknown): string[] => {
  try {
    fn();
  } catch (e) {
    if (e instanceof SpecErrors) return e.errors.map(String);
    throw e;
  }
  return [];
};

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'raf-op-package-'));
  write('package.json', JSON.stringify({ name: 'my-ops', dependencies: { '@raf-op/runtime': '^0.1.0' } }));
  write('specs/math/my_swish.yaml', SWISH);
  write('specs/math/my_cube.yaml', CUBE);
  // Loading 80-odd built-in specs and emitting is the slow part: once for the tests that only read the result.
  model = loadModel(root);
  emitted = emitAll(model);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('generation in a package', () => {
  it('tells this repository from a package', () => {
    expect(targetOf(join(__dirname, '../..'))).toBe('repo');
    expect(targetOf(root)).toBe('package');
  });

  it("sees the runtime's ops (gradient, oracle, schema reuse) but emits only the package's own", () => {
    expect(model.builtin?.has('multiply')).toBe(true);
    const { generated, stubs } = emitted;
    const paths = [...generated, ...stubs].map((f) => f.path);
    expect(paths).toContain('src/generated/api/my_cube.ts');
    expect(paths).toContain('src/dialects/cpu/kernels/my_cube.ts');
    expect(paths).toContain('src/generated/register.ts');
    expect(paths).toContain('test/generated/my_swish_dx.test.ts');
    expect(paths.filter((p) => p.startsWith('runtime/'))).toEqual([]);
    expect(paths.filter((p) => /\/(softmax|multiply)\.ts$/.test(p))).toEqual([]);
    // my_cube reuses exp's schema: its class comes from the extension entry.
    const api = generated.find((f) => f.path === 'src/generated/api/my_cube.ts')!.content;
    expect(api).toMatch(/import \{ ExpArgs \} from "@raf-op\/runtime\/extend";/);
    const grad = generated.find((f) => f.path === 'src/generated/grad/my_cube.ts')!.content;
    expect(grad).toMatch(/import \{ multiply \} from "@raf-op\/runtime";/);
  });

  it('imports the runtime only through its package entries', () => {
    const { generated, stubs } = emitted;
    const specifiers = new Set<string>();
    for (const f of [...generated, ...stubs].filter((f) => f.path.endsWith('.ts'))) {
      for (const m of f.content.matchAll(/(?:from|import) ['"]([^'"]+)['"]/g)) {
        const spec = m[1]!;
        if (spec.startsWith('.')) {
          // A relative import stays inside what the package itself holds.
          const to = join(dirname(f.path), spec);
          expect(to.startsWith('src/') || to.startsWith('test/'), `${f.path}: ${spec}`).toBe(true);
        } else specifiers.add(spec);
      }
    }
    expect([...specifiers].sort()).toEqual(['@raf-op/runtime', '@raf-op/runtime/extend', 'generator-raf-op/testing']);
  });

  it('renames runtime exports that clash in the extension entry, and refuses a path the package lacks', () => {
    const file = (path: string, content: string): EmittedFile => ({
      path,
      content,
      emitter: 't',
      source: 's',
      kind: 'generated',
    });
    const owned = new Set(['runtime/src/generated/dialects/webgpu/a.ts']);
    const [moved] = relocate(
      [
        file(
          'runtime/src/generated/dialects/webgpu/a.ts',
          "import { elementwise } from '../../../dialects/webgpu/elementwise.ts';\n",
        ),
      ],
      owned,
    );
    expect(moved!.path).toBe('src/generated/dialects/webgpu/a.ts');
    expect(moved!.content).toBe("import { webgpuElementwise as elementwise } from '@raf-op/runtime/extend';\n");
    expect(() =>
      relocate([file('runtime/src/generated/x.ts', "import { y } from '../../../elsewhere.ts';\n")], new Set()),
    ).toThrow(/reaches elsewhere.ts, which a user's package lacks/);
    // In this repository every specifier stays relative.
    expect(runtimeSpecifier('repo', 'runtime/src/dispatch.ts', () => false)).toBeNull();
  });

  it('refuses an op named like a built-in one, at its op: line', () => {
    write('specs/nn/softmax.yaml', 'op: softmax\ndoc: Mine.\nargs:\n  x: { type: Tensor }\nout: same(x)\n');
    try {
      expect(errorsOf(() => loadModel(root))).toEqual([
        "specs/nn/softmax.yaml:1:5: error: op 'softmax' is a built-in op of @raf-op/runtime (specs/nn/softmax.yaml)\n" +
          '  hint: choose another name (a gradient, oracle or schema: may still name the built-in op), or add overrides: true to give the built-in op a kernel of your own',
      ]);
    } finally {
      rmSync(join(root, 'specs/nn'), { recursive: true });
    }
  });

  it('refuses the wasm dialect, whose kernels live in the runtime binary', () => {
    write('specs/math/my_swish.yaml', SWISH.replace('cpu: 10, webgpu: 20', 'cpu: 10, wasm: 15'));
    try {
      const errors = errorsOf(() => loadModel(root));
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(/^specs\/math\/my_swish\.yaml:7:22: error: the wasm dialect is compiled into/);
    } finally {
      write('specs/math/my_swish.yaml', SWISH);
    }
  });
});
