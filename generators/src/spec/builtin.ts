// The installed runtime's ops, seen from a user's package: their specs (shipped as a manifest) and name collisions.

import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILTIN_PREFIX, BUILTIN_SPECS, BUILTIN_SPECS_EXPORT } from '../layout.ts';
import { SpecError } from './errors.ts';
import { loadSpecText, type RawSpec } from './load.ts';
import type { Model } from './model.ts';

interface Manifest {
  readonly specs: readonly { readonly file: string; readonly text: string }[];
}

/**
 * Where the built-in specs are: the runtime package installed beside the user's package, or (a generator run from
 * this repository's checkout on a folder outside it) the checkout's own manifest.
 */
export function builtinManifestPath(root: string): string {
  try {
    return createRequire(join(root, 'package.json')).resolve(BUILTIN_SPECS_EXPORT);
  } catch {
    const own = join(dirname(fileURLToPath(import.meta.url)), '../../..', BUILTIN_SPECS);
    if (existsSync(own)) return own;
    throw new Error(
      `${root}: cannot find ${BUILTIN_SPECS_EXPORT}; install @raf-op/runtime in this package (npm install @raf-op/runtime)`,
    );
  }
}

/** Every built-in spec, named `@raf-op/runtime/specs/...` so it never clashes with a file of the user's. */
export function builtinSpecs(root: string): RawSpec[] {
  const manifest = JSON.parse(readFileSync(builtinManifestPath(root), 'utf8')) as Manifest;
  return manifest.specs.flatMap((s) => loadSpecText(`${BUILTIN_PREFIX}${s.file}`, s.text).spec ?? []);
}

const opOf = (raw: RawSpec): unknown => (raw.data as { op?: unknown } | null)?.op;

/**
 * A user's op named like a built-in one is refused at its `op:` line: it would silently replace the runtime's op for
 * every other package in the process. The colliding spec is removed from `users` so no second error repeats it.
 */
export function collisions(users: RawSpec[], builtins: readonly RawSpec[]): SpecError[] {
  const taken = new Map(builtins.map((b) => [opOf(b), b.file.slice(BUILTIN_PREFIX.length)]));
  const errors: SpecError[] = [];
  for (let i = users.length - 1; i >= 0; i--) {
    const raw = users[i]!;
    const file = taken.get(opOf(raw));
    if (typeof opOf(raw) !== 'string' || file === undefined) continue;
    errors.unshift(
      new SpecError(
        raw.locate(['op']),
        `op '${String(opOf(raw))}' is a built-in op of @raf-op/runtime (${file})`,
        'choose another name (a gradient, oracle or schema: may still name the built-in op)',
      ),
    );
    users.splice(i, 1);
  }
  return errors;
}

/** The ops that came from the installed runtime (a derived backward shares its forward's spec file). */
export function builtinNames(model: Model): ReadonlySet<string> {
  return new Set(model.ops.filter((op) => op.file.startsWith(BUILTIN_PREFIX)).map((op) => op.name));
}

/** Dialects a user's package cannot serve: wasm kernels are compiled into the runtime's own binary. */
export function unsupportedDialects(model: Model, users: readonly RawSpec[]): SpecError[] {
  const builtin = builtinNames(model);
  const errors: SpecError[] = [];
  for (const raw of users) {
    const op = model.ops.find((o) => o.name === opOf(raw) && !builtin.has(o.name));
    if (op?.dialects.some((d) => d.name === 'wasm')) {
      errors.push(
        new SpecError(
          raw.locate(['dialects', 'wasm'], true),
          `the wasm dialect is compiled into @raf-op/runtime's own binary; an op in your package cannot use it`,
          'remove wasm from dialects (cpu and webgpu work in a package)',
        ),
      );
    }
  }
  return errors;
}
