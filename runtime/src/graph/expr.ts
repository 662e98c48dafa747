// Runtime side of the compute-expression IR: the literal shape generated passes files emit, and its JS compiler for fused CPU loops.

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
} from '../dialects/cpu/math.ts';

export type ComputeFn =
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

/** Structurally the generator's `Expr` (generators/src/expr/ast.ts), which emits literals of this type. */
export type ComputeExpr =
  | { readonly kind: 'var'; readonly name: string }
  | { readonly kind: 'const'; readonly value: number }
  | { readonly kind: 'unary'; readonly op: 'neg' | 'not'; readonly arg: ComputeExpr }
  | {
      readonly kind: 'binary';
      readonly op: '+' | '-' | '*' | '/' | '**' | '<' | '<=' | '>' | '>=' | '==' | '!=' | '&&' | '||';
      readonly lhs: ComputeExpr;
      readonly rhs: ComputeExpr;
    }
  | { readonly kind: 'call'; readonly fn: ComputeFn; readonly args: readonly ComputeExpr[] }
  | {
      readonly kind: 'select';
      readonly cond: ComputeExpr;
      readonly ifTrue: ComputeExpr;
      readonly ifFalse: ComputeExpr;
    };

/** An elementwise op's body: its expression and which of the op's args it reads. */
export interface ComputeDef {
  readonly source: string;
  readonly expr: ComputeExpr;
  /** Tensor args (read per element) and number args (read once), by schema name. */
  readonly tensors: readonly string[];
  readonly scalars: readonly string[];
}

// Every subexpression is parenthesized: generated text is never read by people, so no precedence ladder is needed.
const JS_FUNCTIONS: { readonly [F in ComputeFn]: (a: readonly string[]) => string } = {
  exp: ([x]) => `Math.exp(${x})`,
  log: ([x]) => `Math.log(${x})`,
  sqrt: ([x]) => `Math.sqrt(${x})`,
  rsqrt: ([x]) => `(1 / Math.sqrt(${x}))`,
  sin: ([x]) => `Math.sin(${x})`,
  cos: ([x]) => `Math.cos(${x})`,
  tan: ([x]) => `Math.tan(${x})`,
  tanh: ([x]) => `Math.tanh(${x})`,
  sigmoid: ([x]) => `H.sigmoid(${x})`,
  erf: ([x]) => `H.erf(${x})`,
  abs: ([x]) => `Math.abs(${x})`,
  sign: ([x]) => `Math.sign(${x})`,
  floor: ([x]) => `Math.floor(${x})`,
  ceil: ([x]) => `Math.ceil(${x})`,
  round: ([x]) => `H.roundHalfEven(${x})`,
  min: ([a, b]) => `Math.min(${a}, ${b})`,
  max: ([a, b]) => `Math.max(${a}, ${b})`,
  clamp: ([x, lo, hi]) => `Math.min(Math.max(${x}, ${lo}), ${hi})`,
  pow: ([a, b]) => `Math.pow(${a}, ${b})`,
  log1p: ([x]) => `Math.log1p(${x})`,
  expm1: ([x]) => `Math.expm1(${x})`,
  softplus: ([x]) => `H.softplus(${x})`,
  reciprocal: ([x]) => `(1 / ${x})`,
  asin: ([x]) => `Math.asin(${x})`,
  acos: ([x]) => `Math.acos(${x})`,
  atan: ([x]) => `Math.atan(${x})`,
  sinh: ([x]) => `Math.sinh(${x})`,
  cosh: ([x]) => `Math.cosh(${x})`,
  asinh: ([x]) => `Math.asinh(${x})`,
  acosh: ([x]) => `Math.acosh(${x})`,
  atanh: ([x]) => `Math.atanh(${x})`,
  trunc: ([x]) => `Math.trunc(${x})`,
  isnan: ([x]) => `Number.isNaN(${x})`,
  isinf: ([x]) => `(Math.abs(${x}) === Infinity)`,
  fmod: ([a, b]) => `(${a} % ${b})`,
  mod: ([a, b]) => `H.floorMod(${a}, ${b})`,
  bitand: ([a, b]) => `H.bitAnd(${a}, ${b})`,
  bitor: ([a, b]) => `H.bitOr(${a}, ${b})`,
  bitxor: ([a, b]) => `H.bitXor(${a}, ${b})`,
  bitnot: ([x]) => `H.bitNot(${x})`,
  shl: ([a, b]) => `H.shiftLeft(${a}, ${b})`,
  shr: ([a, b]) => `H.shiftRight(${a}, ${b})`,
};

/** The helpers `H.*` in compiled text resolve to; passed to `new Function` as `H`. */
export const JS_HELPERS = {
  erf,
  sigmoid,
  softplus,
  roundHalfEven,
  floorMod,
  bitAnd,
  bitOr,
  bitXor,
  bitNot,
  shiftLeft,
  shiftRight,
} as const;

/** JavaScript text of `e` with each variable replaced by `names[var]`; a boolean result stays boolean (stores as 1/0). */
export function exprToJs(e: ComputeExpr, names: Readonly<Record<string, string>>): string {
  switch (e.kind) {
    case 'var': {
      const n = names[e.name];
      if (n === undefined) throw new Error(`compute: no value for '${e.name}'`);
      return n;
    }
    case 'const':
      return Number.isNaN(e.value) ? 'NaN' : `(${Object.is(e.value, -0) ? '-0' : String(e.value)})`;
    case 'unary':
      return e.op === 'neg' ? `(-${exprToJs(e.arg, names)})` : `(!${exprToJs(e.arg, names)})`;
    case 'binary': {
      const [l, r] = [exprToJs(e.lhs, names), exprToJs(e.rhs, names)];
      if (e.op === '**') return `Math.pow(${l}, ${r})`;
      if (e.op === '==') return `(${l} === ${r})`;
      if (e.op === '!=') return `(${l} !== ${r})`;
      // Logical operators yield a truth value, never one of their operands.
      if (e.op === '&&' || e.op === '||') return `(!!${l} ${e.op} !!${r})`;
      return `(${l} ${e.op} ${r})`;
    }
    case 'call':
      return JS_FUNCTIONS[e.fn](e.args.map((a) => exprToJs(a, names)));
    case 'select':
      return `(${exprToJs(e.cond, names)} ? ${exprToJs(e.ifTrue, names)} : ${exprToJs(e.ifFalse, names)})`;
  }
}

type Wgsl = { readonly text: string; readonly bool: boolean };
const num = (w: Wgsl): string => (w.bool ? `select(0.0, 1.0, ${w.text})` : w.text);
const cond = (w: Wgsl): string => (w.bool ? w.text : `(${w.text} != 0.0)`);

/** WGSL testing an f32 for NaN by its bits (comparisons may be folded on the assumption that NaN never occurs). */
const wgslIsNan = (v: string): string => `((bitcast<u32>(${v}) & 0x7fffffffu) > 0x7f800000u)`;

// WGSL spellings; functions WGSL lacks are written out (erf has no short closed form, so it is not fusable on WebGPU).
const WGSL_FUNCTIONS: { readonly [F in ComputeFn]: ((a: readonly string[]) => string) | null } = {
  exp: ([x]) => `exp(${x})`,
  log: ([x]) => `log(${x})`,
  sqrt: ([x]) => `sqrt(${x})`,
  rsqrt: ([x]) => `inverseSqrt(${x})`,
  sin: ([x]) => `sin(${x})`,
  cos: ([x]) => `cos(${x})`,
  tan: ([x]) => `tan(${x})`,
  tanh: ([x]) => `tanh(${x})`,
  sigmoid: ([x]) => `(1.0 / (1.0 + exp(-(${x}))))`,
  erf: null,
  abs: ([x]) => `abs(${x})`,
  sign: ([x]) => `sign(${x})`,
  floor: ([x]) => `floor(${x})`,
  ceil: ([x]) => `ceil(${x})`,
  round: ([x]) => `round(${x})`,
  // WGSL's min/max/clamp may drop a NaN; these propagate it as the CPU (Math.min/max) does, testing the bits.
  min: ([a, b]) => `select(min(${a}, ${b}), ${a} + ${b}, ${wgslIsNan(a!)} || ${wgslIsNan(b!)})`,
  max: ([a, b]) => `select(max(${a}, ${b}), ${a} + ${b}, ${wgslIsNan(a!)} || ${wgslIsNan(b!)})`,
  clamp: ([x, lo, hi]) => `select(min(max(${x}, ${lo}), ${hi}), ${x}, ${wgslIsNan(x!)})`,
  pow: ([a, b]) => `raf_pow(${a}, ${b})`,
  log1p: ([x]) => `log(1.0 + ${x})`,
  expm1: ([x]) => `(exp(${x}) - 1.0)`,
  softplus: ([x]) => `(max(${x}, 0.0) + log(1.0 + exp(-abs(${x}))))`,
  reciprocal: ([x]) => `(1.0 / ${x})`,
  asin: ([x]) => `asin(${x})`,
  acos: ([x]) => `acos(${x})`,
  atan: ([x]) => `atan(${x})`,
  sinh: ([x]) => `sinh(${x})`,
  cosh: ([x]) => `cosh(${x})`,
  asinh: ([x]) => `asinh(${x})`,
  acosh: ([x]) => `acosh(${x})`,
  atanh: ([x]) => `atanh(${x})`,
  trunc: ([x]) => `trunc(${x})`,
  isnan: ([x]) => `select(0.0, 1.0, ${wgslIsNan(x!)})`,
  isinf: ([x]) => `select(0.0, 1.0, (bitcast<u32>(${x}) & 0x7fffffffu) == 0x7f800000u)`,
  fmod: ([a, b]) => `(${a} - ${b} * trunc(${a} / ${b}))`,
  mod: ([a, b]) => `(${a} - ${b} * floor(${a} / ${b}))`,
  // Integer-only functions are not fused on WebGPU (its fused kernels are f32).
  bitand: null,
  bitor: null,
  bitxor: null,
  bitnot: null,
  shl: null,
  shr: null,
};

/**
 * Functions the WGSL of exprToWgsl may call; every shader holding such text includes them. WGSL's pow(x, y) is
 * exp2(y * log2(x)), NaN for x < 0, where JavaScript and the CPU dialect give (-2) ** 2 = 4: integral exponents of a
 * negative base get the magnitude with the sign of an odd power, as the generated power kernel does.
 */
export const WGSL_EXPR_HELPERS = `fn raf_pow(x: f32, y: f32) -> f32 {
  if (y == 0.0) { return 1.0; }
  let magnitude = pow(abs(x), y);
  if (x >= 0.0) { return magnitude; }
  if (y != floor(y)) { return pow(x, y); }
  return select(magnitude, -magnitude, fract(y * 0.5) != 0.0);
}`;

/** WGSL text of `e` as an f32 expression (booleans become 0 or 1), or null when a function has no WGSL spelling. */
export function exprToWgsl(e: ComputeExpr, names: Readonly<Record<string, string>>): string | null {
  const visit = (x: ComputeExpr): Wgsl | null => {
    switch (x.kind) {
      case 'var': {
        const n = names[x.name];
        return n === undefined ? null : { text: n, bool: false };
      }
      case 'const':
        return Number.isFinite(x.value) ? { text: `f32(${x.value})`, bool: false } : null;
      case 'unary': {
        const a = visit(x.arg);
        if (!a) return null;
        return x.op === 'neg' ? { text: `(-${num(a)})`, bool: false } : { text: `(!${cond(a)})`, bool: true };
      }
      case 'binary': {
        const [l, r] = [visit(x.lhs), visit(x.rhs)];
        if (!l || !r) return null;
        if (x.op === '**') return { text: `raf_pow(${num(l)}, ${num(r)})`, bool: false };
        if (x.op === '&&' || x.op === '||') return { text: `(${cond(l)} ${x.op} ${cond(r)})`, bool: true };
        if (['<', '<=', '>', '>=', '==', '!='].includes(x.op))
          return { text: `(${num(l)} ${x.op} ${num(r)})`, bool: true };
        return { text: `(${num(l)} ${x.op} ${num(r)})`, bool: false };
      }
      case 'call': {
        const f = WGSL_FUNCTIONS[x.fn];
        const args = x.args.map(visit);
        if (!f || args.some((a) => !a)) return null;
        return { text: f(args.map((a) => num(a!))), bool: false };
      }
      case 'select': {
        const [c, t, f] = [visit(x.cond), visit(x.ifTrue), visit(x.ifFalse)];
        if (!c || !t || !f) return null;
        return { text: `select(${num(f)}, ${num(t)}, ${cond(c)})`, bool: false };
      }
    }
  };
  const w = visit(e);
  return w ? num(w) : null;
}
