// The lists of test/docs/examples.ts are complete and honest: every command example is on exactly one, each run
// form keeps its example's command and flags, and .ci/run runs the CI list as written. Cheap: nothing here runs them.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { all, blockKey, CI, ciCommands, COPY, COPY_ALONE, covers, HERE, inCopy, PAGE, parse } from './examples.ts';
import { ROOT } from './shell.ts';

describe('every command example is run', () => {
  it('each command is on exactly one list, and every list entry is on some page', () => {
    const unplaced: string[] = [];
    for (const c of all) {
      // A page or block run as a whole takes its commands; any other command is on exactly one list.
      const ways =
        c.page in PAGE || COPY.includes(blockKey(c))
          ? 1
          : [CI.has(c.text), c.text in HERE, COPY_ALONE.has(c.text)].filter(Boolean).length;
      if (ways !== 1) unplaced.push(`${c.page}:${c.line}: ${c.text} (${ways} ways)`);
    }
    expect(unplaced, 'add each to one list in test/docs/examples.ts').toEqual([]);
    const texts = new Set(all.map((c) => c.text));
    const keys = new Set(all.map(blockKey));
    for (const t of [...CI, ...Object.keys(HERE), ...COPY_ALONE]) expect(texts, 'stale entry').toContain(t);
    for (const k of COPY) expect(keys, 'stale block').toContain(k);
    for (const p of Object.keys(PAGE)) expect(all.map((c) => c.page)).toContain(p);
  });

  it('CI: .ci/run runs each of its commands as written', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    for (const text of CI) {
      const example = parse(text);
      const words = example.words[0] === 'sudo' ? example.words.slice(1) : example.words;
      const ran = ciCommands.find(
        (c) => c.words.join(' ') === words.join(' ') && example.env.every((e) => c.env.includes(e)),
      );
      expect(ran, `.ci/run does not run: ${text}`).toBeDefined();
    }
    for (const [page, script] of Object.entries(PAGE)) {
      expect(readFileSync(join(ROOT, script), 'utf8'), `${script} does not run ${page}`).toContain(page);
      expect(pkg.scripts['test:package']).toContain(script);
      expect(CI.has('RAF_KEEP=0 npm run test:package')).toBe(true);
    }
  });

  it('HERE: every reduced form keeps the command and its flags', () => {
    for (const [text, how] of Object.entries(HERE))
      if (how.run) {
        expect(how.why, text).toBeTruthy();
        covers(parse(text), parse(how.run));
      }
  });

  it('the root fallback maps yo to the same generator', () => {
    const c = (t: string) => inCopy(parse(t));
    if (process.getuid?.() === 0) {
      expect(c('npx yo raf-op my_op --compute "x * 2" --yes')).toBe("npm run new -- my_op --compute 'x * 2' --yes");
      expect(c('npx yo raf-op:regen')).toBe('npm run new -- regen');
      expect(c('npx yo raf-op other_op')).toBe('npm run new -- other_op --yes');
    } else expect(c('npx yo raf-op other_op')).toBe('npx yo raf-op other_op --yes');
  });
});
