// gen --check looks into hand kernels: an attr a kernel never reads is an error (unless the kernel opts out for it),
// and so is a kernel file for a dialect its spec no longer asks for.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { kernelProblems, namesRead } from '../../generators/src/kernel-use.ts';
import { buildModel } from '../../generators/src/spec/build.ts';
import { loadSpecText } from '../../generators/src/spec/load.ts';

const SPEC = `op: norm_like
doc: A hand-written op with an axis.
args:
  x: { type: Tensor }
  channel_axis: { type: int, default: 1, check: axis(x) }
  eps: { type: float, default: 0.00001 }
grad: none
dialects: { cpu: 10 }
`;

function modelOf(spec = SPEC) {
  const { spec: raw, errors } = loadSpecText('specs/nn/norm_like.yaml', spec);
  expect(errors).toEqual([]);
  const { model, errors: e } = buildModel([raw!]);
  expect(e.map(String)).toEqual([]);
  return model;
}

const roots: string[] = [];
function repo(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'raf-kernel-use-'));
  roots.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}
afterEach(() => roots.splice(0).forEach((r) => rmSync(r, { recursive: true, force: true })));

const CPU = 'runtime/src/dialects/cpu/kernels/norm_like.ts';

describe('hand kernels must read their attrs', () => {
  it('reports an attr the kernel destructures but never reads, at the arg in the spec', () => {
    const root = repo({ [CPU]: `export const k = ({ x }, { channel_axis, eps }, out) => x.size * eps;\n` });
    expect(kernelProblems(root, modelOf()).map(String)).toEqual([
      `specs/nn/norm_like.yaml:5:3: error: the cpu kernel of norm_like (${CPU}) never reads attr 'channel_axis'\n` +
        `  hint: use it in the kernel; if the cpu kernel genuinely does not need it (the output type already says it), write a comment "raf-op-ignores: channel_axis (why)" in ${CPU}`,
    ]);
  });

  it('accepts a kernel that reads every attr, by name or through the attrs object', () => {
    const destructured = `export const k = ({ x }, { channel_axis, eps }, out) => x.shape[channel_axis] * eps;\n`;
    const property = `export const k = ({ x }, attrs, out) => x.shape[attrs.channel_axis] * attrs.eps;\n`;
    for (const text of [destructured, property]) expect(kernelProblems(repo({ [CPU]: text }), modelOf())).toEqual([]);
  });

  it('accepts an explicit per-attr opt-out, and only for that attr', () => {
    const text = `// raf-op-ignores: channel_axis (this dialect only runs the default layout)\nexport const k = ({ x }, { channel_axis }, out) => x.size;\n`;
    expect(kernelProblems(repo({ [CPU]: text }), modelOf()).map((p) => p.message)).toEqual([
      `the cpu kernel of norm_like (${CPU}) never reads attr 'eps'`,
    ]);
  });

  it('leaves kernels built by a shared helper, or passing attrs whole, to that helper', () => {
    expect(namesRead(`export const k = reduction(ARGMAX);\n`)).toBeNull();
    expect(namesRead(`export const k = (i, attrs, out) => runWindow(i.x, attrs, out);\n`)).toBeNull();
    expect([...namesRead(`export const k = ({ x }, { a }, out) => x;\n`)!]).not.toContain('a');
  });

  it('reports an orphaned kernel: a webgpu file for an op whose spec does not ask for webgpu', () => {
    const root = repo({
      [CPU]: `export const k = ({ x }, { channel_axis, eps }, out) => x.shape[channel_axis] * eps;\n`,
      'runtime/src/dialects/webgpu/kernels/norm_like.ts': `export const k = () => null;\n`,
    });
    expect(kernelProblems(root, modelOf()).map(String)).toEqual([
      'specs/nn/norm_like.yaml:1:5: error: runtime/src/dialects/webgpu/kernels/norm_like.ts is a webgpu kernel of norm_like, but the spec does not ask for a hand-written webgpu kernel\n' +
        '  hint: add webgpu to dialects in specs/nn/norm_like.yaml (it is registered only then), or delete the file',
    ]);
  });
});
