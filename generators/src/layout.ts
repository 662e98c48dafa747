// Where things live in a raf-op repository; dependency-free so the no-op check can start fast.

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

export const SPECS_DIR = 'specs';
export const RUNTIME_SRC = 'runtime/src';
export const GENERATED = `${RUNTIME_SRC}/generated`;
export const TEST_GENERATED = 'test/generated';
/** Hand-written float64 references of ops whose spec says `tests.reference: true`. */
export const TEST_REFERENCES = 'test/references';
export const DOCS_OPS = 'docs/ops';

/** The writer's lock, staging and journal (see write.ts); present only while a run is under way or was interrupted. */
export const GEN_STATE_DIR = '.raf-op-gen';

/** Folders that hold nothing but generated files; anything else found there is "extra". */
export const GENERATED_DIRS = [GENERATED, TEST_GENERATED, DOCS_OPS];

/** Every spec file, repository-relative with forward slashes, sorted. */
export function specFiles(root: string): string[] {
  const dir = join(root, SPECS_DIR);
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d).sort()) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else if (e.endsWith('.yaml')) out.push(relative(root, p).split('\\').join('/'));
    }
  };
  walk(dir);
  return out;
}

// ---- An operator author's own package (issue 16) ----
// Emitters always build paths in the repository layout above. In a user's package the same files land under
// src/ instead of runtime/src/ (relative imports between them stay valid), and every import that reaches into the
// runtime itself becomes a package import: `runtimeSpecifier` below is the one place that decides which.

/** Where the generator runs: this repository (the runtime's sources beside the specs) or a user's package. */
export type Target = 'repo' | 'package';

export const PACKAGE_SRC = 'src';
export const RUNTIME_PACKAGE = '@raf-op/runtime';
export const EXTEND_ENTRY = '@raf-op/runtime/extend';
/** The harness generated tests call, shipped by the generator package (it evaluates compute expressions). */
export const TESTING_ENTRY = 'generator-raf-op/testing';
/** The built-in specs' texts, generated here and shipped by the runtime package for specs in users' packages. */
export const BUILTIN_SPECS = `${GENERATED}/specs.json`;
export const BUILTIN_SPECS_EXPORT = '@raf-op/runtime/specs.json';
/** Spec files of the installed runtime's ops are named under this prefix, so they never clash with the user's. */
export const BUILTIN_PREFIX = '@raf-op/runtime/';

/**
 * A user's package is one whose package.json depends on the runtime (what `raf-op init` writes); anything else,
 * this repository or a bare folder of specs (the review tools' and tests' scratch trees), has the repository layout.
 */
export function targetOf(root: string): Target {
  if (existsSync(join(root, RUNTIME_SRC, 'registry.ts'))) return 'repo';
  const file = join(root, 'package.json');
  if (!existsSync(file)) return 'repo';
  let pkg: Record<string, unknown>;
  try {
    pkg = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch {
    return 'repo';
  }
  const fields = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'];
  const depends = fields.some((f) => Object.hasOwn((pkg[f] ?? {}) as object, RUNTIME_PACKAGE));
  return depends && pkg.name !== RUNTIME_PACKAGE ? 'package' : 'repo';
}

/** The generated folders of a root, in its own layout. */
export function generatedDirs(root: string): string[] {
  return targetOf(root) === 'repo' ? GENERATED_DIRS : GENERATED_DIRS.map(packagePath);
}

/** A repository-layout path as it lands in a user's package (`runtime/src/ops/x.grad.ts` → `src/ops/x.grad.ts`). */
export function packagePath(path: string): string {
  return path.startsWith(`${RUNTIME_SRC}/`) ? `${PACKAGE_SRC}/${path.slice(RUNTIME_SRC.length + 1)}` : path;
}

/**
 * Runtime exports whose name clashes with another runtime export reached through the same entry: the extension
 * entry re-exports them renamed, and generated code imports them `as` their own name.
 */
export const EXTEND_ALIASES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  [`${RUNTIME_SRC}/dialects/wasm/index.ts`]: { elementwise: 'wasmElementwise' },
  [`${RUNTIME_SRC}/dialects/webgpu/elementwise.ts`]: { elementwise: 'webgpuElementwise' },
};

/**
 * The specifier a file emitted for `target` uses to import `to` (both repository-layout paths); `owned` says which
 * paths the same run emits (they move with the importer, so relative imports stay). Built-in ops' functions come from
 * the runtime's main entry, their schemas and every other runtime module from the extension entry, the op-suite
 * harness from the generator package. Returns null where the relative path stands.
 */
export function runtimeSpecifier(target: Target, to: string, owned: (path: string) => boolean): string | null {
  if (target === 'repo' || owned(to)) return null;
  if (to === 'test/support/op-suite.ts') return TESTING_ENTRY;
  if (to.startsWith(`${GENERATED}/api/`)) return RUNTIME_PACKAGE;
  if (to.startsWith(`${RUNTIME_SRC}/dialects/`) && to.endsWith('/index.ts')) return RUNTIME_PACKAGE;
  if (to.startsWith(`${RUNTIME_SRC}/`)) return EXTEND_ENTRY;
  return null;
}

/** The JSON Schema a spec's first line points editors at, repository-relative. */
export function specSchema(target: Target): string {
  return target === 'repo'
    ? 'generators/schema/op-spec.schema.json'
    : 'node_modules/generator-raf-op/dist/generators/schema/op-spec.schema.json';
}
