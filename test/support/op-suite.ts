// The harness behind every generated per-op test: forward vs an oracle, gradcheck, errors, FromRelay.

import { describe, expect, it } from 'vitest';
import {
  allDialectOps,
  call,
  fromRelayCall,
  gradcheck,
  randomUniform,
  rng,
  Tensor,
  tensor,
  withDialect,
  type DType,
} from '../../runtime/src/index.ts';
import { assertAllClose, tolerance } from './assert.ts';
import { execute, trace } from '../../runtime/src/graph/index.ts';
import { webgpuCases } from './webgpu-cases.ts';
import { hasOrtOp, ortCases } from './ort-cases.ts';
import { flatTensors } from './tensor-args.ts';
import { nonFiniteCases, type NonFiniteCases } from './non-finite.ts';
import {
  runOnnxOp as runOracleOp,
  toFloat64,
  type OracleAttr,
  type OracleSpec,
  type OracleTensor,
} from './onnx-oracle.ts';
import { evalExpr } from '../../generators/src/expr/eval.ts';
import { parseExpr } from '../../generators/src/expr/parse.ts';
import { broadcastShapes, broadcastStrides, sizeOf } from '../../runtime/src/shape.ts';
import { isDType, isFloat as isFloatDType } from '../../runtime/src/dtype.ts';
import { evaluateFormula, parseFormula } from '../../generators/src/spec/formula.ts';
import { ONNX_CONVERSION_RULES } from '../../runtime/src/graph/onnx/convert.ts';
import { RELAY_IDENTITY_ATTRS } from '../../runtime/src/relay.ts';
import type { OnnxConversion } from '../../runtime/src/vocab.ts';

/** A shape per tensor arg; a `Tensor[]` arg has one per element. */
type ArgShape = readonly number[] | readonly (readonly number[])[];
type Shapes = Readonly<Record<string, ArgShape>>;
const isShapeList = (s: ArgShape): s is readonly (readonly number[])[] => Array.isArray(s[0]);
type Args = Readonly<Record<string, unknown>>;

export interface OpCase {
  readonly shapes: Shapes;
  /** What the test passes (defaults may be omitted). */
  readonly args: Args;
  /** Every non-tensor arg, defaults filled in: what the oracle is told. */
  readonly full: Args;
}

export type Oracle =
  | {
      readonly kind: 'onnx';
      readonly op: string;
      readonly opset: number;
      readonly inputs: readonly string[];
      readonly attrs: Readonly<Record<string, string>>;
      /** ONNX attributes with a fixed value (Gemm's transB). */
      readonly consts?: Readonly<Record<string, number>>;
      /** An axis arg whose null means "flattened": ONNX then sees x flattened, with axis 0. */
      readonly flatten?: string;
      /** Args ONNX spells differently, with the conversion (runtime/src/graph/onnx/convert.ts). */
      readonly convert?: Readonly<Record<string, OnnxConversion>>;
      /** Args the mapping does not carry, with the default a case must keep for ONNX to express it. */
      readonly fixed?: Args;
      /** How many cases the generator found the mapping cannot express (checked against this suite's own count). */
      readonly inexpressible?: number;
      /** How many outputs the node has (TopK's values and indices); one when absent. */
      readonly outputs?: number;
      /**
       * ONNX attributes whose ONNX default differs from our arg's (the spec's `onnx.defaults`): passed even where the
       * case leaves the arg at its default. Every other attribute of an arg the case omits is left out of the node, so
       * ONNX's own default applies and a changed default of ours fails the op's suite.
       */
      readonly differs?: readonly string[];
    }
  /**
   * A formula over other ops (each checked against its own oracle) that must give the same values; a tuple op
   * with named outputs has one formula per output.
   */
  | { readonly kind: 'identity'; readonly formula: string | readonly string[] }
  /** A backward op checked as the vector-Jacobian product of its forward op, by central differences. */
  | {
      readonly kind: 'vjp';
      readonly forward: string;
      readonly wrt: string;
      readonly forwardTensors: readonly string[];
      /** Backward arg → where its value comes from: a forward tensor, a forward attr, `y` or `dy`. */
      readonly mapping: Readonly<Record<string, string>>;
    }
  /**
   * Elementwise ops without an ONNX counterpart: the spec's compute expression, interpreted in
   * float64 by the expression IR's reference evaluator (independent of the kernel renderers).
   */
  | { readonly kind: 'compute'; readonly source: string }
  /** A float64 reference written by hand (`tests.reference`), in `file`; the function is opSuite's second argument. */
  | { readonly kind: 'reference'; readonly file: string }
  | { readonly kind: 'none'; readonly reason: string };

/** A hand-written reference: the expected elements of one case from its tensor inputs and every other arg. */
export type Reference = (
  inputs: Readonly<Record<string, Tensor | null>>,
  args: Readonly<Record<string, unknown>>,
) => number[];

export interface OpSuite {
  readonly op: string;
  readonly spec: string;
  readonly dialects: readonly string[];
  readonly dtypes: readonly DType[];
  readonly tensors: readonly string[];
  /** Tensor args whose values decide the output type (`check: values`): constants in graph mode. */
  readonly values?: readonly string[];
  readonly domain: readonly [number, number];
  /** Tensor args with a fixed dtype (indices, conditions) or their own domain. */
  readonly inputs?: InputSpecs;
  /** Non-tensor args typed float: ONNX gets them as FLOAT attrs even when a value is whole (clip's -1). */
  readonly floats?: readonly string[];
  readonly cases: readonly OpCase[];
  readonly oracle: Oracle;
  /** A tuple op's output names, when the spec fixes them (`out.outputs`). */
  readonly outputs?: readonly string[];
  /** The spec says NaN or infinities are expected results (`tests.non_finite`). */
  readonly nonFinite?: boolean;
  /** The generated NaN/±inf case of a reduction, selection or scan op (test/support/non-finite.ts). */
  readonly nonFiniteCases?: NonFiniteCases;
  /** Tensor args that get a gradient; empty when the op is not differentiable. */
  readonly grad: readonly string[];
  readonly errors: readonly {
    readonly title: string;
    readonly shapes: Shapes;
    readonly args: Args;
    readonly message: string;
  }[];
  readonly relay: {
    readonly op: string;
    readonly args: readonly string[];
    readonly attrs: Readonly<Record<string, string>>;
    /** Args the mapping does not carry, with the default a case must keep for Relay to express it. */
    readonly fixed?: Args;
    /** How many cases the generator found the mapping cannot express (checked against this suite's own count). */
    readonly inexpressible?: number;
  } | null;
}

/**
 * Why a mapping cannot express a case (null: it can): a tensor given that the mapping does not pass, or an arg it
 * does not carry set off its default. Such cases are counted and named in a test title, never run or dropped silently.
 */
function inexpressible(passes: readonly string[], fixed: Args | undefined, c: OpCase): string | null {
  const tensor = Object.keys(c.shapes).find((t) => !passes.includes(t));
  if (tensor !== undefined) return `${tensor} given`;
  const off = Object.entries(fixed ?? {}).find(
    ([k, v]) => k in c.full && JSON.stringify(c.full[k]) !== JSON.stringify(v),
  );
  return off ? `${off[0]} = ${JSON.stringify(c.full[off[0]])}` : null;
}

/** The cases a mapping expresses, and a test that reports (and counts) the ones it does not. */
function expressed(
  what: string,
  s: OpSuite,
  passes: readonly string[],
  mapping: { readonly fixed?: Args; readonly inexpressible?: number },
): (readonly [string, OpCase, number])[] {
  const all = s.cases.map((c, i) => [title(c), c, i] as const);
  const out = all.filter(([, c]) => inexpressible(passes, mapping.fixed, c) === null);
  const left = all.flatMap(([, c]) => inexpressible(passes, mapping.fixed, c) ?? []);
  if (left.length || mapping.inexpressible)
    it(`${what} expresses ${out.length} of ${all.length} cases; ${left.length} not expressible (${[...new Set(left)].join('; ')})`, () => {
      expect(left.length).toBe(mapping.inexpressible ?? 0);
    });
  return out;
}

const title = (c: OpCase) =>
  `${Object.entries(c.shapes)
    .map(([k, s]) => (isShapeList(s) ? `${k}(${s.map((e) => `[${e.join(',')}]`).join(' ')})` : `${k}[${s.join(',')}]`))
    .join(' ')} ${JSON.stringify(c.args)}`;

type InputSpecs = Readonly<Record<string, { readonly dtype?: DType; readonly domain?: readonly [number, number] }>>;

/**
 * Inputs drawn from the spec's domain, seeded per case so failures reproduce. Integers are uniform
 * over [lo, hi) (truncating a uniform float would make lo rare); bools are fair coin flips.
 */
export function makeInputs(
  s: Shapes,
  dtype: DType,
  domain: readonly [number, number],
  seed: number,
  specs: InputSpecs = {},
): Record<string, Tensor | Tensor[]> {
  const out: Record<string, Tensor | Tensor[]> = {};
  Object.entries(s).forEach(([name, shape], i) => {
    const d = specs[name]?.dtype ?? dtype;
    const [lo, hi] = specs[name]?.domain ?? domain;
    const make = (sh: readonly number[], k: number): Tensor => {
      const next = rng(k);
      const n = sizeOf(sh);
      if (d === 'int32' || d === 'int64')
        return tensor(
          Array.from({ length: n }, () => Math.floor(Math.ceil(lo) + (Math.ceil(hi) - Math.ceil(lo)) * next())),
          { dtype: d, shape: sh },
        );
      if (d === 'bool')
        return tensor(
          Array.from({ length: n }, () => (next() < 0.5 ? 0 : 1)),
          { dtype: d, shape: sh },
        );
      return randomUniform(sh, { dtype: d, seed: k, low: lo, high: hi });
    };
    // A Tensor[] arg's elements get seeds of their own, past every single arg's.
    out[name] = isShapeList(shape)
      ? shape.map((sh, j) => make(sh, seed * 31 + i + 1000 * (j + 1)))
      : make(shape, seed * 31 + i);
  });
  return out;
}

/** ONNX TensorProto.DataType codes, for dtype-valued attrs (Cast's `to`). */
const ONNX_DTYPE: Readonly<Record<DType, number>> = {
  float32: 1,
  uint8: 2,
  int8: 3,
  int32: 6,
  int64: 7,
  bool: 9,
  float16: 10,
  float64: 11,
  uint16: 4,
  int16: 5,
  uint32: 12,
  uint64: 13,
  bfloat16: 16,
};

function toOracle(t: Tensor): OracleTensor {
  // int64 lives in a Float64Array of integers (dtype.ts); onnxruntime takes it as BigInts.
  const data = t.dtype === 'int64' ? BigInt64Array.from(t.dataSync(), BigInt) : t.dataSync();
  return { dtype: t.dtype as OracleTensor['dtype'], shape: [...t.shape], data: data as OracleTensor['data'] };
}

function onnxAttr(v: unknown): OracleAttr {
  if (typeof v === 'number' && !Number.isInteger(v)) return { float: v };
  return v as OracleAttr;
}

/**
 * Expected values, one list per output (a tuple op's ONNX node has several), and whether onnxruntime had to
 * compute them in float32 (then only float32 accuracy can be asked).
 */
export async function onnxExpected(
  o: Extract<Oracle, { kind: 'onnx' }>,
  given: Record<string, Tensor | Tensor[]>,
  args: Args,
  floats: readonly string[] = [],
  passed?: Args,
): Promise<{ values: number[][]; shapes: number[][]; narrowed: boolean }> {
  let inputs = given;
  let full = args;
  if (o.flatten && args[o.flatten] === null) {
    // TVM's axis=None ("over the flattened input") has no ONNX spelling: flatten, then use axis 0.
    inputs = Object.fromEntries(
      Object.entries(given).map(([k, t]) => [
        k,
        k === o.inputs[0] && t instanceof Tensor ? tensor(t.dataSync(), { dtype: t.dtype, shape: [t.size] }) : t,
      ]),
    );
    full = { ...args, [o.flatten]: 0 };
  }
  let outputs = o.outputs ?? 1;
  // A Tensor[] arg is ONNX's variadic inputs (Concat's), one feed per element.
  const feeds = o.inputs.flatMap((name): (OracleTensor | null)[] => {
    const given = inputs[name];
    if (Array.isArray(given)) return given.map(toOracle);
    if (given) return [toOracle(given)];
    const v = full[name];
    if (v === null || v === undefined) return [null];
    const conversion = o.convert?.[name];
    if (conversion) {
      const first = inputs[o.inputs[0]!] as Tensor;
      const c = ONNX_CONVERSION_RULES[conversion].toOnnx(v, first, full);
      outputs = c.outputs;
      return [
        c.input === null
          ? null
          : { dtype: 'int64', shape: [c.input.length], data: BigInt64Array.from(c.input.map(BigInt)) },
      ];
    }
    // A float list ONNX takes as an input (Resize's scales) is a float32 tensor; an empty one is an input not given.
    if (floats.includes(name) && Array.isArray(v))
      return [v.length ? { dtype: 'float32', shape: [v.length], data: Float32Array.from(v as number[]) } : null];
    return [feedOf(name, v)];
  });
  function feedOf(name: string, v: unknown): OracleTensor {
    // A float arg ONNX takes as an input (Pad's constant_value) is a scalar of the data's dtype.
    if (floats.includes(name) && typeof v === 'number') {
      const like = inputs[o.inputs[0]!] as Tensor;
      return { dtype: like.dtype as OracleTensor['dtype'], shape: [], data: [v] };
    }
    // Other non-tensor args that ONNX takes as inputs (ReduceSum's axes, Reshape's shape) are int64 tensors.
    const list = Array.isArray(v) ? (v as number[]) : [v as number];
    return { dtype: 'int64', shape: [list.length], data: BigInt64Array.from(list.map(BigInt)) };
  }
  const attrs: Record<string, OracleAttr> = { ...o.consts };
  // Attributes of args the case leaves at their defaults, held back so that ONNX's defaults apply (see `differs`).
  const held: Record<string, OracleAttr> = {};
  for (const [onnxName, arg] of Object.entries(o.attrs)) {
    const v = full[arg];
    if (v === null || v === undefined) continue;
    const into = passed && !(arg in passed) && !o.differs?.includes(onnxName) && !o.convert?.[arg] ? held : attrs;
    const asTensor = o.convert?.[arg] ? ONNX_CONVERSION_RULES[o.convert[arg]].toOnnxAttr : undefined;
    if (asTensor) {
      const t = asTensor(v, full);
      // The proto builder's dtypes are ONNX's subset of ours (the conversion gives the op's output dtype).
      into[onnxName] = { tensor: { ...t, shape: [...t.shape], data: [...t.data], dtype: t.dtype as 'float32' } };
      continue;
    }
    into[onnxName] =
      typeof v === 'boolean'
        ? v
          ? 1
          : 0
        : isDType(v)
          ? ONNX_DTYPE[v]
          : floats.includes(arg) && typeof v === 'number'
            ? { float: v }
            : onnxAttr(v);
  }
  const answer = (results: OracleTensor[], narrowed: boolean) => ({
    values: results.map((r) => Array.from(toFloat64(r))),
    shapes: results.map((r) => r.shape),
    narrowed,
  });
  // An attribute ONNX requires (Concat's axis) has no default to test: onnxruntime names it, and it is passed.
  const runOnnxOp = async (spec: OracleSpec): Promise<OracleTensor[]> => {
    for (;;) {
      try {
        return await runOracleOp(spec);
      } catch (e) {
        const name = /Required attribute '(\w+)' is missing/.exec(String(e))?.[1];
        if (!name || !(name in held)) throw e;
        attrs[name] = held[name]!;
        delete held[name];
        spec = { ...spec, attrs: { ...attrs } };
      }
    }
  };
  try {
    return answer(await runOnnxOp({ op: o.op, opset: o.opset, inputs: feeds, attrs, outputs }), false);
  } catch (e) {
    // Some ONNX ops take int64 indices only (ScatterND): ask again with the int32 feeds widened, values unchanged.
    if (/Type 'tensor\(int32\)' of input parameter/.test(String(e))) {
      const widened = feeds.map((f) =>
        f?.dtype === 'int32'
          ? { ...f, dtype: 'int64' as const, data: BigInt64Array.from(Array.from(f.data as Int32Array), BigInt) }
          : f,
      );
      return answer(await runOnnxOp({ op: o.op, opset: o.opset, inputs: widened, attrs, outputs }), false);
    }
    // onnxruntime has no float64 kernel for some ops (Erf, HardSwish, Softplus, Conv, LSTM...): ask it in float32.
    if (
      !feeds.some((f) => f?.dtype === 'float64') ||
      !/NOT_IMPLEMENTED|Could not find an implementation|does not support double|Type 'tensor\(double\)' of input parameter/i.test(
        String(e),
      )
    )
      throw e;
    const narrowed = feeds.map((f) =>
      f?.dtype === 'float64' ? { ...f, dtype: 'float32' as const, data: Float32Array.from(f.data as Float64Array) } : f,
    );
    return answer(await runOnnxOp({ op: o.op, opset: o.opset, inputs: narrowed, attrs, outputs }), true);
  }
}

/** Interprets a compute expression elementwise in float64, broadcasting the inputs. */
function computeExpected(source: string, inputs: Record<string, Tensor>, full: Args): number[] {
  const expr = parseExpr(source);
  const tensors = Object.entries(inputs);
  const shape = broadcastShapes(...tensors.map(([, t]) => t.shape))!;
  const n = sizeOf(shape);
  const readers = tensors.map(([name, t]) => {
    const strides = broadcastStrides(t.shape, shape);
    const data = t.dataSync();
    return { name, strides, data };
  });
  const out = new Array<number>(n);
  const env: Record<string, number> = {};
  for (const [k, v] of Object.entries(full)) if (typeof v === 'number') env[k] = v;
  const index = new Array<number>(shape.length).fill(0);
  for (let i = 0; i < n; i++) {
    let rem = i;
    for (let d = shape.length - 1; d >= 0; d--) {
      index[d] = rem % shape[d]!;
      rem = Math.floor(rem / shape[d]!);
    }
    for (const r of readers) env[r.name] = r.data[index.reduce((acc, v, d) => acc + v * r.strides[d]!, 0)]!;
    out[i] = evalExpr(expr, env);
  }
  return out;
}

/** Evaluates an oracle formula by calling the ops it names; `+ - * /` are the ops add, subtract, multiply, divide. */
function identityExpected(source: string, inputs: Record<string, Tensor | Tensor[]>, full: Args): number[] {
  const env: Record<string, unknown> = { ...full, ...inputs };
  return valuesOf(
    withDialect(['cpu'], () =>
      evaluateFormula(parseFormula(source), env, (op, args, keyword) => call(op, args, keyword)),
    ),
  );
}

/**
 * An oracle result that is NaN or infinite compares nothing (NaN == NaN would pass any kernel): refused unless
 * the spec says such results are the op's own (`tests.non_finite: true`).
 */
export function requireFinite(
  s: Pick<OpSuite, 'op' | 'spec' | 'nonFinite'>,
  expected: ArrayLike<number>,
  what: string,
): void {
  if (s.nonFinite) return;
  for (let i = 0; i < expected.length; i++) {
    const v = expected[i]!;
    if (!Number.isFinite(v))
      throw new Error(
        `raf.op.${s.op}: the oracle (${what}) gives ${v} at element ${i}, so this case checks nothing there; ` +
          `fix tests.domain (or tests.inputs) in ${s.spec.split(' ')[0]} so every input is in the op's domain, ` +
          'or set tests.non_finite: true if the op returns NaN or infinities by design',
      );
  }
}

function valuesOf(v: unknown): number[] {
  if (v instanceof Tensor) return Array.from(v.dataSync());
  // A tuple op's (or a Tensor[] arg's) tensors, one after another.
  if (Array.isArray(v) && v.some((t) => t instanceof Tensor)) return v.flatMap(valuesOf);
  if (Array.isArray(v)) return v as number[];
  return [v as number];
}

/** Central-difference VJP of `forward` at `inputs` against `dy`, for tensor `wrt`. */
function numericVjp(forward: string, inputs: Record<string, Tensor>, attrs: Args, wrt: string, dy: Tensor): number[] {
  const x = inputs[wrt]!;
  const base = Float64Array.from(x.dataSync());
  const dyv = dy.dataSync();
  const eps = 1e-6;
  const f = (v: Float64Array) => {
    const y = call(forward, [], {
      ...inputs,
      ...attrs,
      [wrt]: tensor(v, { dtype: 'float64', shape: x.shape }),
    }) as Tensor;
    const yv = y.dataSync();
    let s = 0;
    for (let i = 0; i < yv.length; i++) s += yv[i]! * dyv[i]!;
    return s;
  };
  return Array.from(base, (_, j) => {
    const p = Float64Array.from(base);
    const m = Float64Array.from(base);
    p[j]! += eps;
    m[j]! -= eps;
    return (f(p) - f(m)) / (2 * eps);
  });
}

/**
 * The op's own tensor inputs for a case. A backward op checked as a VJP takes its inputs from a
 * forward call (y, dy, the forward's tensors), so its shapes are always consistent.
 */
function caseInputs(s: OpSuite, c: OpCase, i: number, dtype: DType): Record<string, unknown> {
  const o = s.oracle;
  if (o.kind !== 'vjp') return makeInputs(c.shapes, dtype, s.domain, i + 1, s.inputs);
  const source = vjpSource(o, s, c, i);
  const args = Object.fromEntries(Object.entries(o.mapping).map(([k, v]) => [k, source[v]]));
  return Object.fromEntries(
    Object.entries(args).map(([k, v]) => [
      k,
      v instanceof Tensor && dtype !== 'float64' && isFloatDType(v.dtype)
        ? tensor(v.dataSync(), { dtype, shape: v.shape })
        : v,
    ]),
  );
}

function vjpSource(o: Extract<Oracle, { kind: 'vjp' }>, s: OpSuite, c: OpCase, i: number) {
  const fwdInputs = makeInputs(pick(c.shapes, o.forwardTensors), 'float64', s.domain, i + 1, s.inputs);
  const y = call(o.forward, [], { ...fwdInputs, ...c.full }) as Tensor;
  const dy = randomUniform(y.shape, { dtype: 'float64', seed: i + 99 });
  return { ...fwdInputs, ...c.full, y, dy } as Record<string, unknown> & { dy: Tensor };
}

/** Sums a broadcast result back to `shape`, as autodiff does for gradients of broadcast inputs. */
function fitTo(t: Tensor, shape: readonly number[]): Tensor {
  if (t.shape.length === shape.length && t.shape.every((d, k) => d === shape[k])) return t;
  const lead = t.shape.length - shape.length;
  const axes = t.shape.map((d, k) => k).filter((k) => k < lead || (shape[k - lead] === 1 && t.shape[k] !== 1));
  return call('reshape', [call('sum', [t, axes, true]), [...shape]]) as Tensor;
}

export function opSuite(s: OpSuite, reference?: Reference): void {
  describe(`raf.op.${s.op} (${s.spec})`, () => {
    // Against onnxruntime, forward runs over the cases the ONNX mapping expresses; the rest are counted in a title.
    const o = s.oracle;
    const forwardCases =
      o.kind === 'onnx'
        ? expressed(
            `ONNX ${o.op}`,
            s,
            [
              ...o.inputs,
              ...Object.values(o.attrs),
              ...(o.flatten ? [o.flatten] : []),
              // value_tensor types its tensor with the op's dtype arg (ConstantOfShape's value).
              ...(Object.values(o.convert ?? {}).includes('value_tensor') ? ['dtype'] : []),
            ],
            o,
          )
        : s.cases.map((c, i) => [title(c), c, i] as const);
    // Before the dialects' blocks: it shares the WebGPU block's device, which that block releases (non-finite.ts).
    if (s.nonFiniteCases) nonFiniteCases(s.op, s.dialects, s.nonFiniteCases);
    describe.each(s.dialects)('dialect %s', (dialect) => {
      // WebGPU is checked against the CPU dialect on the same cases (float32, gradients included).
      if (dialect === 'webgpu') {
        const callArgs = (c: OpCase, i: number, dtype: DType) => ({
          ...caseInputs(s, c, i, dtype),
          ...(s.oracle.kind === 'vjp' ? pickArgs(c.full, s.oracle.mapping) : c.args),
        });
        return webgpuCases({
          op: s.op,
          dtypes: s.dtypes,
          cases: s.cases,
          grad: s.grad,
          callArgs,
          title,
          ...(s.outputs ? { outputs: s.outputs } : {}),
        });
      }
      // The wasm dialect serves float32 and float64 only: pinned to it, the other dtypes must be refused by name.
      const refused: readonly DType[] =
        dialect === 'wasm' ? s.dtypes.filter((d) => d !== 'float32' && d !== 'float64') : [];
      if (refused.length && s.cases.length)
        it.each(refused)('wasm refuses %s (a lower level serves it)', (dtype) => {
          const c = s.cases[0]!;
          const inputs = makeInputs(c.shapes, dtype, s.domain, 1, s.inputs);
          expect(() => withDialect([dialect], () => call(s.op, [], { ...inputs, ...c.args }))).toThrow(
            new RegExp(`raf\\.op\\.wasm\\.${s.op} \\(level \\d+\\): cannot build for ${dtype}`),
          );
        });
      describe.each(s.dtypes.filter((d) => !refused.includes(d)))('%s', (dtype) => {
        if (forwardCases.length)
          it.each(forwardCases)('forward %s', async (_t, c, i) => {
            const o = s.oracle;
            if (o.kind === 'onnx') {
              const inputs = makeInputs(c.shapes, dtype, s.domain, i + 1, s.inputs);
              const got = withDialect([dialect], () => call(s.op, [], { ...inputs, ...c.args }));
              const expected = await onnxExpected(o, inputs, c.full, s.floats, c.args);
              // A tuple op is compared output by output, shapes included; a host op's value (shape's list) is one output.
              const outs = Array.isArray(got) && got[0] instanceof Tensor ? (got as Tensor[]) : [got];
              expect(outs.length).toBe(expected.values.length);
              expected.values.forEach((v, k) =>
                requireFinite(s, v, `onnxruntime ${o.op}${outs.length > 1 ? ` output ${k}` : ''}`),
              );
              outs.forEach((t, k) => {
                if (t instanceof Tensor && outs.length > 1) expect([...t.shape]).toEqual(expected.shapes[k]);
                assertAllClose(
                  valuesOf(t),
                  expected.values[k]!,
                  tolerance(expected.narrowed ? 'float32' : dtype),
                  `raf.op.${s.op}${outs.length > 1 ? ` output ${s.outputs?.[k] ?? k}` : ''} vs onnxruntime ${o.op}${expected.narrowed ? ' (in float32)' : ''}`,
                );
              });
            } else if (o.kind === 'identity') {
              const inputs = makeInputs(c.shapes, dtype, s.domain, i + 1, s.inputs);
              const got = withDialect([dialect], () => call(s.op, [], { ...inputs, ...c.args }));
              if (typeof o.formula === 'string') {
                const expected = identityExpected(o.formula, inputs, c.full);
                requireFinite(s, expected, o.formula);
                assertAllClose(valuesOf(got), expected, tolerance(dtype), `raf.op.${s.op} vs ${o.formula}`);
              } else {
                // One formula per output, compared output by output.
                const outs = got as Tensor[];
                expect(outs.length).toBe(o.formula.length);
                o.formula.forEach((f, k) => {
                  const expected = identityExpected(f, inputs, c.full);
                  const name = s.outputs?.[k] ?? String(k);
                  requireFinite(s, expected, `${name}: ${f}`);
                  assertAllClose(
                    valuesOf(outs[k]),
                    expected,
                    tolerance(dtype),
                    `raf.op.${s.op} output ${name} vs ${f}`,
                  );
                });
              }
            } else if (o.kind === 'reference') {
              if (!reference) throw new Error(`raf.op.${s.op}: its test passes no reference (${o.file})`);
              const inputs = makeInputs(c.shapes, dtype, s.domain, i + 1, s.inputs);
              const got = withDialect([dialect], () => call(s.op, [], { ...inputs, ...c.args }));
              const expected = reference(inputs as Record<string, Tensor | null>, c.full);
              requireFinite(s, expected, o.file);
              assertAllClose(valuesOf(got), expected, tolerance(dtype), `raf.op.${s.op} vs ${o.file}`);
            } else if (o.kind === 'compute') {
              const inputs = makeInputs(c.shapes, dtype, s.domain, i + 1, s.inputs);
              const got = withDialect([dialect], () => call(s.op, [], { ...inputs, ...c.args }));
              // Elementwise ops (the only ones with a compute expression) take single tensors.
              const expected = computeExpected(o.source, inputs as Record<string, Tensor>, c.full);
              requireFinite(s, expected, o.source);
              assertAllClose(
                valuesOf(got),
                dtype === 'float64' ? expected : Array.from(Float32Array.from(expected)),
                tolerance(dtype),
                `raf.op.${s.op} vs its compute expression (${o.source})`,
              );
            } else if (o.kind === 'vjp') {
              // The float64 result must match central differences; other dtypes must match the float64 result.
              const source = vjpSource(o, s, c, i);
              const bwArgs = caseInputs(s, c, i, 'float64');
              const reference = withDialect(['cpu'], () =>
                call(s.op, [], { ...bwArgs, ...pickArgs(c.full, o.mapping) }),
              ) as Tensor;
              if (dtype === 'float64') {
                const fwdInputs = pick(c.shapes, o.forwardTensors);
                const x = source[o.wrt] as Tensor;
                const numeric = numericVjp(
                  o.forward,
                  Object.fromEntries(Object.keys(fwdInputs).map((k) => [k, source[k] as Tensor])),
                  c.full,
                  o.wrt,
                  source.dy,
                );
                // Central differences are undefined (NaN, ±inf) at a pole: those elements are skipped and counted.
                const analytic = valuesOf(fitTo(reference, x.shape));
                const keep = numeric.map((v, k) => k).filter((k) => Number.isFinite(numeric[k]));
                const skipped = numeric.length - keep.length;
                assertAllClose(
                  keep.map((k) => analytic[k]!),
                  keep.map((k) => numeric[k]!),
                  { atol: 1e-5, rtol: 1e-3 },
                  `raf.op.${s.op} vs numeric VJP of ${o.forward}${skipped ? ` (${skipped} element(s) skipped: numeric VJP NaN or infinite)` : ''}`,
                );
              }
              // The inputs come from running the forward op, which need not exist in the dialect under test: build them unpinned.
              const given = caseInputs(s, c, i, dtype);
              const got = withDialect([dialect], () =>
                call(s.op, [], { ...given, ...pickArgs(c.full, o.mapping) }),
              ) as Tensor;
              assertAllClose(
                valuesOf(got),
                valuesOf(reference),
                tolerance(dtype),
                `raf.op.${s.op} (${dtype}) vs its float64 CPU result`,
              );
            } else {
              throw new Error(`raf.op.${s.op} has no oracle: ${o.reason}`);
            }
          });
      });
    });

    // The ort dialect (onnxruntime-node) of an op with an ONNX mapping, checked against the CPU dialect on the same
    // cases, gradients included; absent, it is checked to be absent.
    if (s.dialects.includes('cpu') && hasOrtOp(s.op))
      ortCases({
        op: s.op,
        dtypes: s.dtypes,
        cases: s.cases,
        grad: s.grad,
        callArgs: (c: OpCase, i: number, dtype: DType) => ({
          ...caseInputs(s, c, i, dtype),
          ...(s.oracle.kind === 'vjp' ? pickArgs(c.full, s.oracle.mapping) : c.args),
        }),
        title,
        ...(s.outputs ? { outputs: s.outputs } : {}),
      });

    // Graph mode (RAF's VM next to its interpreter): the traced call, run by the executor, gives eager mode's values exactly.
    // Host ops (shape) have no kernel: their value is static while tracing, so there is no call to compare.
    if (s.dialects.includes('cpu') && allDialectOps(s.op).length > 0) {
      it.each(s.cases.map((c, i) => [title(c), c, i] as const))('graph mode %s', (_t, c, i) => {
        const dtype = s.dtypes.includes('float64') ? 'float64' : s.dtypes[0]!;
        const o = s.oracle;
        const inputs = { ...caseInputs(s, c, i, dtype), ...(o.kind === 'vjp' ? pickArgs(c.full, o.mapping) : {}) };
        const flat = flatTensors(inputs, Object.keys(inputs));
        // A backward op takes the forward case's attrs under its own names (scaled_add_db's y is an int, not the output).
        const args = s.oracle.kind === 'vjp' ? pickArgs(c.full, s.oracle.mapping) : c.args;
        const f = (...xs: Tensor[]) => call(s.op, [], { ...inputs, ...args, ...flat.rebuild(xs) }) as Tensor | Tensor[];
        const valued = s.values ?? [];
        if (valued.length) {
          // Args whose values decide the output type are refused as traced values, naming the arg; as constants the
          // call is traced with the other tensors (or, with none left, runs while tracing and enters as a constant).
          withDialect(['cpu'], () => {
            expect(() => trace(f, flat.params)).toThrow(
              new RegExp(`argument '(${valued.join('|')})'\\): decides the output shape by its values`),
            );
            const rest = flatTensors(
              inputs,
              Object.keys(inputs).filter((k) => !valued.includes(k)),
            );
            const g = (...xs: Tensor[]) =>
              call(s.op, [], { ...inputs, ...args, ...rest.rebuild(xs) }) as Tensor | Tensor[];
            const eager = g(...rest.params);
            const graph = trace(g, rest.params);
            expect(execute(graph, rest.params).map(valuesOf)).toEqual(
              (eager instanceof Tensor ? [eager] : eager).map(valuesOf),
            );
          });
          return;
        }
        withDialect(['cpu'], () => {
          const eager = f(...flat.params);
          const graph = trace(f, flat.params);
          expect(graph.nodes.map((n) => (n.kind === 'call' ? n.op.name : 'fused'))).toContain(s.op);
          // A tuple op's graph returns each element.
          expect(execute(graph, flat.params).map(valuesOf)).toEqual(
            (eager instanceof Tensor ? [eager] : eager).map(valuesOf),
          );
        });
      });
    }

    if (s.grad.length) {
      it.each(s.cases.map((c, i) => [title(c), c, i] as const))('gradcheck %s', (_t, c, i) => {
        const inputs = caseInputs(s, c, i, 'float64');
        // A Tensor[] input is checked element by element, each one an input of its own.
        const flat = flatTensors(inputs, s.grad);
        const f = (...xs: Tensor[]) =>
          call(s.op, [], { ...inputs, ...c.args, ...flat.rebuild(xs) }) as Tensor | Tensor[];
        // Central differences need float64 outputs; an op cast to float32 (cast's dtype grid) is checked by its forward tests.
        const probe = f(...flat.params);
        const first = probe instanceof Tensor ? probe : probe[0]!;
        if (first.dtype === 'float32' || first.dtype === 'float16') return;
        const failures = gradcheck(f, flat.params);
        // Elements whose numeric gradient is undefined (NaN, ±inf) are skipped and counted; a case left with none
        // checked tests nothing.
        const skipped = failures.skipped
          ? ` (${failures.skipped} element(s) skipped: numeric gradient NaN or infinite)`
          : '';
        expect(failures.checked, `raf.op.${s.op}: no gradient element could be checked${skipped}`).toBeGreaterThan(0);
        expect(failures.slice(0, 3), `raf.op.${s.op} gradient${skipped}`).toEqual([]);
      });
    }

    // Errors and FromRelay need one dtype the op takes: float32, unless the op is tested only in others (bitwise ops
    // refuse floats).
    const plain: DType = s.dtypes.length && !s.dtypes.includes('float32') ? s.dtypes[0]! : 'float32';

    it.each(s.errors.map((e) => [e.title, e] as const))('rejects %s', (_t, e) => {
      const inputs = makeInputs(e.shapes, plain, s.domain, 1, s.inputs);
      expect(() => call(s.op, [], { ...inputs, ...e.args })).toThrow(e.message);
    });

    it('rejects an extra positional argument', () => {
      const c = s.cases[0]!;
      const inputs = caseInputs(s, c, 0, plain);
      const positional = [...Object.values(inputs), ...Object.values(c.full)];
      expect(() => call(s.op, [...positional, ...Array(8).fill(0)])).toThrow('arguments');
    });

    if (s.relay) {
      const r = s.relay;
      const relayCases = expressed(`FromRelay ${r.op}`, s, [...r.args, ...Object.values(r.attrs)], r);
      if (relayCases.length)
        it.each(relayCases)('FromRelay %s', (_t, c, i) => {
          const inputs = makeInputs(c.shapes, plain, s.domain, i + 1, s.inputs);
          const relayAttrs = {
            ...RELAY_IDENTITY_ATTRS[r.op],
            ...Object.fromEntries(Object.entries(r.attrs).map(([k, v]) => [k, c.full[v]])),
          };
          const viaRelay = fromRelayCall(
            r.op,
            r.args.map((a) => inputs[a] ?? c.full[a]),
            relayAttrs,
          );
          const direct = call(s.op, [], { ...inputs, ...c.full });
          // Relay ops such as nn.batch_norm give (result, extras...) where raf-op gives the result alone.
          const first = Array.isArray(viaRelay) && !Array.isArray(direct) ? (viaRelay as unknown[])[0] : viaRelay;
          expect(valuesOf(first)).toEqual(valuesOf(direct));
        });
    }
  });
}

/** The attrs a backward op takes, by the names its mapping gives them. */
function pickArgs(full: Args, mapping: Readonly<Record<string, string>>): Args {
  return Object.fromEntries(
    Object.entries(mapping)
      .filter(([, v]) => v in full)
      .map(([k, v]) => [k, full[v]]),
  );
}

function pick(shapes: Shapes, names: readonly string[]): Shapes {
  return Object.fromEntries(names.map((n) => [n, shapes[n]!]));
}
