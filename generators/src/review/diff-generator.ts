// `yo raf-op:diff [--against REF] [--breaking] [--summary]`: the spec-review report of `npm run diff` / `npm run breaking`.

import Generator, { type BaseOptions } from 'yeoman-generator';
import { SpecErrors } from '../spec/errors.ts';
import { breakingReport, diffReport } from './report.ts';

type Options = BaseOptions & { against?: string; breaking?: boolean; summary?: boolean };

export default class DiffGenerator extends Generator<Record<string, unknown>, Options> {
  constructor(args: string[], options: Options) {
    super(args, options);
    this.option('against', {
      type: String,
      default: 'HEAD',
      description: 'Git ref whose specs the working tree is compared with',
    });
    this.option('breaking', {
      type: Boolean,
      description: 'Only the breaking-change check; fails on a break not in specs/breaking-allow.json',
    });
    this.option('summary', { type: Boolean, description: 'List generated files without their hunks' });
  }

  async writing(): Promise<void> {
    const o = this.options as Options;
    const against = o.against ?? 'HEAD';
    try {
      if (o.breaking) {
        const { markdown, failed } = breakingReport(this.destinationRoot(), against);
        this.log(markdown);
        if (failed)
          throw new Error(`breaking changes against ${against} that ${'specs/breaking-allow.json'} does not allow`);
        return;
      }
      this.log((await diffReport(this.destinationRoot(), { against, summary: o.summary === true })).markdown);
    } catch (e) {
      if (e instanceof SpecErrors) throw new Error(e.errors.map(String).join('\n'));
      throw e;
    }
  }
}
