// Names that become TypeScript identifiers in generated code: refused at spec level (file:line:col and a hint)
// when they would collide with each other, with the names the emitters declare, or with the language itself.

import { SpecError } from './errors.ts';
import type { OpModel } from './model.ts';

/** Words that cannot be a binding in strict-mode TypeScript (plus globals no generated binding may shadow). */
export const RESERVED_WORDS: ReadonlySet<string> = new Set(
  (
    'await break case catch class const continue debugger default delete do else enum export extends false finally for ' +
    'function if implements import in instanceof interface let new null package private protected public return static ' +
    'super switch this throw true try typeof var void while with yield arguments eval undefined'
  ).split(' '),
);

/** Members every object has: a registry keyed by an op's name (or its camelCase) would alias one. */
const OBJECT_KEYS: ReadonlySet<string> = new Set([...Object.getOwnPropertyNames(Object.prototype), '__proto__']);

/**
 * Names the generated code declares next to an op's args, so no arg may take them: the typed API imports `invoke`;
 * type functions read `args`; kernels take `out` and CPU kernels from `compute` declare `result` and call `finish`;
 * gradient contexts are read through `ctx`.
 */
const GENERATED_NAMES: ReadonlySet<string> = new Set([
  'invoke',
  'args',
  'out',
  'result',
  'ctx',
  'finish',
  'inputs',
  'attrs',
]);

/**
 * A CPU kernel generated from `compute` also declares `r`, `i` and (where products may be int32) `int32`, and for each
 * tensor arg t the locals ts, ti, tv.
 */
const COMPUTE_LOCALS: ReadonlySet<string> = new Set(['r', 'i', 'int32']);

export const camelOf = (snake: string) => snake.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** Every identifier problem in the model's ops (synthesized backward ops are checked through their forward op). */
export function checkIdentifiers(ops: readonly OpModel[]): SpecError[] {
  const errors: SpecError[] = [];
  const own = ops.filter((o) => !o.derivedFrom);
  for (const op of own) checkOp(op, errors);
  checkOpNames(ops, errors);
  return errors;
}

function checkOp(op: OpModel, errors: SpecError[]): void {
  const names = op.args.map((a) => a.name);
  const tensors = op.args.filter((a) => a.type.startsWith('Tensor')).map((a) => a.name);
  const differentiable = op.grad.kind !== 'none';
  for (const a of op.args) {
    const n = a.name;
    const refuse = (message: string, hint: string) => errors.push(new SpecError(a.loc, message, hint));
    if (RESERVED_WORDS.has(n) || RESERVED_WORDS.has(camelOf(n))) {
      refuse(`arg '${n}' is a reserved word in TypeScript`, `rename it, e.g. '${n}_value'`);
      continue;
    }
    if (OBJECT_KEYS.has(n) || OBJECT_KEYS.has(camelOf(n))) {
      refuse(`arg '${n}' would shadow Object.prototype.${camelOf(n)}`, `rename it, e.g. '${n}_value'`);
      continue;
    }
    if (GENERATED_NAMES.has(n)) {
      refuse(
        `arg '${n}' collides with '${n}' in ${op.name}'s generated code`,
        `rename it; the generated code reserves ${[...GENERATED_NAMES].join(', ')}`,
      );
      continue;
    }
    // The backward's context holds the saved values, `dy` (the output's gradient) and every non-tensor arg: an arg
    // named dy, or named y while the output y is saved, would be declared twice there (and formulas would be ambiguous).
    const savesY = op.grad.kind !== 'none' && op.grad.saves.includes('y');
    if ((differentiable && n === 'dy') || (savesY && n === 'y')) {
      refuse(
        `arg '${n}' collides with the gradient's '${n}' (${n === 'y' ? 'the saved output' : "the output's gradient"})`,
        `rename the arg (e.g. '${n === 'y' ? 'other' : 'delta'}')`,
      );
      continue;
    }
    // A type function normalizes axis-checked args into consts of their own name beside `const a = args.with(...)`.
    if (n === 'a' && a.checks.some((c) => c.kind === 'axis' || c.kind === 'axes')) {
      refuse(
        `arg 'a' collides with the type function's 'a' (its axis check declares a const of the arg's name)`,
        "rename it, e.g. 'axis'",
      );
      continue;
    }
    if (op.out.outputs?.includes(n)) {
      refuse(
        `arg '${n}' has the name of an output of ${op.name}`,
        `rename the arg or the output (out.outputs: ${op.out.outputs.join(', ')})`,
      );
      continue;
    }
    if (op.compute) {
      if (COMPUTE_LOCALS.has(n)) {
        refuse(
          `arg '${n}' collides with a local of ${op.name}'s generated CPU kernel`,
          `rename it; kernels generated from compute declare ${[...COMPUTE_LOCALS].join(', ')}`,
        );
        continue;
      }
      const clash = tensors.find((t) => t !== n && [`${t}s`, `${t}i`, `${t}v`].includes(n));
      if (clash)
        refuse(
          `arg '${n}' collides with a local the generated CPU kernel declares for tensor '${clash}' (${clash}s, ${clash}i, ${clash}v)`,
          `rename '${n}'`,
        );
    }
  }
  if (op.out.shape.kind === 'custom') {
    const fn = camelOf(op.out.shape.fn);
    if (RESERVED_WORDS.has(op.out.shape.fn) || RESERVED_WORDS.has(fn) || OBJECT_KEYS.has(fn))
      errors.push(
        new SpecError(
          op.loc,
          `output rule custom(${op.out.shape.fn}) would be named '${fn}', which cannot be a function name`,
          `write custom(${op.name}_rule)`,
        ),
      );
  }
}

/** Op names become `export function <camel>`, `<camel>Op` and registry keys. */
function checkOpNames(ops: readonly OpModel[], errors: SpecError[]): void {
  const byCamel = new Map<string, OpModel>();
  for (const op of [...ops].sort((a, b) =>
    a.file === b.file ? (a.name < b.name ? -1 : 1) : a.file < b.file ? -1 : 1,
  )) {
    const c = camelOf(op.name);
    const where = op.derivedFrom ? `the derived gradient '${op.name}' of ${op.derivedFrom}` : `op '${op.name}'`;
    if (RESERVED_WORDS.has(op.name) || RESERVED_WORDS.has(c)) {
      errors.push(
        new SpecError(op.loc, `${where} is a reserved word in TypeScript`, `rename it, e.g. '${op.name}_op'`),
      );
      continue;
    }
    if (OBJECT_KEYS.has(op.name) || OBJECT_KEYS.has(c)) {
      errors.push(
        new SpecError(
          op.loc,
          `${where} would shadow Object.prototype.${c} in the op registry`,
          `rename it, e.g. '${op.name}_op'`,
        ),
      );
      continue;
    }
    if (c === 'invoke') {
      errors.push(
        new SpecError(op.loc, `${where} would be the function 'invoke', which its generated API imports`, 'rename it'),
      );
      continue;
    }
    const prev = byCamel.get(c);
    if (prev && prev.name !== op.name) {
      errors.push(
        new SpecError(
          op.loc,
          `${where} and '${prev.name}' (${prev.file}) are both '${c}' in TypeScript`,
          `rename one of them; names that differ only in underscores before a digit or letter collide`,
        ),
      );
      continue;
    }
    byCamel.set(c, op);
  }
}
