// Builds one workspace package for publishing: `tsc -p tsconfig.build.json` (JavaScript + .d.ts, `.ts` import
// specifiers rewritten to `.js`) into a clean dist/, then copies the files tsc does not emit.
// Run from a package folder by its `build` and `prepack` scripts: `node ../scripts/build-package.mjs runtime|generators`.

import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const which = process.argv[2];
const PACKAGES = {
  runtime: {
    before: async () => {
      // The wasm dialect's module ships prebuilt; rebuild it here when its sources changed since the last build.
      const { sourcesHash, STAMP_URL, WASM_URL } = await import('../runtime/src/dialects/wasm/sources.mjs');
      const fresh = existsSync(WASM_URL) && existsSync(STAMP_URL) && readFileSync(STAMP_URL, 'utf8') === sourcesHash();
      if (fresh) return;
      const r = spawnSync(process.execPath, [join(ROOT, 'runtime/src/dialects/wasm/build.mjs')], { stdio: 'inherit' });
      if (r.status !== 0) process.exit(r.status ?? 1);
    },
    // tsc (≥5.5) drops `/// <reference types>` from declarations: a consumer's tsc must still see WebGPU's types
    // (GPUDevice, GPUBuffer) wherever a declaration names them, from @webgpu/types, a dependency.
    after: (dist) => {
      for (const f of walk(dist).filter((f) => f.endsWith('.d.ts'))) {
        const text = readFileSync(f, 'utf8');
        if (/\bGPU[A-Z]\w*/.test(text)) writeFileSync(f, `/// <reference types="@webgpu/types" />\n${text}`);
      }
    },
    // Files tsc leaves alone: the wasm loader's plain-JS helper with its types, and the built modules.
    copy: [
      ['src/dialects/wasm/sources.mjs', 'dist/dialects/wasm/sources.mjs'],
      ['src/dialects/wasm/sources.d.mts', 'dist/dialects/wasm/sources.d.mts'],
      ['src/dialects/wasm/build/raf.wasm', 'dist/dialects/wasm/build/raf.wasm'],
      ['src/dialects/wasm/build/raf-relaxed.wasm', 'dist/dialects/wasm/build/raf-relaxed.wasm'],
      // The built-in specs, for specs in an operator author's package (@raf-op/runtime/specs.json).
      ['src/generated/specs.json', 'dist/generated/specs.json'],
    ],
  },
  generators: {
    // dist/ mirrors the repository (dist/generators/src, dist/runtime/src for the few runtime modules the generator
    // imports, dist/templates), so every path the sources compute from import.meta.url holds unchanged.
    copy: [
      ['schema/op-spec.schema.json', 'dist/generators/schema/op-spec.schema.json'],
      // The ONNX operator schemas and the Relay op registry that mappings are checked against (spec/targets.ts).
      ['data', 'dist/generators/data'],
      ['../templates', 'dist/templates'],
    ],
  },
};
const pkg = PACKAGES[which];

function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)],
  );
}
if (!pkg) {
  console.error(`usage: node scripts/build-package.mjs ${Object.keys(PACKAGES).join('|')}`);
  process.exit(2);
}
const dir = join(ROOT, which);
const t0 = performance.now();
await pkg.before?.();
rmSync(join(dir, 'dist'), { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const r = spawnSync(process.execPath, [tsc, '-p', join(dir, 'tsconfig.build.json')], { stdio: 'inherit' });
if (r.status !== 0) process.exit(r.status ?? 1);
for (const [from, to] of pkg.copy) {
  const src = join(dir, from);
  if (!existsSync(src)) {
    console.error(`build ${which}: missing ${src}`);
    process.exit(1);
  }
  mkdirSync(dirname(join(dir, to)), { recursive: true });
  cpSync(src, join(dir, to), { recursive: true });
}
pkg.after?.(join(dir, 'dist'));
// When this build ran: test/browser rebuilds the runtime when a source is newer than this stamp.
writeFileSync(join(dir, 'dist/.built'), `${new Date().toISOString()}\n`);
console.log(`build ${which}: ${join(which, 'dist')} in ${Math.round(performance.now() - t0)} ms`);
