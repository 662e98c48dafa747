// `npm run test:consumer`: the packages as another project gets them. Packs @raf-op/runtime and generator-raf-op
// (prepack builds them), installs the two tarballs into an empty project in the system's temp folder, then
//   (a) runs softmax forward and backward (CPU and the shipped wasm module) from a plain index.mjs under node,
//   (b) type-checks a .ts consumer with tsc, moduleResolution node16 and bundler, no allowImportingTsExtensions,
//   (c) runs the packed generator's CLI there: --help, --version, gen --check (fails: nothing generated yet),
//       gen with one spec, gen --check (passes).
// Prints the tarballs' sizes and the consumer's cold start. RAF_KEEP_CONSUMER=1 keeps the temp project.

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const NPX = process.platform === 'win32' ? 'npx.cmd' : 'npx';

let failures = 0;
const log = (line) => console.log(`[consumer] ${line}`);

/** Runs a command; returns its exit code and output, failing the script when the code is not the expected one. */
function run(what, cmd, args, { cwd, expect = 0, quiet = true } = {}) {
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', stdio: quiet ? 'pipe' : 'inherit' });
  const ms = Math.round(performance.now() - t0);
  const out = `${r.stdout ?? ''}${r.stderr ?? ''}`;
  if (r.status !== expect) {
    failures++;
    console.error(`[consumer] FAIL ${what}: exit ${r.status ?? r.signal} (expected ${expect})\n${out}`);
  } else log(`ok   ${what} (${ms} ms)`);
  return { code: r.status, out, stdout: r.stdout ?? '', ms };
}

function check(what, ok, detail = '') {
  if (ok) log(`ok   ${what}`);
  else {
    failures++;
    console.error(`[consumer] FAIL ${what}${detail ? `: ${detail}` : ''}`);
  }
}

const dir = mkdtempSync(join(tmpdir(), 'raf-op-consumer-'));
const packs = join(dir, 'packs');
const app = join(dir, 'app');
mkdirSync(packs);
mkdirSync(app);
log(`temp project: ${app}`);

try {
  // Pack both workspaces (prepack builds dist/); --json gives the tarballs' names and sizes.
  const pack = run(
    'npm pack (prepack builds dist/)',
    NPM,
    ['pack', '--json', '-w', 'runtime', '-w', 'generators', '--pack-destination', packs],
    { cwd: ROOT },
  );
  const packed = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('[')));
  for (const p of packed)
    log(
      `     ${p.filename}: ${(p.size / 1024).toFixed(0)} kB packed, ${(p.unpackedSize / 1024).toFixed(0)} kB unpacked, ${p.entryCount} files`,
    );
  check(
    'no TypeScript sources ship',
    packed.every((p) => !p.files.some((f) => /\.ts$/.test(f.path) && !/\.d\.ts$/.test(f.path))),
  );

  writeFileSync(
    join(app, 'package.json'),
    `${JSON.stringify({ name: 'consumer', private: true, type: 'module' }, null, 2)}\n`,
  );
  run(
    'npm install of the two tarballs',
    NPM,
    ['install', '--no-audit', '--no-fund', '--prefer-offline', ...packed.map((p) => join(packs, p.filename))],
    { cwd: app },
  );

  // (a) plain node, the built package, no loader.
  writeFileSync(
    join(app, 'index.mjs'),
    `import { createRequire } from 'node:module';
const t0 = performance.now();
const { backward, ops, tensor, withDialect, wasmBuild, wasmUnavailable } = await import('@raf-op/runtime');
const importMs = performance.now() - t0;
const x = tensor([[1, 2, 3], [1, 1, 1]], { dtype: 'float64' }).requireGrad();
const y = ops.softmax(x, -1);
const w = tensor([[1, 0, -1], [0.5, 0.25, 0]], { dtype: 'float64' });
backward(ops.sum(ops.multiply(y, w)));
const x32 = tensor([[1, 2, 3], [1, 1, 1]], { dtype: 'float32' });
const wasm = withDialect(['wasm'], () => ops.softmax(x32, -1));
const loaded = Object.keys(createRequire(import.meta.url).cache).filter((f) => f.includes('protobufjs')).length;
console.log(JSON.stringify({ y: await y.toArray(), dx: await x.grad.toArray(), wasm: await wasm.toArray(), wasmUnavailable: wasmUnavailable() ?? null, wasmBuild: wasmBuild() ?? null, protobufjsFiles: loaded, importMs }));
`,
  );
  const node = run('node index.mjs', process.execPath, ['index.mjs'], { cwd: app });
  if (node.code === 0) {
    const got = JSON.parse(node.stdout);
    // Reference, independently: softmax rows and d/dx sum(softmax(x) * w) = y * (w - sum(y * w)).
    const X = [
      [1, 2, 3],
      [1, 1, 1],
    ];
    const W = [
      [1, 0, -1],
      [0.5, 0.25, 0],
    ];
    const Y = X.map((r) => {
      const e = r.map((v) => Math.exp(v - Math.max(...r)));
      const s = e.reduce((a, b) => a + b, 0);
      return e.map((v) => v / s);
    });
    const DX = Y.map((r, i) => {
      const dot = r.reduce((a, v, j) => a + v * W[i][j], 0);
      return r.map((v, j) => v * (W[i][j] - dot));
    });
    const close = (a, b, tol) =>
      a.flat().length === b.flat().length && a.flat().every((v, i) => Math.abs(v - b.flat()[i]) <= tol);
    check('softmax forward matches the reference', close(got.y, Y, 1e-12), JSON.stringify(got.y));
    check('softmax backward matches the reference', close(got.dx, DX, 1e-12), JSON.stringify(got.dx));
    check('the shipped wasm module loads', got.wasmUnavailable === null, got.wasmUnavailable);
    check('softmax on wasm matches the reference', close(got.wasm, Y, 1e-6), JSON.stringify(got.wasm));
    // Node 20 has relaxed SIMD only behind a flag: without it the plain build runs, with it the relaxed one.
    const plain = Number(process.versions.node.split('.')[0]) < 22;
    check(
      `the ${plain ? 'plain' : 'relaxed-SIMD'} build runs`,
      got.wasmBuild === (plain ? 'simd' : 'relaxed-simd'),
      got.wasmBuild,
    );
    const flagged = run(
      'node --experimental-wasm-relaxed-simd index.mjs',
      process.execPath,
      ['--experimental-wasm-relaxed-simd', 'index.mjs'],
      { cwd: app },
    );
    if (flagged.code === 0) {
      const r = JSON.parse(flagged.stdout);
      check('with relaxed SIMD, the shipped relaxed build runs', r.wasmBuild === 'relaxed-simd', r.wasmBuild);
      check('softmax on the relaxed build matches the reference', close(r.wasm, Y, 1e-6), JSON.stringify(r.wasm));
    }
    check(
      'protobufjs is not loaded by importing the runtime',
      got.protobufjsFiles === 0,
      `${got.protobufjsFiles} files`,
    );
    log(
      `     cold start: node index.mjs ${node.ms} ms in all, import of @raf-op/runtime ${Math.round(got.importMs)} ms`,
    );
  }

  // (b) tsc over a .ts consumer: the shipped declarations, without the library's sources or .ts import extensions.
  writeFileSync(
    join(app, 'consumer.ts'),
    `import { backward, ops, tensor, type Tensor } from '@raf-op/runtime';
import { fromOnnx } from '@raf-op/runtime/onnx';
import { trace, type Graph } from '@raf-op/runtime/graph';
import { initWebGpu } from '@raf-op/runtime/webgpu';
import { generate } from 'generator-raf-op';

const x: Tensor = tensor([[1, 2, 3]], { dtype: 'float64' }).requireGrad();
const y: Tensor = ops.softmax(x, -1);
backward(ops.sum(y));
export const shape: readonly number[] = y.shape;
export const importer: (bytes: Uint8Array) => Graph = (bytes) => fromOnnx(bytes);
export { trace, initWebGpu, generate };
// @ts-expect-error softmax takes a tensor, not a string: the declarations are typed, not any.
ops.softmax('x');
`,
  );
  for (const [name, module] of [
    ['node16', 'node16'],
    ['bundler', 'esnext'],
  ]) {
    const config = {
      compilerOptions: { module, moduleResolution: name, target: 'es2022', strict: true, noEmit: true, types: [] },
      files: ['consumer.ts'],
    };
    writeFileSync(join(app, `tsconfig.${name}.json`), `${JSON.stringify(config, null, 2)}\n`);
    run(`tsc, moduleResolution ${name}`, process.execPath, [TSC, '-p', `tsconfig.${name}.json`], { cwd: app });
  }

  // (c) the packed generator's CLI, through npx as a user types it.
  const help = run('npx raf-op --help', NPX, ['raf-op', '--help'], { cwd: app });
  check('--help shows the usage', /usage: raf-op/.test(help.out), help.out);
  const version = run('npx raf-op --version', NPX, ['raf-op', '--version'], { cwd: app });
  check('--version prints the package version', /^0\.\d+\.\d+/m.test(version.stdout), version.out);
  const before = run('npx raf-op gen --check (nothing generated yet: exit 1)', NPX, ['raf-op', 'gen', '--check'], {
    cwd: app,
    expect: 1,
  });
  // The project depends on @raf-op/runtime, so the generator writes in an operator package's layout (src/).
  check('gen --check lists what is missing', /missing\s+src\/generated\/index\.ts/.test(before.out), before.out);
  mkdirSync(join(app, 'specs/math'), { recursive: true });
  writeFileSync(
    join(app, 'specs/math/square.yaml'),
    `op: square
doc: Elementwise square.
args:
  x: { type: Tensor }
out: same(x)
compute: x * x
grad: none
fusion: elemwise
cast: { rule: infer, data_args: 1 }
dialects: { cpu: 10 }
tests: { shapes: [[3]] }
`,
  );
  run('npx raf-op gen --quiet (one spec)', NPX, ['raf-op', 'gen', '--quiet'], { cwd: app });
  run('npx raf-op gen --check', NPX, ['raf-op', 'gen', '--check'], { cwd: app });
  const bad = run('npx raf-op gen --bogus (exit 2)', NPX, ['raf-op', 'gen', '--bogus'], { cwd: app, expect: 2 });
  check('an unknown option is named', /--bogus/.test(bad.out), bad.out);
} finally {
  if (process.env.RAF_KEEP_CONSUMER === '1') log(`kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}

if (failures) {
  console.error(`[consumer] ${failures} check${failures === 1 ? '' : 's'} failed`);
  process.exit(1);
}
log('all checks passed');
