// The spec loader: the only code that reads YAML. Keeps every node's file:line:col.

import { readFileSync } from 'node:fs';
import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import { SpecError, type Loc } from './errors.ts';

export type Path = readonly (string | number)[];

export interface RawSpec {
  /** Repository-relative, forward slashes: `specs/nn/softmax.yaml`. */
  readonly file: string;
  readonly data: unknown;
  /** Location of the value (or, with `key`, the key) at a path; falls back to the nearest parent. */
  locate(path: Path, key?: boolean): Loc;
}

export function loadSpecText(file: string, text: string): { spec?: RawSpec; errors: SpecError[] } {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false });
  const at = (offset: number): Loc => {
    const p = lines.linePos(offset);
    return { file, line: p.line, col: p.col };
  };
  const errors = doc.errors.map((e) => new SpecError(at(e.pos[0]), `YAML: ${firstLine(e.message)}`));
  if (errors.length) return { errors };
  const locate = (path: Path, key = false): Loc => {
    const found = walk(doc, path);
    const node = key ? (found.key ?? found.value) : (found.value ?? found.key);
    return at(node?.range?.[0] ?? 0);
  };
  return { spec: { file, data: doc.toJS(), locate }, errors: [] };
}

/** Reads a spec from disk, or takes its text from `text` (for previews of unsaved specs). */
export function loadSpecFile(absPath: string, relPath: string, text?: string): { spec?: RawSpec; errors: SpecError[] } {
  return loadSpecText(relPath, text ?? readFileSync(absPath, 'utf8'));
}

/** Follows a path as far as it exists, returning the deepest key and value nodes reached. */
function walk(doc: Document, path: Path): { key?: Node; value?: Node } {
  let value: unknown = doc.contents;
  let key: Node | undefined;
  for (const seg of path) {
    if (isMap(value)) {
      const pair = value.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(seg));
      if (!pair) break;
      key = pair.key as Node;
      value = pair.value;
    } else if (isSeq(value) && typeof seg === 'number' && value.items[seg]) {
      key = undefined;
      value = value.items[seg];
    } else break;
  }
  return { key, value: (value as Node | null) ?? undefined };
}

function firstLine(s: string): string {
  return s.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
}
