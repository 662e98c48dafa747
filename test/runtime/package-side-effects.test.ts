// @raf-op/runtime's package.json lists the modules with import-time side effects (registering a dialect, a mover, a
// fused compiler, a fusion pattern), so bundlers never drop them. A module that registers at top level and is not
// listed would silently lose its registration in a tree-shaken bundle: this finds every such module in the sources.

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const RUNTIME = join(import.meta.dirname, '../../runtime');
const SRC = join(RUNTIME, 'src');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** `*` matches within one path segment, as in package.json's sideEffects globs. */
function matches(glob: string, path: string): boolean {
  const re = new RegExp(`^${glob.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`);
  return re.test(path);
}

describe('package.json sideEffects', () => {
  const pkg = JSON.parse(readFileSync(join(RUNTIME, 'package.json'), 'utf8')) as { sideEffects: string[] };
  // Generated per-op modules only export; the generated index installs them and is listed itself.
  const sources = files(SRC).filter(
    (f) => !f.startsWith(join(SRC, 'generated/')) && !f.startsWith(join(SRC, 'dialects/wasm/as/')),
  );

  it('lists every source module that calls a function at its top level, in src/ and in dist/', () => {
    const effectful = sources
      .filter((f) =>
        /^(?!export\b|import\b|const\b|let\b|function\b|class\b)[A-Za-z_$][\w$.]*\(/m.test(readFileSync(f, 'utf8')),
      )
      .map((f) => `./${relative(RUNTIME, f).split('\\').join('/')}`);
    expect(effectful.length).toBeGreaterThan(3);
    for (const f of [...effectful, './src/index.ts', './src/generated/index.ts']) {
      expect(
        pkg.sideEffects.some((g) => matches(g, f)),
        `${f} is not in sideEffects`,
      ).toBe(true);
      const built = f.replace(/^\.\/src\//, './dist/').replace(/\.ts$/, '.js');
      expect(
        pkg.sideEffects.some((g) => matches(g, built)),
        `${built} is not in sideEffects`,
      ).toBe(true);
    }
  });

  it('names no module that does not exist', () => {
    for (const g of pkg.sideEffects.filter((g) => g.startsWith('./src/'))) {
      expect(
        sources.some((f) => matches(g, `./${relative(RUNTIME, f).split('\\').join('/')}`)) || g.includes('generated'),
        g,
      ).toBe(true);
    }
  });
});
