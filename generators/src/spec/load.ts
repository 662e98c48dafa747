// The spec loader: the only code that reads YAML. Keeps every node's file:line:col.

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  CST,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  parseDocument,
  Parser,
  visit,
  type Document,
  type Node,
} from 'yaml';
import { createRequire } from 'node:module';
import { Memo, sha, sourceSalt } from '../memo.ts';
import { SpecError, type Loc } from './errors.ts';

export type Path = readonly (string | number)[];

export interface RawSpec {
  /** Repository-relative, forward slashes: `specs/nn/softmax.yaml`. */
  readonly file: string;
  readonly data: unknown;
  /** Location of the value (or, with `key`, the key) at a path; falls back to the nearest parent. */
  locate(path: Path, key?: boolean): Loc;
}

/**
 * A valid spec's data is memoized by its text (parsing every spec with positions is most of loading a model); its
 * YAML is parsed again only when something asks where a value is (an error to report), which a valid spec rarely does.
 */
const parsed = new Memo('spec-data');
const PARSE_SALT = `${sourceSalt(import.meta.url)}:${(createRequire(import.meta.url)('yaml/package.json') as { version: string }).version}`;

export function loadSpecText(file: string, text: string): { spec?: RawSpec; errors: SpecError[] } {
  const key = sha(PARSE_SALT, file, text);
  const hit = parsed.get(key);
  if (hit !== undefined) {
    const { data, places } = JSON.parse(hit) as Parsed;
    return { spec: { file, data, locate: (path, key = false) => locateIn(places, file, path, key) }, errors: [] };
  }
  const result = parseSpecText(file, text);
  if (result.spec && !result.errors.length && jsonExact(result.spec.data))
    parsed.set(key, JSON.stringify({ data: result.spec.data, places: result.places! } satisfies Parsed));
  return result;
}

/** A memoized spec: its data, and where each node is (what `locate` needs without the YAML document). */
interface Parsed {
  readonly data: unknown;
  readonly places: Places;
}

/** `[line, col]`, or null where there is no node. */
type Place = readonly [number, number] | null;
/**
 * Per node path (`JSON.stringify` of the path, map keys as strings): its key's and its value's place, and whether the
 * value is a map (`m`) or sequence (`s`), in which `walk` below may go deeper.
 */
type Places = Record<string, { k: Place; v: Place; c?: 'm' | 's' }>;

/** Every node's place, found by the same rules as `walk`, so that `locateIn` answers exactly as `locate` does. */
function placesOf(doc: Document, at: (offset: number) => Loc): Places {
  const places: Places = {};
  const place = (n: unknown): Place => {
    if (n === null || n === undefined) return null;
    const loc = at((n as Node).range?.[0] ?? 0);
    return [loc.line, loc.col];
  };
  const kind = (n: unknown) => (isMap(n) ? 'm' : isSeq(n) ? 's' : undefined);
  const add = (path: readonly (string | number)[], key: unknown, value: unknown) => {
    const id = JSON.stringify(path);
    if (id in places) return; // two keys that read the same: `walk` finds the first
    const c = kind(value);
    places[id] = { k: place(key), v: place(value), ...(c ? { c } : {}) };
    if (isMap(value)) {
      for (const p of value.items)
        if (isPair(p) && isScalar(p.key)) add([...path, String(p.key.value)], p.key, p.value);
    } else if (isSeq(value)) {
      value.items.forEach((item, i) => {
        if (item) add([...path, i], undefined, item);
      });
    }
  };
  add([], undefined, doc.contents);
  return places;
}

function locateIn(places: Places, file: string, path: Path, key: boolean): Loc {
  let cur: (string | number)[] = [];
  let found = places['[]']!;
  let k: Place = null;
  for (const seg of path) {
    if (found.c === 'm') {
      const next = places[JSON.stringify([...cur, String(seg)])];
      if (!next) break;
      cur = [...cur, String(seg)];
      found = next;
      k = next.k;
    } else if (found.c === 's' && typeof seg === 'number' && places[JSON.stringify([...cur, seg])]) {
      cur = [...cur, seg];
      found = places[JSON.stringify(cur)]!;
      k = null;
    } else break;
  }
  const p = key ? (k ?? found.v) : (found.v ?? k);
  return p ? { file, line: p[0], col: p[1] } : { file, line: 1, col: 1 };
}

/** Whether JSON gives this value back exactly (no -0, infinities, undefined, holes, non-plain objects, __proto__). */
export function jsonExact(v: unknown): boolean {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v) && !Object.is(v, -0);
  if (Array.isArray(v)) return v.length === Object.keys(v).length && v.every(jsonExact);
  if (typeof v !== 'object' || Object.getPrototypeOf(v) !== Object.prototype) return false;
  return Object.entries(v).every(([k, x]) => k !== '__proto__' && jsonExact(x));
}

function parseSpecText(file: string, text: string): { spec?: RawSpec; errors: SpecError[]; places?: Places } {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false });
  const at = (offset: number): Loc => {
    const p = lines.linePos(offset);
    return { file, line: p.line, col: p.col };
  };
  const errors = textErrors(text).map((e) => new SpecError(at(e.offset), e.message, e.hint));
  if (errors.length) return { errors };
  // An unclosed bracket or quote is reported where it opens; the parser only notices it lines later.
  const unclosed = unclosedTokens(text);
  for (const u of unclosed) errors.push(new SpecError(at(u.offset), u.message, u.hint));
  for (const e of doc.errors) {
    if (unclosed.length && /flow (map|sequence)|quote|indent/i.test(e.message)) continue;
    errors.push(new SpecError(at(e.pos[0]), `YAML: ${firstLine(e.message)}`));
  }
  visit(doc, {
    // An integer written beyond ±(2^53 − 1) reads as a different number (9007199254740993 as ...992): refused as written.
    Scalar(_, node) {
      const src = node.source;
      if (typeof node.value !== 'number' || typeof src !== 'string' || Number.isSafeInteger(node.value)) return;
      if (!/^[-+]?(?:[0-9][0-9_]*|0x[0-9a-fA-F_]+|0o[0-7_]+)$/.test(src.trim())) return;
      errors.push(
        new SpecError(
          at(node.range?.[0] ?? 0),
          `integer ${src.trim()} is beyond what a number holds exactly (±(2^53 − 1) = ±9007199254740991); it would read as ${node.value}`,
          'write an integer within ±9007199254740991 (a float is written with a decimal point or exponent)',
        ),
      );
    },
    Alias(_, node) {
      if (!node.resolve(doc))
        errors.push(
          new SpecError(
            at(node.range?.[0] ?? 0),
            `YAML: alias '*${node.source}' names no anchor defined before it`,
            `define '&${node.source}' on an earlier value, or write the value out`,
          ),
        );
    },
  });
  if (errors.length) return { errors };
  const locate = (path: Path, key = false): Loc => {
    const found = walk(doc, path);
    const node = key ? (found.key ?? found.value) : (found.value ?? found.key);
    return at(node?.range?.[0] ?? 0);
  };
  let data: unknown;
  try {
    data = doc.toJS();
  } catch (e) {
    return { errors: [new SpecError(at(0), `YAML: ${firstLine(e instanceof Error ? e.message : String(e))}`)] };
  }
  return { spec: { file, data, locate }, errors: [], places: placesOf(doc, at) };
}

/** Reads a spec from disk, or takes its text from `text` (for previews of unsaved specs). */
export function loadSpecFile(absPath: string, relPath: string, text?: string): { spec?: RawSpec; errors: SpecError[] } {
  if (text !== undefined) return loadSpecText(relPath, text);
  const read = readSpecText(absPath, relPath);
  return read.text === undefined ? { errors: read.errors } : loadSpecText(relPath, read.text);
}

/** A spec file's text; bytes that are not UTF-8 are an error where they start, since decoding would hide them. */
export function readSpecText(absPath: string, relPath: string): { text?: string; errors: SpecError[] } {
  const bytes = readFileSync(absPath);
  const bad = invalidUtf8(bytes);
  if (bad !== undefined) {
    // Lines and columns up to the bad byte, counted in the valid text before it.
    const before = bytes.subarray(0, bad).toString('utf8').split('\n');
    return {
      errors: [
        new SpecError(
          { file: relPath, line: before.length, col: before.at(-1)!.length + 1 },
          `invalid UTF-8 (byte 0x${bytes[bad]!.toString(16).padStart(2, '0')} at offset ${bad})`,
          'save the spec as UTF-8',
        ),
      ],
    };
  }
  return { text: bytes.toString('utf8'), errors: [] };
}

/** Offset of the first byte that does not start or continue a valid UTF-8 sequence, or undefined. */
function invalidUtf8(bytes: Uint8Array): number | undefined {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return undefined;
  } catch {
    // Find where: decode growing prefixes of whole sequences.
    for (let i = 0; i < bytes.length;) {
      const b = bytes[i]!;
      const n = b < 0x80 ? 1 : b >= 0xc2 && b < 0xe0 ? 2 : b >= 0xe0 && b < 0xf0 ? 3 : b >= 0xf0 && b < 0xf5 ? 4 : 0;
      if (n === 0) return i;
      try {
        new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(i, i + n));
      } catch {
        return i;
      }
      i += n;
    }
    return 0;
  }
}

/** Characters no spec may hold: NUL and the other C0 controls except tab, newline and carriage return. */
function textErrors(text: string): { offset: number; message: string; hint?: string }[] {
  const m = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\ufffe\uffff]/.exec(text);
  if (!m) return [];
  const code = m[0].charCodeAt(0).toString(16).padStart(4, '0');
  return [
    { offset: m.index, message: `control character U+${code} in the spec`, hint: 'remove it; specs are plain text' },
  ];
}

/** Flow collections and quoted scalars that never close, located at their opening character. */
function unclosedTokens(text: string): { offset: number; message: string; hint: string }[] {
  const out: { offset: number; message: string; hint: string }[] = [];
  const seen = new Set<number>();
  const check = (tok: CST.Token | undefined) => {
    if (!tok || seen.has(tok.offset)) return;
    seen.add(tok.offset);
    if (tok.type === 'flow-collection') {
      const open = tok.start.source;
      const close = open === '{' ? '}' : ']';
      if (!tok.end.some((t) => t.source === close))
        out.push({
          offset: tok.offset,
          message: `YAML: '${open}' is never closed`,
          hint: `close the flow ${open === '{' ? 'mapping' : 'sequence'} with '${close}' on the same value`,
        });
      for (const item of tok.items) {
        check(item.key ?? undefined);
        check(item.value ?? undefined);
      }
    } else if (tok.type === 'double-quoted-scalar' || tok.type === 'single-quoted-scalar') {
      const q = tok.source[0]!;
      const closed = q === "'" ? /^'(?:[^']|'')*'$/.test(tok.source) : /^"(?:[^"\\]|\\[\s\S])*"$/.test(tok.source);
      if (!closed)
        out.push({
          offset: tok.offset,
          message: `YAML: the string opened by ${q} is never closed`,
          hint: `end it with ${q}`,
        });
    }
  };
  for (const tok of new Parser().parse(text)) {
    CST.visit(tok as CST.Document, (item) => {
      check(item.key ?? undefined);
      check(item.value ?? undefined);
    });
  }
  return out.sort((a, b) => a.offset - b.offset);
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

/** A category folder's name becomes a docs page and an identifier: lower_snake_case, like op names. */
const CATEGORY = /^[a-z][a-z0-9_]*$/;
/** Files the specs folder may hold besides `<category>/<op>.yaml`. */
const ALLOWED_TOP = new Set(['op-ids.lock.json']);

/**
 * Where spec files may be: `specs/<category>/<op>.yaml`, nothing else that looks like a spec. A spec
 * saved as .yml, left at the top, nested deeper, or in a folder whose name is no identifier would be
 * silently skipped or generate broken paths, so each is an error at the file's first line.
 */
export function checkSpecLayout(root: string, specsDir = 'specs'): SpecError[] {
  const dir = join(root, specsDir);
  if (!existsSync(dir)) return [];
  const errors: SpecError[] = [];
  const at = (rel: string) => ({ file: `${specsDir}/${rel}`, line: 1, col: 1 });
  const specLike = (name: string) => /\.(ya?ml|json)$/i.test(name);
  for (const top of readdirSync(dir).sort()) {
    if (top.startsWith('.')) continue;
    const p = join(dir, top);
    if (!statSync(p).isDirectory()) {
      if (ALLOWED_TOP.has(top) || !specLike(top)) continue;
      errors.push(
        new SpecError(
          at(top),
          `spec file ${top} is outside a category folder`,
          `move it to ${specsDir}/<category>/${top.replace(/\.yml$/i, '.yaml')}`,
        ),
      );
      continue;
    }
    const entries = readdirSync(p).sort();
    const hasSpecs = entries.some(specLike);
    if (!CATEGORY.test(top) && (hasSpecs || entries.some((e) => statSync(join(p, e)).isDirectory()))) {
      errors.push(
        new SpecError(
          at(`${top}/${entries.find(specLike) ?? ''}`),
          `category folder '${top}' is not a lower_snake_case identifier`,
          `rename it, e.g. ${specsDir}/${
            top
              .toLowerCase()
              .replace(/[^a-z0-9]+/g, '_')
              .replace(/^_+|_+$/g, '')
              .replace(/^(?=[0-9])/, 'c') || 'misc'
          }/`,
        ),
      );
    }
    for (const e of entries) {
      if (e.startsWith('.')) continue;
      const rel = `${top}/${e}`;
      if (statSync(join(p, e)).isDirectory()) {
        errors.push(
          new SpecError(
            at(rel),
            `folder ${specsDir}/${rel} is nested inside a category`,
            `specs live one level down: ${specsDir}/<category>/<op>.yaml`,
          ),
        );
      } else if (/\.yml$/i.test(e) || /\.YAML$/.test(e)) {
        errors.push(
          new SpecError(
            at(rel),
            `spec ${specsDir}/${rel} does not end in .yaml, so it would be skipped`,
            `rename it to ${e.replace(/\.ya?ml$/i, '.yaml')}`,
          ),
        );
      }
    }
  }
  return errors;
}
