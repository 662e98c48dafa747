// `raf-op init NAME` (and `yo raf-op:init NAME`): a new npm package of one's own ops, built on the installed runtime.

import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The generator package's folder: generators/ in the repository, node_modules/generator-raf-op when installed. */
function generatorRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (dirname(dir) !== dir) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'generator-raf-op')
      return dir;
    dir = dirname(dir);
  }
  throw new Error(`cannot find generator-raf-op's package.json above ${fileURLToPath(import.meta.url)}`);
}

export class InitError extends Error {}

export interface InitOptions {
  /** Version ranges written into package.json (default: this generator's version for both packages). */
  readonly runtimeVersion?: string;
  readonly generatorVersion?: string;
  /**
   * Install both packages from local files instead of the registry: a folder holding the tarballs `npm pack` writes
   * (raf-op-runtime-*.tgz, generator-raf-op-*.tgz). package.json then names them as `file:` paths.
   */
  readonly from?: string;
}

/** The two tarballs in a `--from` folder, as `file:` specifiers relative to the package's folder. */
export function localPackages(from: string, packageRoot: string): { runtime: string; generator: string } {
  const dir = resolve(from);
  if (!existsSync(dir)) throw new InitError(`--from ${from}: no such folder`);
  const files = readdirSync(dir);
  const pick = (prefix: string, what: string) => {
    const found = files.filter((f) => f.startsWith(prefix) && f.endsWith('.tgz')).sort();
    if (found.length !== 1)
      throw new InitError(
        `--from ${from}: expected one ${prefix}*.tgz (${what}), found ${found.length ? found.join(', ') : 'none'}; ` +
          'make them with `npm pack` in runtime/ and generators/ of a raf-op checkout (or `npm run test:package`)',
      );
    const rel = relative(packageRoot, join(dir, found[0]!)).split(sep).join('/');
    return `file:${rel.startsWith('.') ? rel : `./${rel}`}`;
  };
  return {
    runtime: pick('raf-op-runtime-', '@raf-op/runtime'),
    generator: pick('generator-raf-op-', 'generator-raf-op'),
  };
}

/** The onnxruntime-node a new package's ONNX oracle uses: the one this repository's own tests use. */
export const ONNXRUNTIME_VERSION = '1.30.0';

/** What the new package's package.json says; npm scripts run the generator's own CLI. */
function packageJson(name: string, runtime: string, generator: string): object {
  return {
    name,
    version: '0.1.0',
    description: `Operators for raf-op, generated from the YAML specs in specs/`,
    type: 'module',
    // What `import 'NAME'` loads: the JavaScript `npm run build` compiles from src/ into dist/ (plain `node` runs it).
    exports: { '.': { types: './dist/index.d.ts', import: './dist/index.js' } },
    files: ['dist', 'specs'],
    scripts: {
      gen: 'raf-op gen',
      new: 'raf-op new',
      build: 'tsc -p tsconfig.build.json',
      prepack: 'npm run build',
      test: 'vitest run',
      diff: 'raf-op diff',
      breaking: 'raf-op breaking',
      typecheck: 'tsc --noEmit',
    },
    dependencies: { '@raf-op/runtime': runtime },
    devDependencies: { 'generator-raf-op': generator, tsx: '^4.20.0', typescript: '~5.9.3', vitest: '~4.1.0' },
    // The generated tests' ONNX oracle. Its install script would download CUDA parts from a host that may be
    // unreachable: npm 11.16+ runs only the scripts allowScripts names (this one refused); under npm 10 the
    // variable .npmrc's node-options sets makes it skip.
    optionalDependencies: { 'onnxruntime-node': ONNXRUNTIME_VERSION },
    allowScripts: { 'onnxruntime-node': false },
    engines: { node: '>=20.17' },
  };
}

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    allowImportingTsExtensions: true,
    noEmit: true,
    strict: true,
    noUncheckedIndexedAccess: true,
    skipLibCheck: true,
    types: ['node'],
  },
  include: ['src', 'test', 'examples'],
};

/** `npm run build`: src/ to JavaScript and declarations in dist/, `.ts` import specifiers rewritten to `.js`. */
const TSCONFIG_BUILD = {
  extends: './tsconfig.json',
  compilerOptions: {
    noEmit: false,
    outDir: 'dist',
    rootDir: 'src',
    declaration: true,
    rewriteRelativeImportExtensions: true,
  },
  include: ['src'],
};

/**
 * onnxruntime-node's install script skips its CUDA download when ONNXRUNTIME_NODE_INSTALL=skip: this sets it for every
 * script npm runs (npm 10 runs it; npm 11.16+ does not, per allowScripts). A key npm knows: no npm warns about it.
 */
export const NPMRC_SKIP_ORT =
  'node-options=--import=data:text/javascript,process.env.ONNXRUNTIME_NODE_INSTALL||=%22skip%22\n';

const VITEST = `// Generated tests (test/generated/) check every op of this package against the installed @raf-op/runtime.
import { defineConfig } from 'vitest/config';

export default defineConfig({ test: { include: ['test/**/*.test.ts'], testTimeout: 60_000 } });
`;

const INDEX = `// The package's entry: importing it registers its ops with @raf-op/runtime (calls, autodiff, graph mode,
// FromRelay/FromOnnx mappings, AutoCast), and exports their typed functions.
import './generated/register.ts';

export * from './generated/ops.ts';
export * as ops from './generated/ops.ts';
`;

function readme(name: string): string {
  return `# ${name}

Operators for [raf-op](https://www.npmjs.com/package/@raf-op/runtime), one YAML spec per op in \`specs/\`.
\`npm run gen\` generates their schemas, type functions, gradients, dialect bridges and tests into \`src/generated/\`
and \`test/generated/\`; what cannot be generated (a kernel, a gradient, a shape rule) is a stub in \`src/\` that
raf-op creates once and never overwrites.

\`\`\`sh
npm run new -- my_gelu --compute "x * sigmoid(1.702 * x)" --yes   # scaffold an op (or: npx yo raf-op my_gelu)
npm run gen                  # regenerate after editing a spec; \`npm run gen -- --check\` for CI
npm test                     # the generated tests: opcheck, the compute/formula oracle, gradcheck, errors
npm run build                # compile src/ to dist/ (what \`import '${name}'\` loads; plain \`node\` runs it)
npm run diff                 # review a spec change against git HEAD (\`npm run breaking\` for breaking changes)
\`\`\`

Specs here may name any op of the installed runtime in gradient formulas, \`tests.oracle\` formulas and
\`schema:\`; an op named like a built-in op is an error. The \`cpu\` and \`webgpu\` dialects are available
(\`wasm\` kernels are compiled into the runtime's own binary).

\`\`\`ts
import { tensor, grad, graph } from '@raf-op/runtime';
import { ops } from '${name}';

const x = tensor([[1, -2, 3]]);
ops.myGelu(x);                                        // dispatched like a built-in op
grad((x) => ops.myGelu(x))(x);                        // autodiff
graph.trace((x) => ops.myGelu(x), [{ name: 'x', shape: [1, 3], dtype: 'float32' }]);
\`\`\`

\`opcheck(op, samples)\` from \`@raf-op/runtime/extend\` checks a registration by hand: schema, type function
against the kernel's real output, eager against graph mode, the gradient against float64 central differences,
dialects against the CPU, and that every attr changes the result. The generated tests call it for every case.
An op with an \`onnx:\` mapping is checked against onnxruntime-node, an optional dependency of this package (its
install script, which would download CUDA parts, is skipped by \`allowScripts\` and \`.npmrc\`; nothing to set).
Without it, that test says so and is skipped.
`;
}

/** The package name a folder name gives (`my-ops`, or `@acme/my-ops` kept as written). */
function packageNameOf(arg: string): string {
  const name = arg.startsWith('@') ? arg : basename(resolve(arg));
  if (!/^(@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/.test(name)) {
    throw new InitError(`'${name}' is not a valid npm package name (lowercase letters, digits, '-', '.', '_')`);
  }
  return name;
}

const ownVersion = (): string =>
  (JSON.parse(readFileSync(join(generatorRoot(), 'package.json'), 'utf8')) as { version: string }).version;

/**
 * Creates the package in `dir` (which must be missing or empty) and returns the files written, relative to it.
 * `dir` is the folder; the package name is its last segment, or `name` when given.
 */
export function initPackage(dir: string, opts: InitOptions & { name?: string } = {}): string[] {
  const root = resolve(dir);
  if (existsSync(root) && readdirSync(root).length) {
    throw new InitError(`${root} is not empty; raf-op init creates a new package in a new or empty folder`);
  }
  const name = packageNameOf(opts.name ?? dir);
  const version = `^${ownVersion()}`;
  const local = opts.from === undefined ? undefined : localPackages(opts.from, root);
  const runtime = local?.runtime ?? opts.runtimeVersion ?? version;
  const generator = local?.generator ?? opts.generatorVersion ?? version;
  const files: Record<string, string> = {
    'package.json': `${JSON.stringify(packageJson(name, runtime, generator), null, 2)}\n`,
    'tsconfig.json': `${JSON.stringify(TSCONFIG, null, 2)}\n`,
    'tsconfig.build.json': `${JSON.stringify(TSCONFIG_BUILD, null, 2)}\n`,
    'vitest.config.ts': VITEST,
    'src/index.ts': INDEX,
    'README.md': readme(name),
    '.gitignore': 'node_modules/\ndist/\n',
    // onnxruntime-node (optional) would otherwise try to download CUDA parts on install under npm 10.
    '.npmrc': NPMRC_SKIP_ORT,
    '.prettierrc.json': `${JSON.stringify({ singleQuote: true, printWidth: 120 }, null, 2)}\n`,
    'specs/op-ids.lock.json': `${JSON.stringify({ ops: {} }, null, 2)}\n`,
  };
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return Object.keys(files);
}

const INIT_USAGE = `usage: raf-op init DIR [--name NAME] [--from FOLDER]
  creates an npm package of raf-op operators in DIR (new or empty)
  --name NAME      the package's name (default: DIR's last segment)
  --from FOLDER    install @raf-op/runtime and generator-raf-op from the tarballs in FOLDER
                   (raf-op-runtime-*.tgz, generator-raf-op-*.tgz, as npm pack writes them) instead of the registry`;

/** `raf-op init DIR [--name NAME] [--from FOLDER]`: creates the package, then generates its (empty) registry. */
export async function runInit(argv: readonly string[]): Promise<number> {
  const { parseArgs } = await import('node:util');
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        name: { type: 'string' },
        from: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    console.error(`raf-op init: ${(e as Error).message}\n${INIT_USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(INIT_USAGE);
    return 0;
  }
  const [dir, ...extra] = positionals;
  if (!dir || extra.length) {
    console.error(`raf-op init: ${dir ? `one folder, not ${positionals.length}` : 'which folder?'}\n${INIT_USAGE}`);
    return 2;
  }
  let written: string[];
  try {
    written = initPackage(dir, { name: values.name, from: values.from });
  } catch (e) {
    if (!(e instanceof InitError)) throw e;
    console.error(`raf-op init: ${e.message}`);
    return 1;
  }
  const { generate } = await import('./generate.ts');
  const result = await generate(resolve(dir));
  console.log(`raf-op init: created ${dir} (${written.length + result.changes.length} files)`);
  for (const f of [...written, ...result.changes.map((c) => c.path)]) console.log(`  ${f}`);
  console.log(
    `next:\n  cd ${dir} && npm install\n  npm run new -- my_op --compute "x * sigmoid(x)" --yes\n  npm test\n  npm run build`,
  );
  return 0;
}

/**
 * `raf-op new NAME [flags]` (`npm run new` in a package): the scaffold as `npm run new` runs it in the repository
 * (directly with --yes, else the `yo raf-op` generator through yeoman-environment, so no global `yo` is needed); a
 * refused flag prints its message, not a stack trace.
 */
export async function runNew(argv: readonly string[]): Promise<number> {
  const { runScaffold } = await import('./scaffold/main.ts');
  const root = generatorRoot();
  return runScaffold(argv, { app: join(root, 'app/index.js'), regen: join(root, 'regen/index.js') });
}
