// Builds the wasm dialect's module: AssemblyScript (hand-tuned + generated kernels) → build/raf.wasm, with SIMD, and
// build/raf-relaxed.wasm from the same sources with relaxed SIMD as well (as/madd.ts: fused multiply-add).
// Run by `npm run build:wasm` and the root `prepare` script; the loader also runs it when the sources changed.

import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RELAXED_WASM_URL, SOURCE_DIR_URLS, sourcesHash, STAMP_URL, WASM_URL } from './sources.mjs';

const here = dirname(fileURLToPath(import.meta.url));
export const SOURCE_DIRS = SOURCE_DIR_URLS.map((u) => fileURLToPath(u));
export const WASM = fileURLToPath(WASM_URL);
export const RELAXED_WASM = fileURLToPath(RELAXED_WASM_URL);
export const OUT_DIR = dirname(WASM);
export const STAMP = fileURLToPath(STAMP_URL);
export { sourcesHash };

export async function buildWasm() {
  const { default: asc } = await import('assemblyscript/asc');
  mkdirSync(OUT_DIR, { recursive: true });
  const hash = sourcesHash();
  // Parallel test workers may rebuild at once: each writes its own files and renames them into place.
  for (const [out, features] of [
    [WASM, 'simd'],
    [RELAXED_WASM, 'simd,relaxed-simd'],
  ]) {
    const tmp = `${out}.${process.pid}.tmp`;
    const { error, stderr } = await asc.main(
      [
        join(here, 'as/index.ts'),
        '--outFile',
        tmp,
        '-O3',
        '--noAssert',
        // No managed objects are ever allocated: the stub runtime keeps the module small and the heap ours.
        '--runtime',
        'stub',
        '--enable',
        features,
        '--initialMemory',
        '32',
      ],
      {},
    );
    if (error) throw new Error(`asc failed: ${error.message}\n${stderr.toString()}`);
    renameSync(tmp, out);
  }
  writeFileSync(`${STAMP}.${process.pid}.tmp`, hash);
  renameSync(`${STAMP}.${process.pid}.tmp`, STAMP);
  return WASM;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const t0 = performance.now();
  // No top-level await: loaders that bundle this file as CommonJS (tsx from outside the package) reject it.
  buildWasm().then(
    (out) => console.log(`wasm dialect: built ${out} and ${RELAXED_WASM} in ${Math.round(performance.now() - t0)} ms`),
    (e) => {
      console.error(e.message);
      process.exit(1);
    },
  );
}
