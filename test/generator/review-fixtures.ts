// Small, valid spec sets for the review and docs tests, and git repositories in temporary folders holding them.

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export type Files = Record<string, string>;

/** The repository's prettier config, so generated texts in a temporary repository format as in this one. */
const PRETTIER: Files = {
  '.prettierrc.json': readFileSync(join(import.meta.dirname, '../../.prettierrc.json'), 'utf8'),
};

export const SPECS: Files = {
  'specs/nn/softmax.yaml': `op: softmax
doc: Softmax along one axis.
args:
  x: { type: Tensor }
  axis: { type: int, default: -1, check: axis(x) }
out: same(x)
grad:
  saves: [y]
  x: softmax_dx(y, dy, axis)
fusion: opaque
cast: { rule: never, data_args: 1 }
relay: { op: nn.softmax, attrs: { axis: axis }, defaults: { axis: -1 } }
onnx: { op: Softmax, opset: 13, attrs: { axis: axis }, defaults: { axis: -1 } }
dialects: { cpu: 10 }
tests: { shapes: [[3], [3, 2]], grid: { axis: [-1, 0] } }
`,
  'specs/nn/softmax_dx.yaml': `op: softmax_dx
doc: Backward of softmax from its output.
args:
  y: { type: Tensor }
  dy: { type: Tensor, check: like(y) }
  axis: { type: int, default: -1, check: axis(y) }
out: same(y)
grad: none
fusion: opaque
cast: { rule: never, data_args: 2 }
dialects: { cpu: 10 }
`,
  'specs/math/exp.yaml': `op: exp
doc: Elementwise e^x.
args:
  x: { type: Tensor }
compute: exp(x)
grad:
  saves: [y]
  x: dy * y
fusion: elemwise
cast: { rule: never, data_args: 1 }
relay: { op: exp }
onnx: { op: Exp }
dialects: { cpu: 10 }
`,
  'specs/math/multiply.yaml': `op: multiply
doc: Product of a and b, broadcasting.
args:
  a: { type: Tensor }
  b: { type: Tensor }
compute: a * b
out: broadcast(a, b)
grad:
  saves: [a, b]
  a: dy * b
  b: dy * a
fusion: broadcast
cast: { rule: infer, data_args: 2 }
relay: { op: multiply }
onnx: { op: Mul }
dialects: { cpu: 10 }
`,
  'specs/math/affine.yaml': `op: affine
doc: x * alpha + beta.
args:
  x: { type: Tensor }
  alpha: { type: float, default: 1.0 }
  beta: { type: float, default: 0.0 }
compute: x * alpha + beta
fusion: elemwise
cast: { rule: infer, data_args: 1 }
dialects: { cpu: 10 }
`,
};

/** `git` in a folder, with an identity so commits work on any machine. */
export function git(root: string, ...args: string[]): string {
  return execFileSync(
    'git',
    ['-c', 'user.email=review@raf-op.test', '-c', 'user.name=review', '-c', 'commit.gpgsign=false', ...args],
    {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
}

/** Writes files (null deletes one). */
export function writeFiles(root: string, files: Record<string, string | null>): void {
  for (const [path, text] of Object.entries(files)) {
    const abs = join(root, path);
    if (text === null) rmSync(abs, { force: true });
    else {
      mkdirSync(dirname(abs), { recursive: true });
      writeFileSync(abs, text);
    }
  }
}

/** A repository with two commits: `base`, then `base` edited by `edit`; the working tree is the second commit. */
export function twoCommits(edit: Record<string, string | null>, base: Files = SPECS): string {
  const root = mkdtempSync(join(tmpdir(), 'raf-op-review-'));
  git(root, 'init', '-q', '-b', 'main');
  writeFiles(root, { ...PRETTIER, ...base });
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', 'base specs');
  writeFiles(root, edit);
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '--allow-empty', '-m', 'edit specs');
  return root;
}

/** One spec with a textual edit; fails loudly when the text to replace is not there. */
export function edited(path: string, from: string | RegExp, to: string, base: Files = SPECS): Record<string, string> {
  const text = base[path]!;
  const out = text.replace(from, to);
  if (out === text) throw new Error(`fixture edit did not apply to ${path}: ${String(from)}`);
  return { [path]: out };
}
