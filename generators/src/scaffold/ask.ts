// Walks the questions in order: a flag answers one, `--yes` takes its default, otherwise the asker prompts.

import { finish, QUESTIONS, type Draft, type Question, type ScaffoldContext } from './questions.ts';
import type { ScaffoldAnswers } from './answers.ts';
import { existingAnswers } from './existing.ts';
import { ScaffoldError } from './names.ts';

/** Prompts for one question; `validate` returns an error message, or true when the answer parses. */
export type Asker = (
  q: Question,
  defaultText: string,
  choices: readonly string[] | undefined,
  validate: (text: string) => Promise<true | string>,
  suggestions?: readonly string[],
) => Promise<string>;

export interface AskOptions {
  /** Answers given on the command line, by flag name (`compute`, `args`, ...; `NAME` for the op). */
  readonly flags: Readonly<Record<string, string | undefined>>;
  /** Take the default of every question no flag answers. */
  readonly yes: boolean;
  /** Checks the op name as soon as it is known (unsafe or shadowing names stop the questions). */
  readonly checkOp?: (op: string) => void;
  /** Filled with each answer's text by flag as it is accepted, so a refused scaffold can be resumed (--resume). */
  readonly record?: Record<string, string>;
  /**
   * Checks a prompted answer against the answers so far (the spec validated with later questions at their defaults),
   * so a cross-answer problem is asked again at once; returns the problem, or undefined.
   */
  readonly checkSoFar?: (d: Draft, answered: ReadonlySet<string>) => Promise<string | undefined>;
}

export async function askAll(ctx: ScaffoldContext, opts: AskOptions, ask: Asker): Promise<ScaffoldAnswers> {
  const d: Draft = {};
  const used = new Set<string>();
  const answered = new Set<string>();
  // With --force on an existing op, every default is that op's current answer (existing.ts).
  let existing: Partial<Record<string, string>> = {};
  for (const q of QUESTIONS) {
    const flagged = opts.flags[q.flag] !== undefined && !used.has(q.flag);
    if (q.when && !q.when(d, ctx)) {
      if (flagged) throw new ScaffoldError(`--${q.flag} does not apply to this op`, whyNot(q));
      continue;
    }
    const dflt = existing[q.name] ?? q.default(d, ctx);
    if (flagged) {
      used.add(q.flag);
      parseAs(q, opts.flags[q.flag]!, d, ctx);
      if (opts.record) opts.record[q.flag] = opts.flags[q.flag]!;
    } else if (opts.yes) {
      if (q.name === 'op') throw new ScaffoldError('no op name given', 'yo raf-op NAME [--yes]');
      parseAs(q, dflt, d, ctx);
    } else {
      const validate = async (text: string): Promise<true | string> => {
        const next = structuredClone(d);
        try {
          q.parse(text, next, ctx);
          if (q.name === 'op') opts.checkOp?.(text.trim());
        } catch (e) {
          if (e instanceof ScaffoldError) return e.message;
          throw e;
        }
        const problem = await opts.checkSoFar?.(next, new Set([...answered, q.name]));
        return problem ?? true;
      };
      const text = await ask(q, dflt, q.choices?.(d, ctx), validate, q.suggestions?.(d, ctx));
      parseAs(q, text, d, ctx);
      // The kind and the formulas share --grad; the formulas are what a resumed run needs.
      if (opts.record && !(q.name === 'gradKind' && text === 'formula')) opts.record[q.flag] = text;
    }
    answered.add(q.name);
    if (q.name === 'op') {
      opts.checkOp?.(d.op!);
      const op = ctx.model.ops.find((o) => o.name === d.op && !o.derivedFrom);
      if (op) existing = existingAnswers(op);
    }
  }
  return finish(d, ctx);
}

function parseAs(q: Question, text: string, d: Draft, ctx: ScaffoldContext): void {
  try {
    q.parse(text, d, ctx);
  } catch (e) {
    if (e instanceof ScaffoldError && q.flag !== 'NAME' && !e.message.includes(`--${q.flag}`)) {
      throw new ScaffoldError(`--${q.flag}: ${e.message}`);
    }
    throw e;
  }
}

function whyNot(q: Question): string {
  switch (q.name) {
    case 'schema':
      return 'a compute op declares its own args';
    case 'args':
      return "the op reuses another op's schema (--schema); drop --args or --schema";
    case 'grid':
      return 'the op has no non-tensor args';
    default:
      return 'an earlier answer makes it unnecessary';
  }
}
