// `gen --check` looks into hand-written kernels: an attr the spec gives an op that a kernel never reads is an error
// (a kernel that ignores `axis` passes every test that only uses the default), unless the kernel file opts out for
// that attr with a `raf-op-ignores: attr (why)` comment. Kernel files for a dialect the spec no longer asks for
// (left behind when a spec dropped a dialect) are errors too, and so are a deleted op's hand-written kernels,
// gradient and shape rule (named after an op no spec defines). `gen` prints them as warnings.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import type { ts } from 'ts-morph';
import { paths } from './emit/files.ts';
import { packagePath, targetOf } from './layout.ts';
import { SpecError } from './spec/errors.ts';
import type { Model, OpModel } from './spec/model.ts';
import { Memo, sha, sourceSalt } from './memo.ts';

const HAND_DIALECTS = ['cpu', 'wasm', 'webgpu'] as const;

/** Attr names a `raf-op-ignores: a, b (reason)` comment opts out of the check. */
export function ignoredAttrs(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(/raf-op-ignores:\s*([a-z0-9_]+(?:\s*,\s*[a-z0-9_]+)*)/g))
    for (const n of m[1]!.split(',')) out.add(n.trim());
  return out;
}

/**
 * The names a kernel source reads: every identifier in a use position (a reference, a property access, a
 * property name in a destructuring pattern that renames it), but not a binding that only declares a name.
 * Returns null when the exported kernel is built by a shared helper (`reduction(ARGMAX)`): what it reads is not here.
 */
export function namesRead(text: string, file = 'kernel.ts'): Set<string> | null {
  // Every `gen` reads every hand kernel: memoized by its text, so the TypeScript parser loads only for an edited one.
  const key = sha(NAMES_SALT, file, text);
  const hit = namesMemo.get(key);
  if (hit !== undefined) {
    const names = JSON.parse(hit) as string[] | null;
    return names && new Set(names);
  }
  const read = namesReadWithTs(text, file);
  namesMemo.set(key, JSON.stringify(read && [...read]));
  return read;
}

const require = createRequire(import.meta.url);
const namesMemo = new Memo('kernel-names');
const NAMES_SALT = sourceSalt(import.meta.url);
let tsModule: typeof ts | undefined;

function namesReadWithTs(text: string, file: string): Set<string> | null {
  const ts = (tsModule ??= (require('ts-morph') as typeof import('ts-morph')).ts);
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const used = new Set<string>();
  let delegated = false;
  const visit = (node: ts.Node): void => {
    if (ts.isVariableStatement(node) && node.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) {
      for (const d of node.declarationList.declarations) {
        const init = d.initializer && skipOuter(d.initializer);
        if (init && ts.isCallExpression(init)) delegated = true;
      }
    }
    if (ts.isIdentifier(node)) {
      const p = node.parent;
      const declaresOnly =
        (ts.isBindingElement(p) && p.name === node && !p.propertyName) ||
        (ts.isParameter(p) && p.name === node) ||
        (ts.isVariableDeclaration(p) && p.name === node);
      if (!declaresOnly) used.add(node.text);
      // The attrs object passed whole to a shared helper (runWindow(..., attrs, ...)): what it reads is not here.
      if (!declaresOnly && /^_?attrs$/.test(node.text) && !ts.isPropertyAccessExpression(p)) delegated = true;
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return delegated ? null : used;
}

const skipOuter = (e: ts.Expression): ts.Expression =>
  tsModule!.isAsExpression(e) || tsModule!.isParenthesizedExpression(e) || tsModule!.isSatisfiesExpression(e)
    ? skipOuter(e.expression)
    : e;

/** Hand kernels that never read one of their op's attrs, and kernel files no spec asks for. */
export function kernelProblems(root: string, model: Model): SpecError[] {
  const problems: SpecError[] = [];
  const byName = new Map(model.ops.map((o) => [o.name, o]));
  // In a user's package the hand-written files live under src/ instead of runtime/src/.
  const isPackage = targetOf(root) === 'package';
  const where = (path: string) => (isPackage ? packagePath(path) : path);
  for (const op of model.ops) {
    if (op.out.shape.kind === 'host') continue;
    for (const d of op.dialects) {
      if (d.kernel !== 'hand') continue;
      const path = where(paths.kernelStub(d.name, op.name));
      const abs = join(root, path);
      if (!existsSync(abs)) continue;
      problems.push(...unusedAttrs(op, d.name, path, readFileSync(abs, 'utf8')));
    }
  }
  // Orphans: a kernel file in a dialect's kernels folder for an op that does not ask for that dialect.
  const deleted = new Map<string, string[]>();
  for (const dialect of HAND_DIALECTS) {
    const dir = join(root, where(paths.kernelStub(dialect, 'x'))).replace(/[/\\]x\.ts$/, '');
    if (!existsSync(dir)) continue;
    for (const f of readdirSync(dir).sort()) {
      if (!f.endsWith('.ts')) continue;
      const name = f.slice(0, -3);
      const op = byName.get(name);
      if (!op) {
        // Every file in a kernels folder is named after its op: one whose op has no spec is a deleted op's, left
        // behind (it breaks typecheck once the generated files it imports are gone). A package's kernels of built-in
        // ops (overrides) are not among its own ops: not judged there.
        if (!isPackage) deleted.set(name, [...(deleted.get(name) ?? []), where(paths.kernelStub(dialect, name))]);
        continue;
      }
      if (!op.dialects.some((d) => d.name === dialect && d.kernel === 'hand'))
        problems.push(
          new SpecError(
            op.loc,
            `${where(paths.kernelStub(dialect, name))} is a ${dialect} kernel of ${name}, but the spec does not ask for a hand-written ${dialect} kernel`,
            `add ${dialect} to dialects in ${op.file} (it is registered only then), or delete the file`,
          ),
        );
    }
  }
  // A deleted op's hand-written gradient and shape rule (`<op>.grad.ts`, `<op>.rule.ts`).
  const opsDir = join(root, where(paths.gradStub('x'))).replace(/[/\\]x\.grad\.ts$/, '');
  if (existsSync(opsDir)) {
    for (const f of readdirSync(opsDir).sort()) {
      const name = /^([a-z0-9_]+)\.(?:grad|rule)\.ts$/.exec(f)?.[1];
      if (name === undefined || byName.has(name)) continue;
      const path = where(f.endsWith('.grad.ts') ? paths.gradStub(name) : paths.ruleStub(name));
      deleted.set(name, [...(deleted.get(name) ?? []), path]);
    }
  }
  for (const [name, files] of [...deleted].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const list = files.sort().join(', ');
    problems.push(
      new SpecError(
        { file: files[0]!, line: 1, col: 1 },
        `no spec defines op '${name}', but its hand-written file${files.length === 1 ? '' : 's'} ${list} ${files.length === 1 ? 'is' : 'are'} still here`,
        `the op was deleted or renamed: delete ${files.length === 1 ? 'the file' : 'them'} (or move ${files.length === 1 ? 'it' : 'them'} to the new op's name), or restore its spec`,
      ),
    );
  }
  return problems;
}

function unusedAttrs(op: OpModel, dialect: string, path: string, text: string): SpecError[] {
  // The output type the kernel receives already carries a reduction's keepdims and any dtype attr.
  const rule = op.out.shape;
  const carried = new Set(rule.kind === 'reduce' && rule.keepdims ? [rule.keepdims] : []);
  const attrs = op.args
    .filter((a) => !a.type.startsWith('Tensor') && !a.type.startsWith('dtype') && !carried.has(a.name))
    .map((a) => a.name);
  if (!attrs.length) return [];
  const read = namesRead(text, path);
  if (!read) return [];
  const ignored = ignoredAttrs(text);
  return attrs
    .filter((a) => !read.has(a) && !ignored.has(a))
    .map(
      (a) =>
        new SpecError(
          op.args.find((x) => x.name === a)!.loc,
          `the ${dialect} kernel of ${op.name} (${path}) never reads attr '${a}'`,
          `use it in the kernel; if the ${dialect} kernel genuinely does not need it (the output type already says it), write a comment "raf-op-ignores: ${a} (why)" in ${path}`,
        ),
    );
}
