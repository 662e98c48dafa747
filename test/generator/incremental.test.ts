// The memos behind fast regeneration (generators/src/memo.ts) never change what is generated: a warm regeneration
// after a spec edit writes byte for byte what a cold, memo-free one writes, redoes only the edited op's work, and
// `gen --check` still finds every stale file. A memoized spec locates every node where the YAML parser does.

import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import * as tsMorph from 'ts-morph';
import { generate, specFiles } from '../../generators/src/generate.ts';
import { KIND } from '../../generators/src/emit/files.ts';
import { memoStats, resetMemos, saveMemos } from '../../generators/src/memo.ts';
import { markdownSections } from '../../generators/src/write.ts';
import { loadSpecText, type Path } from '../../generators/src/spec/load.ts';
import { REPO, smallRepo, snapshot } from './robust-repo.ts';

// Memos of its own, empty at the start, so what a run had to redo is counted from a known state.
const memoDir = mkdtempSync(join(tmpdir(), 'raf-op-memo-'));
process.env.RAF_OP_MEMO_DIR = memoDir;
resetMemos();
const roots: string[] = [memoDir];
afterAll(() => {
  delete process.env.RAF_OP_MEMO_DIR;
  resetMemos();
  roots.forEach((r) => rmSync(r, { recursive: true, force: true }));
});
afterEach(() => {
  delete process.env.RAF_OP_NO_MEMO;
});

/** A small root with the hand-written runtime (no stubs due) and nothing generated yet. */
function bareRoot(prefix: string): string {
  const root = smallRepo(prefix);
  roots.push(root);
  cpSync(join(REPO, 'runtime/src'), join(root, 'runtime/src'), {
    recursive: true,
    filter: (src) => !src.startsWith(join(REPO, 'runtime/src/generated')),
  });
  return root;
}

/** The same, generated once, so the memos are warm. */
async function warmRoot(prefix: string): Promise<string> {
  const root = bareRoot(prefix);
  await generate(root);
  return root;
}

const misses = () => Object.fromEntries(Object.entries(memoStats()).map(([k, v]) => [k, v.misses]));
const edit = (root: string, file: string, from: string, to: string) => {
  const before = readFileSync(join(root, file), 'utf8');
  expect(before).toContain(from);
  writeFileSync(join(root, file), before.replace(from, to));
};

describe('incremental regeneration', () => {
  it('after a spec edit writes exactly what a memo-free regeneration writes, redoing only that op', async () => {
    const warm = await warmRoot('incr-warm');
    const cold = bareRoot('incr-cold');
    // An edit that changes softmax's schema, type function, API, tests and docs (its default axis).
    for (const root of [warm, cold]) {
      edit(root, 'specs/nn/softmax.yaml', 'axis: { type: int, default: -1,', 'axis: { type: int, default: 0,');
      // ONNX and Relay still assume axis -1 when a node omits it: the mappings must say so.
      const p = join(root, 'specs/nn/softmax.yaml');
      writeFileSync(
        p,
        readFileSync(p, 'utf8').replaceAll(
          'attrs: { axis: axis } }',
          'attrs: { axis: axis }, defaults: { axis: -1 } }',
        ),
      );
    }

    const before = misses();
    const incremental = await generate(warm);
    const after = misses();
    process.env.RAF_OP_NO_MEMO = '1';
    const full = await generate(cold);

    // The cold root generates everything from scratch: the trees must come out identical, file for file.
    expect(full.changes.length).toBeGreaterThan(incremental.changes.length);
    expect(incremental.changes.length).toBeGreaterThan(3);
    expect(snapshot(warm)).toEqual(snapshot(cold));
    // Only the edited op's files (and aggregates that list its defaults) were printed and formatted anew: exp and
    // multiply, untouched, were all memo hits.
    const printed = after.print! - before.print!;
    expect(printed).toBeGreaterThan(0);
    expect(printed).toBeLessThanOrEqual(incremental.changes.length);
    expect(after['spec-data']! - before['spec-data']!).toBe(1);
  }, 120_000); // a memo-free generation of every op (~10 s of CPU alone) plus a warm one: slow on a loaded machine

  it('gen --check still reports a stale file, a hand edit of a generated file and a spec edit, with warm memos', async () => {
    const root = await warmRoot('incr-check');
    saveMemos();
    expect((await generate(root, { check: true })).changes).toEqual([]);
    const file = 'runtime/src/generated/api/exp.ts';
    writeFileSync(join(root, file), `${readFileSync(join(root, file), 'utf8')}// edited by hand\n`);
    expect((await generate(root, { check: true })).changes).toEqual([
      expect.objectContaining({ path: file, action: 'update' }),
    ]);
    await generate(root);
    edit(root, 'specs/math/exp.yaml', 'doc: ', 'doc: Edited. ');
    const stale = (await generate(root, { check: true })).changes.map((c) => c.path);
    expect(stale).toContain('runtime/src/generated/api/exp.ts');
    rmSync(join(root, 'runtime/src/generated/type/multiply.ts'));
    const missing = await generate(root, { check: true });
    expect(missing.changes).toContainEqual(
      expect.objectContaining({ path: 'runtime/src/generated/type/multiply.ts', action: 'create' }),
    );
  });
});

describe('memoized pieces', () => {
  /** Every path in a spec's data, plus one past each (a missing key or index), to exercise the fallbacks. */
  function pathsOf(data: unknown, prefix: Path = []): Path[] {
    const out: Path[] = [prefix, [...prefix, 'no_such_key'], [...prefix, 99]];
    if (Array.isArray(data)) data.forEach((v, i) => out.push(...pathsOf(v, [...prefix, i])));
    else if (data && typeof data === 'object')
      for (const [k, v] of Object.entries(data)) out.push(...pathsOf(v, [...prefix, k]));
    return out;
  }

  it('a memoized spec locates every node, key and missing path exactly where a fresh parse does', () => {
    // Every fourth spec keeps the test fast; topk (a tuple output) and batch_norm (many fields) are always in.
    const files = specFiles(REPO).filter((f, i) => i % 4 === 0 || /\/(topk|batch_norm)\.yaml$/.test(f));
    for (const file of files) {
      const text = readFileSync(join(REPO, file), 'utf8');
      process.env.RAF_OP_NO_MEMO = '1';
      const fresh = loadSpecText(file, text).spec!;
      delete process.env.RAF_OP_NO_MEMO;
      loadSpecText(file, text); // fills the memo
      const memo = loadSpecText(file, text).spec!;
      expect(memo.data, file).toEqual(fresh.data);
      for (const p of pathsOf(fresh.data))
        for (const key of [false, true])
          expect(memo.locate(p, key), `${file} ${p.join('.')}`).toEqual(fresh.locate(p, key));
    }
  });

  it('docs pages formatted section by section are what prettier makes of the whole page', async () => {
    const prettier = await import('prettier');
    const options = (await prettier.resolveConfig(join(REPO, 'package.json'))) ?? {};
    for (const page of ['docs/ops/reduce.md', 'docs/ops/README.md', 'docs/coverage.md']) {
      const text = readFileSync(join(REPO, page), 'utf8');
      expect(markdownSections(text).length, page).toBeGreaterThan(page.includes('reduce') ? 5 : 0);
      expect(markdownSections(text).join(''), page).toBe(text);
      expect(await prettier.format(text, { ...options, filepath: join(REPO, page) }), page).toBe(text);
    }
  });

  it("the structure kinds files.ts writes without loading ts-morph are ts-morph's own", () => {
    for (const [name, value] of Object.entries(KIND))
      expect(value, name).toBe(tsMorph.StructureKind[name as keyof typeof tsMorph.StructureKind]);
  });
});
