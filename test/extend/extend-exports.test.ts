// Generated code in an operator's package imports runtime helpers from @raf-op/runtime/extend: every helper that the
// repository's generated files import from a runtime module (not a generated file, not an op's own kernel, rule or
// gradient, which move into the package with it) must be exported there, under its own name or its alias.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

import { EXTEND_ALIASES } from '../../generators/src/layout.ts';
import * as extend from '../../runtime/src/extend.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const GENERATED = join(ROOT, 'runtime/src/generated');
const OWN = /\/(dialects\/[a-z]+\/kernels|ops)\//; // an op's own hand-written files move with it

function* files(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) {
      if (e.name !== 'wasm') yield* files(join(dir, e.name)); // wasm kernels are compiled into the runtime
    } else if (e.name.endsWith('.ts')) yield join(dir, e.name);
  }
}

describe('@raf-op/runtime/extend', () => {
  it('exports every runtime helper that generated code imports', () => {
    const missing = new Set<string>();
    let seen = 0;
    for (const file of files(GENERATED)) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+'(\.[^']+)'/g)) {
        const target = relative(ROOT, normalize(join(dirname(file), m[2]!)));
        if (target.startsWith('runtime/src/generated/') || OWN.test(`/${target}`)) continue;
        for (const part of m[1]!.split(',')) {
          const name = part
            .replace(/^\s*type\s+/, '')
            .split(' as ')[0]!
            .trim();
          if (!name || /^[A-Z]/.test(name)) continue; // types and schema classes are checked by tsc in the package
          seen++;
          const exported = EXTEND_ALIASES[target]?.[name] ?? name;
          if (!(exported in extend)) missing.add(`${name} (from ${target})`);
        }
      }
    }
    expect(seen).toBeGreaterThan(100);
    expect([...missing].sort()).toEqual([]);
  });
});
