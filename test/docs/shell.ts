// The command examples of the README and docs/*.md: fenced ```sh / ```bash blocks split into simple commands
// (continuations joined, comments dropped, `&&` `||` `;` `|` separating commands), each with its page and line.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '../..');

/** The pages whose command examples must be run or checked: README.md and every docs/*.md (not docs/ops/). */
export function commandPages(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`);
  return ['README.md', ...docs];
}

export interface Command {
  readonly page: string;
  /** 1-based line of the command's first word. */
  readonly line: number;
  /** Which block of the page it is in (commands of one block run in sequence: `cd` carries over). */
  readonly block: number;
  /** Leading `NAME=value` assignments. */
  readonly env: readonly string[];
  /** The words after the assignments, quotes removed. */
  readonly words: readonly string[];
  /** The command as written (assignments included), words joined by one space, comment dropped. */
  readonly text: string;
}

interface Block {
  readonly line: number;
  readonly lines: readonly string[];
}

/** Fenced blocks of the given languages, with the line of their first content line. */
export function fencedBlocks(text: string, langs: readonly string[]): Block[] {
  const out: Block[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(\S*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    let j = i + 1;
    while (j < lines.length && !/^\s*```\s*$/.test(lines[j]!)) j++;
    if (langs.includes(open[2]!)) out.push({ line: i + 2, lines: lines.slice(i + 1, j) });
    i = j;
  }
  return out;
}

const OPERATORS = new Set(['&&', '||', ';', '|']);

/** Shell words of one line: quotes removed, operators as their own words, an unquoted `#` ending the line. */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'" || c === '"') {
      const end = line.indexOf(c, i + 1);
      if (end < 0) throw new Error(`unterminated ${c} in: ${line}`);
      word = (word ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (c === ' ' || c === '\t') {
      if (word !== null) words.push(word);
      word = null;
    } else if (c === '#' && word === null) {
      break;
    } else if (c === ';' || c === '|' || c === '&') {
      if (word !== null) words.push(word);
      word = null;
      const two = line.slice(i, i + 2);
      if (two === '&&' || two === '||') {
        words.push(two);
        i++;
      } else if (c === '&') throw new Error(`a background '&' in: ${line}`);
      else words.push(c);
    } else word = (word ?? '') + c;
  }
  if (word !== null) words.push(word);
  return words;
}

/** Every simple command of every sh/bash block of a page. */
export function pageCommands(page: string, text = readFileSync(join(ROOT, page), 'utf8')): Command[] {
  const out: Command[] = [];
  fencedBlocks(text, ['sh', 'bash']).forEach((b, block) => {
    let pending = '';
    let pendingLine = 0;
    b.lines.forEach((raw, k) => {
      if (!pending) pendingLine = b.line + k;
      if (/\\\s*$/.test(raw)) {
        pending += raw.replace(/\\\s*$/, ' ');
        return;
      }
      const words = shellWords(pending + raw);
      pending = '';
      let cur: string[] = [];
      const flush = () => {
        if (!cur.length) return;
        let n = 0;
        while (n < cur.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(cur[n]!)) n++;
        out.push({
          page,
          line: pendingLine,
          block,
          env: cur.slice(0, n),
          words: cur.slice(n),
          text: cur.join(' '),
        });
        cur = [];
      };
      for (const w of words) {
        if (OPERATORS.has(w)) flush();
        else cur.push(w);
      }
      flush();
    });
  });
  return out;
}
