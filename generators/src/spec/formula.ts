// Gradient formulas: `softmax_dx(y, dy, axis)`, `dy * y`, `-(dy * y / b)` → calls of base ops.

/** Arithmetic operators in formulas are sugar for these base ops. */
export const FORMULA_OPERATORS = { '+': 'add', '-': 'subtract', '*': 'multiply', '/': 'divide' } as const;
export const FORMULA_NEGATE = 'negative';

/** A keyword argument of a call: `exclusive=true` binds the callee's arg of that name. */
export interface FormulaKeyword {
  readonly name: string;
  readonly value: Formula;
  /** Where the name starts. */
  readonly offset: number;
}

export type Formula =
  | { readonly kind: 'ref'; readonly name: string; readonly offset: number }
  /** A number; `int` when written without a point or exponent (`2`, `-1`), which an int arg accepts. */
  | { readonly kind: 'num'; readonly value: number; readonly int: boolean; readonly offset: number }
  | { readonly kind: 'bool'; readonly value: boolean; readonly offset: number }
  | { readonly kind: 'null'; readonly offset: number }
  | { readonly kind: 'list'; readonly items: readonly Formula[]; readonly offset: number }
  /** One output of a list of tensors (a tuple op's result, its `y` or `dy`): by position (`dy[1]`) or name (`y.indices`). */
  | { readonly kind: 'item'; readonly of: Formula; readonly key: number | string; readonly offset: number }
  | {
      readonly kind: 'call';
      readonly op: string;
      readonly args: readonly Formula[];
      readonly kwargs: readonly FormulaKeyword[];
      readonly offset: number;
    };

export class FormulaError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

/** Words with a meaning of their own in formulas: no arg, output or op may be read under these names. */
export const FORMULA_LITERALS: Readonly<Record<string, boolean | null>> = { true: true, false: false, null: null };

const TOKEN = /\s*(?:(\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|([A-Za-z_]\w*)|(.))/gy;

/**
 * The formula grammar (docs/reference/formulas.md is generated from FORMULA_GRAMMAR):
 * sum of products of unary terms; a term is a number, true/false/null, a [list], a name, a call with positional
 * then keyword arguments, or a parenthesized formula, each optionally followed by [index] or .output selectors.
 */
export const FORMULA_GRAMMAR: readonly (readonly [string, string])[] = [
  ['formula', "term (('+' | '-') term)*"],
  ['term', "unary (('*' | '/') unary)*"],
  ['unary', "'-' unary | postfix"],
  ['postfix', "atom ('[' INT ']' | '.' NAME)*"],
  ['atom', "NUMBER | 'true' | 'false' | 'null' | list | call | NAME | '(' formula ')'"],
  ['list', "'[' (formula (',' formula)*)? ']'"],
  ['call', "NAME '(' (args)? ')'"],
  ['args', "formula (',' formula)* (',' NAME '=' formula)* | NAME '=' formula (',' NAME '=' formula)*"],
  ['NUMBER', 'digits, optionally .digits and an exponent (e-5); written without . or exponent it is an int'],
  ['NAME', 'a letter or _ followed by letters, digits and _'],
];

export function parseFormula(src: string): Formula {
  const tokens: { text: string; kind: 'num' | 'id' | 'sym'; offset: number }[] = [];
  TOKEN.lastIndex = 0;
  let m: RegExpExecArray | null;
  while (TOKEN.lastIndex < src.length && (m = TOKEN.exec(src))) {
    if (m[0].trim() === '') break;
    const offset = m.index + m[0].length - (m[1] ?? m[2] ?? m[3] ?? '').length;
    tokens.push({ text: m[1] ?? m[2] ?? m[3]!, kind: m[1] ? 'num' : m[2] ? 'id' : 'sym', offset });
  }
  let i = 0;
  const peek = () => tokens[i];
  const expect = (s: string, what?: string) => {
    const t = tokens[i];
    if (!t || t.text !== s)
      throw new FormulaError(
        `expected '${s}'${what ? ` ${what}` : ''}${t ? `, got '${t.text}'` : ' at the end'}`,
        t?.offset ?? src.length,
      );
    i++;
  };
  const binary = (lhs: Formula, sym: '+' | '-' | '*' | '/', rhs: Formula): Formula => ({
    kind: 'call',
    op: FORMULA_OPERATORS[sym],
    args: [lhs, rhs],
    kwargs: [],
    offset: lhs.offset,
  });
  const sum = (): Formula => {
    let lhs = product();
    while (peek()?.text === '+' || peek()?.text === '-') lhs = binary(lhs, tokens[i++]!.text as '+' | '-', product());
    return lhs;
  };
  const product = (): Formula => {
    let lhs = unary();
    while (peek()?.text === '*' || peek()?.text === '/') lhs = binary(lhs, tokens[i++]!.text as '*' | '/', unary());
    return lhs;
  };
  const unary = (): Formula => {
    const t = peek();
    if (t?.text === '-') {
      i++;
      const arg = unary();
      // A negative literal is a number (an int arg takes -1), not a call of negative.
      if (arg.kind === 'num' && arg.offset === tokens[i - 1]!.offset && tokens[i - 1]!.kind === 'num')
        return { ...arg, value: -arg.value, offset: t.offset };
      return { kind: 'call', op: FORMULA_NEGATE, args: [arg], kwargs: [], offset: t.offset };
    }
    return postfix();
  };
  const postfix = (): Formula => {
    let f = atom();
    for (;;) {
      const t = peek();
      if (t?.text === '[') {
        i++;
        const index = tokens[i];
        if (!index || index.kind !== 'num' || !/^\d+$/.test(index.text))
          throw new FormulaError(
            `an output is selected by a whole number, as in dy[0]${index ? `, got '${index.text}'` : ''}`,
            index?.offset ?? src.length,
          );
        i++;
        expect(']', 'after the output index');
        f = { kind: 'item', of: f, key: Number(index.text), offset: t.offset };
      } else if (t?.text === '.') {
        i++;
        const name = tokens[i];
        if (!name || name.kind !== 'id')
          throw new FormulaError(
            `an output is selected by its name, as in y.indices${name ? `, got '${name.text}'` : ''}`,
            name?.offset ?? src.length,
          );
        i++;
        f = { kind: 'item', of: f, key: name.text, offset: name.offset };
      } else return f;
    }
  };
  const atom = (): Formula => {
    const t = tokens[i++];
    if (!t) throw new FormulaError('unexpected end of formula', src.length);
    if (t.kind === 'num') return { kind: 'num', value: Number(t.text), int: /^\d+$/.test(t.text), offset: t.offset };
    if (t.text === '(') {
      const inner = sum();
      expect(')');
      return inner;
    }
    if (t.text === '[') {
      const items: Formula[] = [];
      if (peek()?.text !== ']') {
        items.push(sum());
        while (peek()?.text === ',') {
          i++;
          items.push(sum());
        }
      }
      expect(']', 'to close the list');
      return { kind: 'list', items, offset: t.offset };
    }
    if (t.kind !== 'id') throw new FormulaError(`unexpected '${t.text}'`, t.offset);
    if (Object.hasOwn(FORMULA_LITERALS, t.text)) {
      const value = FORMULA_LITERALS[t.text]!;
      if (peek()?.text === '(') throw new FormulaError(`'${t.text}' is a literal, not an op`, t.offset);
      return value === null ? { kind: 'null', offset: t.offset } : { kind: 'bool', value, offset: t.offset };
    }
    if (peek()?.text !== '(') return { kind: 'ref', name: t.text, offset: t.offset };
    i++;
    const args: Formula[] = [];
    const kwargs: FormulaKeyword[] = [];
    const argument = () => {
      const name = peek();
      // `name=value` (not `name == value`, which formulas do not have) is a keyword argument.
      if (name?.kind === 'id' && tokens[i + 1]?.text === '=' && tokens[i + 2]?.text !== '=') {
        i += 2;
        if (kwargs.some((k) => k.name === name.text))
          throw new FormulaError(`keyword argument '${name.text}' is given twice`, name.offset);
        kwargs.push({ name: name.text, value: sum(), offset: name.offset });
        return;
      }
      const arg = sum();
      if (kwargs.length)
        throw new FormulaError(
          'a positional argument follows a keyword argument; name it too (NAME=...)',
          name?.offset ?? src.length,
        );
      args.push(arg);
    };
    if (peek()?.text !== ')') {
      argument();
      while (peek()?.text === ',') {
        i++;
        argument();
      }
    }
    expect(')', `to close the call of ${t.text}`);
    return { kind: 'call', op: t.text, args, kwargs, offset: t.offset };
  };
  const result = sum();
  if (i < tokens.length) throw new FormulaError(`unexpected '${tokens[i]!.text}'`, tokens[i]!.offset);
  return result;
}

/** The direct subformulas of a formula, in source order. */
export function formulaChildren(f: Formula): readonly Formula[] {
  switch (f.kind) {
    case 'call':
      return [...f.args, ...f.kwargs.map((k) => k.value)];
    case 'list':
      return f.items;
    case 'item':
      return [f.of];
    default:
      return [];
  }
}

/** Every name a formula reads and every op it calls, with offsets. */
export function formulaRefs(
  f: Formula,
  refs: Formula[] = [],
  calls: Formula[] = [],
): { refs: Formula[]; calls: Formula[] } {
  if (f.kind === 'ref') refs.push(f);
  if (f.kind === 'call') calls.push(f);
  for (const a of formulaChildren(f)) formulaRefs(a, refs, calls);
  return { refs, calls };
}

const SCALAR_ARITHMETIC: Readonly<Partial<Record<string, (a: number, b: number) => number>>> = {
  add: (a, b) => a + b,
  subtract: (a, b) => a - b,
  multiply: (a, b) => a * b,
  divide: (a, b) => a / b,
};

/** The JavaScript operator of a formula's arithmetic op (`multiply` → `*`), or undefined for any other op. */
export function scalarOperator(op: string): string | undefined {
  if (op === FORMULA_NEGATE) return '-';
  return Object.entries(FORMULA_OPERATORS).find(([, name]) => name === op)?.[0];
}

/**
 * Arithmetic on plain numbers stays a number: in `3 * alpha * x` the product `3 * alpha` is a weak scalar that takes
 * x's dtype, not a float32 scalar tensor that a float64 x would refuse. Returns undefined when `op` is not arithmetic
 * or an argument is not a number (the op is then called on tensors).
 */
export function scalarArithmetic(op: string, args: readonly unknown[]): number | undefined {
  if (!args.every((a) => typeof a === 'number')) return undefined;
  const nums = args as readonly number[];
  if (op === FORMULA_NEGATE && nums.length === 1) return -nums[0]!;
  const f = SCALAR_ARITHMETIC[op];
  return f && nums.length === 2 ? f(nums[0]!, nums[1]!) : undefined;
}

/**
 * Evaluates a formula: names from `env`, ops through `call` (the runtime's dispatcher, given positional and keyword
 * args), arithmetic on numbers alone as numbers (see scalarArithmetic). The oracle of `tests.oracle`, in this
 * repository's tests and in a package's. An output selected by name must have been turned into its index by the
 * generator (formula-types.ts, oracleSource), which knows the op's outputs.
 */
export function evaluateFormula(
  f: Formula,
  env: Readonly<Record<string, unknown>>,
  call: (op: string, args: unknown[], keyword?: Readonly<Record<string, unknown>>) => unknown,
): unknown {
  switch (f.kind) {
    case 'num':
    case 'bool':
      return f.value;
    case 'null':
      return null;
    case 'ref':
      return env[f.name];
    case 'list':
      return f.items.map((a) => evaluateFormula(a, env, call));
    case 'item': {
      const of = evaluateFormula(f.of, env, call);
      if (typeof f.key !== 'number' || !Array.isArray(of))
        throw new Error(`formula: cannot select output ${String(f.key)} of a value that is not a list of tensors`);
      return of[f.key];
    }
    case 'call': {
      const args = f.args.map((a) => evaluateFormula(a, env, call));
      if (f.kwargs.length) {
        const keyword = Object.fromEntries(f.kwargs.map((k) => [k.name, evaluateFormula(k.value, env, call)]));
        return call(f.op, args, keyword);
      }
      return scalarArithmetic(f.op, args) ?? call(f.op, args);
    }
  }
}

/** A formula written back as text, in the grammar parseFormula reads (operators with the parentheses they need). */
export function printFormula(f: Formula): string {
  return printAt(f, 0);
}

const PRECEDENCE: Readonly<Record<string, number>> = { add: 1, subtract: 1, multiply: 2, divide: 2 };

function printAt(f: Formula, min: number): string {
  switch (f.kind) {
    case 'ref':
      return f.name;
    case 'num':
      return f.value < 0 && min > 0 ? `(${String(f.value)})` : f.int ? String(f.value) : numberText(f.value);
    case 'bool':
      return String(f.value);
    case 'null':
      return 'null';
    case 'list':
      return `[${f.items.map((a) => printAt(a, 0)).join(', ')}]`;
    case 'item':
      return `${printAt(f.of, 4)}${typeof f.key === 'number' ? `[${f.key}]` : `.${f.key}`}`;
    case 'call': {
      const operator = scalarOperator(f.op);
      if (operator && !f.kwargs.length && f.args.length === 2) {
        const p = PRECEDENCE[f.op]!;
        const text = `${printAt(f.args[0]!, p)} ${operator} ${printAt(f.args[1]!, p + 1)}`;
        return p < min ? `(${text})` : text;
      }
      if (operator && !f.kwargs.length && f.args.length === 1) {
        const text = `-${printAt(f.args[0]!, 3)}`;
        return min > 3 ? `(${text})` : text;
      }
      const args = [...f.args.map((a) => printAt(a, 0)), ...f.kwargs.map((k) => `${k.name}=${printAt(k.value, 0)}`)];
      const text = `${f.op}(${args.join(', ')})`;
      return min > 4 ? `(${text})` : text;
    }
  }
}

/** A float literal keeps a point or exponent, so it reads back as a float. */
function numberText(v: number): string {
  const s = String(v);
  return /[.eE]|Infinity|NaN/.test(s) ? s : `${s}.0`;
}
