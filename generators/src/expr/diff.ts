// Symbolic differentiation of the expression IR, used to derive gradient kernels from a `compute:` string.
import {
  add,
  binary,
  call,
  constant,
  div,
  freeVars,
  isConst,
  mul,
  neg,
  select,
  sub,
  type CallFn,
  type Expr,
  type ExprOf,
} from './ast.ts';
import { simplify } from './simplify.ts';

/*
 * Subgradient conventions at the points where the derivative is undefined, chosen to match PyTorch:
 *   max(a, b)       -> where(a > b, da, db)   so relu = max(x, 0) has derivative 0 at x = 0 (ties go to b);
 *   min(a, b)       -> where(a < b, da, db)   likewise;
 *   clamp(x, lo, hi)-> where(x > lo && x < hi, dx, where(x <= lo, dlo, dhi)), which is where(…, dx, 0) for
 *                      constant bounds: the gradient vanishes on and beyond both bounds;
 *   abs(x)          -> sign(x) * dx           so 0 at 0;
 *   sign, floor, ceil, round, trunc, isnan, isinf, the bitwise functions, comparisons and logical operators -> 0
 *                      (piecewise constant, or integer-only);
 *   fmod(a, b)      -> da - trunc(a / b) * db, mod(a, b) -> da - floor(a / b) * db (the quotient is locally constant);
 *   where(c, a, b)  -> where(c, da, db)       the condition is treated as locally constant.
 */

const TWO_OVER_SQRT_PI = 2 / Math.sqrt(Math.PI);

/** d expr / d wrt, simplified. Variables other than `wrt` are treated as constants. */
export function diff(expr: Expr, wrt: string): Expr {
  return simplify(derivative(expr, wrt));
}

function derivative(expr: Expr, wrt: string): Expr {
  switch (expr.kind) {
    case 'var':
      return constant(expr.name === wrt ? 1 : 0);
    case 'const':
      return constant(0);
    case 'unary':
      return expr.op === 'neg' ? neg(derivative(expr.arg, wrt)) : constant(0);
    case 'binary':
      return binaryDerivative(expr, wrt);
    case 'call':
      return callDerivative(expr.fn, expr.args, wrt);
    case 'select':
      return select(expr.cond, derivative(expr.ifTrue, wrt), derivative(expr.ifFalse, wrt));
  }
}

function binaryDerivative(expr: ExprOf<'binary'>, wrt: string): Expr {
  const { op, lhs, rhs } = expr;
  const dl = () => derivative(lhs, wrt);
  const dr = () => derivative(rhs, wrt);
  switch (op) {
    case '+':
      return add(dl(), dr());
    case '-':
      return sub(dl(), dr());
    case '*':
      return add(mul(dl(), rhs), mul(lhs, dr()));
    case '/':
      // Written as da/b - a*db/b² rather than (da*b - a*db)/b² so a constant denominator simplifies to da/b.
      return sub(div(dl(), rhs), div(mul(lhs, dr()), mul(rhs, rhs)));
    case '**':
      return powerDerivative(lhs, rhs, wrt);
    default:
      return constant(0);
  }
}

function powerDerivative(base: Expr, exponent: Expr, wrt: string): Expr {
  const power = binary('**', base, exponent);
  const baseDepends = freeVars(base).includes(wrt);
  const exponentDepends = freeVars(exponent).includes(wrt);
  // The special cases avoid log(base), which is NaN for a negative base even when the exponent is constant.
  if (!exponentDepends) {
    if (!baseDepends) return constant(0);
    const reduced = isConst(exponent) ? constant(exponent.value - 1) : sub(exponent, constant(1));
    return mul(mul(exponent, binary('**', base, reduced)), derivative(base, wrt));
  }
  const logBase = call('log', [base]);
  if (!baseDepends) return mul(mul(power, logBase), derivative(exponent, wrt));
  const chain = add(mul(derivative(exponent, wrt), logBase), div(mul(exponent, derivative(base, wrt)), base));
  return mul(power, chain);
}

function callDerivative(fn: CallFn, args: readonly Expr[], wrt: string): Expr {
  const a = args[0]!;
  const da = () => derivative(a, wrt);
  const outer = (local: Expr): Expr => mul(local, da());
  const self = call(fn, args);
  switch (fn) {
    case 'exp':
      return outer(self);
    case 'log':
      return div(da(), a);
    case 'sqrt':
      return div(da(), mul(constant(2), self));
    case 'rsqrt':
      // d x^(-1/2) = -1/2 x^(-3/2) = -0.5 * rsqrt(x) / x
      return outer(div(mul(constant(-0.5), self), a));
    case 'sin':
      return outer(call('cos', [a]));
    case 'cos':
      return outer(neg(call('sin', [a])));
    case 'tan':
      return outer(add(constant(1), mul(self, self)));
    case 'tanh':
      return outer(sub(constant(1), mul(self, self)));
    case 'sigmoid':
      return outer(mul(self, sub(constant(1), self)));
    case 'erf':
      return outer(mul(constant(TWO_OVER_SQRT_PI), call('exp', [neg(mul(a, a))])));
    case 'abs':
      return outer(call('sign', [a]));
    case 'sign':
    case 'floor':
    case 'ceil':
    case 'round':
      return constant(0);
    case 'max':
      return select(binary('>', a, args[1]!), da(), derivative(args[1]!, wrt));
    case 'min':
      return select(binary('<', a, args[1]!), da(), derivative(args[1]!, wrt));
    case 'clamp': {
      const [lo, hi] = [args[1]!, args[2]!];
      const inside = binary('&&', binary('>', a, lo), binary('<', a, hi));
      const boundSlope = select(binary('<=', a, lo), derivative(lo, wrt), derivative(hi, wrt));
      return select(inside, da(), boundSlope);
    }
    case 'pow':
      return powerDerivative(a, args[1]!, wrt);
    case 'log1p':
      return div(da(), add(constant(1), a));
    case 'expm1':
      return outer(call('exp', [a]));
    case 'softplus':
      return outer(call('sigmoid', [a]));
    case 'reciprocal':
      return neg(div(da(), mul(a, a)));
    case 'asin':
      return div(da(), call('sqrt', [sub(constant(1), mul(a, a))]));
    case 'acos':
      return neg(div(da(), call('sqrt', [sub(constant(1), mul(a, a))])));
    case 'atan':
      return div(da(), add(constant(1), mul(a, a)));
    case 'sinh':
      return outer(call('cosh', [a]));
    case 'cosh':
      return outer(call('sinh', [a]));
    case 'asinh':
      return div(da(), call('sqrt', [add(mul(a, a), constant(1))]));
    case 'acosh':
      return div(da(), call('sqrt', [sub(mul(a, a), constant(1))]));
    case 'atanh':
      return div(da(), sub(constant(1), mul(a, a)));
    case 'fmod':
    case 'mod': {
      const b = args[1]!;
      const quotient = call(fn === 'fmod' ? 'trunc' : 'floor', [div(a, b)]);
      return sub(da(), mul(quotient, derivative(b, wrt)));
    }
    case 'trunc':
    case 'isnan':
    case 'isinf':
    case 'bitand':
    case 'bitor':
    case 'bitxor':
    case 'bitnot':
    case 'shl':
    case 'shr':
      return constant(0);
  }
}
