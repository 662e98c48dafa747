// `yo raf-op:regen [--check]`: regenerate every binding from specs/, exactly as `npm run gen` does.

import Generator, { type BaseOptions } from 'yeoman-generator';
import { generate } from '../generate.ts';
import { SpecErrors } from '../spec/errors.ts';

type Options = BaseOptions & { check?: boolean };

export default class RegenGenerator extends Generator<Record<string, unknown>, Options> {
  constructor(args: string[], options: Options) {
    super(args, options);
    this.option('check', {
      type: Boolean,
      description: 'Fail when generated files are stale, missing or extra; write nothing',
    });
  }

  async writing(): Promise<void> {
    const check = this.options.check === true;
    const started = performance.now();
    let result;
    try {
      result = await generate(this.destinationRoot(), { check });
    } catch (e) {
      if (e instanceof SpecErrors)
        throw new Error(`${e.errors.map(String).join('\n')}\nraf-op regen: nothing was written.`);
      throw e;
    }
    const verb = {
      create: check ? 'missing' : 'created',
      update: check ? 'stale' : 'updated',
      delete: check ? 'extra' : 'deleted',
    };
    for (const c of result.changes)
      this.log(`  ${verb[c.action].padEnd(8)} ${c.path}${c.kind === 'stub' ? '  (hand-written stub)' : ''}`);
    const summary = `${result.model.ops.length} ops, ${result.files} files, ${result.changes.length} changed, ${(performance.now() - started).toFixed(0)} ms`;
    if (check && result.changes.length)
      throw new Error(`generated files do not match the specs (${summary}); fix with: yo raf-op:regen`);
    this.log(`raf-op regen${check ? ' --check' : ''}: ${summary}`);
  }
}
