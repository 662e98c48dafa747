// Emitter: one parametrized vitest file per op (dialects × dtypes × shapes × the spec's grid).

import type { ArgModel, ArgShape, Model, OpModel } from '../spec/model.ts';
import { importPath, paths, sourceOf, tsFile, type EmittedFile } from './files.ts';
import { gradInputs } from './grad.ts';
import { namesPassed, oracleSource } from '../spec/formula-types.ts';
import { isTensor, literal } from './types.ts';
import { fixedArgs, notExpressible } from '../spec/targets.ts';
import { REFERENCES } from '../testing/numpy-reference.ts';
import { nonFiniteRank } from '../spec/semantic.ts';

type Shapes = Record<string, ArgShape>;

/** The rank a check sees: a Tensor[] arg's shapes are its elements', which share one rank. */
const rankOf = (s: ArgShape | undefined): number =>
  s === undefined ? 0 : Array.isArray(s[0]) ? (s[0] as readonly number[]).length : s.length;
interface Case {
  shapes: Shapes;
  args: Record<string, unknown>;
  full: Record<string, unknown>;
}

export function emitTests(model: Model): EmittedFile[] {
  return model.ops.map((op) => emitTest(model, op));
}

function emitTest(model: Model, op: OpModel): EmittedFile {
  // The suite (cases, oracle, error cases) is worked out when the file is first read, as its text is: a scaffold reads
  // its own op's test only.
  return tsFile(paths.test(op.name), 'tests', sourceOf(op), (sf) => {
    sf.addImportDeclaration({ moduleSpecifier: '../support/op-suite.ts', namedImports: ['opSuite'] });
    // A hand-written reference (tests.reference) is passed beside the suite: the suite literal names its file.
    if (op.tests.reference)
      sf.addImportDeclaration({
        moduleSpecifier: importPath(paths.test(op.name), paths.reference(op.name)),
        namedImports: ['reference'],
      });
    sf.addStatements(`opSuite(${literal(testSuite(model, op))}${op.tests.reference ? ', reference' : ''});`);
  });
}

/** What the generated test passes to opSuite for one op. */
function testSuite(model: Model, op: OpModel) {
  const vjp = op.onnx || op.tests.oracle ? null : vjpSource(model, op);
  const casesOf = vjp ? vjp.forward : op;
  const cases = buildCases(casesOf);
  const oracle = op.tests.reference
    ? { kind: 'reference', file: paths.reference(op.name) }
    : op.onnx
      ? {
          kind: 'onnx',
          op: op.onnx.op,
          opset: op.onnx.opset,
          inputs: op.onnx.inputs,
          attrs: op.onnx.attrs,
          ...(Object.keys(op.onnx.consts).length ? { consts: op.onnx.consts } : {}),
          ...(op.onnx.flatten ? { flatten: op.onnx.flatten } : {}),
          // A case that omits an arg leaves its attribute out of the node, so ONNX's default applies; attributes whose
          // ONNX default differs from ours (onnx.defaults) are passed our value instead.
          ...(Object.keys(op.onnx.defaults).some((k) => k in op.onnx!.attrs)
            ? { differs: Object.keys(op.onnx.defaults).filter((k) => k in op.onnx!.attrs) }
            : {}),
          ...(Object.keys(op.onnx.convert).length ? { convert: op.onnx.convert } : {}),
          // A tuple op with named outputs asks onnxruntime for every one of them (TopK's values and indices).
          ...(op.out.outputs ? { outputs: op.out.outputs.length } : {}),
          // What the mapping cannot express (an arg it does not carry, off its default) is reported, not compared.
          ...expressibility(op, 'onnx', cases),
        }
      : op.tests.oracle
        ? typeof op.tests.oracle === 'string'
          ? { kind: 'identity', formula: oracleSource(op.tests.oracle, model.ops) }
          : {
              kind: 'identity',
              formula: (op.out.outputs ?? []).map((n) => {
                const f = (op.tests.oracle as Record<string, string>)[n];
                return f === undefined ? null : oracleSource(f, model.ops);
              }),
            }
        : vjp
          ? {
              kind: 'vjp',
              forward: vjp.forward.name,
              wrt: vjp.wrt,
              forwardTensors: vjp.forward.args.filter(isTensor).map((a) => a.name),
              mapping: vjp.mapping,
            }
          : op.compute
            ? { kind: 'compute', source: op.compute.source }
            : { kind: 'none', reason: 'the spec has no onnx mapping and no forward op uses it as a backward op' };
  const suite = {
    op: op.name,
    spec: sourceOf(op),
    dialects: op.out.shape.kind === 'host' ? ['cpu'] : op.dialects.map((d) => d.name),
    dtypes: op.tests.dtypes,
    tensors: op.args.filter(isTensor).map((a) => a.name),
    // Tensor args whose values decide the output type (`check: values`): graph mode needs them constant.
    ...(op.args.some((a) => a.checks.some((c) => c.kind === 'values'))
      ? { values: op.args.filter((a) => a.checks.some((c) => c.kind === 'values')).map((a) => a.name) }
      : {}),
    domain: casesOf.tests.domain,
    ...(Object.keys(casesOf.tests.inputs).length ? { inputs: casesOf.tests.inputs } : {}),
    ...(op.args.some((a) => a.type.startsWith('float'))
      ? { floats: op.args.filter((a) => a.type.startsWith('float')).map((a) => a.name) }
      : {}),
    cases,
    oracle,
    ...(op.out.outputs ? { outputs: op.out.outputs } : {}),
    ...(op.tests.nonFinite ? { nonFinite: true } : {}),
    ...nonFiniteBlock(op),
    // A custom gradient lists every tensor arg; inputs the tests fix to an integer or bool dtype (indices) have none.
    grad: gradInputs(op).filter((n) => !/^(int|uint|bool)/.test(casesOf.tests.inputs[n]?.dtype ?? '')),
    errors: errorCases(
      op,
      vjp ? ownShapes(op, cases[0]!) : cases[0]!.shapes,
      vjp ? ownArgs(op, cases[0]!.full, vjp.mapping) : cases[0]!.full,
    ),
    relay: op.relay && {
      op: op.relay.op,
      args: op.relay.args,
      attrs: op.relay.attrs,
      ...expressibility(op, 'relay', cases),
    },
  };
  return suite;
}

/**
 * Inputs of the generated NaN/±inf case: a number, or 'NaN', 'inf', '-inf'; a long row is `{ length, at }`, ordinary
 * numbers (sin(i) to an eighth) with some replaced, so the kernels' many-lane and split paths meet them too.
 */
const NON_FINITE_INPUTS: readonly { readonly title: string; readonly values: unknown }[] = [
  { title: '[NaN, 1, inf]', values: ['NaN', 1, 'inf'] },
  { title: '[inf, -inf]', values: ['inf', '-inf'] },
  { title: '[1, NaN, 3]', values: [1, 'NaN', 3] },
  { title: '[-inf, -inf]', values: ['-inf', '-inf'] },
  { title: '[inf, inf]', values: ['inf', 'inf'] },
  { title: '[NaN, NaN, 1]', values: ['NaN', 'NaN', 1] },
  { title: '[2, -inf, 5]', values: [2, '-inf', 5] },
  { title: '[inf, NaN, -inf, 0.5]', values: ['inf', 'NaN', '-inf', 0.5] },
  {
    title: '300 with NaN and inf',
    values: {
      length: 300,
      at: [
        [3, 'NaN'],
        [100, 'inf'],
      ],
    },
  },
  {
    // No NaN and no +inf: what a softmax-like op gives is finite (0 and -inf in log space), not a row of NaN.
    title: '300 with two -inf',
    values: {
      length: 300,
      at: [
        [5, '-inf'],
        [200, '-inf'],
      ],
    },
  },
  {
    title: '3000 with inf and -inf',
    values: {
      length: 3000,
      at: [
        [7, 'inf'],
        [2000, '-inf'],
      ],
    },
  },
  {
    title: '3000 with two -inf',
    values: {
      length: 3000,
      at: [
        [11, '-inf'],
        [2900, '-inf'],
      ],
    },
  },
  {
    title: '40000 with two inf',
    values: {
      length: 40000,
      at: [
        [9, 'inf'],
        [30000, 'inf'],
      ],
    },
  },
];

/**
 * The NaN/±inf case of a reduction (fusion comm_reduce on one tensor: its defaults, so the whole input) or of an op
 * whose spec declares `tests.non_finite_cases` (topk's k, cumsum's axis): the suite runs every dialect against the CPU
 * and the CPU against NumPy's semantics of the op's ONNX counterpart (`reference`), on float32 rows.
 */
function nonFiniteBlock(op: OpModel) {
  const tensors = op.args.filter(isTensor);
  const reduction = op.fusion === 'comm_reduce' && tensors.length === 1 && !op.derivedFrom;
  // A declared case that could not run is refused at gen (spec/semantic.ts); a reduction's own needs a reference.
  const calls = op.tests.nonFiniteCases ?? (reduction && op.onnx && op.onnx.op in REFERENCES ? [{}] : null);
  if (!calls || !op.onnx || !op.tests.dtypes.includes('float32')) return {};
  // The 40000-element row reaches the split path of the shared reduction kernel; other kernels have none to reach.
  const inputs = reduction ? NON_FINITE_INPUTS : NON_FINITE_INPUTS.filter((i) => !/^40000/.test(i.title));
  const rank = nonFiniteRank(op);
  return {
    nonFiniteCases: { reference: op.onnx.op, tensor: tensors[0]!.name, ...(rank > 1 ? { rank } : {}), calls, inputs },
  };
}

/**
 * The args a mapping leaves at their defaults (`fixed`) and how many cases set one of them otherwise or give a tensor
 * the mapping does not pass (`inexpressible`): the suite runs the target over the rest and checks that count.
 */
function expressibility(op: OpModel, target: 'relay' | 'onnx', cases: readonly Case[]) {
  const fixed = fixedArgs(op, target);
  const inexpressible = cases.filter((c) => notExpressible(op, target, c) !== null).length;
  return {
    ...(Object.keys(fixed).length ? { fixed } : {}),
    ...(inexpressible ? { inexpressible } : {}),
  };
}

/** Every shape × grid combination the arg checks accept, plus one call that relies on the defaults. */
function buildCases(op: OpModel): Case[] {
  const tensors = op.args.filter(isTensor);
  const attrs = op.args.filter((a) => !isTensor(a));
  const gridKeys = Object.keys(op.tests.grid);
  const combos = product(gridKeys.map((k) => op.tests.grid[k]!.map((v) => [k, v] as const)));
  const cases: Case[] = [];
  for (const perArg of op.tests.shapes) {
    const shapes: Shapes = Object.fromEntries(
      tensors.flatMap((t, i) => (perArg[i] == null ? [] : [[t.name, perArg[i]!]])),
    );
    for (const combo of combos) {
      const args = Object.fromEntries(combo);
      const full = withDefaults(attrs, args);
      if (accepts(op, shapes, full)) cases.push({ shapes, args, full });
    }
  }
  // Explicit cases, for combinations a cross product cannot give (conv2d's groups need matching weights).
  for (const extra of op.tests.cases) {
    // An optional tensor given no shape (null, or left off the end) is left out of the call.
    const shapes: Shapes = Object.fromEntries(
      tensors.flatMap((t, i) => (extra.shapes[i] == null ? [] : [[t.name, extra.shapes[i]!]])),
    );
    cases.push({ shapes, args: { ...extra.args }, full: withDefaults(attrs, extra.args ?? {}) });
  }
  const defaulted = attrs.filter((a) => a.default);
  if (defaulted.length && cases.length) {
    const first = cases[0]!;
    const args = Object.fromEntries(Object.entries(first.args).filter(([k]) => !defaulted.some((a) => a.name === k)));
    const full = withDefaults(attrs, args);
    if (accepts(op, first.shapes, full)) cases.push({ shapes: first.shapes, args, full });
  }
  return dedupe(cases);
}

function withDefaults(attrs: readonly ArgModel[], args: Record<string, unknown>): Record<string, unknown> {
  const full: Record<string, unknown> = {};
  for (const a of attrs) full[a.name] = a.name in args ? args[a.name] : a.default?.value;
  return full;
}

/** The spec's checks evaluated statically, so the grid never produces a call the op rejects. */
function accepts(op: OpModel, shapes: Shapes, full: Record<string, unknown>): boolean {
  return op.args.every((a) =>
    a.checks.every((c) => {
      const v = full[a.name];
      if (v === null || v === undefined) return true;
      switch (c.kind) {
        case 'axis':
        case 'axes': {
          const rank = rankOf(shapes[c.of]);
          const list = Array.isArray(v) ? (v as number[]) : [v as number];
          const norm = list.map((x) => (x < 0 ? x + rank : x));
          return list.every((x) => x >= -rank && x < rank) && new Set(norm).size === norm.length;
        }
        case 'nonneg':
          return [v].flat().every((x) => (x as number) >= 0);
        case 'positive':
          return [v].flat().every((x) => (x as number) > 0);
        case 'one_of':
          return c.values.includes(v as string | number);
        case 'range':
          return (v as number) >= c.lo && (v as number) <= c.hi;
        default:
          return true;
      }
    }),
  );
}

/** The error cases the arg checks and the output rule imply. */
function errorCases(op: OpModel, shapes: Shapes, full: Record<string, unknown>) {
  const errors: { title: string; shapes: Shapes; args: Record<string, unknown>; message: string }[] = [];
  for (const a of op.args) {
    for (const c of a.checks) {
      const base = { shapes, args: { ...full } };
      switch (c.kind) {
        case 'axis':
        case 'axes': {
          const rank = rankOf(shapes[c.of]);
          errors.push({
            ...base,
            title: `${a.name} = ${rank} (out of range)`,
            args: { ...full, [a.name]: c.kind === 'axis' ? rank : [rank] },
            message: `invalid axis = ${rank} on ndim = ${rank}`,
          });
          break;
        }
        case 'like':
          errors.push({
            ...base,
            title: `${a.name} shaped unlike ${c.of}`,
            shapes: { ...shapes, [a.name]: [...(shapes[c.of] as readonly number[]), 2] },
            message: `must match ${c.of}`,
          });
          break;
        case 'nonneg':
          errors.push({
            ...base,
            title: `${a.name} < 0`,
            args: { ...full, [a.name]: a.type.includes('[]') ? [-1] : -1 },
            message: 'must be non-negative',
          });
          break;
        case 'positive':
          errors.push({
            ...base,
            title: `${a.name} = 0`,
            args: { ...full, [a.name]: a.type.includes('[]') ? [0] : 0 },
            message: 'must be positive',
          });
          break;
        case 'one_of':
          errors.push({
            ...base,
            title: `${a.name} not one of ${c.values.join(', ')}`,
            args: {
              ...full,
              [a.name]: typeof c.values[0] === 'number' ? Math.max(...(c.values as number[])) + 1 : 'not_an_option',
            },
            message: 'must be one of',
          });
          break;
        case 'range':
          errors.push({
            ...base,
            title: `${a.name} above ${c.hi}`,
            args: { ...full, [a.name]: c.hi + 1 },
            message: `must be in [${c.lo}, ${c.hi}]`,
          });
          break;
      }
    }
  }
  const rule = op.out.shape;
  if (rule.kind === 'broadcast' && rule.of.length >= 2) {
    errors.push({
      title: 'shapes that do not broadcast',
      shapes: { ...shapes, [rule.of[0]!]: [2, 3], [rule.of[1]!]: [4] },
      args: full,
      message: 'cannot broadcast',
    });
  }
  if (rule.kind === 'matmul') {
    errors.push({
      title: 'mismatched inner dimensions',
      shapes: { ...shapes, [rule.a]: [2, 3], [rule.b]: rule.mode === 'nn' || rule.mode === 'tn' ? [4, 5] : [5, 4] },
      args: full,
      message: 'inner dimensions differ',
    });
  }
  for (const e of op.tests.errors) {
    const tensors = op.args.filter(isTensor);
    errors.push({
      title: e.message,
      shapes: Object.fromEntries(tensors.flatMap((t, i) => (e.shapes[i] == null ? [] : [[t.name, e.shapes[i]!]]))),
      args: { ...full, ...e.args },
      message: e.message,
    });
  }
  return errors;
}

/**
 * A backward op is checked as the VJP of the forward op whose gradient calls it with plain
 * names (`softmax_dx(y, dy, axis)`), or of the op it was derived from.
 */
function vjpSource(
  model: Model,
  op: OpModel,
): { forward: OpModel; wrt: string; mapping: Record<string, string> } | null {
  if (op.derivedFrom) {
    const forward = model.ops.find((o) => o.name === op.derivedFrom)!;
    return { forward, wrt: op.args[0]!.name, mapping: Object.fromEntries(op.args.map((a) => [a.name, a.name])) };
  }
  for (const forward of model.ops) {
    if (forward.grad.kind !== 'formulas') continue;
    for (const input of forward.grad.inputs) {
      const mapping = namesPassed(input.formula, op);
      if (mapping) return { forward, wrt: input.name, mapping };
    }
  }
  return null;
}

/** A backward op's own attrs, from the forward case's values by the names its gradient formula passes. */
function ownArgs(op: OpModel, full: Record<string, unknown>, mapping: Record<string, string>): Record<string, unknown> {
  return Object.fromEntries(
    op.args.filter((a) => !isTensor(a) && mapping[a.name]! in full).map((a) => [a.name, full[mapping[a.name]!]]),
  );
}

/** Shapes for a backward op's own tensor args: each like the forward case's first tensor. */
function ownShapes(op: OpModel, c: Case): Shapes {
  const first = Object.values(c.shapes)[0]!;
  return Object.fromEntries(op.args.filter(isTensor).map((a) => [a.name, first]));
}

function product<T>(lists: readonly (readonly T[])[]): T[][] {
  return lists.reduce<T[][]>((acc, list) => acc.flatMap((prefix) => list.map((v) => [...prefix, v])), [[]]);
}

function dedupe(cases: Case[]): Case[] {
  const seen = new Set<string>();
  return cases.filter((c) => {
    const k = JSON.stringify(c);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
