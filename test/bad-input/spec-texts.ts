// The repository's specs as texts, edited in memory, and where a refusal must point: shared by the bad-spec tests.

import { readFileSync } from 'node:fs';
import { buildModel } from '../../generators/src/spec/build.ts';
import { loadSpecText, type RawSpec } from '../../generators/src/spec/load.ts';
import { specFiles } from '../../generators/src/layout.ts';

export const REPO = new URL('../../', import.meta.url);
export const SPECS = new Map(specFiles(REPO.pathname).map((f) => [f, readFileSync(new URL(f, REPO), 'utf8')]));
export const spec = (file: string): string => SPECS.get(file)!;

/** The repository's specs with some replaced or added: every error, as printed (loader's first, then the model's). */
export function errorsWith(changes: Record<string, string>): string[] {
  const raws: RawSpec[] = [];
  const lines: string[] = [];
  for (const [file, text] of Object.entries({ ...Object.fromEntries(SPECS), ...changes })) {
    const { spec: raw, errors } = loadSpecText(file, text);
    lines.push(...errors.map(String));
    if (raw) raws.push(raw);
  }
  return [...lines, ...buildModel(raws).errors.map(String)];
}

/** `file:line:col` of the `nth` occurrence of `needle` in `text`, counted by hand (1-based), independent of the loader. */
export function where(file: string, text: string, needle: string, nth = 0): string {
  let offset = -1;
  for (let k = 0; k <= nth; k++) offset = text.indexOf(needle, offset + 1);
  if (offset < 0) throw new Error(`${needle} not in ${file}`);
  const before = text.slice(0, offset).split('\n');
  return `${file}:${before.length}:${before.at(-1)!.length + 1}`;
}

/** A repository spec's text with `from` replaced (it must occur). */
export function edit(file: string, from: string, to: string): string {
  const text = spec(file);
  if (!text.includes(from)) throw new Error(`'${from}' not in ${file}`);
  return text.replace(from, to);
}
