// Where things live in a raf-op repository; dependency-free so the no-op check can start fast.

import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

export const SPECS_DIR = 'specs';
export const RUNTIME_SRC = 'runtime/src';
export const GENERATED = `${RUNTIME_SRC}/generated`;
export const TEST_GENERATED = 'test/generated';
export const DOCS_OPS = 'docs/ops';

/** The writer's lock, staging and journal (see write.ts); present only while a run is under way or was interrupted. */
export const GEN_STATE_DIR = '.raf-op-gen';

/** Folders that hold nothing but generated files; anything else found there is "extra". */
export const GENERATED_DIRS = [GENERATED, TEST_GENERATED, DOCS_OPS];

/** Every spec file, repository-relative with forward slashes, sorted. */
export function specFiles(root: string): string[] {
  const dir = join(root, SPECS_DIR);
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d).sort()) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else if (e.endsWith('.yaml')) out.push(relative(root, p).split('\\').join('/'));
    }
  };
  walk(dir);
  return out;
}
