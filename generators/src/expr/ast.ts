// Expression IR for elementwise `compute:` strings: the one vocabulary shared by parser, simplifier, differentiator, evaluator and renderers.

export type UnaryOp = 'neg' | 'not';
export type ArithmeticOp = '+' | '-' | '*' | '/' | '**';
export type ComparisonOp = '<' | '<=' | '>' | '>=' | '==' | '!=';
export type LogicalOp = '&&' | '||';
export type BinaryOp = ArithmeticOp | ComparisonOp | LogicalOp;

export type FnName =
  | 'exp'
  | 'log'
  | 'sqrt'
  | 'rsqrt'
  | 'sin'
  | 'cos'
  | 'tan'
  | 'tanh'
  | 'sigmoid'
  | 'erf'
  | 'abs'
  | 'sign'
  | 'floor'
  | 'ceil'
  | 'round'
  | 'min'
  | 'max'
  | 'clamp'
  | 'pow'
  | 'where'
  | 'log1p'
  | 'expm1'
  | 'softplus'
  | 'reciprocal'
  | 'asin'
  | 'acos'
  | 'atan'
  | 'sinh'
  | 'cosh'
  | 'asinh'
  | 'acosh'
  | 'atanh'
  | 'trunc'
  | 'isnan'
  | 'isinf'
  | 'fmod'
  | 'mod'
  | 'bitand'
  | 'bitor'
  | 'bitxor'
  | 'bitnot'
  | 'shl'
  | 'shr';

/** `where(c, a, b)` is surface syntax for a select node, so call nodes never carry it. */
export type CallFn = Exclude<FnName, 'where'>;

export type Expr =
  | { readonly kind: 'var'; readonly name: string }
  | { readonly kind: 'const'; readonly value: number }
  | { readonly kind: 'unary'; readonly op: UnaryOp; readonly arg: Expr }
  | { readonly kind: 'binary'; readonly op: BinaryOp; readonly lhs: Expr; readonly rhs: Expr }
  | { readonly kind: 'call'; readonly fn: CallFn; readonly args: readonly Expr[] }
  | { readonly kind: 'select'; readonly cond: Expr; readonly ifTrue: Expr; readonly ifFalse: Expr };

export type ExprKind = Expr['kind'];
export type ExprOf<K extends ExprKind> = Extract<Expr, { kind: K }>;

/** Whether an expression yields a truth value or a number; the renderers insert conversions where the two meet. */
export type ResultKind = 'bool' | 'num';

export interface FnInfo {
  readonly arity: number;
  /** One-line meaning, used in generated operator docs. */
  readonly meaning: string;
}

// A mapped type over FnName makes forgetting a function a compile error rather than a runtime surprise.
export const FUNCTIONS: { readonly [F in FnName]: FnInfo } = {
  exp: { arity: 1, meaning: 'e raised to x' },
  log: { arity: 1, meaning: 'natural logarithm' },
  sqrt: { arity: 1, meaning: 'square root' },
  rsqrt: { arity: 1, meaning: '1 / sqrt(x)' },
  sin: { arity: 1, meaning: 'sine (radians)' },
  cos: { arity: 1, meaning: 'cosine (radians)' },
  tan: { arity: 1, meaning: 'tangent (radians)' },
  tanh: { arity: 1, meaning: 'hyperbolic tangent' },
  sigmoid: { arity: 1, meaning: '1 / (1 + exp(-x))' },
  erf: { arity: 1, meaning: 'Gauss error function' },
  abs: { arity: 1, meaning: 'absolute value' },
  sign: { arity: 1, meaning: '-1, 0 or 1' },
  floor: { arity: 1, meaning: 'round toward -infinity' },
  ceil: { arity: 1, meaning: 'round toward +infinity' },
  round: { arity: 1, meaning: 'round to nearest, ties to even' },
  min: { arity: 2, meaning: 'smaller of two values' },
  max: { arity: 2, meaning: 'larger of two values' },
  clamp: { arity: 3, meaning: 'min(max(x, lo), hi)' },
  pow: { arity: 2, meaning: 'a raised to b, same as a ** b' },
  where: { arity: 3, meaning: 'a where c is true, else b' },
  log1p: { arity: 1, meaning: 'log(1 + x), accurate near 0' },
  expm1: { arity: 1, meaning: 'exp(x) - 1, accurate near 0' },
  softplus: { arity: 1, meaning: 'log(1 + exp(x))' },
  reciprocal: { arity: 1, meaning: '1 / x' },
  asin: { arity: 1, meaning: 'inverse sine (radians)' },
  acos: { arity: 1, meaning: 'inverse cosine (radians)' },
  atan: { arity: 1, meaning: 'inverse tangent (radians)' },
  sinh: { arity: 1, meaning: 'hyperbolic sine' },
  cosh: { arity: 1, meaning: 'hyperbolic cosine' },
  asinh: { arity: 1, meaning: 'inverse hyperbolic sine' },
  acosh: { arity: 1, meaning: 'inverse hyperbolic cosine' },
  atanh: { arity: 1, meaning: 'inverse hyperbolic tangent' },
  trunc: { arity: 1, meaning: 'round toward zero' },
  isnan: { arity: 1, meaning: 'true where x is NaN' },
  isinf: { arity: 1, meaning: 'true where x is +Infinity or -Infinity' },
  fmod: { arity: 2, meaning: "remainder of a / b truncated toward zero, with a's sign (C fmod)" },
  mod: { arity: 2, meaning: "remainder of a / b floored, with b's sign (Python's %, NumPy's mod)" },
  bitand: { arity: 2, meaning: "bitwise and of integers (two's complement)" },
  bitor: { arity: 2, meaning: "bitwise or of integers (two's complement)" },
  bitxor: { arity: 2, meaning: "bitwise exclusive or of integers (two's complement)" },
  bitnot: { arity: 1, meaning: "bitwise complement of an integer, -x - 1 (two's complement)" },
  shl: { arity: 2, meaning: 'a shifted left by b bits, a * 2^b (the store wraps it to the dtype)' },
  shr: { arity: 2, meaning: 'a shifted right by b bits, floor(a / 2^b)' },
};

/** Functions whose result is a truth value rather than a number (renderers keep it as one). */
export const PREDICATES: ReadonlySet<FnName> = new Set<FnName>(['isnan', 'isinf']);

export const FUNCTION_NAMES = Object.keys(FUNCTIONS) as FnName[];

export function isFunctionName(name: string): name is FnName {
  return Object.hasOwn(FUNCTIONS, name);
}

export function isComparisonOp(op: BinaryOp): op is ComparisonOp {
  return op === '<' || op === '<=' || op === '>' || op === '>=' || op === '==' || op === '!=';
}

export function isLogicalOp(op: BinaryOp): op is LogicalOp {
  return op === '&&' || op === '||';
}

export function resultKind(expr: Expr): ResultKind {
  switch (expr.kind) {
    case 'var':
    case 'const':
      return 'num';
    case 'call':
      return PREDICATES.has(expr.fn) ? 'bool' : 'num';
    case 'unary':
      return expr.op === 'not' ? 'bool' : 'num';
    case 'binary':
      return isComparisonOp(expr.op) || isLogicalOp(expr.op) ? 'bool' : 'num';
    case 'select':
      return resultKind(expr.ifTrue) === 'bool' && resultKind(expr.ifFalse) === 'bool' ? 'bool' : 'num';
  }
}

// Constructors freeze their result so a shared subtree can never be mutated behind another owner's back.
export const variable = (name: string): Expr => Object.freeze({ kind: 'var', name });
export const constant = (value: number): Expr => Object.freeze({ kind: 'const', value });
export const unary = (op: UnaryOp, arg: Expr): Expr => Object.freeze({ kind: 'unary', op, arg });
export const binary = (op: BinaryOp, lhs: Expr, rhs: Expr): Expr => Object.freeze({ kind: 'binary', op, lhs, rhs });
export const call = (fn: CallFn, args: readonly Expr[]): Expr =>
  Object.freeze({ kind: 'call', fn, args: Object.freeze([...args]) });
export const select = (cond: Expr, ifTrue: Expr, ifFalse: Expr): Expr =>
  Object.freeze({ kind: 'select', cond, ifTrue, ifFalse });

export const neg = (arg: Expr): Expr => unary('neg', arg);
export const add = (lhs: Expr, rhs: Expr): Expr => binary('+', lhs, rhs);
export const sub = (lhs: Expr, rhs: Expr): Expr => binary('-', lhs, rhs);
export const mul = (lhs: Expr, rhs: Expr): Expr => binary('*', lhs, rhs);
export const div = (lhs: Expr, rhs: Expr): Expr => binary('/', lhs, rhs);

// A value-specific check must not narrow: failing `isConst(e, 0)` says nothing about whether e is a constant.
export function isConst(expr: Expr): expr is ExprOf<'const'>;
export function isConst(expr: Expr, value: number): boolean;
export function isConst(expr: Expr, value?: number): boolean {
  return expr.kind === 'const' && (value === undefined || expr.value === value);
}

/** Structural equality; constants compare with Object.is so 0 and -0 (and NaN) behave predictably. */
export function exprEquals(a: Expr, b: Expr): boolean {
  if (a === b) return true;
  switch (a.kind) {
    case 'var':
      return b.kind === 'var' && a.name === b.name;
    case 'const':
      return b.kind === 'const' && Object.is(a.value, b.value);
    case 'unary':
      return b.kind === 'unary' && a.op === b.op && exprEquals(a.arg, b.arg);
    case 'binary':
      return b.kind === 'binary' && a.op === b.op && exprEquals(a.lhs, b.lhs) && exprEquals(a.rhs, b.rhs);
    case 'call':
      return (
        b.kind === 'call' &&
        a.fn === b.fn &&
        a.args.length === b.args.length &&
        a.args.every((arg, i) => exprEquals(arg, b.args[i]!))
      );
    case 'select':
      return (
        b.kind === 'select' &&
        exprEquals(a.cond, b.cond) &&
        exprEquals(a.ifTrue, b.ifTrue) &&
        exprEquals(a.ifFalse, b.ifFalse)
      );
  }
}

/** Immediate subexpressions, in source order. */
export function children(expr: Expr): readonly Expr[] {
  switch (expr.kind) {
    case 'var':
    case 'const':
      return [];
    case 'unary':
      return [expr.arg];
    case 'binary':
      return [expr.lhs, expr.rhs];
    case 'call':
      return expr.args;
    case 'select':
      return [expr.cond, expr.ifTrue, expr.ifFalse];
  }
}

/** Free variables in order of first appearance, left to right. */
export function freeVars(expr: Expr): string[] {
  const seen = new Set<string>();
  const visit = (node: Expr): void => {
    if (node.kind === 'var') seen.add(node.name);
    else children(node).forEach(visit);
  };
  visit(expr);
  return [...seen];
}
