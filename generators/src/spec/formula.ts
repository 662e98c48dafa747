// Gradient formulas: `softmax_dx(y, dy, axis)`, `dy * y`, `-(dy * y / b)` → calls of base ops.

/** Arithmetic operators in formulas are sugar for these base ops. */
export const FORMULA_OPERATORS = { '+': 'add', '-': 'subtract', '*': 'multiply', '/': 'divide' } as const;
export const FORMULA_NEGATE = 'negative';

export type Formula =
  | { readonly kind: 'ref'; readonly name: string; readonly offset: number }
  | { readonly kind: 'num'; readonly value: number; readonly offset: number }
  | { readonly kind: 'call'; readonly op: string; readonly args: readonly Formula[]; readonly offset: number };

export class FormulaError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

const TOKEN = /\s*(?:(\d+(?:\.\d+)?(?:e[+-]?\d+)?)|([A-Za-z_]\w*)|(.))/gy;

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
  const expect = (s: string) => {
    const t = tokens[i];
    if (!t || t.text !== s)
      throw new FormulaError(`expected '${s}'${t ? `, got '${t.text}'` : ' at the end'}`, t?.offset ?? src.length);
    i++;
  };
  const binary = (lhs: Formula, sym: '+' | '-' | '*' | '/', rhs: Formula): Formula => ({
    kind: 'call',
    op: FORMULA_OPERATORS[sym],
    args: [lhs, rhs],
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
      return { kind: 'call', op: FORMULA_NEGATE, args: [unary()], offset: t.offset };
    }
    return atom();
  };
  const atom = (): Formula => {
    const t = tokens[i++];
    if (!t) throw new FormulaError('unexpected end of formula', src.length);
    if (t.kind === 'num') return { kind: 'num', value: Number(t.text), offset: t.offset };
    if (t.text === '(') {
      const inner = sum();
      expect(')');
      return inner;
    }
    if (t.kind !== 'id') throw new FormulaError(`unexpected '${t.text}'`, t.offset);
    if (peek()?.text !== '(') return { kind: 'ref', name: t.text, offset: t.offset };
    i++;
    const args: Formula[] = [];
    if (peek()?.text !== ')') {
      args.push(sum());
      while (peek()?.text === ',') {
        i++;
        args.push(sum());
      }
    }
    expect(')');
    return { kind: 'call', op: t.text, args, offset: t.offset };
  };
  const result = sum();
  if (i < tokens.length) throw new FormulaError(`unexpected '${tokens[i]!.text}'`, tokens[i]!.offset);
  return result;
}

/** Every name a formula reads and every op it calls, with offsets. */
export function formulaRefs(
  f: Formula,
  refs: Formula[] = [],
  calls: Formula[] = [],
): { refs: Formula[]; calls: Formula[] } {
  if (f.kind === 'ref') refs.push(f);
  if (f.kind === 'call') {
    calls.push(f);
    for (const a of f.args) formulaRefs(a, refs, calls);
  }
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
 * Evaluates a formula: names from `env`, ops through `call` (the runtime's dispatcher), arithmetic on numbers alone
 * as numbers (see scalarArithmetic). The oracle of `tests.oracle`, in this repository's tests and in a package's.
 */
export function evaluateFormula(
  f: Formula,
  env: Readonly<Record<string, unknown>>,
  call: (op: string, args: unknown[]) => unknown,
): unknown {
  if (f.kind === 'num') return f.value;
  if (f.kind === 'ref') return env[f.name];
  const args = f.args.map((a) => evaluateFormula(a, env, call));
  return scalarArithmetic(f.op, args) ?? call(f.op, args);
}
