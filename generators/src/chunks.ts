// Formatting an aggregate file (the registry index, the op list, the bridges: a line or an entry per op) in pieces, so
// that a new op makes prettier format only the pieces that list it; the other pieces' formatted text is memoized.
// Prettier formats each top-level statement on its own (blank lines between statements are kept, at most one), and
// each entry of an object, array or argument list that is already broken over lines on its own, so the joined pieces
// are prettier's text of the whole file. Tests compare the two on every aggregate file generated from the real specs;
// RAF_OP_FORMAT_WHOLE=1 formats every file whole (`RAF_OP_NO_MEMO=1 RAF_OP_FORMAT_WHOLE=1 npm run gen -- --check`).

/** One line's lexical state: bracket depth and whether it starts inside a string, template or comment. */
interface LineInfo {
  readonly text: string;
  /** Bracket depth at the line's start and end. */
  readonly depthIn: number;
  readonly depthOut: number;
  /** The line starts, and ends, outside any string, template or block comment. */
  readonly cleanIn: boolean;
  readonly cleanOut: boolean;
  /** The last character of code on the line (comments and whitespace left out); '' when none. */
  readonly lastCode: string;
}

/**
 * A light TypeScript lexer: brackets, quotes, templates (with `${}`) and comments, line by line. Regular expression
 * literals are not recognized; the files formatted in pieces have none (and a mistake only makes a piece fail to parse,
 * which falls back to formatting the whole file).
 */
export function lexLines(text: string): LineInfo[] {
  const out: LineInfo[] = [];
  type Mode = 'code' | 'block' | "'" | '"' | '`';
  let mode: Mode = 'code';
  let depth = 0;
  /** Depths at which a `${` of a template was opened: its `}` returns to the template. */
  const templates: number[] = [];
  for (const line of text.split('\n')) {
    const depthIn = depth;
    const cleanIn = mode === 'code' && templates.length === 0;
    let lastCode = '';
    for (let i = 0; i < line.length; i++) {
      const c = line[i]!;
      if (mode === 'block') {
        if (c === '*' && line[i + 1] === '/') {
          mode = 'code';
          i++;
        }
      } else if (mode === "'" || mode === '"') {
        if (c === '\\') i++;
        else if (c === mode) mode = 'code';
      } else if (mode === '`') {
        if (c === '\\') i++;
        else if (c === '`') mode = 'code';
        else if (c === '$' && line[i + 1] === '{') {
          templates.push(depth);
          depth++;
          mode = 'code';
          i++;
        }
      } else {
        if (c === '/' && line[i + 1] === '/') break;
        if (c === '/' && line[i + 1] === '*') {
          mode = 'block';
          i++;
          continue;
        }
        if (c !== ' ' && c !== '\t') lastCode = c;
        if (c === "'" || c === '"' || c === '`') mode = c;
        else if (c === '(' || c === '[' || c === '{') depth++;
        else if (c === ')' || c === ']' || c === '}') {
          depth--;
          if (c === '}' && templates.length && templates[templates.length - 1] === depth) {
            templates.pop();
            mode = '`';
          }
        }
      }
    }
    // A quote never spans lines; an unterminated one is a lexing mistake: say so by an unclean end.
    const broken = mode === "'" || mode === '"';
    out.push({
      text: line,
      depthIn,
      depthOut: depth,
      cleanIn,
      cleanOut: !broken && mode === 'code' && templates.length === 0,
      lastCode,
    });
  }
  return out;
}

/** A line that continues the statement above it even at depth 0 (`} else {`, `.then(`, `as const`). */
const CONTINUES = /^(?:else\b|catch\b|finally\b|as\b|satisfies\b|[.?:)\]},=|&+\-*%<>])/;

/**
 * The file cut into its top-level statements (each with its leading comments and the blank lines after it); joined,
 * they are the text. Undefined when the text does not lex cleanly.
 */
export function topLevelStatements(text: string): string[] | undefined {
  const lines = lexLines(text);
  const last = lines[lines.length - 1]!;
  if (last.depthOut !== 0 || !last.cleanOut) return undefined;
  const starts: number[] = [0];
  let prevCode = ''; // the last code character of the previous line that has code
  lines.forEach((l, i) => {
    const trimmed = l.text.trim();
    if (i > 0 && trimmed !== '' && l.depthIn === 0 && l.cleanIn && (prevCode === ';' || prevCode === '}')) {
      if (!CONTINUES.test(trimmed)) starts.push(i);
    }
    // A comment line belongs to the statement under it; inside a template or comment no statement ends either.
    if (l.lastCode !== '') prevCode = l.lastCode;
    else if (trimmed !== '') prevCode = '';
  });
  // Each statement runs to the next one's start; a comment line starts a statement only after a statement's end.
  const pieces: string[] = [];
  for (let k = 0; k < starts.length; k++) {
    const from = starts[k]!;
    const to = k + 1 < starts.length ? starts[k + 1]! : lines.length;
    pieces.push(
      lines
        .slice(from, to)
        .map((l) => l.text)
        .join('\n') + (to < lines.length ? '\n' : ''),
    );
  }
  return pieces;
}

/** A statement whose body is one entry per line between an opening line and a closing one (`export const X = {`). */
export interface ListStatement {
  readonly head: string;
  readonly entries: readonly string[];
  readonly tail: string;
  readonly indent: string;
}

/** Lists shorter than this are formatted whole: pieces would save nothing. */
const MIN_ENTRIES = 16;

/**
 * The statement as a list, when it is one: the head ends with `{`, `[` or `([`, every line between is one entry (no
 * comments, blank lines or quoted keys, whose quoting prettier decides over the whole object), the tail closes it.
 */
export function listStatement(statement: string): ListStatement | undefined {
  const body = statement.replace(/\s+$/, '');
  const lines = lexLines(body);
  const open = lines.findIndex((l) => l.depthOut > 0);
  if (open < 0 || !lines[open]!.cleanOut || !/[[{(]$/.test(lines[open]!.lastCode)) return undefined;
  const depth = lines[open]!.depthOut;
  const close = lines.length - 1;
  const entries = lines.slice(open + 1, close);
  if (entries.length < MIN_ENTRIES) return undefined;
  const indent = /^\s*/.exec(entries[0]!.text)![0];
  const closing = lines[close]!;
  if (closing.depthIn !== depth || closing.depthOut !== 0 || !/^[\]})]/.test(closing.text.trim())) return undefined;
  for (const e of entries) {
    const t = e.text.trim();
    if (e.depthIn !== depth || e.depthOut !== depth || !e.cleanIn || !e.cleanOut) return undefined;
    if (t === '' || t.startsWith('//') || t.startsWith('/*') || /^['"`[]/.test(t)) return undefined;
    // Numbers in an array are filled several to a line by prettier.
    if (/^-?[\d.]/.test(t)) return undefined;
    if (e.lastCode !== ',' && e !== entries[entries.length - 1]) return undefined;
  }
  return {
    head: lines
      .slice(0, open + 1)
      .map((l) => l.text)
      .join('\n'),
    entries: entries.map((l) => l.text.trim().replace(/,$/, '')),
    tail: closing.text,
    indent,
  };
}

/** FNV-1a of a string: cuts pieces where the content says, so an insertion moves no other cut. */
function fnv(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** Groups of consecutive items, cut after an item whose hash says so: about `every` items to a group. */
export function contentGroups<T>(items: readonly T[], key: (t: T) => string, every: number): T[][] {
  const groups: T[][] = [];
  let cur: T[] = [];
  for (const it of items) {
    cur.push(it);
    if (fnv(key(it)) % every === 0) {
      groups.push(cur);
      cur = [];
    }
  }
  if (cur.length) groups.push(cur);
  return groups;
}

const START = '// raf-op: piece start';
const END = '// raf-op: piece end';

/**
 * A TypeScript file formatted in pieces by `formatOne` (prettier, memoized): exactly what `formatOne` makes of the
 * whole text (undefined when the file cannot be cut; the caller formats it whole).
 */
export async function formatTsInPieces(
  text: string,
  formatOne: (text: string) => Promise<string>,
  printWidth = 80,
): Promise<string | undefined> {
  const statements = topLevelStatements(text);
  if (!statements) return undefined;
  // Blank lines after a statement are kept as one; prettier drops them at the end of a piece.
  const blankAfter = (s: string) => /\n[ \t]*\n\s*$/.test(s);
  const parts: Promise<string | undefined>[] = [];
  const plain: string[] = [];
  const flush = () => {
    for (const group of contentGroups(plain.splice(0), (s) => s, 12)) {
      const last = group[group.length - 1]!;
      parts.push(formatOne(group.join('')).then((out) => out + (blankAfter(last) ? '\n' : '')));
    }
  };
  for (const s of statements) {
    const list = listStatement(s);
    if (!list) {
      plain.push(s);
      continue;
    }
    flush();
    parts.push(formatList(s, list, formatOne, printWidth).then((out) => out && out + (blankAfter(s) ? '\n' : '')));
  }
  flush();
  const done = await Promise.all(parts);
  if (done.some((d) => d === undefined)) return undefined;
  const out = done.join('');
  // A file ends in one newline however its last statement ended.
  return out.replace(/\n+$/, '\n');
}

/**
 * A list statement in pieces: each group of entries is formatted inside the statement's own head and tail, between two
 * marker comments that keep the list broken one entry per line (as it is whole, being long); the lines between the
 * markers are the entries' text. Falls back to the whole statement when a piece does not come out that way.
 */
async function formatList(
  statement: string,
  list: ListStatement,
  formatOne: (text: string) => Promise<string>,
  printWidth: number,
): Promise<string | undefined> {
  const whole = () => formatOne(statement);
  // A list that fits on one line is printed on one line; one longer than two lines never does.
  if (list.entries.join(', ').length + list.head.length < 2 * printWidth) return whole();
  const groups = contentGroups(list.entries, (e) => e, 16);
  const outs = await Promise.all(
    groups.map((g) =>
      formatOne(
        `${list.head}\n${list.indent}${START}\n${g.map((e) => `${list.indent}${e},`).join('\n')}\n${list.indent}${END}\n${list.tail.trim()}\n`,
      ),
    ),
  );
  let head: string | undefined;
  let tail: string | undefined;
  const body: string[] = [];
  for (const out of outs) {
    const lines = out.split('\n');
    const s = lines.findIndex((l) => l.trim() === START);
    const e = lines.findIndex((l) => l.trim() === END);
    if (s < 0 || e < s || lines.filter((l) => l.includes('raf-op: piece')).length !== 2) return whole();
    const h = lines.slice(0, s).join('\n');
    const t = lines.slice(e + 1).join('\n');
    if ((head !== undefined && h !== head) || (tail !== undefined && t !== tail)) return whole();
    head = h;
    tail = t;
    body.push(...lines.slice(s + 1, e));
  }
  return `${head}\n${body.join('\n')}\n${tail}`;
}

/**
 * Whether prettier leaves this JSON text as it is, known without prettier: the text is `JSON.stringify(value, null,
 * 2)` plus a newline, and every array in it is empty or holds an object with keys (directly or deeper), whose line
 * breaks (prettier keeps an object broken as written) break the array one element per line, as JSON.stringify does.
 * An array of numbers, strings or empty objects only is one prettier may join on a line: such text goes to prettier.
 */
export function isPrettierJson(text: string): boolean {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return false;
  }
  if (`${JSON.stringify(value, null, 2)}\n` !== text) return false;
  /** Whether the value prints with a line break in it (prettier breaks every group around one). */
  const breaks = (v: unknown): boolean =>
    Array.isArray(v) ? v.some(breaks) : typeof v === 'object' && v !== null && Object.keys(v).length > 0;
  const ok = (v: unknown): boolean => {
    if (Array.isArray(v)) return (v.length === 0 || breaks(v)) && v.every(ok);
    if (typeof v === 'object' && v !== null) return Object.values(v).every(ok);
    return true;
  };
  return ok(value);
}
