// Where the wasm module's sources and build output live, and the hash that says whether the build is stale; no static Node imports, so browsers can load it.

/** A Node built-in, synchronously and without a static import (process.getBuiltinModule, Node ≥ 20.16); undefined elsewhere. */
export function nodeBuiltin(name) {
  const p = globalThis.process;
  return typeof p?.getBuiltinModule === 'function' ? p.getBuiltinModule(name) : undefined;
}

export const WASM_URL = new URL('./build/raf.wasm', import.meta.url);
/** The same sources built with relaxed SIMD (fused multiply-add), for engines that validate it. */
export const RELAXED_WASM_URL = new URL('./build/raf-relaxed.wasm', import.meta.url);
export const STAMP_URL = new URL('./build/raf.wasm.sources', import.meta.url);
export const SOURCE_DIR_URLS = [
  new URL('./as/', import.meta.url),
  new URL('../../generated/dialects/wasm/as/', import.meta.url),
];

/** Hash of every source file (Node only): the stamp the loader compares to decide whether the module is stale. */
export function sourcesHash() {
  const fs = nodeBuiltin('node:fs');
  const h = nodeBuiltin('node:crypto').createHash('sha256');
  for (const dir of SOURCE_DIR_URLS) {
    for (const f of fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.ts'))
      .sort()) {
      h.update(f);
      h.update(fs.readFileSync(new URL(f, dir)));
    }
  }
  return h.digest('hex');
}
