// Which op, category and arg names a scaffold may use: identifiers that stay inside specs/ and the runtime.

import { camel } from '../emit/files.ts';
import { RESERVED_WORDS } from '../spec/identifiers.ts';

/** The spec schema's own pattern for op and arg names (lower_snake_case). */
const IDENTIFIER = /^[a-z][a-z0-9_]*$/;

/**
 * Names become TypeScript bindings (`export function <camel>`, destructured fields), so words
 * that cannot be bindings are refused rather than generating code that does not parse.
 */
const RESERVED = RESERVED_WORDS;

/** Registries are keyed by op name; a name that is already a property of every object would alias one. */
const OBJECT_KEYS = new Set(Object.getOwnPropertyNames(Object.prototype));

export class ScaffoldError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(hint ? `${message}\n  hint: ${hint}` : message);
    this.name = 'ScaffoldError';
  }
}

/** Returns why `name` cannot name an op (or category, or arg), or undefined when it can. */
export function nameProblem(name: string, what: 'op' | 'category' | 'arg' | 'output'): string | undefined {
  if (!name) return `the ${what} name is empty`;
  if (/[/\\]|\.\./.test(name))
    return `${what} name '${name}' is a path; it would write outside ${what === 'category' ? 'specs/' : 'specs/ and the runtime'}`;
  if (!IDENTIFIER.test(name))
    return `${what} name '${name}' is not a lower_snake_case identifier (a-z, 0-9, _; starting with a letter)`;
  if (RESERVED.has(name) || RESERVED.has(camel(name))) return `${what} name '${name}' is a reserved word in TypeScript`;
  if (OBJECT_KEYS.has(camel(name))) return `${what} name '${name}' would shadow Object.prototype.${camel(name)}`;
  return undefined;
}

export function checkName(name: string, what: 'op' | 'category' | 'arg' | 'output'): void {
  const problem = nameProblem(name, what);
  if (problem) throw new ScaffoldError(problem, what === 'op' ? 'for example: yo raf-op hard_swish' : undefined);
}
