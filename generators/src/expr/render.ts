// Renders the expression IR as JavaScript (CPU kernels) or WGSL (WebGPU kernels) from per-dialect op tables.
import { children, freeVars, isComparisonOp, isLogicalOp, type CallFn, type Expr, type ResultKind } from './ast.ts';
import { evalExpr } from './eval.ts';
import { printExpr } from './parse.ts';

/** Rendered text plus what a parent needs to know to embed it: how tightly it binds and what kind it yields. */
interface Code {
  readonly text: string;
  readonly precedence: number;
  readonly kind: ResultKind;
}

// One precedence ladder serves both dialects. It is coarser than JavaScript's on purpose: WGSL rejects
// `a < b == c` and `a || b && c` without parentheses, so comparisons never nest bare and && / || never mix bare.
const OR = 2,
  AND = 3,
  COMPARE = 4,
  ADD = 5,
  MUL = 6,
  UNARY = 7,
  ATOM = 9;
const BINARY_PRECEDENCE = { '||': OR, '&&': AND, '+': ADD, '-': ADD, '*': MUL, '/': MUL } as const;

const atom = (text: string, kind: ResultKind = 'num'): Code => ({ text, precedence: ATOM, kind });
const num = (text: string, precedence: number): Code => ({ text, precedence, kind: 'num' });
const wrap = (code: Code, minPrecedence: number): string =>
  code.precedence >= minPrecedence ? code.text : `(${code.text})`;
const argList = (args: readonly Code[]): string => args.map((arg) => arg.text).join(', ');

type FnEmitter = (args: readonly Code[], source: readonly Expr[], helpers: Set<string>) => Code;

interface Dialect {
  literal(value: number): Code;
  boolToNum(code: Code): Code;
  numToBool(code: Code): Code;
  select(cond: Code, ifTrue: Code, ifFalse: Code): Code;
  readonly equal: string;
  readonly notEqual: string;
  readonly functions: { readonly [F in CallFn]: FnEmitter };
  /** A rendering of + - * / other than the operator's own, or null for the operator. */
  readonly arithmetic?: (op: '+' | '-' | '*' | '/', lhs: Code, rhs: Code, helpers: Set<string>) => Code | null;
}

export interface RenderOptions {
  /** Kind of the rendered value; 'num' (default) converts a boolean result to 1/0 for storing in a float tensor. */
  readonly as?: ResultKind;
  /**
   * JavaScript only: the value is stored into int32, so products wrap modulo 2^32 exactly (mulInt32) rather than
   * losing their low bits in a float64 product beyond 2^53.
   */
  readonly int32?: boolean;
}

/** Renders the tree bottom-up; variables become `names[var]` and helper functions used are recorded in `helpers`. */
function renderWith(dialect: Dialect, expr: Expr, names: Readonly<Record<string, string>>, helpers: Set<string>): Code {
  const asNum = (code: Code): Code => (code.kind === 'num' ? code : dialect.boolToNum(code));
  const asBool = (code: Code): Code => (code.kind === 'bool' ? code : dialect.numToBool(code));
  const visit = (node: Expr): Code => {
    switch (node.kind) {
      case 'var': {
        const name = names[node.name];
        if (name === undefined) throw new Error(`render: no name given for variable '${node.name}'`);
        // Names are usually identifiers or `x[i]`; anything else gets parentheses rather than a precedence guess.
        return /^[\w$.]+(\[[^[\]]*\])*$/.test(name) ? atom(name) : atom(`(${name})`);
      }
      case 'const':
        return dialect.literal(node.value);
      case 'unary': {
        if (node.op === 'not')
          return { text: `!${wrap(asBool(visit(node.arg)), UNARY)}`, precedence: UNARY, kind: 'bool' };
        const arg = wrap(asNum(visit(node.arg)), UNARY);
        // `--x` is a decrement token in both languages.
        return num(arg.startsWith('-') ? `-(${arg})` : `-${arg}`, UNARY);
      }
      case 'binary': {
        const { op } = node;
        if (op === '**')
          return dialect.functions.pow([visit(node.lhs), visit(node.rhs)].map(asNum), [node.lhs, node.rhs], helpers);
        if (isComparisonOp(op)) {
          let [lhs, rhs] = [visit(node.lhs), visit(node.rhs)];
          const compareBools = (op === '==' || op === '!=') && lhs.kind === 'bool' && rhs.kind === 'bool';
          if (!compareBools) [lhs, rhs] = [asNum(lhs), asNum(rhs)];
          const symbol = op === '==' ? dialect.equal : op === '!=' ? dialect.notEqual : op;
          return {
            text: `${wrap(lhs, COMPARE + 1)} ${symbol} ${wrap(rhs, COMPARE + 1)}`,
            precedence: COMPARE,
            kind: 'bool',
          };
        }
        const precedence = BINARY_PRECEDENCE[op];
        if (isLogicalOp(op)) {
          const [lhs, rhs] = [asBool(visit(node.lhs)), asBool(visit(node.rhs))];
          // Same operator may chain on the left; the other logical operator always gets parentheses.
          const lhsText = lhs.precedence === precedence || lhs.precedence > AND ? lhs.text : `(${lhs.text})`;
          return { text: `${lhsText} ${op} ${wrap(rhs, AND + 1)}`, precedence, kind: 'bool' };
        }
        const [lhs, rhs] = [asNum(visit(node.lhs)), asNum(visit(node.rhs))];
        const special = dialect.arithmetic?.(op, lhs, rhs, helpers);
        if (special) return special;
        return num(`${wrap(lhs, precedence)} ${op} ${wrap(rhs, precedence + 1)}`, precedence);
      }
      case 'call':
        return dialect.functions[node.fn](
          node.args.map((arg) => asNum(visit(arg))),
          node.args,
          helpers,
        );
      case 'select': {
        const cond = asBool(visit(node.cond));
        let [ifTrue, ifFalse] = [visit(node.ifTrue), visit(node.ifFalse)];
        if (ifTrue.kind !== 'bool' || ifFalse.kind !== 'bool') [ifTrue, ifFalse] = [asNum(ifTrue), asNum(ifFalse)];
        return dialect.select(cond, ifTrue, ifFalse);
      }
    }
  };
  return visit(expr);
}

function finish(dialect: Dialect, code: Code, options: RenderOptions): string {
  if ((options.as ?? 'num') === code.kind) return code.text;
  return (code.kind === 'bool' ? dialect.boolToNum(code) : dialect.numToBool(code)).text;
}

/** Identity names, for the helper queries that render only to learn which helpers the text would call. */
const selfNames = (expr: Expr): Record<string, string> =>
  Object.fromEntries(freeVars(expr).map((name) => [name, name]));

// ---------------------------------------------------------------- JavaScript

const jsCall =
  (callee: string): FnEmitter =>
  (args) =>
    atom(`${callee}(${argList(args)})`);
/** A function from runtime/src/dialects/cpu/math.ts that the generated kernel must import. */
const jsHelper =
  (name: string): FnEmitter =>
  (args, _source, helpers) => {
    helpers.add(name);
    return atom(`${name}(${argList(args)})`);
  };

const JS: Dialect = {
  literal(value) {
    if (Number.isNaN(value)) return atom('NaN');
    const magnitude = Math.abs(value) === Infinity ? 'Infinity' : String(Math.abs(value));
    return value < 0 || Object.is(value, -0) ? num(`-${magnitude}`, UNARY) : atom(magnitude);
  },
  // Explicit conversions keep generated TypeScript well-typed: `true * 2` is a type error even though JS allows it.
  boolToNum: (code) => atom(`(${code.text} ? 1 : 0)`),
  numToBool: (code) => atom(`(${code.text} !== 0)`, 'bool'),
  select: (cond, ifTrue, ifFalse) => atom(`(${cond.text} ? ${ifTrue.text} : ${ifFalse.text})`, ifTrue.kind),
  equal: '===',
  notEqual: '!==',
  functions: {
    exp: jsCall('Math.exp'),
    log: jsCall('Math.log'),
    sqrt: jsCall('Math.sqrt'),
    rsqrt: ([a]) => num(`1 / Math.sqrt(${a!.text})`, MUL),
    sin: jsCall('Math.sin'),
    cos: jsCall('Math.cos'),
    tan: jsCall('Math.tan'),
    tanh: jsCall('Math.tanh'),
    sigmoid: jsHelper('sigmoid'),
    erf: jsHelper('erf'),
    abs: jsCall('Math.abs'),
    sign: jsCall('Math.sign'),
    floor: jsCall('Math.floor'),
    ceil: jsCall('Math.ceil'),
    // Math.round sends ties toward +Infinity; the IR's round is ties-to-even like NumPy, PyTorch and WGSL.
    round: jsHelper('roundHalfEven'),
    min: jsCall('Math.min'),
    max: jsCall('Math.max'),
    clamp: ([x, lo, hi]) => atom(`Math.min(Math.max(${x!.text}, ${lo!.text}), ${hi!.text})`),
    // Math.pow rather than `**`, because JavaScript rejects `-x ** 2` outright.
    pow: jsCall('Math.pow'),
    log1p: jsCall('Math.log1p'),
    expm1: jsCall('Math.expm1'),
    softplus: jsHelper('softplus'),
    reciprocal: ([a]) => num(`1 / ${wrap(a!, MUL + 1)}`, MUL),
    asin: jsCall('Math.asin'),
    acos: jsCall('Math.acos'),
    atan: jsCall('Math.atan'),
    sinh: jsCall('Math.sinh'),
    cosh: jsCall('Math.cosh'),
    asinh: jsCall('Math.asinh'),
    acosh: jsCall('Math.acosh'),
    atanh: jsCall('Math.atanh'),
    trunc: jsCall('Math.trunc'),
    isnan: ([a]) => atom(`Number.isNaN(${a!.text})`, 'bool'),
    isinf: ([a]) => atom(`(Math.abs(${a!.text}) === Infinity)`, 'bool'),
    // JavaScript's % is C's fmod: exact, with the dividend's sign.
    fmod: ([a, b]) => num(`${wrap(a!, MUL)} % ${wrap(b!, MUL + 1)}`, MUL),
    mod: jsHelper('floorMod'),
    bitand: jsHelper('bitAnd'),
    bitor: jsHelper('bitOr'),
    bitxor: jsHelper('bitXor'),
    bitnot: jsHelper('bitNot'),
    shl: jsHelper('shiftLeft'),
    shr: jsHelper('shiftRight'),
  },
};

/** JavaScript for int32 results: a product is exact modulo 2^32 (Math.imul where the float64 product would round). */
const JS_INT32: Dialect = {
  ...JS,
  arithmetic: (op, lhs, rhs, helpers) => {
    if (op !== '*') return null;
    helpers.add('mulInt32');
    return atom(`mulInt32(${lhs.text}, ${rhs.text})`);
  },
};

/** A JavaScript expression computing `expr`; import the names from jsHelpersUsed(expr) from the CPU math module. */
export function renderJs(expr: Expr, names: Readonly<Record<string, string>>, options: RenderOptions = {}): string {
  const dialect = options.int32 ? JS_INT32 : JS;
  return finish(dialect, renderWith(dialect, expr, names, new Set()), options);
}

/** Helper functions (exports of runtime/src/dialects/cpu/math.ts) that renderJs(expr, names, options) calls, sorted. */
export function jsHelpersUsed(expr: Expr, options: RenderOptions = {}): string[] {
  const helpers = new Set<string>();
  renderWith(options.int32 ? JS_INT32 : JS, expr, selfNames(expr), helpers);
  return [...helpers].sort();
}

// ---------------------------------------------------------------- WGSL

export type WgslFloat = 'f32' | 'f16';

const LARGEST_FINITE: Readonly<Record<WgslFloat, number>> = { f32: 3.4028234663852886e38, f16: 65504 };

/**
 * Helper functions, always in f32: f16 kernels widen around the call, which costs little next to erf's loops
 * and keeps one copy of each. A helper's dependencies come before it, so emitting in this order is valid WGSL.
 */
export const WGSL_HELPERS: Readonly<Record<string, string>> = {
  raf_erf: `// erf: positive-term series exp(-x²)·Σ 2ⁿx²ⁿ⁺¹/(2n+1)!! below 2.5, Laplace continued fraction for erfc above.
fn raf_erf(x: f32) -> f32 {
  let a = abs(x);
  if (a < 2.5) {
    let a2 = a * a;
    var term = a;
    var sum = a;
    for (var n = 0; n < 24; n++) {
      term *= 2.0 * a2 / f32(2 * n + 3);
      sum += term;
    }
    return sign(x) * 1.1283791670955126 * exp(-a2) * sum;
  }
  var denominator = a;
  for (var k = 12; k >= 1; k--) {
    denominator = a + 0.5 * f32(k) / denominator;
  }
  return sign(x) * (1.0 - 0.5641895835477563 * exp(-a * a) / denominator);
}`,
  raf_sigmoid: `// sigmoid: exp of a non-positive argument cannot overflow, so both halves of the line stay finite.
fn raf_sigmoid(x: f32) -> f32 {
  let z = exp(-abs(x));
  let r = 1.0 / (1.0 + z);
  return select(z * r, r, x >= 0.0);
}`,
  raf_log1p: `// log1p: near 0, Goldberg's log(u) * x / (u - 1) cancels the rounding made in forming u = 1 + x.
fn raf_log1p(x: f32) -> f32 {
  let u = 1.0 + x;
  if (abs(x) > 0.5) { return log(u); }
  if (u == 1.0) { return x; }
  return log(u) * (x / (u - 1.0));
}`,
  raf_expm1: `// expm1: near 0, Kahan's (u - 1) * x / log(u) repairs the rounding of u = exp(x).
fn raf_expm1(x: f32) -> f32 {
  let u = exp(x);
  if (abs(x) > 0.5) { return u - 1.0; }
  if (u == 1.0) { return x; }
  return (u - 1.0) * (x / log(u));
}`,
  raf_softplus: `// softplus: log(1 + exp(x)) without overflow for large x.
fn raf_softplus(x: f32) -> f32 {
  return max(x, 0.0) + raf_log1p(exp(-abs(x)));
}`,
  raf_is_nan: `// is_nan: by the bits, since WGSL may fold comparisons on the assumption that NaN never occurs.
fn raf_is_nan(v: f32) -> bool {
  return (bitcast<u32>(v) & 0x7fffffffu) > 0x7f800000u;
}`,
  raf_is_inf: `// is_inf: by the bits, for the same reason as raf_is_nan.
fn raf_is_inf(v: f32) -> bool {
  return (bitcast<u32>(v) & 0x7fffffffu) == 0x7f800000u;
}`,
  raf_max: `// max: NaN propagates, as Math.max and the CPU kernels give (WGSL's max may return the other operand).
fn raf_max(a: f32, b: f32) -> f32 {
  if (raf_is_nan(a)) { return a; }
  if (raf_is_nan(b)) { return b; }
  return max(a, b);
}`,
  raf_min: `// min: NaN propagates, as Math.min and the CPU kernels give (WGSL's min may return the other operand).
fn raf_min(a: f32, b: f32) -> f32 {
  if (raf_is_nan(a)) { return a; }
  if (raf_is_nan(b)) { return b; }
  return min(a, b);
}`,
  raf_pow: `// pow: WGSL's pow is exp2(y * log2(x)), undefined for x < 0; integral exponents get the sign JS and C give.
fn raf_pow(x: f32, y: f32) -> f32 {
  if (y == 0.0) { return 1.0; }
  let magnitude = pow(abs(x), y);
  if (x >= 0.0) { return magnitude; }
  if (y != floor(y)) { return pow(x, y); }
  return select(magnitude, -magnitude, fract(y * 0.5) != 0.0);
}`,
};

const WGSL_HELPER_DEPENDENCIES: Readonly<Record<string, readonly string[]>> = {
  raf_softplus: ['raf_log1p'],
  raf_max: ['raf_is_nan'],
  raf_min: ['raf_is_nan'],
};

function wgslDialect(ty: WgslFloat): Dialect {
  const builtin = jsCall;
  const helper =
    (name: string): FnEmitter =>
    (args, _source, helpers) => {
      helpers.add(name);
      if (ty === 'f32') return atom(`${name}(${argList(args)})`);
      return atom(`f16(${name}(${args.map((arg) => `f32(${arg.text})`).join(', ')}))`);
    };
  const isAtomic = (expr: Expr): boolean => expr.kind === 'var' || expr.kind === 'call' || expr.kind === 'const';
  return {
    literal(value) {
      if (!Number.isFinite(value)) throw new Error(`renderWgsl: WGSL has no literal for ${value}`);
      if (Math.abs(value) > LARGEST_FINITE[ty]) throw new Error(`renderWgsl: ${value} overflows ${ty}`);
      const digits = String(Math.abs(value));
      // A bare `3` is an abstract integer, which cannot meet a float in `x * 3`. f16 literals carry the `h` suffix
      // because an untyped literal reaching a runtime builtin, as in select(0.0, 1.0, c), concretizes to f32.
      const literal = (/[.e]/.test(digits) ? digits : `${digits}.0`) + (ty === 'f16' ? 'h' : '');
      return value < 0 || Object.is(value, -0) ? num(`-${literal}`, UNARY) : atom(literal);
    },
    boolToNum: (code) => atom(`${ty}(${code.text})`),
    numToBool: (code) => atom(`(${code.text} != ${ty === 'f16' ? '0.0h' : '0.0'})`, 'bool'),
    // WGSL's select takes the false value first.
    select: (cond, ifTrue, ifFalse) => atom(`select(${ifFalse.text}, ${ifTrue.text}, ${cond.text})`, ifTrue.kind),
    equal: '==',
    notEqual: '!=',
    functions: {
      exp: builtin('exp'),
      log: builtin('log'),
      sqrt: builtin('sqrt'),
      rsqrt: builtin('inverseSqrt'),
      sin: builtin('sin'),
      cos: builtin('cos'),
      tan: builtin('tan'),
      tanh: builtin('tanh'),
      sigmoid: helper('raf_sigmoid'),
      erf: helper('raf_erf'),
      abs: builtin('abs'),
      sign: builtin('sign'),
      floor: builtin('floor'),
      ceil: builtin('ceil'),
      round: builtin('round'),
      // NaN-propagating helpers: the builtins may drop a NaN, where the CPU (Math.min/max) keeps it. clamp is
      // min(max()), the IR's meaning (WGSL's clamp may return the median when lo > hi).
      min: helper('raf_min'),
      max: helper('raf_max'),
      clamp: ([x, lo, hi], _source, helpers) => {
        const inner = helper('raf_max')([x!, lo!], [], helpers);
        return helper('raf_min')([inner, hi!], [], helpers);
      },
      pow: (args, [base, exponent], helpers) => {
        if (exponent!.kind === 'const' && exponent!.value === 2 && isAtomic(base!)) {
          return num(`${args[0]!.text} * ${args[0]!.text}`, MUL);
        }
        // The builtin is fine where the JS result would be NaN for a negative base anyway.
        if (exponent!.kind === 'const' && !Number.isInteger(exponent!.value)) return builtin('pow')(args, [], helpers);
        return helper('raf_pow')(args, [], helpers);
      },
      log1p: helper('raf_log1p'),
      expm1: helper('raf_expm1'),
      softplus: helper('raf_softplus'),
      reciprocal: ([a]) => num(`1.0 / ${wrap(a!, MUL + 1)}`, MUL),
      asin: builtin('asin'),
      acos: builtin('acos'),
      atan: builtin('atan'),
      sinh: builtin('sinh'),
      cosh: builtin('cosh'),
      asinh: builtin('asinh'),
      acosh: builtin('acosh'),
      atanh: builtin('atanh'),
      trunc: builtin('trunc'),
      // Predicates read the f32 bits (an f16 value widens exactly), giving a bool.
      isnan: ([a], _source, helpers) => {
        helpers.add('raf_is_nan');
        return atom(`raf_is_nan(${ty === 'f32' ? a!.text : `f32(${a!.text})`})`, 'bool');
      },
      isinf: ([a], _source, helpers) => {
        helpers.add('raf_is_inf');
        return atom(`raf_is_inf(${ty === 'f32' ? a!.text : `f32(${a!.text})`})`, 'bool');
      },
      // Spelled out: WGSL's float % is x - y * trunc(x / y) too, but an implementation may compute it less exactly.
      fmod: ([a, b]) =>
        num(`${wrap(a!, ADD)} - ${wrap(b!, MUL)} * trunc(${wrap(a!, MUL)} / ${wrap(b!, MUL + 1)})`, ADD),
      mod: ([a, b]) => num(`${wrap(a!, ADD)} - ${wrap(b!, MUL)} * floor(${wrap(a!, MUL)} / ${wrap(b!, MUL + 1)})`, ADD),
      // Integer-only functions: through i32, exact for the integers an f32 holds.
      bitand: ([a, b]) => atom(`${ty}(i32(${a!.text}) & i32(${b!.text}))`),
      bitor: ([a, b]) => atom(`${ty}(i32(${a!.text}) | i32(${b!.text}))`),
      bitxor: ([a, b]) => atom(`${ty}(i32(${a!.text}) ^ i32(${b!.text}))`),
      bitnot: ([a]) => atom(`${ty}(~i32(${a!.text}))`),
      shl: ([a, b]) => atom(`${ty}(i32(${a!.text}) << u32(${b!.text}))`),
      shr: ([a, b]) => atom(`${ty}(i32(${a!.text}) >> u32(${b!.text}))`),
    },
  };
}

/** A WGSL expression of type `ty` (or bool with `as: 'bool'`); prepend the helpers from wgslHelpersUsed(expr). */
export function renderWgsl(
  expr: Expr,
  names: Readonly<Record<string, string>>,
  ty: WgslFloat,
  options: RenderOptions = {},
): string {
  assertConstantsRepresentable(expr, ty);
  const dialect = wgslDialect(ty);
  return finish(dialect, renderWith(dialect, expr, names, new Set()), options);
}

/**
 * WGSL evaluates variable-free subexpressions when the shader is created and rejects the whole module if one is
 * NaN, infinite or out of range (log(0), 1 / 0, 300 * 300 in f16). Catching that here names the culprit.
 */
function assertConstantsRepresentable(expr: Expr, ty: WgslFloat): void {
  const visit = (node: Expr): boolean => {
    const closed = children(node).map(visit).every(Boolean) && node.kind !== 'var';
    if (closed && node.kind !== 'const') {
      const value = evalExpr(node, {});
      if (!(Math.abs(value) <= LARGEST_FINITE[ty])) {
        throw new Error(`renderWgsl: constant subexpression ${printExpr(node)} is ${value}, which ${ty} cannot hold`);
      }
    }
    return closed;
  };
  visit(expr);
}

/** Names of WGSL_HELPERS entries that renderWgsl(expr) calls, dependencies included, in declaration order. */
export function wgslHelpersUsed(expr: Expr, ty: WgslFloat = 'f32'): string[] {
  const helpers = new Set<string>();
  renderWith(wgslDialect(ty), expr, selfNames(expr), helpers);
  for (const name of [...helpers]) WGSL_HELPER_DEPENDENCIES[name]?.forEach((dep) => helpers.add(dep));
  return Object.keys(WGSL_HELPERS).filter((name) => helpers.has(name));
}

/** The WGSL source of every helper renderWgsl(expr) needs, ready to paste above the kernel. */
export function wgslHelperSource(expr: Expr, ty: WgslFloat = 'f32'): string {
  return wgslHelpersUsed(expr, ty)
    .map((name) => WGSL_HELPERS[name])
    .join('\n\n');
}
