// Builds the wasm dialect's module: AssemblyScript (hand-tuned + generated kernels) → build/raf.wasm, with SIMD.
// Run by `npm run build:wasm` and the root `prepare` script; the loader also runs it when the sources changed.

import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const SOURCE_DIRS = [join(here, 'as'), join(here, '../../generated/dialects/wasm/as')];
export const OUT_DIR = join(here, 'build');
export const WASM = join(OUT_DIR, 'raf.wasm');
export const STAMP = join(OUT_DIR, 'raf.wasm.sources');

/** Hash of every source file: the stamp the loader compares to decide whether the module is stale. */
export function sourcesHash() {
  const h = createHash('sha256');
  for (const dir of SOURCE_DIRS) {
    for (const f of readdirSync(dir).filter((f) => f.endsWith('.ts')).sort()) {
      h.update(f);
      h.update(readFileSync(join(dir, f)));
    }
  }
  return h.digest('hex');
}

export async function buildWasm() {
  const { default: asc } = await import('assemblyscript/asc');
  mkdirSync(OUT_DIR, { recursive: true });
  const hash = sourcesHash();
  // Parallel test workers may rebuild at once: each writes its own file and renames it into place.
  const tmp = `${WASM}.${process.pid}.tmp`;
  const { error, stderr } = await asc.main(
    [
      join(here, 'as/index.ts'),
      '--outFile', tmp,
      '-O3', '--noAssert',
      // No managed objects are ever allocated: the stub runtime keeps the module small and the heap ours.
      '--runtime', 'stub',
      '--enable', 'simd',
      '--initialMemory', '32',
    ],
    {},
  );
  if (error) throw new Error(`asc failed: ${error.message}\n${stderr.toString()}`);
  renameSync(tmp, WASM);
  writeFileSync(`${STAMP}.${process.pid}.tmp`, hash);
  renameSync(`${STAMP}.${process.pid}.tmp`, STAMP);
  return WASM;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const t0 = performance.now();
  // No top-level await: loaders that bundle this file as CommonJS (tsx from outside the package) reject it.
  buildWasm().then(
    (out) => console.log(`wasm dialect: built ${out} in ${Math.round(performance.now() - t0)} ms`),
    (e) => {
      console.error(e.message);
      process.exit(1);
    },
  );
}
