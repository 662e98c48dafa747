// Emitting into an operator author's package: only the user's ops, relocated to src/, runtime imports made package imports.

import { dirname, join } from 'node:path/posix';
import type { Model, OverrideModel } from '../spec/model.ts';
import { kernelStub, type StubFile } from './stubs.ts';
import { emitTests } from './tests.ts';
import { BUILTIN_SPECS, EXTEND_ALIASES, GENERATED, packagePath, runtimeSpecifier } from '../layout.ts';
import { addImport, generatedHeader, names, paths, tsFile, type EmittedFile } from './files.ts';

/** The file a user's package imports to register its ops (src/index.ts does; so does every generated test). */
export const REGISTER = `${GENERATED}/register.ts`;

/** The model restricted to the user's own ops: what the emitters see in a package. */
export function ownModel(model: Model): Model {
  const builtin = model.builtin;
  if (!builtin) return model;
  // One object per model, so what emitters record per model (coverage problems) is found again by the CLI.
  let own = owned.get(model);
  if (!own) owned.set(model, (own = { ops: model.ops.filter((op) => !builtin.has(op.name)) }));
  return own;
}
const owned = new WeakMap<Model, Model>();

/**
 * Registers what the runtime reads from its own generated tables (compute expressions for fusion, ONNX mappings for
 * FromOnnx); ops, gradients, dialect ops and Relay converters register themselves in the generated index.
 */
export function emitRegister(overrides: readonly OverrideModel[] = []): EmittedFile {
  return tsFile(REGISTER, 'package', 'specs/**/*.yaml', (sf) => {
    for (const o of overrides) sf.addStatements(`import './overrides/${o.op}.ts';`);
    addImport(sf, REGISTER, paths.runtime('extend'), ['registerExtension']);
    addImport(sf, REGISTER, paths.index(), ['OPS']);
    addImport(sf, REGISTER, `${GENERATED}/passes/index.ts`, ['COMPUTE']);
    addImport(sf, REGISTER, `${GENERATED}/onnx/index.ts`, ['ONNX_MAPPINGS']);
    sf.addStatements(`registerExtension({ ops: OPS, compute: COMPUTE, onnx: ONNX_MAPPINGS });`);
  });
}

/** Where a package's kernel for a built-in op is registered (relocated to src/generated/overrides/). */
export const overridePath = (op: string) => `${GENERATED}/overrides/${op}.ts`;

/**
 * A package's kernels for built-in ops (`overrides: true` specs): per override, a generated module that registers
 * the package dialect (`<package>:cpu`, on the CPU device) and the new dialect op at its level on the built-in op's
 * own bridge; the hand-written kernel's stub; and the built-in op's generated tests run over both the runtime's cpu
 * kernel and this one (so the override is checked against the op's oracle and against the kernel it outranks).
 */
export function emitOverrides(full: Model): { generated: EmittedFile[]; stubs: StubFile[] } {
  const generated: EmittedFile[] = [];
  const stubs: StubFile[] = [];
  for (const o of full.overrides ?? []) {
    const base = full.ops.find((op) => op.name === o.op)!;
    const op = { ...base, file: o.file };
    const n = names(op);
    const path = overridePath(o.op);
    const kernel = n.kernel('cpu');
    generated.push(
      tsFile(path, 'package', o.file, (sf) => {
        addImport(sf, path, paths.runtime('dialect'), ['registerDialect', 'registerDialectOps']);
        addImport(sf, path, paths.runtime('dialect'), ['DialectOp'], true);
        addImport(sf, path, paths.bridge(op.name), [n.bridge]);
        addImport(sf, path, paths.bridge(op.name), [n.attrs, n.inputs], true);
        addImport(sf, path, paths.schema(op.schema), [n.args], true);
        addImport(sf, path, paths.kernelStub('cpu', op.name), [kernel]);
        sf.addStatements([
          `// The package's dialect for its kernels of built-in ops: on the CPU device, beside the runtime's own cpu dialect.`,
          `registerDialect({ name: '${o.dialect}', devices: ['cpu'] });`,
          '',
          `/** raf.op.${o.dialect}.${op.name} at level ${o.level}${o.doc ? `: ${o.doc.replace(/\*\//g, '* /').trim()}` : ''} */`,
          `export const ${n.dialectOp('override')}: DialectOp<${n.args}, ${n.inputs}, ${n.attrs}> = { op: '${op.name}', dialect: '${o.dialect}', level: ${o.level}, bridge: ${n.bridge}, build: () => ${kernel} };`,
          `registerDialectOps([${n.dialectOp('override')}]);`,
        ]);
      }),
    );
    stubs.push(kernelStub(op, 'cpu'));
    const tested = {
      ...op,
      dialects: [...op.dialects.filter((d) => d.name === 'cpu'), { name: o.dialect, level: o.level, kernel: 'hand' }],
    };
    generated.push(...emitTests({ ops: [tested as typeof op] }));
  }
  return { generated, stubs };
}

/** The specs' texts, shipped in the runtime package: a user's specs are validated against these ops (repository only). */
export function emitBuiltinSpecs(model: Model): EmittedFile[] {
  if (!model.sources) return [];
  const source = 'specs/**/*.yaml';
  const manifest = {
    $comment: generatedHeader('package', source).replace(/^\/\/ /, ''),
    specs: model.sources,
  };
  return [
    {
      path: BUILTIN_SPECS,
      content: `${JSON.stringify(manifest, null, 2)}\n`,
      emitter: 'package',
      source,
      kind: 'generated',
    },
  ];
}

/** Every schema class as a value, for the extension entry: an op in a package may reuse a built-in schema (repository only). */
export function emitSchemaIndex(model: Model): EmittedFile[] {
  if (!model.sources) return [];
  const path = `${GENERATED}/schemas.ts`;
  return [
    tsFile(path, 'package', 'specs/**/*.yaml', (sf) => {
      for (const op of model.ops.filter((o) => o.schema === o.name))
        sf.addExportDeclaration({ moduleSpecifier: `./schema/${op.name}.ts`, namedExports: [names(op).args] });
    }),
  ];
}

/** Every op's bridge and kernel types, for the extension entry: a package's kernel for a built-in op uses them. */
export function emitBridgeIndex(model: Model): EmittedFile[] {
  if (!model.sources) return [];
  const path = `${GENERATED}/bridges.ts`;
  return [
    tsFile(path, 'package', 'specs/**/*.yaml', (sf) => {
      for (const op of model.ops.filter((o) => o.out.shape.kind !== 'host')) {
        const n = names(op);
        sf.addStatements(
          `export { ${n.bridge}, type ${n.attrs}, type ${n.inputs}, type ${n.kernelType} } from './bridge/${op.name}.ts';`,
        );
      }
    }),
  ];
}

// `import ... from '...'`, `export ... from '...'` and `import '...'`, single- or double-quoted, on one line (as the
// emitters and templates write them, before prettier).
const IMPORT_LINE =
  /^(import|export)(\s+type)?(?:\s+(\{[^}]*\}|\*\s+as\s+\w+|\*|\w+)\s+from)?\s+(['"])(\.{1,2}\/[^'"]+)\4;?$/gm;

/**
 * Moves every emitted file to its place in the package and rewrites its imports of runtime modules into package
 * imports (`runtimeSpecifier` decides which). An import left pointing outside what this run emits is a bug in an
 * emitter or template, reported here rather than as a module-not-found error in the user's build.
 */
export function relocate<F extends EmittedFile>(files: readonly F[], owned: ReadonlySet<string>): F[] {
  return files.map((f) => {
    if (!/\.(ts|js|mjs)$/.test(f.path)) return { ...f, path: packagePath(f.path) };
    const seen = new Set<string>();
    let content = f.content.replace(
      IMPORT_LINE,
      (line, kw: string, type = '', what: string | undefined, q, spec: string) => {
        const to = join(dirname(f.path), spec);
        const external = runtimeSpecifier('package', to, (p) => owned.has(p));
        if (!external) {
          if (!owned.has(to))
            throw new Error(`${f.path}: import '${spec}' reaches ${to}, which a user's package lacks`);
          return line;
        }
        const aliases = EXTEND_ALIASES[to];
        let names = what;
        if (aliases && what?.startsWith('{')) {
          names = what.replace(/\b(type\s+)?(\w+)(\s+as\s+\w+)?/g, (m, t = '', n: string, as?: string) =>
            aliases[n] ? `${t}${aliases[n]} as ${as ? as.replace(/^\s+as\s+/, '') : n}` : m,
          );
        }
        const out = names ? `${kw}${type} ${names} from ${q}${external}${q};` : `${kw}${type} ${q}${external}${q};`;
        if (!names) {
          if (seen.has(out)) return '';
          seen.add(out);
        }
        return out;
      },
    );
    // A generated test registers the package's ops before the harness looks them up.
    if (f.path.endsWith('.test.ts')) {
      const register = relativeTo(packagePath(f.path), packagePath(REGISTER));
      content = content.replace(/^(import .*\n)/m, `import '${register}';\n$1`);
    }
    // Messages that name the file's own path (a stub's "not implemented ... in PATH") name it where it lands.
    content = content.split(f.path).join(packagePath(f.path));
    return { ...f, path: packagePath(f.path), content };
  });
}

function relativeTo(from: string, to: string): string {
  const up = dirname(from)
    .split('/')
    .map(() => '..');
  return `${up.join('/')}/${to}`;
}
