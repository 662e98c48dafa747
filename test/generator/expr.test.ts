// Tests for the `compute:` expression toolkit: parse/print, errors, simplification, derivatives, evaluator and renderers.
import { describe, expect, it } from 'vitest';
import {
  ExprError,
  FUNCTIONS,
  FUNCTION_NAMES,
  WGSL_HELPERS,
  binary,
  call,
  children,
  constant,
  diff,
  evalExpr,
  freeVars,
  jsHelpersUsed,
  parseExpr,
  printExpr,
  renderJs,
  renderWgsl,
  resultKind,
  select,
  simplify,
  unary,
  variable,
  wgslHelperSource,
  wgslHelpersUsed,
  type BinaryOp,
  type CallFn,
  type Expr,
} from '../../generators/src/expr/index.ts';
import * as cpuMath from '../../runtime/src/dialects/cpu/math.ts';
import { renderAs } from '../../generators/src/emit/dialect-wasm.ts';

/** Deterministic PRNG (mulberry32) so a failing random case reproduces. */
function rng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const VARS = ['x', 'y', 'z'];
const LEAF_CONSTANTS = [0, 1, 2, 0.5, -3, 1e-3, 2.5e10, Math.PI, -0, Infinity];
const BINARY_OPS: BinaryOp[] = ['+', '-', '*', '/', '**', '<', '<=', '>', '>=', '==', '!=', '&&', '||'];
const CALL_FNS = FUNCTION_NAMES.filter((fn): fn is CallFn => fn !== 'where');

/** Random trees over the whole vocabulary, including awkward constants and booleans in numeric positions. */
function randomExpr(random: () => number, depth: number): Expr {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  if (depth === 0 || random() < 0.2) {
    return random() < 0.6 ? variable(pick(VARS)) : constant(pick(LEAF_CONSTANTS));
  }
  const sub = () => randomExpr(random, depth - 1);
  const roll = random();
  if (roll < 0.15) return unary(random() < 0.7 ? 'neg' : 'not', sub());
  if (roll < 0.6) return binary(pick(BINARY_OPS), sub(), sub());
  if (roll < 0.9) {
    const fn = pick(CALL_FNS);
    return call(fn, Array.from({ length: FUNCTIONS[fn].arity }, sub));
  }
  return select(sub(), sub(), sub());
}

const randomEnv = (random: () => number): Record<string, number> =>
  Object.fromEntries(VARS.map((name) => [name, (random() - 0.5) * 8]));

describe('parseExpr / printExpr', () => {
  it.each([
    ['x*clamp(x+3,0,6)/6', 'x * clamp(x + 3, 0, 6) / 6'],
    ['1/(1+exp(-x))', '1 / (1 + exp(-x))'],
    ['(a+b)*c', '(a + b) * c'],
    ['a-(b-c)', 'a - (b - c)'],
    ['(a-b)-c', 'a - b - c'],
    ['-x**2', '-x ** 2'],
    ['(-x)**2', '(-x) ** 2'],
    ['a**b**c', 'a ** b ** c'],
    ['(a**b)**c', '(a ** b) ** c'],
    ['2**-x', '2 ** -x'],
    ['--x', '-(-x)'],
    ['!(a<b)', '!(a < b)'],
    ['a||b&&c', 'a || b && c'],
    ['(a||b)&&c', '(a || b) && c'],
    ['(a<b)==(c<d)', '(a < b) == (c < d)'],
    ['where(x>0,x,0)', 'where(x > 0, x, 0)'],
    ['1e-3*x + 2.5E3 + .5', '0.001 * x + 2500 + 0.5'],
    ['pi * x', 'pi * x'],
    ['+x', 'x'],
  ])('%s prints as %s', (src, canonical) => {
    expect(printExpr(parseExpr(src))).toBe(canonical);
  });

  it('follows the documented precedence ladder', () => {
    expect(parseExpr('a + b * c')).toEqual(binary('+', variable('a'), binary('*', variable('b'), variable('c'))));
    expect(parseExpr('-x ** 2')).toEqual(unary('neg', binary('**', variable('x'), constant(2))));
    expect(parseExpr('a ** b ** c')).toEqual(binary('**', variable('a'), binary('**', variable('b'), variable('c'))));
    expect(parseExpr('a < b + 1 && !c || d')).toEqual(
      binary(
        '||',
        binary('&&', binary('<', variable('a'), binary('+', variable('b'), constant(1))), unary('not', variable('c'))),
        variable('d'),
      ),
    );
    expect(parseExpr('where(c, a, b)')).toEqual(select(variable('c'), variable('a'), variable('b')));
  });

  it('round-trips random trees, preserving both text and value', () => {
    const random = rng(1);
    for (let n = 0; n < 400; n++) {
      const expr = randomExpr(random, 4);
      const printed = printExpr(expr);
      const reparsed = parseExpr(printed);
      expect(printExpr(reparsed)).toBe(printed);
      const env = randomEnv(random);
      expect(Object.is(evalExpr(reparsed, env), evalExpr(expr, env)), printed).toBe(true);
    }
  });

  it('lists free variables in order of first appearance', () => {
    expect(freeVars(parseExpr('b * a + exp(b) + where(c > a, d, 1)'))).toEqual(['b', 'a', 'c', 'd']);
    expect(freeVars(parseExpr('2 * pi'))).toEqual([]);
  });

  it('types comparisons and logic as bool, everything else as num', () => {
    expect(resultKind(parseExpr('x > 0'))).toBe('bool');
    expect(resultKind(parseExpr('!x'))).toBe('bool');
    expect(resultKind(parseExpr('a > 0 || b'))).toBe('bool');
    expect(resultKind(parseExpr('where(c, a > 0, b > 0)'))).toBe('bool');
    expect(resultKind(parseExpr('where(c, a > 0, b)'))).toBe('num');
    expect(resultKind(parseExpr('(x > 0) * x'))).toBe('num');
  });
});

describe('ExprError', () => {
  const failure = (src: string): ExprError => {
    try {
      parseExpr(src);
    } catch (error) {
      expect(error).toBeInstanceOf(ExprError);
      return error as ExprError;
    }
    throw new Error(`'${src}' parsed without error`);
  };

  it.each([
    ['expp(x)', /^unknown function 'expp'; known: exp, log, sqrt, rsqrt, sin, /, 0, 4],
    ['1 + clamp(x, 0)', 'clamp takes 3 arguments, got 2', 4, 11],
    ['exp(x, y)', 'exp takes 1 argument, got 2', 0, 9],
    ['x + )', "unexpected ')'", 4, 1],
    ['exp(x))', "unexpected ')'", 6, 1],
    ['x y', "unexpected 'y'", 2, 1],
    ['', 'unexpected end of expression', 0, 0],
    ['x *', 'unexpected end of expression', 3, 0],
    ['2 * (x + 1', /^unclosed '\('/, 4, 1],
    ['max(x, 1', /^unclosed '\('/, 3, 1],
    ['x = 1', "unexpected character '=' (did you mean '=='?)", 2, 1],
    ['x @ 1', "unexpected character '@'", 2, 1],
    ['a < b < c', /^comparisons cannot be chained/, 6, 1],
    ['exp + 1', "'exp' is a function; call it as exp(...)", 0, 3],
    ['3 + 2x', "malformed number '2x'", 4, 2],
    ['1.2.3', "malformed number '1.2.3'", 0, 5],
    ['1e+', "malformed number '1e'", 0, 2],
  ] as const)('%s -> %s at %i', (src, message, offset, length) => {
    const error = failure(src);
    if (typeof message === 'string') expect(error.message).toBe(message);
    else expect(error.message).toMatch(message);
    expect({ offset: error.offset, length: error.length }).toEqual({ offset, length });
  });

  it('points at the culprit in an excerpt', () => {
    expect(failure('1 + clamp(x, 0)').excerpt()).toBe(
      'clamp takes 3 arguments, got 2\n  1 + clamp(x, 0)\n      ^^^^^^^^^^^',
    );
  });
});

describe('simplify', () => {
  it.each([
    ['x * 1', 'x'],
    ['1 * x', 'x'],
    ['x * 0', '0'],
    ['0 * x', '0'],
    ['x + 0', 'x'],
    ['0 + x', 'x'],
    ['x - 0', 'x'],
    ['0 - x', '-x'],
    ['--x', 'x'],
    ['x / 1', 'x'],
    ['0 / x', '0'],
    ['x ** 1', 'x'],
    ['x ** 0', '1'],
    ['pow(x, 1)', 'x'],
    ['2 * 3 + x', '6 + x'],
    ['exp(0) + sqrt(4)', '3'],
    ['x * 2', '2 * x'],
    ['2 * (3 * x)', '6 * x'],
    ['-(2 * x)', '-2 * x'],
    ['x - -y', 'x + y'],
    ['x + -y', 'x - y'],
    ['-x * -y', 'x * y'],
    ['-(-a / b)', 'a / b'],
    ['where(2 > 1, a, b)', 'a'],
    ['where(c, a, a)', 'a'],
    ['where(!c, a, b)', 'where(c, b, a)'],
    ['x * where(c, 1, 0)', 'where(c, x, 0)'],
    ['1 > 0 || x > 0', '1'],
    ['1 && x > 0', 'x > 0'],
    ['1 / 0', '1 / 0'],
  ])('%s -> %s', (src, expected) => {
    expect(printExpr(simplify(parseExpr(src)))).toBe(expected);
  });

  // x * 0 -> 0 and friends are deliberately unsound for NaN and ±Infinity, so only all-finite evaluations count.
  const finiteThroughout = (expr: Expr, env: Record<string, number>): boolean =>
    Number.isFinite(evalExpr(expr, env)) && children(expr).every((kid) => finiteThroughout(kid, env));

  it('preserves values of random trees wherever they are finite', () => {
    const random = rng(2);
    for (let n = 0; n < 400; n++) {
      const expr = randomExpr(random, 4);
      const simplified = simplify(expr);
      const env = randomEnv(random);
      const before = evalExpr(expr, env);
      if (!finiteThroughout(expr, env)) continue;
      expect(evalExpr(simplified, env), printExpr(expr)).toBeCloseTo(before, 9);
    }
  });
});

describe('diff', () => {
  // [expression, sampling range per variable]; ranges keep log/sqrt/pow inside their domains.
  const cases: [string, Record<string, [number, number]>][] = [
    ['exp(x)', { x: [-3, 3] }],
    ['log(x)', { x: [0.1, 5] }],
    ['sqrt(x)', { x: [0.1, 5] }],
    ['rsqrt(x)', { x: [0.1, 5] }],
    ['sin(x)', { x: [-4, 4] }],
    ['cos(x)', { x: [-4, 4] }],
    ['tan(x)', { x: [-1.2, 1.2] }],
    ['tanh(x)', { x: [-4, 4] }],
    ['sigmoid(x)', { x: [-6, 6] }],
    ['erf(x)', { x: [-3, 3] }],
    ['abs(x)', { x: [-3, 3] }],
    ['log1p(x)', { x: [-0.9, 4] }],
    ['expm1(x)', { x: [-3, 3] }],
    ['softplus(x)', { x: [-6, 6] }],
    ['reciprocal(x)', { x: [0.2, 4] }],
    ['asin(x)', { x: [-0.9, 0.9] }],
    ['acos(x)', { x: [-0.9, 0.9] }],
    ['atan(x)', { x: [-3, 3] }],
    ['sinh(x)', { x: [-3, 3] }],
    ['cosh(x)', { x: [-3, 3] }],
    ['asinh(x)', { x: [-3, 3] }],
    ['acosh(x)', { x: [1.2, 4] }],
    ['atanh(x)', { x: [-0.9, 0.9] }],
    ['fmod(x, y)', { x: [-5, 5], y: [0.7, 2.3] }],
    ['mod(x, y)', { x: [-5, 5], y: [-2.3, -0.7] }],
    ['-x / (1 + x * x)', { x: [-3, 3] }],
    ['x ** 3', { x: [-2, 2] }],
    ['x ** y', { x: [0.2, 3], y: [-2, 2] }],
    ['pow(2, x)', { x: [-2, 2] }],
    ['x ** -1.5', { x: [0.2, 3] }],
    ['x * clamp(x + 3, 0, 6) / 6', { x: [-5, 5] }],
    ['max(x, 0)', { x: [-3, 3] }],
    ['min(x, y)', { x: [-3, 3], y: [-3, 3] }],
    ['1 / (1 + exp(-x))', { x: [-5, 5] }],
    ['where(x > y, x * y, x - y)', { x: [-3, 3], y: [-3, 3] }],
    ['clamp(x, y, y + 1)', { x: [-3, 3], y: [-3, 3] }],
    ['clamp(y, x, 2 * x)', { x: [0.5, 2], y: [-1, 5] }],
    ['0.5 * x * (1 + erf(x / sqrt(2)))', { x: [-4, 4] }],
    ['0.5 * x * (1 + tanh(0.7978845608 * (x + 0.044715 * x ** 3)))', { x: [-4, 4] }],
    ['x * sigmoid(x)', { x: [-5, 5] }],
    ['x * tanh(softplus(x))', { x: [-5, 5] }],
    ['x / y', { x: [-3, 3], y: [0.5, 3] }],
    ['floor(x) * x + round(x) + ceil(x) * sign(x)', { x: [-3, 3] }],
    ['x * (x > 0) + (x < y)', { x: [-3, 3], y: [-3, 3] }],
    ['where(x > 0 && y > 0, exp(x * y), log1p(y * y))', { x: [-2, 2], y: [-2, 2] }],
  ];

  it.each(cases)('d(%s) matches central differences', (src, ranges) => {
    const expr = parseExpr(src);
    const random = rng(src.length);
    for (const wrt of Object.keys(ranges)) {
      const derivative = diff(expr, wrt);
      for (let n = 0; n < 25; n++) {
        const env = Object.fromEntries(
          Object.entries(ranges).map(([name, [lo, hi]]) => [name, lo + (hi - lo) * random()]),
        );
        const step = 1e-6 * Math.max(1, Math.abs(env[wrt]!));
        const at = (offset: number) => evalExpr(expr, { ...env, [wrt]: env[wrt]! + offset });
        const numeric = (at(step) - at(-step)) / (2 * step);
        const symbolic = evalExpr(derivative, env);
        expect(
          Math.abs(symbolic - numeric),
          `d/d${wrt} at ${JSON.stringify(env)}: ${printExpr(derivative)}`,
        ).toBeLessThan(1e-5 * Math.max(1, Math.abs(numeric)));
      }
    }
  });

  it.each([
    ['max(x, 0)', 'where(x > 0, 1, 0)'],
    ['x * clamp(x + 3, 0, 6) / 6', '(clamp(x + 3, 0, 6) + where(x + 3 > 0 && x + 3 < 6, x, 0)) / 6'],
    ['1 / (1 + exp(-x))', 'exp(-x) / ((1 + exp(-x)) * (1 + exp(-x)))'],
    ['x ** 3', '3 * x ** 2'],
    ['sigmoid(x)', 'sigmoid(x) * (1 - sigmoid(x))'],
    ['tanh(x)', '1 - tanh(x) * tanh(x)'],
    ['softplus(x)', 'sigmoid(x)'],
    ['erf(x)', '1.1283791670955126 * exp(-(x * x))'],
    ['abs(x)', 'sign(x)'],
    ['sin(2 * x)', '2 * cos(2 * x)'],
    ['exp(y)', '0'],
  ])('d(%s)/dx reads %s', (src, expected) => {
    expect(printExpr(diff(parseExpr(src), 'x'))).toBe(expected);
  });

  it('applies the subgradient conventions at kinks', () => {
    const slope = (src: string, x: number) => evalExpr(diff(parseExpr(src), 'x'), { x });
    expect(slope('max(x, 0)', 0)).toBe(0);
    expect(slope('min(x, 0)', 0)).toBe(0);
    expect(slope('clamp(x, 0, 6)', 0)).toBe(0);
    expect(slope('clamp(x, 0, 6)', 6)).toBe(0);
    expect(slope('clamp(x, 0, 6)', 3)).toBe(1);
    expect(slope('abs(x)', 0)).toBe(0);
    expect(slope('x * clamp(x + 3, 0, 6) / 6', -3)).toBe(0);
  });
});

describe('cpu math helpers', () => {
  it('erf matches the reference values', () => {
    // From the brief; the brief's erf(-0.3) is off by 1.6e-14, so these get a 1e-13 tolerance.
    expect(cpuMath.erf(0.5)).toBeCloseTo(0.5204998778130465, 13);
    expect(cpuMath.erf(1)).toBeCloseTo(0.8427007929497149, 13);
    expect(cpuMath.erf(2)).toBeCloseTo(0.9953222650189527, 13);
    expect(cpuMath.erf(-0.3)).toBeCloseTo(-0.3286267594591112, 13);
  });

  it.each([
    // 40-digit mpmath values, spanning both branches and the switch-over at 2.5.
    [-0.3, -0.3286267594591274],
    [1e-8, 1.1283791670955126e-8],
    [0.1, 0.1124629160182849],
    [2.4, 0.999311486103355],
    [2.6, 0.9997639655834707],
    [3.5, 0.9999992569016276],
    [-4, -0.9999999845827421],
    [6, 1],
    [0, 0],
  ])('erf(%f) is accurate to a few float64 ulps', (x, expected) => {
    expect(Math.abs(cpuMath.erf(x) - expected)).toBeLessThanOrEqual(1e-15 * Math.abs(expected));
  });

  it('erfc keeps relative accuracy in the tail', () => {
    for (const [x, expected] of [
      [3, 2.209049699858544e-5],
      [5, 1.537459794428035e-12],
      [10, 2.088487583762545e-45],
      [-3, 1.9999779095030015],
    ] as const) {
      expect(Math.abs(cpuMath.erfc(x) - expected) / expected).toBeLessThan(1e-14);
    }
    expect(cpuMath.erf(Infinity)).toBe(1);
    expect(cpuMath.erf(-Infinity)).toBe(-1);
    expect(cpuMath.erf(NaN)).toBeNaN();
  });

  it('sigmoid, softplus and roundHalfEven behave at the extremes', () => {
    expect(cpuMath.sigmoid(-800)).toBe(0);
    expect(cpuMath.sigmoid(800)).toBe(1);
    expect(cpuMath.sigmoid(-40)).toBeCloseTo(Math.exp(-40), 30);
    expect(cpuMath.softplus(1000)).toBe(1000);
    expect(cpuMath.softplus(-50)).toBeCloseTo(Math.exp(-50), 35);
    expect(cpuMath.softplus(0)).toBeCloseTo(Math.LN2, 15);
    expect([0.5, 1.5, 2.5, -2.5, -0.5, 2.4, -2.6].map(cpuMath.roundHalfEven)).toEqual([0, 2, 2, -2, -0, 2, -3]);
  });
});

describe('renderJs', () => {
  const HELPER_NAMES = [
    'erf',
    'roundHalfEven',
    'sigmoid',
    'softplus',
    'floorMod',
    'bitAnd',
    'bitOr',
    'bitXor',
    'bitNot',
    'shiftLeft',
    'shiftRight',
    'mulInt32',
  ] as const;
  const compile = (expr: Expr): ((env: Record<string, number>) => number) => {
    const vars = freeVars(expr);
    const body = `return ${renderJs(expr, Object.fromEntries(vars.map((name) => [name, `v_${name}`])))};`;
    const fn = new Function(...HELPER_NAMES, ...vars.map((name) => `v_${name}`), body);
    const helpers = HELPER_NAMES.map((name) => cpuMath[name]);
    return (env) => fn(...helpers, ...vars.map((name) => env[name]));
  };

  it('agrees bit for bit with evalExpr on random trees and their derivatives', () => {
    const random = rng(3);
    for (let n = 0; n < 300; n++) {
      const expr = randomExpr(random, 4);
      for (const candidate of [expr, diff(expr, 'x')]) {
        const run = compile(candidate);
        const env = randomEnv(random);
        expect(Object.is(run(env), evalExpr(candidate, env)), printExpr(candidate)).toBe(true);
      }
    }
  });

  it('substitutes names and converts booleans explicitly', () => {
    expect(renderJs(parseExpr('x + y'), { x: 'x[i]', y: 'yv' })).toBe('x[i] + yv');
    expect(renderJs(parseExpr('x > 0'), { x: 'x[i]' })).toBe('(x[i] > 0 ? 1 : 0)');
    expect(renderJs(parseExpr('x > 0'), { x: 'x[i]' }, { as: 'bool' })).toBe('x[i] > 0');
    expect(renderJs(parseExpr('where(x, 1, 2) + (x == y)'), { x: 'a', y: 'b' })).toBe(
      '((a !== 0) ? 1 : 2) + (a === b ? 1 : 0)',
    );
    expect(renderJs(parseExpr('-x ** 2 - -y'), { x: 'a', y: 'b' })).toBe('-Math.pow(a, 2) - -b');
    expect(() => renderJs(parseExpr('x + y'), { x: 'a' })).toThrow(/no name given for variable 'y'/);
  });

  it('names the helpers a kernel must import', () => {
    expect(jsHelpersUsed(parseExpr('erf(x) + sigmoid(x) * round(x) + exp(x)'))).toEqual([
      'erf',
      'roundHalfEven',
      'sigmoid',
    ]);
    expect(jsHelpersUsed(parseExpr('exp(x)'))).toEqual([]);
    expect(jsHelpersUsed(parseExpr('mod(x, y) + bitand(x, y) * 2'), { int32: true })).toEqual([
      'bitAnd',
      'floorMod',
      'mulInt32',
    ]);
  });

  it('renders int32 products through mulInt32, which wraps them exactly', () => {
    expect(renderJs(parseExpr('a * b + c'), { a: 'a', b: 'b', c: 'c' }, { int32: true })).toBe('mulInt32(a, b) + c');
    expect(renderJs(parseExpr('a * b'), { a: 'a', b: 'b' })).toBe('a * b');
    const big = [2 ** 31 - 1, -(2 ** 31), 123456789, -987654321];
    for (const a of big)
      for (const b of big) expect(cpuMath.mulInt32(a, b) | 0).toBe(Number(BigInt.asIntN(32, BigInt(a) * BigInt(b))));
  });

  it('renders remainders, predicates and bitwise functions with their integer meanings', () => {
    const run = (src: string, env: Record<string, number>) => compile(parseExpr(src))(env);
    expect([-7, 7].map((x) => run('fmod(x, y)', { x, y: 3 }))).toEqual([-1, 1]);
    expect([-7, 7].map((x) => run('mod(x, y)', { x, y: -3 }))).toEqual([-1, -2]);
    expect(run('where(isnan(x), 1, 2) + where(isinf(y), 10, 20)', { x: NaN, y: -Infinity })).toBe(11);
    expect(run('bitxor(x, y)', { x: 2 ** 40 + 5, y: -1 })).toBe(-(2 ** 40) - 6);
    expect(run('shr(x, y)', { x: -9, y: 1 })).toBe(-5);
  });
});

describe('renderWgsl', () => {
  const hardSwish = parseExpr('x * clamp(x + 3, 0, 6) / 6');
  const names = { x: 'x[i]' };

  it('renders hard-swish and its derivative (clamp through the NaN-propagating min/max helpers)', () => {
    expect(renderWgsl(hardSwish, names, 'f32')).toBe('x[i] * raf_min(raf_max(x[i] + 3.0, 0.0), 6.0) / 6.0');
    expect(renderWgsl(diff(hardSwish, 'x'), names, 'f32')).toBe(
      '(raf_min(raf_max(x[i] + 3.0, 0.0), 6.0) + select(0.0, x[i], x[i] + 3.0 > 0.0 && x[i] + 3.0 < 6.0)) / 6.0',
    );
  });

  it('converts between bool and float and keeps select argument order', () => {
    expect(renderWgsl(parseExpr('x > 0'), names, 'f16')).toBe('f16(x[i] > 0.0h)');
    // Unsuffixed literals would make this select f32 and the sum an f32 + f16 type error.
    expect(renderWgsl(parseExpr('x + where(x > 0, 1, 0)'), names, 'f16')).toBe(
      'x[i] + select(0.0h, 1.0h, x[i] > 0.0h)',
    );
    expect(renderWgsl(parseExpr('!x'), names, 'f16', { as: 'bool' })).toBe('!(x[i] != 0.0h)');
    expect(renderWgsl(parseExpr('where(x, 1, 2)'), names, 'f32')).toBe('select(2.0, 1.0, (x[i] != 0.0))');
    expect(
      renderWgsl(parseExpr('(a < b) == (c < d) || a > 0 && b > 0'), { a: 'a', b: 'b', c: 'c', d: 'd' }, 'f32', {
        as: 'bool',
      }),
    ).toBe('(a < b) == (c < d) || (a > 0.0 && b > 0.0)');
    expect(() => renderWgsl(constant(Infinity), {}, 'f32')).toThrow(/no literal/);
    expect(() => renderWgsl(constant(1e5), {}, 'f16')).toThrow(/overflows f16/);
    // Tint would reject these at shader creation; the renderer names the subexpression instead.
    expect(() => renderWgsl(parseExpr('x + log(0)'), names, 'f32')).toThrow(/log\(0\) is -Infinity/);
    expect(() => renderWgsl(parseExpr('x * (300 * 300)'), names, 'f16')).toThrow(/300 \* 300 is 90000, which f16/);
  });

  it('uses helpers for functions WGSL lacks and for pow with a possibly negative base', () => {
    const gelu = parseExpr('0.5 * x * (1 + erf(x / sqrt(2)))');
    expect(renderWgsl(gelu, names, 'f32')).toBe('0.5 * x[i] * (1.0 + raf_erf(x[i] / sqrt(2.0)))');
    expect(renderWgsl(gelu, names, 'f16')).toBe('0.5h * x[i] * (1.0h + f16(raf_erf(f32(x[i] / sqrt(2.0h)))))');
    expect(renderWgsl(parseExpr('x ** 2 + x ** 3 + x ** 0.5'), names, 'f32')).toBe(
      'x[i] * x[i] + raf_pow(x[i], 3.0) + pow(x[i], 0.5)',
    );
    expect(wgslHelpersUsed(parseExpr('softplus(x) + erf(x) ** y'))).toEqual([
      'raf_erf',
      'raf_log1p',
      'raf_softplus',
      'raf_pow',
    ]);
    expect(wgslHelperSource(parseExpr('softplus(x)'))).toBe(
      `${WGSL_HELPERS.raf_log1p}\n\n${WGSL_HELPERS.raf_softplus}`,
    );
  });
});

describe('renderAs: hoisted helper constants', () => {
  const names = { x: 'xv', dy: 'dyv' };
  it('a single sigmoid call takes its 13 constants as arguments (loaded before the loop); f64 keeps the plain form', () => {
    const used = new Set<string>();
    const text = renderAs(parseExpr('sigmoid(x) * x'), names, 'f32', used);
    expect(text).toContain('vsigmoidWith_f32(xv, vsigmoidK0,');
    expect(text).toContain('vsigmoidK12)');
    expect([...used].sort()).toEqual(['vsigmoidK_f32', 'vsigmoidWith_f32']);
    const f64 = new Set<string>();
    expect(renderAs(parseExpr('sigmoid(x) * x'), names, 'f64', f64)).toContain('vsigmoid_f64(xv)');
    expect([...f64]).toEqual(['vsigmoid_f64']);
  });
  it('two sigmoid calls keep the table form (two live sets of constants would spill)', () => {
    const used = new Set<string>();
    const text = renderAs(parseExpr('dy * sigmoid(x) * (1 - sigmoid(x))'), names, 'f32', used);
    expect(text.split('vsigmoid_f32(xv)').length).toBe(3);
    expect(text).not.toContain('With_');
    expect([...used]).toEqual(['vsigmoid_f32']);
  });
});
