// Formulas whose first operands are plain numbers (`3 * alpha * x`): the numbers multiply as numbers, a weak scalar
// that takes the tensor's dtype, so gradient and oracle formulas work at float64 (they once built a float32 scalar
// tensor that a float64 operand refused).

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { emitAll } from '../../generators/src/emit/index.ts';
import { loadModel } from '../../generators/src/generate.ts';
import { evaluateFormula, parseFormula } from '../../generators/src/spec/formula.ts';
import { call, tensor, type Tensor } from '../../runtime/src/index.ts';
import type { GradDef } from '../../runtime/src/registry.ts';

const XS = [-1.5, 0.25, 2];
const RUNTIME = resolve(__dirname, '../../runtime/src');
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('formulas that start with two numbers', () => {
  it('evaluate an oracle at float64: 3 * alpha * x', () => {
    const x = tensor([XS], { dtype: 'float64' });
    const y = evaluateFormula(parseFormula('3 * alpha * x - alpha / 2'), { alpha: 0.7, x }, (op, args) =>
      call(op, args),
    ) as Tensor;
    expect(y.dtype).toBe('float64');
    const want = XS.map((v) => 3 * 0.7 * v - 0.7 / 2);
    Array.from(y.dataSync()).forEach((v, i) => expect(v).toBeCloseTo(want[i]!, 14));
    // Numbers alone stay numbers; an op that is not arithmetic is still called.
    expect(evaluateFormula(parseFormula('-(2 * alpha)'), { alpha: 3 }, () => 'called')).toBe(-6);
    expect(evaluateFormula(parseFormula('exp(alpha)'), { alpha: 3 }, (op) => op)).toBe('exp');
  });

  it('emit a gradient that runs at float64: dy * 3 * alpha * x * x written as 3 * alpha * multiply(dy, x * x)', async () => {
    const root = mkdtempSync(join(tmpdir(), 'raf-op-scalars-'));
    dirs.push(root);
    const write = (path: string, text: string) => {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    };
    write('package.json', JSON.stringify({ name: 'my-ops', dependencies: { '@raf-op/runtime': '^0.1.0' } }));
    write(
      'specs/math/my_cube.yaml',
      `op: my_cube
doc: alpha times x cubed.
args:
  x: { type: Tensor }
  alpha: { type: float, default: 1 }
out: same(x)
grad:
  saves: [x]
  x: 3 * alpha * multiply(dy, x * x)
fusion: opaque
dialects: { cpu: 10 }
`,
    );
    const file = emitAll(loadModel(root)).generated.find((f) => f.path === 'src/generated/grad/my_cube.ts')!;
    expect(file.content).toContain('x: multiply((3 * c.alpha), multiply(c.dy, multiply(c.x, c.x)))');
    // Run the emitted module against this checkout's runtime sources.
    const text = file.content
      .replace(/["']@raf-op\/runtime\/extend["']/g, `'${pathToFileURL(join(RUNTIME, 'extend.ts')).href}'`)
      .replace(/["']@raf-op\/runtime["']/g, `'${pathToFileURL(join(RUNTIME, 'index.ts')).href}'`);
    write('grad.ts', text);
    const mod = (await import(pathToFileURL(join(root, 'grad.ts')).href)) as Record<string, GradDef | null>;
    const def = Object.values(mod).find((v) => v && typeof v === 'object' && 'fn' in v)!;
    const x = tensor([XS], { dtype: 'float64' });
    const dy = tensor([[1, -2, 0.5]], { dtype: 'float64' });
    const dx = (def.fn({ x, dy, alpha: 0.7 } as never) as { x: Tensor }).x;
    expect(dx.dtype).toBe('float64');
    const want = XS.map((v, i) => 3 * 0.7 * [1, -2, 0.5][i]! * v * v);
    Array.from(dx.dataSync()).forEach((v, i) => expect(v).toBeCloseTo(want[i]!, 14));
  });
});
