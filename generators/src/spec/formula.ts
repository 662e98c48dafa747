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
