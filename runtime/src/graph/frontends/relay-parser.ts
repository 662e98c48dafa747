// Parser for the Relay text subset the specs cover: functions, typed params, calls with attrs, let bindings, tuples, constants.

import { isDType, type DType } from '../../dtype.ts';

export interface Pos {
  readonly line: number;
  readonly col: number;
}

export type RelayAttr = number | boolean | string | null | readonly RelayAttr[];

export type RelayExpr =
  | { readonly kind: 'var'; readonly name: string; readonly pos: Pos }
  | { readonly kind: 'const'; readonly value: number; readonly dtype: DType; readonly pos: Pos }
  | {
      readonly kind: 'call';
      readonly op: string;
      readonly args: readonly RelayExpr[];
      readonly attrs: Readonly<Record<string, RelayAttr>>;
      readonly pos: Pos;
    }
  | { readonly kind: 'tuple'; readonly items: readonly RelayExpr[]; readonly pos: Pos }
  | { readonly kind: 'item'; readonly tuple: RelayExpr; readonly index: number; readonly pos: Pos };

export interface RelayParam {
  readonly name: string;
  readonly shape: readonly number[];
  readonly dtype: DType;
  readonly pos: Pos;
}

export interface RelayFunction {
  readonly params: readonly RelayParam[];
  readonly bindings: readonly { readonly name: string; readonly value: RelayExpr; readonly pos: Pos }[];
  readonly body: RelayExpr;
}

export class RelayParseError extends Error {
  constructor(
    message: string,
    readonly pos: Pos,
  ) {
    super(`${pos.line}:${pos.col}: ${message}`);
  }
}

type TokKind = 'var' | 'global' | 'ident' | 'num' | 'str' | 'punct' | 'eof';
interface Tok {
  readonly kind: TokKind;
  readonly text: string;
  readonly pos: Pos;
}

const PUNCT = ['->', '(', ')', '{', '}', '[', ']', ',', ';', '=', ':', '.'];

function tokenize(src: string): Tok[] {
  const toks: Tok[] = [];
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const pos = (): Pos => ({ line, col: i - lineStart + 1 });
  while (i < src.length) {
    const c = src[i]!;
    if (c === '\n') {
      i++;
      line++;
      lineStart = i;
      continue;
    }
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    // `#[version = "0.0.5"]` headers and `//` comments carry nothing we convert.
    if (c === '#' || src.startsWith('//', i)) {
      while (i < src.length && src[i] !== '\n') i++;
      continue;
    }
    const p = pos();
    const rest = src.slice(i);
    const m =
      /^%[\w.]*[A-Za-z_\d]/.exec(rest) ??
      /^@[\w.]+/.exec(rest) ??
      /^-?(?:\d+\.?\d*(?:e[+-]?\d+)?|\.\d+)(?:f16|f32|f64|f|i32|i64|i|b)?/.exec(rest) ??
      /^[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*/.exec(rest) ??
      /^"(?:[^"\\]|\\.)*"/.exec(rest);
    if (m) {
      const text = m[0];
      const kind: TokKind =
        text[0] === '%'
          ? 'var'
          : text[0] === '@'
            ? 'global'
            : text[0] === '"'
              ? 'str'
              : /^[-\d.]/.test(text)
                ? 'num'
                : 'ident';
      // `%t.0` is a tuple item: split the var from `.0`.
      const dot = kind === 'var' ? /\.\d+$/.exec(text) : null;
      if (dot) {
        toks.push({ kind, text: text.slice(0, dot.index), pos: p });
        toks.push({ kind: 'punct', text: '.', pos: { line, col: p.col + dot.index } });
        toks.push({ kind: 'num', text: dot[0].slice(1), pos: { line, col: p.col + dot.index + 1 } });
      } else toks.push({ kind, text, pos: p });
      i += text.length;
      continue;
    }
    const punct = PUNCT.find((q) => src.startsWith(q, i));
    if (!punct) throw new RelayParseError(`unexpected character '${c}'`, p);
    toks.push({ kind: 'punct', text: punct, pos: p });
    i += punct.length;
  }
  toks.push({ kind: 'eof', text: '<end>', pos: pos() });
  return toks;
}

/** Parses `def @main(...) { ... }` or `fn (...) { ... }`. */
export function parseRelay(src: string): RelayFunction {
  return new Parser(tokenize(src)).program();
}

class Parser {
  private i = 0;
  constructor(private readonly toks: Tok[]) {}

  private peek(k = 0): Tok {
    return this.toks[Math.min(this.i + k, this.toks.length - 1)]!;
  }
  private next(): Tok {
    return this.toks[this.i++]!;
  }
  private is(text: string): boolean {
    const t = this.peek();
    return t.kind !== 'str' && t.text === text;
  }
  private eat(text: string): Tok {
    const t = this.next();
    if (t.text !== text) throw new RelayParseError(`expected '${text}', found '${t.text}'`, t.pos);
    return t;
  }
  private expectKind(kind: TokKind, what: string): Tok {
    const t = this.next();
    if (t.kind !== kind) throw new RelayParseError(`expected ${what}, found '${t.text}'`, t.pos);
    return t;
  }

  program(): RelayFunction {
    if (this.is('def')) {
      this.next();
      this.expectKind('global', 'a function name like @main');
    } else this.eat('fn');
    const f = this.functionRest();
    if (this.peek().kind !== 'eof')
      throw new RelayParseError(`unexpected '${this.peek().text}' after the function`, this.peek().pos);
    return f;
  }

  private functionRest(): RelayFunction {
    this.eat('(');
    const params: RelayParam[] = [];
    while (!this.is(')')) {
      const v = this.expectKind('var', 'a parameter like %x');
      this.eat(':');
      const ty = this.tensorType();
      params.push({ name: v.text.slice(1), ...ty, pos: v.pos });
      if (!this.is(')')) this.eat(',');
    }
    this.eat(')');
    if (this.is('->')) {
      this.next();
      this.skipType();
    }
    this.eat('{');
    const bindings: { name: string; value: RelayExpr; pos: Pos }[] = [];
    for (;;) {
      const isLet = this.is('let');
      if (isLet || (this.peek().kind === 'var' && (this.peek(1).text === '=' || this.peek(1).text === ':'))) {
        if (isLet) this.next();
        const v = this.expectKind('var', 'a variable');
        if (this.is(':')) {
          this.next();
          this.skipType();
        }
        this.eat('=');
        bindings.push({ name: v.text.slice(1), value: this.expr(), pos: v.pos });
        this.eat(';');
        continue;
      }
      break;
    }
    const body = this.expr();
    this.eat('}');
    return { params, bindings, body };
  }

  private tensorType(): { shape: number[]; dtype: DType } {
    const t = this.next();
    if (t.text !== 'Tensor')
      throw new RelayParseError(`expected a type like Tensor[(1, 2), float32], found '${t.text}'`, t.pos);
    this.eat('[');
    this.eat('(');
    const shape: number[] = [];
    while (!this.is(')')) {
      shape.push(Number(this.expectKind('num', 'a dimension').text));
      if (!this.is(')')) this.eat(',');
    }
    this.eat(')');
    this.eat(',');
    const d = this.expectKind('ident', 'a dtype');
    if (!isDType(d.text)) throw new RelayParseError(`unsupported dtype '${d.text}'`, d.pos);
    this.eat(']');
    return { shape, dtype: d.text };
  }

  /** Return types and binding annotations are re-inferred, so they are only skipped (brackets balanced). */
  private skipType(): void {
    let depth = 0;
    do {
      const t = this.next();
      if (t.kind === 'eof') throw new RelayParseError('unterminated type', t.pos);
      if (t.text === '[' || t.text === '(') depth++;
      if (t.text === ']' || t.text === ')') depth--;
    } while (depth > 0 || this.is('['));
  }

  private expr(): RelayExpr {
    let e = this.primary();
    while (this.is('.') && this.peek(1).kind === 'num') {
      const dot = this.next();
      e = { kind: 'item', tuple: e, index: Number(this.next().text), pos: dot.pos };
    }
    return e;
  }

  private primary(): RelayExpr {
    const t = this.peek();
    if (t.kind === 'var') {
      this.next();
      return { kind: 'var', name: t.text.slice(1), pos: t.pos };
    }
    if (t.kind === 'num') {
      this.next();
      return constant(t);
    }
    if (t.text === '(') {
      this.next();
      const items: RelayExpr[] = [];
      while (!this.is(')')) {
        items.push(this.expr());
        if (!this.is(')')) this.eat(',');
      }
      this.eat(')');
      // `(e)` is grouping; a tuple of one is written `(e,)`, which we do not need.
      return items.length === 1 ? items[0]! : { kind: 'tuple', items, pos: t.pos };
    }
    if (t.kind === 'ident') {
      this.next();
      this.eat('(');
      const args: RelayExpr[] = [];
      const attrs: Record<string, RelayAttr> = {};
      while (!this.is(')')) {
        if (this.peek().kind === 'ident' && this.peek(1).text === '=') {
          const k = this.next().text;
          this.eat('=');
          attrs[k] = this.attr();
        } else args.push(this.expr());
        if (!this.is(')')) this.eat(',');
      }
      this.eat(')');
      return { kind: 'call', op: t.text, args, attrs, pos: t.pos };
    }
    throw new RelayParseError(`expected an expression, found '${t.text}'`, t.pos);
  }

  private attr(): RelayAttr {
    const t = this.next();
    if (t.kind === 'num') return Number(t.text.replace(/(f16|f32|f64|f|i32|i64|i|b)$/, ''));
    if (t.kind === 'str') return JSON.parse(t.text) as string;
    if (t.text === 'True' || t.text === 'False') return t.text === 'True';
    if (t.text === 'None') return null;
    if (t.text === '[' || t.text === '(') {
      const close = t.text === '[' ? ']' : ')';
      const items: RelayAttr[] = [];
      while (!this.is(close)) {
        items.push(this.attr());
        if (!this.is(close)) this.eat(',');
      }
      this.eat(close);
      return items;
    }
    throw new RelayParseError(`expected an attribute value, found '${t.text}'`, t.pos);
  }
}

const CONST_DTYPES: Readonly<Record<string, DType>> = {
  f16: 'float16',
  f32: 'float32',
  f64: 'float64',
  f: 'float32',
  i32: 'int32',
  i64: 'int32',
  i: 'int32',
  b: 'bool',
};

function constant(t: Tok): RelayExpr {
  const m = /(f16|f32|f64|f|i32|i64|i|b)$/.exec(t.text);
  const dtype = m ? CONST_DTYPES[m[1]!]! : /[.e]/.test(t.text) ? 'float32' : 'int32';
  return { kind: 'const', value: Number(m ? t.text.slice(0, m.index) : t.text), dtype, pos: t.pos };
}
