// Algebraic simplifier: constant folding and identities that keep symbolic derivatives small and readable.
import {
  binary,
  call,
  children,
  constant,
  exprEquals,
  isConst,
  mul,
  neg,
  resultKind,
  select,
  sub,
  unary,
  type Expr,
  type ExprOf,
} from './ast.ts';
import { evalExpr } from './eval.ts';

// Rules such as x * 0 -> 0 ignore IEEE corner cases (x = NaN or ±Infinity) and the sign of zero, as every
// computer-algebra simplifier does; the expressions are generated once and read by people, so size wins.
// Booleans and the numbers 1/0 are interchangeable here because every consumer converts between them the same way.

/** Simplifies to a fixed point; the pass limit only guards against a rule pair that might ping-pong. */
export function simplify(expr: Expr): Expr {
  let current = expr;
  for (let pass = 0; pass < 16; pass++) {
    const next = simplifyBottomUp(current);
    if (exprEquals(next, current)) return next;
    current = next;
  }
  return current;
}

function simplifyBottomUp(expr: Expr): Expr {
  return rewrite(withChildren(expr, children(expr).map(simplifyBottomUp)));
}

function withChildren(expr: Expr, kids: readonly Expr[]): Expr {
  switch (expr.kind) {
    case 'var':
    case 'const':
      return expr;
    case 'unary':
      return unary(expr.op, kids[0]!);
    case 'binary':
      return binary(expr.op, kids[0]!, kids[1]!);
    case 'call':
      return call(expr.fn, kids);
    case 'select':
      return select(kids[0]!, kids[1]!, kids[2]!);
  }
}

function rewrite(expr: Expr): Expr {
  const folded = foldConstants(expr);
  if (folded) return folded;
  switch (expr.kind) {
    case 'unary':
      return rewriteUnary(expr);
    case 'binary':
      return rewriteBinary(expr);
    case 'call':
      if (expr.fn === 'pow') return rewriteBinary(binary('**', expr.args[0]!, expr.args[1]!) as ExprOf<'binary'>, expr);
      return expr;
    case 'select':
      return rewriteSelect(expr);
    default:
      return expr;
  }
}

/** Folds a node whose operands are all constants, unless the result would be non-finite (WGSL has no literal for it). */
function foldConstants(expr: Expr): Expr | undefined {
  const kids = children(expr);
  if (kids.length === 0 || !kids.every((kid) => isConst(kid))) return undefined;
  const value = evalExpr(expr, {});
  return Number.isFinite(value) ? constant(value) : undefined;
}

function rewriteUnary(expr: ExprOf<'unary'>): Expr {
  const arg = expr.arg;
  if (expr.op === 'not') {
    if (arg.kind === 'unary' && arg.op === 'not' && resultKind(arg.arg) === 'bool') return arg.arg;
    return expr;
  }
  if (arg.kind === 'unary' && arg.op === 'neg') return arg.arg;
  if (arg.kind === 'binary' && (arg.op === '*' || arg.op === '/')) {
    // Pull the sign into a leading constant, -(2 * x) -> -2 * x, or cancel it, -(-a / b) -> a / b.
    if (isConst(arg.lhs)) return binary(arg.op, constant(-arg.lhs.value), arg.rhs);
    if (isNeg(arg.lhs)) return binary(arg.op, arg.lhs.arg, arg.rhs);
    if (isNeg(arg.rhs)) return binary(arg.op, arg.lhs, arg.rhs.arg);
  }
  return expr;
}

function rewriteBinary(expr: ExprOf<'binary'>, original: Expr = expr): Expr {
  const { op, lhs, rhs } = expr;
  switch (op) {
    case '+':
      if (isConst(rhs, 0)) return lhs;
      if (isConst(lhs, 0)) return rhs;
      if (isNeg(rhs)) return sub(lhs, rhs.arg);
      if (isNeg(lhs)) return sub(rhs, lhs.arg);
      return expr;
    case '-':
      if (isConst(rhs, 0)) return lhs;
      if (isConst(lhs, 0)) return neg(rhs);
      if (isNeg(rhs)) return binary('+', lhs, rhs.arg);
      return expr;
    case '*':
      return rewriteProduct(lhs, rhs) ?? expr;
    case '/':
      if (isConst(rhs, 1)) return lhs;
      if (isConst(rhs, -1)) return neg(lhs);
      if (isConst(lhs, 0)) return lhs;
      return expr;
    case '**':
      if (isConst(rhs, 1)) return lhs;
      if (isConst(rhs, 0)) return constant(1);
      return original;
    case '&&':
    case '||': {
      // A constant operand decides the result or drops out; it may only drop out beside a true boolean.
      const [known, other] = isConst(lhs) ? [lhs, rhs] : isConst(rhs) ? [rhs, lhs] : [undefined, undefined];
      if (!known || !other) return expr;
      const decisive = op === '&&' ? known.value === 0 : known.value !== 0;
      if (decisive) return constant(op === '&&' ? 0 : 1);
      return resultKind(other) === 'bool' ? other : expr;
    }
    default:
      return expr;
  }
}

function rewriteProduct(lhs: Expr, rhs: Expr): Expr | undefined {
  if (isConst(lhs, 0) || isConst(rhs, 0)) return constant(0);
  if (isConst(lhs, 1)) return rhs;
  if (isConst(rhs, 1)) return lhs;
  if (isConst(lhs, -1)) return neg(rhs);
  if (isConst(rhs, -1)) return neg(lhs);
  // Constants lead a product so that c1 * (c2 * x) can merge into one coefficient.
  if (isConst(rhs)) return mul(rhs, lhs);
  if (isConst(lhs) && rhs.kind === 'binary' && rhs.op === '*' && isConst(rhs.lhs)) {
    return mul(constant(lhs.value * rhs.lhs.value), rhs.rhs);
  }
  if (isNeg(lhs) && isNeg(rhs)) return mul(lhs.arg, rhs.arg);
  if (isConst(lhs) && isNeg(rhs)) return mul(constant(-lhs.value), rhs.arg);
  // x * where(c, 1, 0) is where(c, x, 0): a vanishing branch is how gated (sub)gradients read best.
  for (const [factor, gate] of [
    [lhs, rhs],
    [rhs, lhs],
  ] as const) {
    if (gate.kind === 'select' && (isConst(gate.ifTrue, 0) || isConst(gate.ifFalse, 0))) {
      return select(gate.cond, mul(factor, gate.ifTrue), mul(factor, gate.ifFalse));
    }
  }
  return undefined;
}

function rewriteSelect(expr: ExprOf<'select'>): Expr {
  const { cond, ifTrue, ifFalse } = expr;
  if (isConst(cond)) return cond.value !== 0 ? ifTrue : ifFalse;
  if (exprEquals(ifTrue, ifFalse)) return ifTrue;
  if (cond.kind === 'unary' && cond.op === 'not') return select(cond.arg, ifFalse, ifTrue);
  return expr;
}

function isNeg(expr: Expr): expr is ExprOf<'unary'> & { op: 'neg' } {
  return expr.kind === 'unary' && expr.op === 'neg';
}
