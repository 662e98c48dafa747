// `generator-raf-op/testing`: the harness behind the tests raf-op generates into an operator author's package.
// It reads the same suite literal as the repository's own harness (test/support/op-suite.ts) and checks each case
// with the runtime's opcheck plus an oracle that needs nothing installed: the spec's compute expression evaluated in
// float64 by the expression IR's interpreter, or its `tests.oracle` formula over built-in ops; an op with an `onnx:`
// mapping is checked against onnxruntime-node, which `raf-op init` makes an optional dependency of the package. A
// reduction, selection, scan or softmax-like op also runs its generated NaN/±inf case (non-finite.ts).

import { describe, expect, it } from 'vitest';
import {
  call,
  fromRelayCall,
  getOp,
  randomUniform,
  rng,
  Tensor,
  tensor,
  withDialect,
  type DType,
} from '@raf-op/runtime';
import { gradcheck, opcheck, webgpuUnavailable } from '@raf-op/runtime/extend';
import { evalExpr } from '../expr/eval.ts';
import { parseExpr } from '../expr/parse.ts';
import { evaluateFormula, parseFormula } from '../spec/formula.ts';
import { nonFiniteSuite, type NonFiniteCases } from './non-finite.ts';
import { onnxExpected, onnxMissing, onnxRunner, type OnnxOracle } from './onnx-oracle.ts';

type ArgShape = readonly number[] | readonly (readonly number[])[];
type Shapes = Readonly<Record<string, ArgShape>>;
type Args = Readonly<Record<string, unknown>>;

export interface OpCase {
  readonly shapes: Shapes;
  readonly args: Args;
  readonly full: Args;
}

export type Oracle =
  | OnnxOracle
  | { readonly kind: 'identity'; readonly formula: string }
  | {
      readonly kind: 'vjp';
      readonly forward: string;
      readonly wrt: string;
      readonly forwardTensors: readonly string[];
      readonly mapping: Readonly<Record<string, string>>;
    }
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
  readonly domain: readonly [number, number];
  readonly inputs?: Readonly<Record<string, { readonly dtype?: DType; readonly domain?: readonly [number, number] }>>;
  readonly cases: readonly OpCase[];
  readonly oracle: Oracle;
  readonly grad: readonly string[];
  readonly floats?: readonly string[];
  readonly relay?: {
    readonly op: string;
    readonly args: readonly string[];
    readonly attrs: Readonly<Record<string, string>>;
  } | null;
  /** The generated NaN/±inf case of a reduction, selection, scan or softmax-like op (non-finite.ts). */
  readonly nonFiniteCases?: NonFiniteCases;
  /** Fields later emitters add (this harness ignores what it does not know). */
  readonly [more: string]: unknown;
  readonly errors: readonly {
    readonly title: string;
    readonly shapes: Shapes;
    readonly args: Args;
    readonly message: string;
  }[];
}

const isList = (s: ArgShape): s is readonly (readonly number[])[] => Array.isArray(s[0]);
const title = (c: OpCase) =>
  `${Object.entries(c.shapes)
    .map(([k, s]) => `${k}${JSON.stringify(s)}`)
    .join(' ')} ${JSON.stringify(c.args)}`;

/** Inputs drawn from the spec's domain, seeded per case so a failure reproduces. */
function makeInputs(s: OpSuite, shapes: Shapes, dtype: DType, seed: number): Record<string, Tensor | Tensor[]> {
  const out: Record<string, Tensor | Tensor[]> = {};
  Object.entries(shapes).forEach(([name, shape], i) => {
    const d = s.inputs?.[name]?.dtype ?? dtype;
    const [lo, hi] = s.inputs?.[name]?.domain ?? s.domain;
    const make = (sh: readonly number[], k: number): Tensor => {
      const next = rng(k);
      const n = sh.reduce((a, b) => a * b, 1);
      if (d === 'int32' || d === 'int64' || d === 'bool') {
        const ints = Array.from({ length: n }, () =>
          d === 'bool' ? (next() < 0.5 ? 0 : 1) : Math.floor(Math.ceil(lo) + (Math.ceil(hi) - Math.ceil(lo)) * next()),
        );
        return tensor(ints, { dtype: d, shape: sh });
      }
      return randomUniform(sh, { dtype: d, seed: k, low: lo, high: hi });
    };
    out[name] = isList(shape)
      ? shape.map((sh, j) => make(sh, seed * 31 + i + 1000 * (j + 1)))
      : make(shape, seed * 31 + i);
  });
  return out;
}

const pick = (shapes: Shapes, names: readonly string[]): Shapes =>
  Object.fromEntries(Object.entries(shapes).filter(([k]) => names.includes(k)));

/** A backward op's args come from a forward call: its tensors, `y` and a random `dy`, as the spec maps them. */
function vjpInputs(s: OpSuite, o: Extract<Oracle, { kind: 'vjp' }>, c: OpCase, dtype: DType, seed: number) {
  const forward = makeInputs(s, pick(c.shapes, o.forwardTensors), dtype, seed);
  const y = call(o.forward, [], { ...forward, ...c.full }) as Tensor;
  const dy = randomUniform(y.shape, { dtype: y.dtype, seed: seed + 99 });
  const source: Record<string, unknown> = { ...forward, ...c.full, y, dy };
  return Object.fromEntries(Object.entries(o.mapping).map(([own, from]) => [own, source[from]]));
}

/** The case as a positional call in schema order, defaults filled in (opcheck traces tensors given positionally). */
function sampleOf(s: OpSuite, c: OpCase, inputs: Record<string, unknown>) {
  const fields = getOp(s.op).schema.fields;
  return {
    args: fields.map((f) => (f.name in inputs ? inputs[f.name] : f.name in c.full ? c.full[f.name] : f.default)),
  };
}

const valuesOf = (v: unknown): number[] =>
  v instanceof Tensor ? Array.from(v.dataSync(), Number) : Array.isArray(v) ? v.flatMap(valuesOf) : [Number(v)];

/**
 * Element by element within tolerance; an infinity equals the same infinity. A NaN or infinite expected value compares
 * only where the spec says the op returns such values (`tests.non_finite: true`): otherwise NaN == NaN would pass any
 * kernel, so it is refused, naming the element.
 */
function closeTo(
  actual: readonly number[],
  expected: readonly number[],
  dtype: DType,
  what: string,
  nonFinite = false,
): void {
  const tol = dtype === 'float64' ? 1e-9 : 1e-4;
  expect(actual.length, `${what}: element count`).toBe(expected.length);
  actual.forEach((a, i) => {
    const e = expected[i]!;
    if (!Number.isFinite(e) && !nonFinite)
      throw new Error(
        `${what}: the oracle gives ${e} at element ${i}, so this case checks nothing there; narrow tests.domain ` +
          "(or tests.inputs) so every input is in the op's domain, or set tests.non_finite: true if the op returns NaN or infinities by design",
      );
    if (Number.isNaN(a) && Number.isNaN(e)) return;
    if (a === e) return; // equal infinities of the same sign
    if (!(Math.abs(a - e) <= tol + tol * Math.abs(e))) throw new Error(`${what}: element ${i} is ${a}, expected ${e}`);
  });
}

/** The compute expression interpreted in float64, broadcasting the inputs. */
function computeExpected(source: string, inputs: Record<string, Tensor>, full: Args): number[] {
  const expr = parseExpr(source);
  const entries = Object.entries(inputs);
  const shape = entries.reduce<number[]>((acc, [, t]) => broadcast(acc, t.shape), []);
  const n = shape.reduce((a, b) => a * b, 1);
  const env: Record<string, number> = {};
  for (const [k, v] of Object.entries(full)) if (typeof v === 'number') env[k] = v;
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    for (const [name, t] of entries) env[name] = Number(t.dataSync()[broadcastIndex(i, shape, t.shape)]);
    out.push(evalExpr(expr, env));
  }
  return out;
}

function broadcast(a: readonly number[], b: readonly number[]): number[] {
  const n = Math.max(a.length, b.length);
  return Array.from({ length: n }, (_, k) => {
    const x = a[a.length - n + k] ?? 1;
    const y = b[b.length - n + k] ?? 1;
    return x === 1 ? y : x;
  });
}

function broadcastIndex(flat: number, shape: readonly number[], of: readonly number[]): number {
  let index = 0;
  let stride = 1;
  for (let d = shape.length - 1, e = of.length - 1; d >= 0; d--, e--) {
    const coord = flat % shape[d]!;
    flat = Math.floor(flat / shape[d]!);
    if (e >= 0) {
      if (of[e] !== 1) index += coord * stride;
      stride *= of[e]!;
    }
  }
  return index;
}

/** The `tests.oracle` formula evaluated by calling the (built-in or package) ops it names, on the CPU. */
function identityExpected(source: string, env: Record<string, unknown>): number[] {
  return valuesOf(
    withDialect(['cpu'], () =>
      evaluateFormula(parseFormula(source), env, (op, args, keyword) => call(op, args, keyword)),
    ),
  );
}

export function opSuite(s: OpSuite, reference?: Reference): void {
  const dialects = s.dialects.filter((d) => d !== 'webgpu' || webgpuUnavailable() === undefined);
  describe(`raf.op.${s.op} (${s.spec})`, () => {
    // webgpu is among `dialects` only where the package's setup has acquired the device already.
    if (s.nonFiniteCases) nonFiniteSuite(s.op, dialects, s.nonFiniteCases, { call, tensor, withDialect });
    describe.each(s.dtypes)('%s', (dtype) => {
      const cases = s.cases.map((c, i) => [title(c), c, i] as const);
      const o = s.oracle;
      if (o.kind === 'compute' || o.kind === 'identity' || o.kind === 'reference') {
        it.each(cases)('forward %s', (_t, c, i) => {
          const inputs = makeInputs(s, c.shapes, dtype, i + 1);
          for (const d of dialects.filter((x) => x !== 'webgpu')) {
            const got = withDialect([d], () => call(s.op, [], { ...inputs, ...c.args }));
            if (o.kind === 'reference' && !reference)
              throw new Error(`raf.op.${s.op}: no reference passed (${o.file})`);
            const expected =
              o.kind === 'compute'
                ? computeExpected(o.source, inputs as Record<string, Tensor>, c.full)
                : o.kind === 'reference'
                  ? reference!(inputs as Record<string, Tensor | null>, c.full)
                  : identityExpected(o.formula, { ...c.full, ...inputs });
            const want =
              dtype === 'float64' || o.kind !== 'compute' ? expected : Array.from(Float32Array.from(expected));
            closeTo(
              valuesOf(got),
              want,
              dtype,
              `raf.op.${d}.${s.op} vs ${o.kind === 'compute' ? o.source : o.kind === 'reference' ? o.file : o.formula}`,
              s.nonFinite === true,
            );
          }
        });
      } else if (o.kind === 'vjp') {
        // A backward op is right when the forward's gradient (which calls it) matches central differences.
        it.each(cases)(`forward's gradient %s (raf.op.${o.forward} wrt ${o.wrt})`, (_t, c, i) => {
          const inputs = makeInputs(s, pick(c.shapes, o.forwardTensors), 'float64', i + 1) as Record<string, Tensor>;
          const f = (t: Tensor) => call(o.forward, [], { ...inputs, ...c.full, [o.wrt]: t }) as Tensor;
          const failures = withDialect(['cpu'], () => gradcheck(f, [inputs[o.wrt]!]));
          // Elements whose numeric gradient is undefined (NaN, ±inf) are skipped and counted.
          const skipped = failures.skipped
            ? ` (${failures.skipped} element(s) skipped: numeric gradient NaN or infinite)`
            : '';
          expect(failures.checked, `no gradient element could be checked${skipped}`).toBeGreaterThan(0);
          expect(failures.slice(0, 3), `raf.op.${o.forward}'s gradient wrt ${o.wrt}${skipped}`).toEqual([]);
        });
      } else if (o.kind === 'onnx') {
        // onnxruntime-node is an optional dependency of the package: without it this says why and is skipped.
        const missing = onnxMissing();
        if (missing) it.skip(`forward vs onnxruntime ${o.op}: ${missing}`, () => {});
        else
          it.each(cases)(`forward %s vs onnxruntime ${o.op}`, async (_t, c, i) => {
            const run = await onnxRunner();
            const inputs = makeInputs(s, c.shapes, dtype, i + 1);
            const expected = await onnxExpected(run, o, inputs, c.full, s.floats, c.args);
            for (const d of dialects.filter((x) => x !== 'webgpu')) {
              const got = withDialect([d], () => call(s.op, [], { ...inputs, ...c.args }));
              const outs = Array.isArray(got) ? (got as unknown[]) : [got];
              expect(outs.length, `raf.op.${s.op}: outputs`).toBe(expected.values.length);
              outs.forEach((t, k) =>
                closeTo(
                  valuesOf(t),
                  expected.values[k]!,
                  expected.narrowed ? 'float32' : dtype,
                  `raf.op.${d}.${s.op}${outs.length > 1 ? ` output ${(s.outputs as readonly string[] | undefined)?.[k] ?? k}` : ''} vs onnxruntime ${o.op}${expected.narrowed ? ' (in float32)' : ''}`,
                  s.nonFinite === true,
                ),
              );
            }
          });
      } else {
        it.skip(`forward vs an oracle: ${o.reason} (opcheck below still runs)`, () => {});
      }
      // opcheck: schema, type function vs kernel, graph vs eager, dialects vs cpu, attrs; gradients in float64.
      it.each(cases)('opcheck %s', async (_t, c, i) => {
        const inputs = o.kind === 'vjp' ? vjpInputs(s, o, c, dtype, i + 1) : makeInputs(s, c.shapes, dtype, i + 1);
        await opcheck(s.op, [sampleOf(s, c, inputs)], {
          dialects,
          grad: dtype === 'float64' ? s.grad : [],
        });
      });
    });
    const r = s.relay;
    if (r) {
      // The package's FromRelay converter, registered on import, gives exactly the direct call's result.
      it.each(s.cases.map((c, i) => [title(c), c, i] as const))('FromRelay %s', (_t, c, i) => {
        const inputs = makeInputs(s, c.shapes, 'float32', i + 1);
        const attrs = Object.fromEntries(Object.entries(r.attrs).map(([k, v]) => [k, c.full[v]]));
        const viaRelay = fromRelayCall(
          r.op,
          r.args.map((a) => inputs[a] ?? c.full[a]),
          attrs,
        );
        expect(valuesOf(viaRelay)).toEqual(valuesOf(call(s.op, [], { ...inputs, ...c.full })));
      });
    }
    if (s.errors.length) {
      it.each(s.errors.map((e) => [e.title, e] as const))('rejects %s', (_t, e) => {
        const inputs = makeInputs(s, e.shapes, s.dtypes[0] ?? 'float32', 1);
        expect(() => call(s.op, [], { ...inputs, ...e.args })).toThrow(e.message);
      });
    }
  });
}
