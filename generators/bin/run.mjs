#!/usr/bin/env node
// `npm run gen` / `npm run new` in this repository: runs a generator entry point from an esbuild bundle of its
// TypeScript sources, kept in node_modules/.cache/raf-op/bin and rebuilt when any source it was built from changes.
// Loading through tsx's hooks costs more than a regeneration with nothing to do; a bundle loads in a fraction of it.
// Without esbuild (or if a build fails) the entry runs through tsx as before. Usage: run.mjs cli|scaffold ARGS...

import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const ENTRIES = { cli: 'generators/src/cli.ts', scaffold: 'generators/src/scaffold/cli.ts' };

const [which, ...args] = process.argv.slice(2);
if (!Object.hasOwn(ENTRIES, which)) {
  console.error(`usage: run.mjs ${Object.keys(ENTRIES).join('|')} ARGS...`);
  process.exit(2);
}
const entry = join(ROOT, ENTRIES[which]);
// The bundle bakes in this checkout's absolute paths (templates, schema, memo folder): it is keyed by the checkout, so
// a copy (`cp -a`, a second worktree sharing node_modules) builds its own instead of running the original's.
const rootKey = createHash('sha256').update(ROOT).digest('base64url').slice(0, 12);
const cacheDir = join(ROOT, 'node_modules/.cache/raf-op/bin', `${which}-${rootKey}`);
const manifestFile = join(cacheDir, 'manifest.json');

const hashOf = (file) => createHash('sha256').update(readFileSync(file)).digest('base64url');

/** The bundle's main file when every source it was built from is unchanged; otherwise undefined. */
function current() {
  try {
    const m = JSON.parse(readFileSync(manifestFile, 'utf8'));
    if (m.root !== ROOT) return undefined;
    for (const [file, hash] of Object.entries(m.inputs)) if (hashOf(join(ROOT, file)) !== hash) return undefined;
    return join(cacheDir, m.dir, 'main.js');
  } catch {
    return undefined;
  }
}

async function build() {
  const { build } = await import('esbuild');
  const dir = `b-${process.pid}-${Date.now()}`;
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: { main: entry },
    outdir: join(cacheDir, dir),
    bundle: true,
    splitting: true, // the entries' lazy imports stay lazy: each loads its chunk (and its packages) when reached
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    metafile: true,
    logLevel: 'silent',
    plugins: [
      {
        // Each module keeps its own import.meta.url (templates, the schema and the memo folder are found from it).
        name: 'source-url',
        setup(b) {
          b.onLoad({ filter: /\.[cm]?ts$/ }, (a) => ({
            contents: readFileSync(a.path, 'utf8').replaceAll(
              'import.meta.url',
              JSON.stringify(pathToFileURL(a.path).href),
            ),
            loader: 'ts',
          }));
        },
      },
    ],
  });
  const inputs = Object.fromEntries(Object.keys(result.metafile.inputs).map((f) => [f, hashOf(join(ROOT, f))]));
  // Another run may be reading the previous bundle: switch the manifest atomically and prune only old bundles.
  const tmp = `${manifestFile}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify({ root: ROOT, dir, inputs }));
  renameSync(tmp, manifestFile);
  for (const d of readdirSync(cacheDir)) {
    const p = join(cacheDir, d);
    if (d.startsWith('b-') && d !== dir && Date.now() - statSync(p).mtimeMs > 10 * 60_000)
      rmSync(p, { recursive: true, force: true });
  }
  return join(cacheDir, dir, 'main.js');
}

let main = current();
if (!main) {
  try {
    mkdirSync(cacheDir, { recursive: true });
    main = await build();
  } catch {
    main = undefined;
  }
}
// The entry reads its arguments from process.argv, as when run directly.
process.argv = [process.argv[0], entry, ...args];
if (main) {
  await import(pathToFileURL(main).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(entry).href);
}
