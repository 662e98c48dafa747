// Parser for Relay text as TVM's parser (version 0.0.5) reads it, and for RAF's IR text (raf.op.* calls, str"...",
// nullptr): comments, several global functions, closures with attributes, typed lets, if/else, tuples, infix
// operators, `?` dims, metatable constants and the `#[metadata]` section. Algebraic data types are named as
// unsupported. Errors carry line:col; the parser recovers at the next binding or function to report more than one.

export interface Pos {
  readonly line: number;
  readonly col: number;
}

export interface RelayMetaRef {
  readonly meta: string;
  readonly index: number;
}

export type RelayAttr = number | boolean | string | null | RelayMetaRef | readonly RelayAttr[];

export type RelayType =
  | { readonly kind: 'tensor'; readonly shape: readonly (number | null)[]; readonly dtype: string; readonly pos: Pos }
  | { readonly kind: 'tuple'; readonly items: readonly RelayType[]; readonly pos: Pos }
  | { readonly kind: 'other'; readonly text: string; readonly pos: Pos };

export interface RelayParam {
  readonly name: string;
  /** null when the program leaves the parameter untyped (closure parameters may). */
  readonly type: RelayType | null;
  readonly attrs: Readonly<Record<string, RelayAttr>>;
  readonly pos: Pos;
}

export interface RelayBinding {
  readonly name: string;
  readonly value: RelayExpr;
  readonly pos: Pos;
}

export interface RelayFunction {
  readonly params: readonly RelayParam[];
  /** Function attributes (`Primitive=1`, `Composite="..."`, `Compiler="..."`). */
  readonly attrs: Readonly<Record<string, RelayAttr>>;
  readonly body: RelayExpr;
  readonly pos: Pos;
}

export type RelayExpr =
  | { readonly kind: 'var'; readonly name: string; readonly pos: Pos }
  | { readonly kind: 'global'; readonly name: string; readonly pos: Pos }
  | { readonly kind: 'const'; readonly value: number; readonly dtype: string; readonly pos: Pos }
  | { readonly kind: 'meta'; readonly meta: string; readonly index: number; readonly pos: Pos }
  | { readonly kind: 'list'; readonly value: RelayAttr; readonly pos: Pos }
  | {
      readonly kind: 'call';
      readonly op: string;
      readonly args: readonly RelayExpr[];
      readonly attrs: Readonly<Record<string, RelayAttr>>;
      readonly pos: Pos;
    }
  | { readonly kind: 'apply'; readonly callee: RelayExpr; readonly args: readonly RelayExpr[]; readonly pos: Pos }
  | { readonly kind: 'tuple'; readonly items: readonly RelayExpr[]; readonly pos: Pos }
  | { readonly kind: 'item'; readonly tuple: RelayExpr; readonly index: number; readonly pos: Pos }
  | { readonly kind: 'fn'; readonly fn: RelayFunction; readonly pos: Pos }
  | {
      readonly kind: 'if';
      readonly cond: RelayExpr;
      readonly then: RelayExpr;
      readonly else: RelayExpr;
      readonly pos: Pos;
    }
  | { readonly kind: 'let'; readonly bindings: readonly RelayBinding[]; readonly body: RelayExpr; readonly pos: Pos };

export interface RelayModule {
  /** Every `def @name`, by name without the `@`. */
  readonly functions: ReadonlyMap<string, RelayFunction>;
  /** `@main`, the only function, or a bare `fn (...) { ... }`. */
  readonly main: RelayFunction;
  /** The text after `#[metadata]`, when the program carries its metatable. */
  readonly metadata: string | null;
}

export class RelayParseError extends Error {
  override readonly name = 'RelayParseError';
  /** Every error found (the parser recovers at the next binding or function); the message lists them all. */
  readonly errors: readonly { readonly message: string; readonly pos: Pos }[];
  constructor(
    message: string,
    readonly pos: Pos,
    more: readonly { readonly message: string; readonly pos: Pos }[] = [],
  ) {
    const all = [{ message, pos }, ...more];
    super(all.map((e) => `${e.pos.line}:${e.pos.col}: ${e.message}`).join('\n'));
    this.errors = all;
  }
}

type TokKind = 'var' | 'global' | 'ident' | 'num' | 'str' | 'punct' | 'eof';
interface Tok {
  readonly kind: TokKind;
  readonly text: string;
  readonly pos: Pos;
}

const PUNCT = ['->', '=>', '==', '!=', '<=', '>=', '(', ')', '{', '}', '[', ']', ',', ';', '=', ':', '.', '?'];
const PUNCT1 = ['+', '-', '*', '/', '<', '>', '_'];
const SUFFIX = /(f16|f32|f64|i8|i16|i32|i64|u8|u16|u32|u64|f|i|b)$/;
const SUFFIX_DTYPE: Readonly<Record<string, string>> = {
  f16: 'float16',
  f32: 'float32',
  f64: 'float64',
  f: 'float32',
  i8: 'int8',
  i16: 'int16',
  i32: 'int32',
  i64: 'int64',
  i: 'int32',
  u8: 'uint8',
  u16: 'uint16',
  u32: 'uint32',
  u64: 'uint64',
  b: 'bool',
};

function tokenize(src: string): { toks: Tok[]; metadata: string | null } {
  const toks: Tok[] = [];
  let i = 0;
  let line = 1;
  let lineStart = 0;
  let metadata: string | null = null;
  const pos = (): Pos => ({ line, col: i - lineStart + 1 });
  const advance = (to: number): void => {
    for (; i < to; i++)
      if (src[i] === '\n') {
        line++;
        lineStart = i + 1;
      }
  };
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c)) {
      advance(i + 1);
      continue;
    }
    if (src.startsWith('//', i)) {
      const end = src.indexOf('\n', i);
      advance(end < 0 ? src.length : end);
      continue;
    }
    if (src.startsWith('/*', i)) {
      // Block comments nest, as in TVM's tokenizer.
      const p = pos();
      let depth = 0;
      let j = i;
      while (j < src.length) {
        if (src.startsWith('/*', j)) {
          depth++;
          j += 2;
        } else if (src.startsWith('*/', j)) {
          depth--;
          j += 2;
          if (depth === 0) break;
        } else j++;
      }
      if (depth > 0) throw new RelayParseError('unterminated /* comment', p);
      advance(j);
      continue;
    }
    if (src.startsWith('#[metadata]', i)) {
      metadata = src.slice(i + '#[metadata]'.length);
      break;
    }
    if (src.startsWith('#[', i)) {
      // `#[version = "0.0.5"]`: the only other header; any version is read as 0.0.5.
      const end = src.indexOf(']', i);
      advance(end < 0 ? src.length : end + 1);
      continue;
    }
    const p = pos();
    const rest = src.slice(i, i + 400);
    const m =
      /^%[A-Za-z0-9_]+/.exec(rest) ??
      /^@[A-Za-z_][\w]*/.exec(rest) ??
      /^\d+\.?\d*(?:e[+-]?\d+)?(?:f16|f32|f64|i8|i16|i32|i64|u8|u16|u32|u64|f|i|b)?(?![\w])/.exec(rest) ??
      /^str"(?:[^"\\]|\\.)*"/.exec(rest) ??
      /^[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*/.exec(rest) ??
      /^"(?:[^"\\]|\\.)*"/.exec(rest);
    if (m) {
      const text = m[0];
      const kind: TokKind =
        text[0] === '%'
          ? 'var'
          : text[0] === '@'
            ? 'global'
            : text[0] === '"' || text.startsWith('str"')
              ? 'str'
              : /^[\d.]/.test(text)
                ? 'num'
                : 'ident';
      toks.push({ kind, text: text.startsWith('str"') ? text.slice(3) : text, pos: p });
      advance(i + text.length);
      continue;
    }
    const punct = PUNCT.find((q) => src.startsWith(q, i)) ?? PUNCT1.find((q) => src.startsWith(q, i));
    if (!punct) throw new RelayParseError(`unexpected character '${c}'`, p);
    toks.push({ kind: 'punct', text: punct, pos: p });
    advance(i + punct.length);
  }
  toks.push({ kind: 'eof', text: '<end>', pos: pos() });
  return { toks, metadata };
}

/** Parses a module (`def @f(...) {...}` ...) or a bare `fn (...) { ... }`. */
export function parseRelay(src: string): RelayModule {
  const { toks, metadata } = tokenize(src);
  return new Parser(toks, metadata).module();
}

const INFIX: Readonly<Record<string, readonly [number, string]>> = {
  '==': [1, 'equal'],
  '!=': [1, 'not_equal'],
  '<': [1, 'less'],
  '>': [1, 'greater'],
  '<=': [1, 'less_equal'],
  '>=': [1, 'greater_equal'],
  '+': [2, 'add'],
  '-': [2, 'subtract'],
  '*': [3, 'multiply'],
  '/': [3, 'divide'],
};

class Unsupported extends RelayParseError {}

class Parser {
  private i = 0;
  private readonly errors: { message: string; pos: Pos }[] = [];
  constructor(
    private readonly toks: Tok[],
    private readonly metadata: string | null,
  ) {}

  private peek(k = 0): Tok {
    return this.toks[Math.min(this.i + k, this.toks.length - 1)]!;
  }
  private next(): Tok {
    const t = this.peek();
    if (this.i < this.toks.length - 1) this.i++;
    return t;
  }
  private is(text: string, k = 0): boolean {
    const t = this.peek(k);
    return t.kind !== 'str' && t.text === text;
  }
  private eat(text: string, context = ''): Tok {
    const t = this.peek();
    if (t.kind === 'str' || t.text !== text)
      throw new RelayParseError(`expected '${text}'${context}, found '${t.text}'`, t.pos);
    return this.next();
  }
  private expectKind(kind: TokKind, what: string): Tok {
    const t = this.peek();
    if (t.kind !== kind) throw new RelayParseError(`expected ${what}, found '${t.text}'`, t.pos);
    return this.next();
  }
  private fail(e: unknown): void {
    if (!(e instanceof RelayParseError)) throw e;
    for (const x of e.errors) this.errors.push({ ...x });
  }
  /**
   * After an error in the statement that began at token `start`: moves to just past the `;` ending it, or to the
   * `}` closing its block, counting brackets from the statement's start.
   */
  private recover(start: number): void {
    let depth = 0;
    let k = start;
    for (; k < this.toks.length - 1; k++) {
      const t = this.toks[k]!;
      if (t.kind === 'str') continue;
      if (depth === 0 && t.text === 'def' && t.kind === 'ident' && k > start) break;
      if (t.text === '(' || t.text === '[' || t.text === '{') depth++;
      else if (t.text === ')' || t.text === ']' || t.text === '}') {
        if (depth === 0) break;
        depth--;
      } else if (t.text === ';') {
        // A `;` ends the statement at its own level, or anywhere when a binding follows (an unclosed bracket).
        const a = this.toks[k + 1]!;
        const b = this.toks[k + 2]!;
        if (depth === 0 || (a.kind === 'var' && b.text === '=') || (a.kind === 'ident' && a.text === 'let')) {
          k++;
          break;
        }
      }
    }
    this.i = Math.max(k, start + 1);
  }

  module(): RelayModule {
    const functions = new Map<string, RelayFunction>();
    let bare: RelayFunction | null = null;
    while (this.peek().kind !== 'eof') {
      const t = this.peek();
      try {
        if (this.is('def')) {
          this.next();
          const g = this.expectKind('global', 'a function name like @main');
          const name = g.text.slice(1);
          if (functions.has(name)) throw new RelayParseError(`@${name} is defined twice`, g.pos);
          functions.set(name, this.functionRest(g.pos));
        } else if (this.is('fn') && !bare && functions.size === 0) {
          this.next();
          bare = this.functionRest(t.pos);
        } else if (this.is('type') || this.is('extern')) {
          throw new Unsupported(
            `algebraic data types ('${t.text}' definitions) are not supported: a raf-op graph holds tensors and tuples only`,
            t.pos,
          );
        } else throw new RelayParseError(`expected 'def @name(...)' or 'fn (...)', found '${t.text}'`, t.pos);
      } catch (e) {
        this.fail(e);
        // skip to the next definition
        this.next();
        while (this.peek().kind !== 'eof' && !this.is('def')) this.next();
      }
    }
    if (bare && functions.size > 0)
      this.errors.push({ message: "a bare 'fn' cannot sit beside 'def' functions", pos: bare.pos });
    const main = bare ?? functions.get('main') ?? (functions.size === 1 ? [...functions.values()][0]! : undefined);
    if (!main && this.errors.length === 0)
      this.errors.push({
        message:
          functions.size === 0
            ? 'no function: expected def @main(...) { ... } or fn (...) { ... }'
            : `no @main among ${[...functions.keys()].map((n) => '@' + n).join(', ')}`,
        pos: { line: 1, col: 1 },
      });
    if (this.errors.length > 0) {
      const [first, ...more] = this.errors;
      throw new RelayParseError(first!.message, first!.pos, more);
    }
    return { functions, main: main!, metadata: this.metadata };
  }

  private functionRest(pos: Pos): RelayFunction {
    if (this.is('[')) this.typeParams();
    this.eat('(', ' to open the parameter list');
    const params: RelayParam[] = [];
    const attrs: Record<string, RelayAttr> = {};
    while (!this.is(')')) {
      if (this.peek().kind === 'var') {
        const v = this.next();
        const pattrs: Record<string, RelayAttr> = {};
        if (this.is('{')) {
          this.next();
          while (!this.is('}')) {
            const k = this.expectKind('ident', 'a parameter attribute name');
            this.eat('=');
            pattrs[k.text] = this.attr();
            if (!this.is('}')) this.eat(',');
          }
          this.eat('}');
        }
        let type: RelayType | null = null;
        if (this.is(':')) {
          this.next();
          type = this.type();
        }
        const name = v.text.slice(1);
        const first = params.find((p) => p.name === name);
        if (first)
          throw new RelayParseError(
            `parameter %${name} is declared twice (first at ${first.pos.line}:${first.pos.col}); give each parameter its own name`,
            v.pos,
          );
        params.push({ name, type, attrs: pattrs, pos: v.pos });
      } else if (this.peek().kind === 'ident' && this.is('=', 1)) {
        const k = this.next();
        this.next();
        attrs[k.text] = this.attr();
      } else
        throw new RelayParseError(
          `expected a parameter like %x or an attribute, found '${this.peek().text}'`,
          this.peek().pos,
        );
      if (!this.is(')')) this.eat(',', ' between parameters');
    }
    this.eat(')');
    if (this.is('->')) {
      this.next();
      this.type();
    }
    this.eat('{', ' to open the function body');
    const body = this.block();
    this.eat('}', ' to close the function body');
    return { params, attrs, body, pos };
  }

  private typeParams(): void {
    this.eat('[');
    while (!this.is(']')) {
      this.expectKind('ident', 'a type parameter');
      if (this.is(':')) {
        this.next();
        this.expectKind('ident', 'a kind');
      }
      if (!this.is(']')) this.eat(',');
    }
    this.eat(']');
  }

  type(): RelayType {
    const t = this.peek();
    if (this.is('Tensor')) {
      this.next();
      this.eat('[');
      const shape: (number | null)[] = [];
      if (this.is('(')) {
        this.next();
        while (!this.is(')')) {
          if (this.is('?')) {
            this.next();
            shape.push(null);
          } else {
            const d = this.expectKind('num', "a dimension (a number or '?')");
            if (!/^\d+$/.test(d.text)) throw new RelayParseError(`dimension '${d.text}' is not an integer`, d.pos);
            shape.push(Number(d.text));
          }
          if (!this.is(')')) this.eat(',');
        }
        this.eat(')');
      } else if (this.peek().kind === 'num') shape.push(Number(this.next().text));
      this.eat(',');
      const d = this.expectKind('ident', 'a dtype');
      this.eat(']');
      return { kind: 'tensor', shape, dtype: d.text, pos: t.pos };
    }
    if (this.is('(')) {
      this.next();
      const items: RelayType[] = [];
      while (!this.is(')')) {
        items.push(this.type());
        if (!this.is(')')) this.eat(',');
      }
      this.eat(')');
      return { kind: 'tuple', items, pos: t.pos };
    }
    if (this.is('fn')) {
      this.next();
      if (this.is('[')) this.typeParams();
      this.eat('(');
      while (!this.is(')')) {
        this.type();
        if (!this.is(')')) this.eat(',');
      }
      this.eat(')');
      this.eat('->');
      this.type();
      return { kind: 'other', text: 'fn', pos: t.pos };
    }
    if (t.kind === 'ident') {
      this.next();
      // A scalar dtype (`int64`, `bool`, `float32`; `int` is int32) is a rank-0 tensor.
      if (/^(u?int\d*|float\d+|bool)$/.test(t.text))
        return { kind: 'tensor', shape: [], dtype: t.text === 'int' ? 'int32' : t.text, pos: t.pos };
      if (this.is('[')) {
        // a type constructor applied to arguments: List[A]
        this.next();
        while (!this.is(']')) {
          this.type();
          if (!this.is(']')) this.eat(',');
        }
        this.eat(']');
      }
      return { kind: 'other', text: t.text, pos: t.pos };
    }
    throw new RelayParseError(`expected a type like Tensor[(1, 2), float32], found '${t.text}'`, t.pos);
  }

  /** Bindings (`%x = e;`, `let %x: T = e;`) then the result expression. */
  private block(): RelayExpr {
    const bindings: RelayBinding[] = [];
    const start = this.peek().pos;
    for (;;) {
      const isLet = this.is('let');
      if (!(isLet || (this.peek().kind === 'var' && (this.is('=', 1) || (this.is(':', 1) && !this.is('(', 2)))))) break;
      const start = this.i;
      try {
        if (isLet) this.next();
        const v = this.expectKind('var', 'a variable after let');
        if (this.is(':')) {
          this.next();
          this.type();
        }
        this.eat('=');
        bindings.push({ name: v.text.slice(1), value: this.expr(), pos: v.pos });
        this.eat(';', ' after the binding');
      } catch (e) {
        this.fail(e);
        this.recover(start);
      }
    }
    let body: RelayExpr;
    const bodyStart = this.i;
    try {
      body = this.expr();
    } catch (e) {
      this.fail(e);
      this.recover(bodyStart);
      if (this.toks[this.i - 1]?.text === '}') this.i--;
      body = { kind: 'tuple', items: [], pos: start };
    }
    return bindings.length > 0 ? { kind: 'let', bindings, body, pos: start } : body;
  }

  private expr(minPrec = 0): RelayExpr {
    let lhs = this.postfix();
    for (;;) {
      const t = this.peek();
      const inf = t.kind === 'punct' ? INFIX[t.text] : undefined;
      if (!inf || inf[0] <= minPrec) return lhs;
      this.next();
      const rhs = this.expr(inf[0]);
      lhs = { kind: 'call', op: inf[1], args: [lhs, rhs], attrs: {}, pos: t.pos };
    }
  }

  private postfix(): RelayExpr {
    let e = this.primary();
    for (;;) {
      if (this.is('.') && this.peek(1).kind === 'num') {
        const dot = this.next();
        const n = this.next();
        if (!/^\d+$/.test(n.text)) throw new RelayParseError(`tuple index '${n.text}' is not an integer`, n.pos);
        e = { kind: 'item', tuple: e, index: Number(n.text), pos: dot.pos };
      } else if (this.is('(') && e.kind !== 'call' && e.kind !== 'const' && e.kind !== 'meta') {
        const open = this.peek();
        const { args, attrs } = this.callArgs();
        if (Object.keys(attrs).length > 0)
          throw new RelayParseError('a call of a function value takes no attributes', open.pos);
        e = { kind: 'apply', callee: e, args, pos: open.pos };
      } else return e;
    }
  }

  private callArgs(): { args: RelayExpr[]; attrs: Record<string, RelayAttr> } {
    this.eat('(');
    const args: RelayExpr[] = [];
    const attrs: Record<string, RelayAttr> = {};
    while (!this.is(')')) {
      if (this.peek().kind === 'ident' && this.is('=', 1)) {
        const k = this.next().text;
        this.next();
        attrs[k] = this.attr();
      } else {
        if (Object.keys(attrs).length > 0)
          throw new RelayParseError('a positional argument after attributes', this.peek().pos);
        args.push(this.expr());
      }
      if (!this.is(')')) this.eat(',', ' between arguments');
    }
    this.eat(')');
    return { args, attrs };
  }

  private primary(): RelayExpr {
    const t = this.peek();
    if (t.kind === 'var') {
      this.next();
      return { kind: 'var', name: t.text.slice(1), pos: t.pos };
    }
    if (t.kind === 'global') {
      this.next();
      return { kind: 'global', name: t.text.slice(1), pos: t.pos };
    }
    if (t.kind === 'num' || (this.is('-') && this.peek(1).kind === 'num')) {
      const neg = this.is('-');
      if (neg) this.next();
      return constant(this.next(), neg, t.pos);
    }
    if (this.is('True') || this.is('False')) {
      this.next();
      return { kind: 'const', value: t.text === 'True' ? 1 : 0, dtype: 'bool', pos: t.pos };
    }
    if (this.is('meta')) {
      const m = this.metaRef();
      return { kind: 'meta', ...m, pos: t.pos };
    }
    if (this.is('fn')) {
      this.next();
      return { kind: 'fn', fn: this.functionRest(t.pos), pos: t.pos };
    }
    if (this.is('if')) {
      this.next();
      this.eat('(', " after 'if'");
      const cond = this.expr();
      this.eat(')');
      this.eat('{');
      const then = this.block();
      this.eat('}');
      this.eat('else', " after the 'if' branch");
      this.eat('{');
      const other = this.block();
      this.eat('}');
      return { kind: 'if', cond, then, else: other, pos: t.pos };
    }
    if (this.is('match') || this.is('match?'))
      throw new Unsupported(
        "'match' on algebraic data types is not supported: a raf-op graph holds tensors and tuples only",
        t.pos,
      );
    if (this.is('ref') || this.is('ref_read') || this.is('ref_write'))
      throw new Unsupported(`references ('${t.text}') are not supported: a raf-op graph has no mutable state`, t.pos);
    if (this.is('(')) {
      this.next();
      const items: RelayExpr[] = [];
      let comma = false;
      while (!this.is(')')) {
        // `( let %f = ...; %f )`: a parenthesized block
        items.push(this.is('let') || (this.peek().kind === 'var' && this.is('=', 1)) ? this.block() : this.expr());
        if (!this.is(')')) {
          this.eat(',', ' in the tuple');
          comma = true;
        }
      }
      this.eat(')');
      // `(e)` is grouping; `(e,)` is a tuple of one, kept as a tuple.
      return items.length === 1 && !comma ? items[0]! : { kind: 'tuple', items, pos: t.pos };
    }
    if (this.is('[')) return { kind: 'list', value: this.attr(), pos: t.pos };
    if (t.kind === 'str' || this.is('nullptr') || this.is('None'))
      return { kind: 'list', value: this.attr(), pos: t.pos };
    if (t.kind === 'ident') {
      this.next();
      if (!this.is('('))
        throw new RelayParseError(
          /^[A-Z]/.test(t.text)
            ? `'${t.text}' looks like an algebraic data type constructor, which is not supported`
            : `expected '(' after the op name '${t.text}'`,
          this.peek().pos,
        );
      const { args, attrs } = this.callArgs();
      return { kind: 'call', op: t.text, args, attrs, pos: t.pos };
    }
    throw new RelayParseError(`expected an expression, found '${t.text}'`, t.pos);
  }

  private metaRef(): RelayMetaRef {
    this.eat('meta');
    this.eat('[', " after 'meta'");
    const kind = this.expectKind('ident', 'a meta kind like relay.Constant');
    this.eat(']');
    this.eat('[');
    const k = this.expectKind('num', 'a metatable index');
    this.eat(']');
    return { meta: kind.text, index: Number(k.text) };
  }

  private attr(): RelayAttr {
    const t = this.peek();
    if (this.is('meta')) return this.metaRef();
    this.next();
    if (t.kind === 'num' || (t.text === '-' && this.peek().kind === 'num')) {
      const n = t.kind === 'num' ? t : this.next();
      const v = Number(n.text.replace(SUFFIX, ''));
      return t.text === '-' ? -v : v;
    }
    if (t.kind === 'str') return JSON.parse(t.text) as string;
    if (t.text === 'True' || t.text === 'False') return t.text === 'True';
    if (t.text === 'None' || t.text === 'nullptr') return null;
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
    if (t.kind === 'ident') return t.text; // bare words: dtypes in RAF's text (`float32`)
    throw new RelayParseError(`expected an attribute value, found '${t.text}'`, t.pos);
  }
}

function constant(t: Tok, neg: boolean, pos: Pos): RelayExpr {
  const m = SUFFIX.exec(t.text);
  const dtype = m ? SUFFIX_DTYPE[m[1]!]! : /[.e]/.test(t.text) ? 'float32' : 'int32';
  const value = Number(m ? t.text.slice(0, m.index) : t.text);
  return { kind: 'const', value: neg ? -value : value, dtype, pos };
}
