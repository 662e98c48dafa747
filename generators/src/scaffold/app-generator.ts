// `yo raf-op NAME`: asks (or reads flags), validates the new spec, writes it with its bindings and stubs, prints the checklist.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import Generator, { type BaseOptions, type PromptQuestion } from 'yeoman-generator';
import { generate } from '../generate.ts';
import type { ScaffoldAnswers } from './answers.ts';
import type { Asker } from './ask.ts';
import { QUESTIONS } from './questions.ts';
import { prepareScaffold, RESUME_FILE, scaffoldReport } from './run.ts';
import type { ScaffoldPlan } from './scaffold.ts';

/** One flag per question; `--grad` answers both the kind and the formulas. */
const FLAGS = [...new Map(QUESTIONS.filter((q) => q.flag !== 'NAME').map((q) => [q.flag, q.message])).entries()];

export { RESUME_FILE };

type Options = BaseOptions & { force?: boolean; yes?: boolean; name?: string } & Record<string, unknown>;

export default class RafOpGenerator extends Generator<Record<string, unknown>, Options> {
  // Yeoman runs every method not starting with `_` as a task, so helpers are `_`-prefixed or outside the class.
  private started = performance.now();
  private answers!: ScaffoldAnswers;
  private plan!: ScaffoldPlan;
  /** Files Yeoman's conflicter should write without asking (see writing()). */
  private readonly preResolved = new Set<string>();

  constructor(args: string[], options: Options) {
    super(args, options);
    this.argument('name', {
      type: String,
      required: false,
      description: 'Op name (raf.op.<name>); asked when missing',
    });
    for (const [flag, message] of FLAGS) this.option(flag, { type: String, description: message });
    this.option('saves', { type: String, description: 'With formula gradients: what the backward keeps' });
    this.option('yes', {
      type: Boolean,
      alias: 'y',
      description: 'Take the default of every question no flag answers (scripts, CI)',
    });
    this.option('resume', {
      type: Boolean,
      description: `Start from the answers of the last refused scaffold (kept in ${RESUME_FILE}); flags still override them`,
    });
    this.option('force', {
      type: Boolean,
      description: "Replace an existing op's spec, and overwrite changed files without asking",
    });
  }

  async prompting(): Promise<void> {
    const flags: Record<string, string | undefined> = { NAME: this._stringOption('name') };
    for (const q of QUESTIONS) if (q.flag !== 'NAME') flags[q.flag] = this._stringOption(q.flag);
    ({ answers: this.answers, plan: this.plan } = await prepareScaffold(
      this.destinationRoot(),
      {
        flags,
        yes: this.options.yes === true,
        resume: this.options.resume === true,
        force: this.options.force === true,
      },
      this._asker(),
    ));
  }

  writing(): void {
    for (const c of this.plan.changes) {
      const abs = this.destinationPath(c.path);
      // Everything but the spec is raf-op's own output: generated files, new stubs (never over an existing
      // file) and the by-design edits `npm run gen` makes (a gradient stub's signature, the op-id lock).
      // The spec exists already only when --force asked to replace it.
      if (c.action !== 'create' && (c.path !== this.plan.specPath || this.options.force === true))
        this.preResolved.add(abs);
      if (c.action === 'delete') this.fs.delete(abs);
      else this.fs.write(abs, c.content!);
    }
    const resolved = this.preResolved;
    this.queueTransformStream(
      {},
      new Transform({
        objectMode: true,
        transform(file: { path: string; conflicter?: string }, _enc, done) {
          if (resolved.has(file.path)) file.conflicter = 'force';
          done(null, file);
        },
      }),
    );
  }

  async end(): Promise<void> {
    const root = this.destinationRoot();
    const spec = join(root, this.plan.specPath);
    if (!existsSync(spec) || readFileSync(spec, 'utf8') !== this.plan.specText) {
      // The conflicter was told to skip the spec: bring the bindings back in line with the specs on disk.
      await generate(root);
      this.log(`${this.plan.specPath} was not written; bindings regenerated from the specs on disk.`);
      return;
    }
    this.log(scaffoldReport({ answers: this.answers, plan: this.plan }, this.started));
  }

  _asker(): Asker {
    return async (q, dflt, choices, validate, suggestions) => {
      const message = suggestions?.length ? `${q.message} [${suggestions.join(', ')}]` : q.message;
      // Inquirer's question type is wider than the two kinds used here.
      const question = choices
        ? { type: 'select', name: q.name, message, choices: [...choices], default: dflt }
        : { type: 'input', name: q.name, message, default: dflt || undefined, validate };
      const answer = await this.prompt<Record<string, string>>([question as PromptQuestion<Record<string, string>>]);
      return String(answer[q.name] ?? dflt);
    };
  }

  _stringOption(name: string): string | undefined {
    const v = this.options[name];
    return v === undefined || v === null || v === false ? undefined : String(v);
  }
}
