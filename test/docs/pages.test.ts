// The README stays short, every page is reachable from the docs index, and every relative link in README.md and
// docs/ (generated pages included) resolves to a file that exists, and to a heading that exists when it has an anchor.

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './shell.ts';

const README_MAX_LINES = 200;

function markdownUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir))
    .sort()
    .flatMap((e) => {
      const p = `${dir}/${e}`;
      if (statSync(join(ROOT, p)).isDirectory()) return markdownUnder(p);
      return e.endsWith('.md') ? [p] : [];
    });
}

const PAGES = ['README.md', ...markdownUnder('docs')];
const cache = new Map<string, string>();
const read = (page: string) => {
  if (!cache.has(page)) cache.set(page, readFileSync(join(ROOT, page), 'utf8'));
  return cache.get(page)!;
};
const anchorCache = new Map<string, Set<string>>();
const anchorsOf = (page: string) => {
  if (!anchorCache.has(page)) anchorCache.set(page, anchors(read(page)));
  return anchorCache.get(page)!;
};

/** Markdown text with fenced code blocks and inline code spans blanked out (links there are not links). */
function prose(text: string): string {
  return text
    .replace(/^```[^\n]*\n[\s\S]*?^```/gm, (m) => m.replace(/[^\n]/g, ' '))
    .replace(/`[^`\n]*`/g, (m) => ' '.repeat(m.length));
}

interface Link {
  readonly page: string;
  readonly line: number;
  readonly target: string;
}

function links(page: string, text: string): Link[] {
  const out: Link[] = [];
  prose(text)
    .split('\n')
    .forEach((l, i) => {
      for (const m of l.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g))
        out.push({ page, line: i + 1, target: m[1]! });
    });
  return out;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2... */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of prose(text).matchAll(/^#{1,6} +(.+?) *#* *$/gm)) {
    const heading = text.slice(m.index, m.index + m[0].length).replace(/^#+ +/, '');
    const base = heading
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  return out;
}

function resolveLink(l: Link): { file: string; anchor: string | null } | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(l.target)) return null; // https:, mailto:
  const [path, anchor] = l.target.split('#') as [string, string | undefined];
  const file = path ? normalize(join(dirname(l.page), decodeURIComponent(path))) : l.page;
  return { file, anchor: anchor ?? null };
}

describe('README.md and docs/', () => {
  it(`README.md has at most ${README_MAX_LINES} lines`, () => {
    const lines = read('README.md').trimEnd().split('\n').length;
    expect(lines).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it('every relative link resolves to an existing file, and an anchor to a heading there', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const page of PAGES) {
      for (const l of links(page, read(page))) {
        const r = resolveLink(l);
        if (!r) continue;
        checked++;
        if (relative(ROOT, join(ROOT, r.file)).startsWith('..'))
          broken.push(`${page}:${l.line}: ${l.target} leaves the repository`);
        else if (!existsSync(join(ROOT, r.file))) broken.push(`${page}:${l.line}: ${l.target}: no file ${r.file}`);
        else if (r.anchor && r.file.endsWith('.md') && !anchorsOf(r.file).has(r.anchor))
          broken.push(`${page}:${l.line}: ${l.target}: ${r.file} has no heading #${r.anchor}`);
      }
    }
    expect(broken).toEqual([]);
    expect(checked).toBeGreaterThan(50);
  });

  it('every page of docs/ (outside docs/ops/) is linked from the index docs/README.md, and the index from README.md', () => {
    const index = new Set(
      links('docs/README.md', read('docs/README.md'))
        .map((l) => resolveLink(l)?.file)
        .filter((f) => f !== undefined),
    );
    const pages = markdownUnder('docs').filter((p) => !p.startsWith('docs/ops/') && p !== 'docs/README.md');
    expect(pages.filter((p) => !index.has(p))).toEqual([]);
    expect(links('README.md', read('README.md')).map((l) => l.target)).toContain('docs/README.md');
  });

  it('the link and anchor readers find what they should', () => {
    const text = '# A: b, c\n\n## Set `up`\n\n[x](a.md#a-b-c) `[no](link.md)`\n```\n[no](code.md)\n```\n## A: b, c\n';
    expect(links('docs/p.md', text).map((l) => l.target)).toEqual(['a.md#a-b-c']);
    expect([...anchors(text)]).toEqual(['a-b-c', 'set-up', 'a-b-c-1']);
    expect(resolveLink({ page: 'docs/p.md', line: 1, target: '../README.md#x' })).toEqual({
      file: 'README.md',
      anchor: 'x',
    });
  });
});
