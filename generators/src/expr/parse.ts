// Parser and canonical printer for `compute:` expression strings (precedence climbing, errors carry source offsets).
import {
  FUNCTIONS,
  FUNCTION_NAMES,
  binary,
  call,
  constant,
  isComparisonOp,
  isFunctionName,
  select,
  unary,
  variable,
  type BinaryOp,
  type Expr,
} from './ast.ts';

export { freeVars } from './ast.ts';

/** A malformed expression; offset/length locate the culprit in the source so spec errors can point at it. */
export class ExprError extends Error {
  override name = 'ExprError';
  constructor(
    message: string,
    readonly offset: number,
    readonly length: number,
    readonly source?: string,
  ) {
    super(message);
  }

  /** The source with a caret line under the offending span, for CLI diagnostics. */
  excerpt(): string {
    if (this.source === undefined) return this.message;
    const marker = ' '.repeat(this.offset) + '^'.repeat(Math.max(1, this.length));
    return `${this.message}\n  ${this.source}\n  ${marker}`;
  }
}

// Binding strength, shared by parser and printer so that printing can never disagree with parsing.
const BINARY_PRECEDENCE: Readonly<Record<string, number>> = {
  '||': 1,
  '&&': 2,
  '<': 3,
  '<=': 3,
  '>': 3,
  '>=': 3,
  '==': 3,
  '!=': 3,
  '+': 4,
  '-': 4,
  '*': 5,
  '/': 5,
};
const COMPARISON_PRECEDENCE = 3;
const UNARY_PRECEDENCE = 6;
const POWER_PRECEDENCE = 7;
const ATOM_PRECEDENCE = 8;

interface Token {
  readonly type: 'number' | 'ident' | 'op' | 'end';
  readonly text: string;
  readonly offset: number;
}

const OPERATORS = ['**', '<=', '>=', '==', '!=', '&&', '||', '+', '-', '*', '/', '<', '>', '!', '(', ')', ','];
const LIKELY_TYPOS: Readonly<Record<string, string>> = { '=': '==', '&': '&&', '|': '||', '^': '**' };

function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  const number = /(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/y;
  const identifier = /[A-Za-z_][A-Za-z0-9_]*/y;
  const numberTail = /[A-Za-z0-9_.]+/y;
  let pos = 0;
  const matchAt = (re: RegExp): string | undefined => {
    re.lastIndex = pos;
    return re.exec(src)?.[0];
  };
  while (pos < src.length) {
    if (/\s/.test(src[pos]!)) {
      pos++;
      continue;
    }
    const num = matchAt(number);
    if (num !== undefined) {
      numberTail.lastIndex = pos + num.length;
      const tail = numberTail.exec(src)?.[0];
      // `1e`, `1.2.3` and `2x` would otherwise split into confusing token pairs.
      if (tail !== undefined)
        throw new ExprError(`malformed number '${num + tail}'`, pos, num.length + tail.length, src);
      tokens.push({ type: 'number', text: num, offset: pos });
      pos += num.length;
      continue;
    }
    const ident = matchAt(identifier);
    if (ident !== undefined) {
      tokens.push({ type: 'ident', text: ident, offset: pos });
      pos += ident.length;
      continue;
    }
    const op = OPERATORS.find((candidate) => src.startsWith(candidate, pos));
    if (op === undefined) {
      const ch = src[pos]!;
      const hint = LIKELY_TYPOS[ch] ? ` (did you mean '${LIKELY_TYPOS[ch]}'?)` : '';
      throw new ExprError(`unexpected character '${ch}'${hint}`, pos, 1, src);
    }
    tokens.push({ type: 'op', text: op, offset: pos });
    pos += op.length;
  }
  tokens.push({ type: 'end', text: '', offset: src.length });
  return tokens;
}

class Parser {
  private pos = 0;
  constructor(
    private readonly tokens: Token[],
    private readonly src: string,
  ) {}

  parseAll(): Expr {
    const expr = this.parseBinary(0);
    const extra = this.peek();
    if (extra.type !== 'end') throw this.unexpected(extra);
    return expr;
  }

  private peek(): Token {
    return this.tokens[this.pos]!;
  }

  private next(): Token {
    return this.tokens[this.pos++]!;
  }

  private accept(op: string): boolean {
    const tok = this.peek();
    if (tok.type !== 'op' || tok.text !== op) return false;
    this.pos++;
    return true;
  }

  private unexpected(tok: Token): ExprError {
    if (tok.type === 'end') return new ExprError('unexpected end of expression', tok.offset, 0, this.src);
    return new ExprError(`unexpected '${tok.text}'`, tok.offset, tok.text.length, this.src);
  }

  private expectClose(open: Token, context: string): Token {
    const tok = this.peek();
    if (tok.type === 'op' && tok.text === ')') return this.next();
    if (tok.type === 'end') throw new ExprError(`unclosed '(' ${context}`, open.offset, 1, this.src);
    throw new ExprError(`expected ')' ${context}, found '${tok.text}'`, tok.offset, tok.text.length, this.src);
  }

  private parseBinary(minPrecedence: number): Expr {
    let lhs = this.parseUnary();
    let previousWasComparison = false;
    for (;;) {
      const tok = this.peek();
      const precedence = tok.type === 'op' ? BINARY_PRECEDENCE[tok.text] : undefined;
      if (precedence === undefined || precedence < minPrecedence) return lhs;
      const op = tok.text as BinaryOp;
      // Chained comparisons mean different things in Python and C; refusing them avoids silent surprises.
      if (isComparisonOp(op) && previousWasComparison) {
        throw new ExprError(
          `comparisons cannot be chained; write e.g. (a < b) && (b < c)`,
          tok.offset,
          tok.text.length,
          this.src,
        );
      }
      previousWasComparison = isComparisonOp(op);
      this.next();
      lhs = binary(op, lhs, this.parseBinary(precedence + 1));
    }
  }

  private parseUnary(): Expr {
    if (this.accept('-')) return unary('neg', this.parseUnary());
    if (this.accept('!')) return unary('not', this.parseUnary());
    if (this.accept('+')) return this.parseUnary();
    return this.parsePower();
  }

  // `**` binds tighter than a unary minus on its left (-x ** 2 == -(x ** 2)) but admits one on its right (2 ** -x).
  private parsePower(): Expr {
    const base = this.parsePrimary();
    if (!this.accept('**')) return base;
    return binary('**', base, this.parseUnary());
  }

  private parsePrimary(): Expr {
    const tok = this.next();
    if (tok.type === 'number') return constant(Number(tok.text));
    if (tok.type === 'op' && tok.text === '(') {
      const inner = this.parseBinary(0);
      this.expectClose(tok, 'in parenthesized expression');
      return inner;
    }
    if (tok.type !== 'ident') throw this.unexpected(tok);
    const callOpen = this.peek();
    if (callOpen.type === 'op' && callOpen.text === '(') return this.parseCall(tok);
    if (isFunctionName(tok.text)) {
      throw new ExprError(
        `'${tok.text}' is a function; call it as ${tok.text}(...)`,
        tok.offset,
        tok.text.length,
        this.src,
      );
    }
    if (tok.text === 'pi') return constant(Math.PI);
    return variable(tok.text);
  }

  private parseCall(nameTok: Token): Expr {
    const name = nameTok.text;
    if (!isFunctionName(name)) {
      throw new ExprError(
        `unknown function '${name}'; known: ${FUNCTION_NAMES.join(', ')}`,
        nameTok.offset,
        name.length,
        this.src,
      );
    }
    const open = this.next();
    const args: Expr[] = [];
    if (!this.accept(')')) {
      do args.push(this.parseBinary(0));
      while (this.accept(','));
      this.expectClose(open, `after arguments of ${name}`);
    }
    const { arity } = FUNCTIONS[name];
    if (args.length !== arity) {
      const end = this.tokens[this.pos - 1]!.offset + 1;
      throw new ExprError(
        `${name} takes ${arity} argument${arity === 1 ? '' : 's'}, got ${args.length}`,
        nameTok.offset,
        end - nameTok.offset,
        this.src,
      );
    }
    if (name === 'where') return select(args[0]!, args[1]!, args[2]!);
    return call(name, args);
  }
}

export function parseExpr(src: string): Expr {
  return new Parser(tokenize(src), src).parseAll();
}

interface Printed {
  readonly text: string;
  readonly precedence: number;
}

/** Canonical text with the fewest parentheses that parse back to the same tree. */
export function printExpr(expr: Expr): string {
  return printNode(expr).text;
}

function printNode(expr: Expr): Printed {
  switch (expr.kind) {
    case 'var':
      return { text: expr.name, precedence: ATOM_PRECEDENCE };
    case 'const':
      return printConstant(expr.value);
    case 'unary': {
      const arg = wrap(expr.arg, UNARY_PRECEDENCE);
      // `--x` reads as a decrement to most eyes, so a nested negation keeps its parentheses.
      const text = expr.op === 'neg' ? (arg.startsWith('-') ? `-(${arg})` : `-${arg}`) : `!${arg}`;
      return { text, precedence: UNARY_PRECEDENCE };
    }
    case 'binary': {
      if (expr.op === '**') {
        const text = `${wrap(expr.lhs, POWER_PRECEDENCE + 1)} ** ${wrap(expr.rhs, UNARY_PRECEDENCE)}`;
        return { text, precedence: POWER_PRECEDENCE };
      }
      const precedence = BINARY_PRECEDENCE[expr.op]!;
      // Left-associative operators need parentheses on the right at equal strength; comparisons on both sides.
      const lhsMin = precedence === COMPARISON_PRECEDENCE ? precedence + 1 : precedence;
      return { text: `${wrap(expr.lhs, lhsMin)} ${expr.op} ${wrap(expr.rhs, precedence + 1)}`, precedence };
    }
    case 'call':
      return { text: `${expr.fn}(${expr.args.map(printExpr).join(', ')})`, precedence: ATOM_PRECEDENCE };
    case 'select': {
      const args = [expr.cond, expr.ifTrue, expr.ifFalse].map(printExpr).join(', ');
      return { text: `where(${args})`, precedence: ATOM_PRECEDENCE };
    }
  }
}

function wrap(expr: Expr, minPrecedence: number): string {
  const printed = printNode(expr);
  return printed.precedence >= minPrecedence ? printed.text : `(${printed.text})`;
}

function printConstant(value: number): Printed {
  // Non-finite values have no literal; print them as the divisions that produce them so they still round-trip.
  if (Number.isNaN(value)) return printNode(binary('/', constant(0), constant(0)));
  if (!Number.isFinite(value)) return printNode(binary('/', constant(Math.sign(value)), constant(0)));
  const negative = value < 0 || Object.is(value, -0);
  const magnitude = Math.abs(value);
  const digits = magnitude === Math.PI ? 'pi' : String(magnitude);
  return negative
    ? { text: `-${digits}`, precedence: UNARY_PRECEDENCE }
    : { text: digits, precedence: ATOM_PRECEDENCE };
}
