// Reference interpreter for the expression IR: constant folding, numeric gradient checks and kernel test oracles.
import {
  bitAnd,
  bitNot,
  bitOr,
  bitXor,
  erf,
  floorMod,
  roundHalfEven,
  shiftLeft,
  shiftRight,
  sigmoid,
  softplus,
} from '../../../runtime/src/dialects/cpu/math.ts';
import type { BinaryOp, CallFn, Expr } from './ast.ts';

// The helpers come from the runtime's own math module so that the oracle and generated CPU kernels agree bit for bit.

/** Truth values travel as 1/0; a number used as a condition is true when nonzero (NaN counts as true, as in `x != 0`). */
const truthy = (value: number): boolean => value !== 0;
const fromBool = (flag: boolean): number => (flag ? 1 : 0);

const FUNCTION_EVALUATORS: { readonly [F in CallFn]: (...args: number[]) => number } = {
  exp: Math.exp,
  log: Math.log,
  sqrt: Math.sqrt,
  rsqrt: (x) => 1 / Math.sqrt(x),
  sin: Math.sin,
  cos: Math.cos,
  tan: Math.tan,
  tanh: Math.tanh,
  sigmoid,
  erf,
  abs: Math.abs,
  sign: Math.sign,
  floor: Math.floor,
  ceil: Math.ceil,
  round: roundHalfEven,
  min: (a, b) => Math.min(a, b),
  max: (a, b) => Math.max(a, b),
  clamp: (x, lo, hi) => Math.min(Math.max(x, lo), hi),
  pow: (a, b) => Math.pow(a, b),
  log1p: Math.log1p,
  expm1: Math.expm1,
  softplus,
  reciprocal: (x) => 1 / x,
  asin: Math.asin,
  acos: Math.acos,
  atan: Math.atan,
  sinh: Math.sinh,
  cosh: Math.cosh,
  asinh: Math.asinh,
  acosh: Math.acosh,
  atanh: Math.atanh,
  trunc: Math.trunc,
  isnan: (x) => fromBool(Number.isNaN(x)),
  isinf: (x) => fromBool(x === Infinity || x === -Infinity),
  fmod: (a, b) => a % b,
  mod: floorMod,
  bitand: bitAnd,
  bitor: bitOr,
  bitxor: bitXor,
  bitnot: bitNot,
  shl: shiftLeft,
  shr: shiftRight,
};

const BINARY_EVALUATORS: { readonly [Op in BinaryOp]: (a: number, b: number) => number } = {
  '+': (a, b) => a + b,
  '-': (a, b) => a - b,
  '*': (a, b) => a * b,
  '/': (a, b) => a / b,
  '**': (a, b) => Math.pow(a, b),
  '<': (a, b) => fromBool(a < b),
  '<=': (a, b) => fromBool(a <= b),
  '>': (a, b) => fromBool(a > b),
  '>=': (a, b) => fromBool(a >= b),
  '==': (a, b) => fromBool(a === b),
  '!=': (a, b) => fromBool(a !== b),
  '&&': (a, b) => fromBool(truthy(a) && truthy(b)),
  '||': (a, b) => fromBool(truthy(a) || truthy(b)),
};

/** Evaluates with float64 semantics; boolean results come back as 1 or 0. Throws on an unbound variable. */
export function evalExpr(expr: Expr, env: Readonly<Record<string, number>>): number {
  switch (expr.kind) {
    case 'var': {
      const value = env[expr.name];
      if (value === undefined) throw new Error(`evalExpr: no value for variable '${expr.name}'`);
      return value;
    }
    case 'const':
      return expr.value;
    case 'unary': {
      const arg = evalExpr(expr.arg, env);
      return expr.op === 'neg' ? -arg : fromBool(!truthy(arg));
    }
    case 'binary':
      return BINARY_EVALUATORS[expr.op](evalExpr(expr.lhs, env), evalExpr(expr.rhs, env));
    case 'call':
      return FUNCTION_EVALUATORS[expr.fn](...expr.args.map((arg) => evalExpr(arg, env)));
    case 'select':
      return truthy(evalExpr(expr.cond, env)) ? evalExpr(expr.ifTrue, env) : evalExpr(expr.ifFalse, env);
  }
}
