// The installed runtime's ops, seen from a user's package: their specs (shipped as a manifest) and name collisions.

import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILTIN_PREFIX, BUILTIN_SPECS, BUILTIN_SPECS_EXPORT } from '../layout.ts';
import { SpecError } from './errors.ts';
import { loadSpecText, type RawSpec } from './load.ts';
import type { Model, OverrideModel } from './model.ts';

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

// ---- Overrides: a package's kernel for a built-in op ----
// `op: relu` + `overrides: true` + `dialects: { cpu: 30 }` adds a dialect op for the built-in relu, in the package's
// own dialect (`<package>:cpu`, on the CPU device) at level 30. Dispatch picks the highest level, so while the package
// is imported its kernel runs; the base op, its schema, type function, gradient, casts and the runtime's own dialect
// ops stay (withDialect(['cpu']) still reaches the built-in kernel), and without the import nothing changed.

/** The keys an override spec may have: it adds a kernel, it does not redefine the op. */
const OVERRIDE_KEYS: ReadonlySet<string> = new Set(['op', 'overrides', 'doc', 'dialects']);

const isOverride = (raw: RawSpec): boolean =>
  raw.data !== null && typeof raw.data === 'object' && Object.hasOwn(raw.data, 'overrides');

/** Removes the override specs from `users` (they are not op definitions) and returns them. */
export function takeOverrides(users: RawSpec[]): RawSpec[] {
  const out = users.filter(isOverride);
  for (const raw of out) users.splice(users.indexOf(raw), 1);
  return out;
}

/** `overrides:` in this repository's own specs: the op's own spec is the place to change it. */
export function overrideInRepo(raw: RawSpec): SpecError {
  return new SpecError(
    raw.locate(['overrides'], true),
    `overrides: is for a spec in an operator package (it adds that package's kernel to a built-in op)`,
    `in this repository, change the op's own spec (add its dialect and kernel there)`,
  );
}

/** Checks each override spec against the built-in op it names; dialect names are `<packageName>:<device>`. */
export function checkOverrides(
  raws: readonly RawSpec[],
  model: Model,
  packageName: string,
): { overrides: OverrideModel[]; errors: SpecError[] } {
  const errors: SpecError[] = [];
  const overrides: OverrideModel[] = [];
  const builtin = builtinNames(model);
  for (const raw of raws) {
    const data = raw.data as Record<string, unknown>;
    const op = data.op;
    const before = errors.length;
    if (data.overrides !== true) {
      errors.push(
        new SpecError(
          raw.locate(['overrides']),
          `overrides: must be true (the spec then adds a kernel to the built-in op it names)`,
          'write overrides: true, or remove it to define a new op',
        ),
      );
    }
    const base = typeof op === 'string' && builtin.has(op) ? model.ops.find((o) => o.name === op) : undefined;
    if (!base) {
      errors.push(
        new SpecError(
          raw.locate(typeof op === 'string' ? ['op'] : []),
          typeof op === 'string'
            ? `op '${op}' is not a built-in op of @raf-op/runtime: there is nothing to override`
            : `an override names the built-in op it adds a kernel to: op: NAME`,
          'name a built-in op (see @raf-op/runtime/specs.json), or remove overrides: to define a new op',
        ),
      );
      continue;
    }
    for (const key of Object.keys(data).filter((k) => !OVERRIDE_KEYS.has(k))) {
      errors.push(
        new SpecError(
          raw.locate([key], true),
          `an override only adds a kernel: '${key}' would change the built-in op '${base.name}' (its schema, type function, gradient, casts and tests stay the runtime's)`,
          `remove ${key}: (an override has op, overrides, doc and dialects); to change the op itself, define a new op under another name`,
        ),
      );
    }
    if (base.out.tuple || base.out.shape.kind === 'host' || base.derivedFrom) {
      errors.push(
        new SpecError(
          raw.locate(['op']),
          `op '${base.name}' cannot be overridden from a package (${base.out.tuple ? 'it has several outputs' : base.derivedFrom ? 'it is a derived backward op' : 'it is computed on the host'})`,
        ),
      );
    }
    const dialects = data.dialects;
    if (dialects === null || typeof dialects !== 'object' || Array.isArray(dialects) || !Object.keys(dialects).length) {
      errors.push(
        new SpecError(
          raw.locate(Object.hasOwn(data, 'dialects') ? ['dialects'] : ['op']),
          `an override says where its kernel runs and at which level: dialects: { cpu: LEVEL }`,
        ),
      );
      continue;
    }
    for (const [name, level] of Object.entries(dialects as Record<string, unknown>)) {
      if (name !== 'cpu') {
        errors.push(
          new SpecError(
            raw.locate(['dialects', name], true),
            `an override's kernel runs on the CPU only: '${name}' kernels cannot be added to a built-in op from a package`,
            'use dialects: { cpu: LEVEL }',
          ),
        );
        continue;
      }
      // The built-in kernels that also serve the CPU device: the override must outrank them to be dispatched.
      const rivals = base.dialects.filter((d) => d.name === 'cpu' || d.name === 'wasm');
      const top = rivals.reduce((a, d) => (d.level > a.level ? d : a), { name: 'cpu', level: -Infinity });
      if (typeof level !== 'number' || !Number.isInteger(level) || level <= top.level) {
        errors.push(
          new SpecError(
            raw.locate(['dialects', name]),
            typeof level === 'number' && Number.isInteger(level)
              ? `level ${level} does not outrank the built-in ${top.name} kernel of '${base.name}' (level ${top.level}): dispatch would never pick this one`
              : `dialects.cpu: the level must be an integer, got ${JSON.stringify(level)}`,
            `use a level above ${top.level}`,
          ),
        );
        continue;
      }
      if (overrides.some((o) => o.op === base.name)) {
        errors.push(new SpecError(raw.locate(['op']), `op '${base.name}' is overridden by two specs of this package`));
        continue;
      }
      if (errors.length === before)
        overrides.push({
          op: base.name,
          file: raw.file,
          ...(typeof data.doc === 'string' ? { doc: data.doc } : {}),
          device: 'cpu',
          dialect: `${packageName}:cpu`,
          level,
        });
    }
  }
  return { overrides, errors };
}

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
        'choose another name (a gradient, oracle or schema: may still name the built-in op), or add overrides: true to give the built-in op a kernel of your own',
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
