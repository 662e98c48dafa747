// Aggregate files (a line or an entry per op) are written without ts-morph and formatted in pieces, and JSON that
// prettier would leave as it is skips prettier (generators/src/chunks.ts): on every such file generated from the real
// specs, the result is exactly prettier's text of the whole file as ts-morph prints it, which is what is committed.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type * as Prettier from 'prettier';
import { emitAll } from '../../generators/src/emit/index.ts';
import { isAggregate, type EmittedFile } from '../../generators/src/emit/files.ts';
import { loadModel } from '../../generators/src/generate.ts';
import {
  contentGroups,
  formatTsInPieces,
  isPrettierJson,
  lexLines,
  listStatement,
  topLevelStatements,
} from '../../generators/src/chunks.ts';
import { REPO } from './robust-repo.ts';

let prettier: typeof Prettier;
let options: Prettier.Options;
const fmt = (path: string) => (text: string) => prettier.format(text, { ...options, filepath: join(REPO, path) });

/** Every generated file of the real specs, emitted as the generator does (`whole`: as before, all through ts-morph). */
function emitted(whole: boolean): { generated: EmittedFile[]; stubs: EmittedFile[] } {
  if (whole) process.env.RAF_OP_FORMAT_WHOLE = '1';
  try {
    return emitAll(loadModel(REPO));
  } finally {
    delete process.env.RAF_OP_FORMAT_WHOLE;
  }
}
let plainFiles: { generated: EmittedFile[]; stubs: EmittedFile[] };

beforeAll(async () => {
  prettier = await import('prettier');
  options = (await prettier.resolveConfig(join(REPO, 'package.json'))) ?? {};
  plainFiles = emitted(false);
});
afterEach(() => {
  delete process.env.RAF_OP_FORMAT_WHOLE;
});

describe('aggregate files in pieces', () => {
  it("are, on every aggregate of the real specs, prettier's text of the whole ts-morph print (the committed file)", async () => {
    const plain = plainFiles.generated.filter((f) => isAggregate(f.source) && f.path.endsWith('.ts'));
    const morph = new Map(emitted(true).generated.map((f) => [f.path, f]));
    expect(plain.map((f) => f.path)).toEqual(
      expect.arrayContaining(['runtime/src/generated/index.ts', 'runtime/src/generated/ops.ts']),
    );
    let lists = 0;
    for (const f of plain) {
      const whole = await fmt(f.path)(morph.get(f.path)!.content);
      expect(whole, f.path).toBe(readFileSync(join(REPO, f.path), 'utf8'));
      const calls: string[] = [];
      const pieces = await formatTsInPieces(
        f.content,
        (t) => (calls.push(t), fmt(f.path)(t)),
        options.printWidth ?? 80,
      );
      expect(pieces, f.path).toBe(whole);
      lists += topLevelStatements(f.content)!.filter((s) => listStatement(s)).length;
      // The registry really is cut: no piece holds more than a fraction of it.
      if (f.path.endsWith('generated/index.ts'))
        expect(Math.max(...calls.map((c) => c.length))).toBeLessThan(f.content.length / 8);
    }
    // OPS, registerDialectOps, installRelayConverters, COMPUTE, ONNX_MAPPINGS, OP_IDS.
    expect(lists).toBeGreaterThanOrEqual(6);
  }, 120_000); // prettier over ~150 kB twice: a few seconds, far more on a loaded machine

  it('a new op changes only the pieces around it: the others are formatted from the same text as before', async () => {
    const index = plainFiles.generated.find((f) => f.path === 'runtime/src/generated/index.ts')!.content;
    // One more op, as the registry lists it: an import, an OPS entry, a gradient line, a dialect op and a converter.
    const added = index
      .replace(
        "import { absOp } from './api/abs.ts';",
        "import { aaaOp } from './api/aaa.ts';\nimport { absOp } from './api/abs.ts';",
      )
      .replace('abs: absOp,', 'aaa: aaaOp,\nabs: absOp,')
      .replace('absOp.grad = absGrad;', 'aaaOp.grad = aaaGrad;\nabsOp.grad = absGrad;')
      .replace('absCpuOp,', 'aaaCpuOp,\nabsCpuOp,')
      .replace('absRelay,', 'aaaRelay,\nabsRelay,');
    const seen = (text: string) => {
      const calls = new Set<string>();
      return formatTsInPieces(text, async (t) => (calls.add(t), t), 120).then(() => calls);
    };
    const before = await seen(index);
    const after = await seen(added);
    const fresh = [...after].filter((t) => !before.has(t));
    expect(fresh.length).toBeGreaterThan(0);
    expect(fresh.length).toBeLessThanOrEqual(5);
    expect(fresh.join('').length).toBeLessThan(index.length / 10);
  });

  it('cuts only between statements, and text in templates, strings and comments does not fool it', () => {
    const text = [
      '// header',
      '',
      "import { a } from './a.ts';",
      'const t = `line',
      'x = 1;',
      '${a}`;',
      "const s = '}'; // ;",
      '/* a comment; */',
      'export function f() {',
      '  return 1;',
      '}',
      'f()',
      '  .toString();',
      '',
    ].join('\n');
    const statements = topLevelStatements(text)!;
    expect(statements.join('')).toBe(text);
    // A comment line goes with the statement under it, blank line or not.
    expect(statements.map((s) => s.split('\n')[0])).toEqual([
      '// header',
      'const t = `line',
      "const s = '}'; // ;",
      '/* a comment; */',
      'f()',
    ]);
    expect(lexLines('`${"}"}`').at(-1)).toMatchObject({ depthOut: 0, cleanOut: true });
    expect(topLevelStatements('const a = `open\n')).toBeUndefined();
  });

  it('leaves short lists, numbers and quoted keys to prettier whole', () => {
    const entries = (f: (i: number) => string) => Array.from({ length: 20 }, (_, i) => f(i)).join(',\n');
    expect(listStatement(`export const A = {\n${entries((i) => `k${i}: v${i}`)}\n};`)?.entries).toHaveLength(20);
    expect(listStatement(`export const A = {\nk: v\n};`)).toBeUndefined();
    expect(listStatement(`export const A = [\n${entries((i) => `${i}`)}\n];`)).toBeUndefined();
    expect(listStatement(`export const A = {\n${entries((i) => `'k-${i}': v`)}\n};`)).toBeUndefined();
    const groups = contentGroups(
      Array.from({ length: 200 }, (_, i) => `e${i}`),
      (s) => s,
      16,
    );
    expect(groups.flat()).toHaveLength(200);
    expect(groups.length).toBeGreaterThan(4);
  });
});

describe('JSON prettier leaves as it is', () => {
  it('is recognized without prettier on the generated JSON files, and prettier agrees', async () => {
    const json = [...plainFiles.generated, ...plainFiles.stubs].filter((f) => f.path.endsWith('.json'));
    expect(json.map((f) => f.path)).toEqual(
      expect.arrayContaining(['runtime/src/generated/specs.json', 'specs/op-ids.lock.json']),
    );
    for (const f of json) {
      expect(isPrettierJson(f.content), f.path).toBe(true);
      expect(await fmt(f.path)(f.content), f.path).toBe(f.content);
    }
  });

  it('goes to prettier when prettier would change it (arrays it may join on a line, other spacing)', async () => {
    const cases = [{ a: [1, 2, 3] }, { a: ['x', 'y'] }, { a: [{}, []] }, { a: [[1], [2]] }].map(
      (v) => `${JSON.stringify(v, null, 2)}\n`,
    );
    for (const text of cases) {
      expect(isPrettierJson(text), text).toBe(false);
      expect(await fmt('x.json')(text), text).not.toBe(text);
    }
    expect(isPrettierJson('{"a": 1}\n')).toBe(false);
    const kept = [{ a: [{ b: 1 }, { c: [] }] }, { a: [], b: {} }, { a: [[{ c: 1 }], 'x'] }].map(
      (v) => `${JSON.stringify(v, null, 2)}\n`,
    );
    for (const text of kept) expect(isPrettierJson(text) && (await fmt('x.json')(text)) === text, text).toBe(true);
  });
});
