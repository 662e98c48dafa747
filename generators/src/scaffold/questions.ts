// The scaffold's questions, in order: each has a flag, a default that follows the earlier answers, and a parser.

import { CAST_RULES, FUSION_PATTERNS, type ArgType } from '../../../runtime/src/vocab.ts';
import { ExprError, freeVars, parseExpr } from '../expr/parse.ts';
import { formulaRefs, parseFormula } from '../spec/formula.ts';
import type { Model, OpModel } from '../spec/model.ts';
import {
  isGrid,
  isList,
  isRange,
  parseArgs,
  parseCast,
  parseDialects,
  parseFlow,
  parseFusion,
  parseGrad,
  parseMapping,
  splitTop,
  type ArgAnswer,
  type GradAnswer,
  type MappingAnswer,
  type ScaffoldAnswers,
  type TestsAnswer,
} from './answers.ts';
import { checkName, nameProblem, ScaffoldError } from './names.ts';
import { onnxOffer } from './onnx-match.ts';

/** What the questions know besides the answers: the repository's model before the scaffold. */
export interface ScaffoldContext {
  readonly model: Model;
}

/** Answers so far; every question fills one field. */
export interface Draft {
  op?: string;
  compute?: string | null;
  schema?: string | null;
  category?: string;
  doc?: string;
  args?: readonly ArgAnswer[];
  out?: string;
  /** A tuple output's names (`values, indices`); empty for as many as the rule returns. */
  outputs?: readonly string[] | null;
  gradKind?: 'derived' | 'formula' | 'custom' | 'none';
  grad?: GradAnswer;
  saves?: readonly string[];
  fusion?: ScaffoldAnswers['fusion'];
  cast?: ScaffoldAnswers['cast'];
  relay?: MappingAnswer | null;
  onnx?: MappingAnswer | null;
  dialects?: Readonly<Record<string, number>>;
  shapes?: unknown[];
  grid?: TestsAnswer['grid'];
  domain?: TestsAnswer['domain'];
}

export interface Question {
  readonly name: keyof Draft;
  /** The command-line flag (`--compute`); `op` is the positional NAME instead. */
  readonly flag: string;
  readonly message: string;
  readonly choices?: (d: Draft, ctx: ScaffoldContext) => readonly string[];
  /** Values shown with a free-text prompt (existing categories). */
  readonly suggestions?: (d: Draft, ctx: ScaffoldContext) => readonly string[];
  /** Asked only when this holds; otherwise its answer is implied by earlier ones. */
  readonly when?: (d: Draft, ctx: ScaffoldContext) => boolean;
  /** The default, in the same one-line syntax the flag takes. */
  readonly default: (d: Draft, ctx: ScaffoldContext) => string;
  /** Parses the one-line answer into the draft; throws ScaffoldError with what to write instead. */
  readonly parse: (text: string, d: Draft, ctx: ScaffoldContext) => void;
}

/** The args the op will have: its own, or those of the schema it reuses. */
export function argsOf(d: Draft, ctx: ScaffoldContext): readonly ArgAnswer[] {
  if (d.schema) {
    const reused = ctx.model.ops.find((o) => o.name === d.schema);
    return reused ? reused.args.map(toArgAnswer) : [];
  }
  return d.args ?? [];
}

const toArgAnswer = (a: OpModel['args'][number]): ArgAnswer => ({
  name: a.name,
  type: a.type as ArgType,
  ...(a.default ? { default: a.default } : {}),
});
const tensorsOf = (d: Draft, ctx: ScaffoldContext) =>
  argsOf(d, ctx)
    .filter((a) => a.type.startsWith('Tensor'))
    .map((a) => a.name);
const attrsOf = (d: Draft, ctx: ScaffoldContext) =>
  argsOf(d, ctx)
    .filter((a) => !a.type.startsWith('Tensor'))
    .map((a) => a.name);
const existingOp = (d: Draft, ctx: ScaffoldContext) => ctx.model.ops.find((o) => o.name === d.op && !o.derivedFrom);
const canDerive = (d: Draft, ctx: ScaffoldContext) => Boolean(d.compute) && tensorsOf(d, ctx).length === 1;

export const QUESTIONS: readonly Question[] = [
  {
    name: 'op',
    flag: 'NAME',
    message: 'Op name (lower_snake_case; the base op is raf.op.<name>)',
    default: () => '',
    parse: (t, d) => {
      checkName(t.trim(), 'op');
      d.op = t.trim();
    },
  },
  {
    name: 'compute',
    flag: 'compute',
    message: 'Elementwise compute expression (empty when the op needs a hand-written kernel)',
    default: (d, ctx) => existingOp(d, ctx)?.compute?.source ?? '',
    parse: (t, d) => {
      if (!t.trim()) return void (d.compute = null);
      try {
        parseExpr(t);
      } catch (e) {
        if (e instanceof ExprError) throw new ScaffoldError(`compute: ${e.excerpt()}`);
        throw e;
      }
      d.compute = t.trim();
    },
  },
  {
    name: 'schema',
    flag: 'schema',
    message: 'Reuse the args of an existing op (empty for new args)',
    when: (d) => !d.compute,
    default: () => '',
    parse: (t, d, ctx) => {
      const name = t.trim();
      if (!name) return void (d.schema = null);
      const reused = ctx.model.ops.find((o) => o.name === name);
      if (!reused)
        throw new ScaffoldError(
          `no op '${name}' to reuse the schema of`,
          `ops: ${ctx.model.ops
            .filter((o) => !o.derivedFrom)
            .map((o) => o.name)
            .join(', ')}`,
        );
      if (reused.schema !== reused.name)
        throw new ScaffoldError(
          `'${name}' itself reuses the schema of '${reused.schema}'`,
          `write --schema ${reused.schema}`,
        );
      d.schema = name;
    },
  },
  {
    name: 'category',
    flag: 'category',
    message: 'Category (the folder under specs/; a new name makes a new folder)',
    suggestions: (_d, ctx) => [...new Set(ctx.model.ops.map((o) => o.category))].sort(),
    default: (d, ctx) =>
      existingOp(d, ctx)?.category ??
      (d.schema ? ctx.model.ops.find((o) => o.name === d.schema)!.category : d.compute ? 'math' : 'nn'),
    parse: (t, d) => {
      checkName(t.trim(), 'category');
      d.category = t.trim();
    },
  },
  {
    name: 'doc',
    flag: 'doc',
    message: 'One-line doc (becomes the JSDoc of ops.<name>)',
    default: (d) => (d.compute ? `Elementwise ${d.op}, ${d.compute}.` : `The ${d.op} operator (say what it computes).`),
    parse: (t, d) => {
      if (!t.trim()) throw new ScaffoldError('the doc is empty');
      d.doc = t.trim();
    },
  },
  {
    name: 'args',
    flag: 'args',
    message: 'Args in positional order: name: type [= default] [check ...], comma-separated',
    when: (d) => !d.schema,
    default: (d) =>
      d.compute
        ? freeVars(parseExpr(d.compute))
            .map((v) => `${v}: Tensor`)
            .join(', ')
        : 'x: Tensor',
    parse: (t, d) => {
      d.args = parseArgs(t);
    },
  },
  {
    name: 'out',
    flag: 'out',
    message:
      'Output rule: same(x), broadcast(a, b), reduce(x, axis, keepdims), matmul(a, b), custom(fn), host, or tuple: custom(fn) for several outputs',
    default: (d, ctx) => {
      const t = tensorsOf(d, ctx);
      return t.length === 0
        ? 'host'
        : t.length === 1
          ? `same(${t[0]})`
          : d.compute
            ? `broadcast(${t.join(', ')})`
            : `same(${t[0]})`;
    },
    parse: (t, d) => {
      if (!t.trim()) throw new ScaffoldError('the output rule is empty');
      const tuple = /^tuple\s*:?\s*(.*)$/.exec(t.trim());
      if (tuple && !/^custom\([a-z]\w*\)$/.test(tuple[1]!.trim()))
        throw new ScaffoldError(
          `tuple output '${t.trim()}' needs a hand-written rule`,
          `write tuple: custom(${d.op ?? 'my_op'}_rule), and name the outputs with --outputs values,indices`,
        );
      d.out = tuple ? `tuple: ${tuple[1]!.trim()}` : t.trim();
    },
  },
  {
    name: 'outputs',
    flag: 'outputs',
    message: 'Names of the outputs, comma-separated (empty: as many as the rule returns, like split)',
    when: (d) => d.out?.startsWith('tuple') === true,
    default: () => '',
    parse: (t, d) => {
      const names = splitTop(t);
      for (const n of names) {
        const problem = nameProblem(n, 'output');
        if (problem) throw new ScaffoldError(problem);
      }
      if (names.length === 1)
        throw new ScaffoldError('a tuple has at least two outputs', 'for example: values, indices');
      if (new Set(names).size !== names.length) throw new ScaffoldError(`an output is named twice in '${t}'`);
      d.outputs = names;
    },
  },
  {
    name: 'gradKind',
    flag: 'grad',
    message: 'Gradient',
    choices: (d, ctx) => [...(canDerive(d, ctx) ? ['derived'] : []), 'formula', 'custom', 'none'],
    when: (d, ctx) => tensorsOf(d, ctx).length > 0,
    default: (d, ctx) => (canDerive(d, ctx) ? 'derived' : 'custom'),
    parse: (t, d, ctx) => {
      const s = t.trim();
      if (s === 'derived' && !canDerive(d, ctx)) {
        throw new ScaffoldError(
          'a derived gradient needs a compute expression over exactly one tensor arg',
          'write --grad custom, none, or formulas such as "x: dy * y"',
        );
      }
      if (s === 'formula') return void (d.gradKind = 'formula');
      // `--grad "x: dy * y"` gives the formulas directly; the formula question is then answered.
      const g = parseGrad(s, undefined);
      d.gradKind = g.kind === 'formulas' ? 'formula' : g.kind;
      d.grad = g;
    },
  },
  {
    name: 'grad',
    flag: 'grad',
    message:
      'Formula per tensor input (dy, saved values, non-tensor args; a backward op call such as softmax_dx(y, dy, axis))',
    when: (d) => d.gradKind === 'formula' && d.grad === undefined,
    default: (d, ctx) => {
      const tensors = tensorsOf(d, ctx);
      const call = [...tensors, 'y', 'dy', ...attrsOf(d, ctx)].join(', ');
      return tensors.map((t) => `${t}: ${d.op}_${tensors.length === 1 ? 'dx' : `d${t}`}(${call})`).join(', ');
    },
    parse: (t, d) => {
      const g = parseGrad(t, undefined);
      if (g.kind !== 'formulas') throw new ScaffoldError(`'${t}' is not a formula`, 'for example: x: dy * y');
      d.grad = g;
    },
  },
  {
    name: 'saves',
    flag: 'saves',
    message: "What the backward keeps (tensor args and/or y, the output), comma-separated; 'none' for nothing",
    when: (d) => d.gradKind === 'formula',
    default: (d, ctx) => {
      const g = d.grad;
      if (g?.kind !== 'formulas') return '';
      // `y` is the output unless an arg has that name (then a formula's `y` is the arg, kept anyway if not a tensor).
      const keepable = new Set([...tensorsOf(d, ctx), ...(argsOf(d, ctx).some((a) => a.name === 'y') ? [] : ['y'])]);
      const read = new Set<string>();
      for (const src of Object.values(g.formulas)) {
        try {
          for (const r of formulaRefs(parseFormula(src)).refs)
            if (r.kind === 'ref' && keepable.has(r.name)) read.add(r.name);
        } catch {
          // A malformed formula is reported with its file:line:col when the spec is validated.
        }
      }
      return read.size ? [...read].join(', ') : 'none';
    },
    parse: (t, d) => {
      d.saves = splitTop(t).filter((s) => s !== 'none');
    },
  },
  {
    name: 'fusion',
    flag: 'fusion',
    message: 'Fusion pattern',
    choices: () => FUSION_PATTERNS,
    default: (d, ctx) => {
      if (d.compute) return tensorsOf(d, ctx).length > 1 ? 'broadcast' : 'elemwise';
      if (d.out?.startsWith('reduce')) return 'comm_reduce';
      if (d.out?.startsWith('matmul')) return 'out_ewise_fusable';
      return 'opaque';
    },
    parse: (t, d) => {
      d.fusion = parseFusion(t);
    },
  },
  {
    name: 'cast',
    flag: 'cast',
    message: 'AMP cast rule for the tensor args',
    choices: () => [...CAST_RULES, 'none'],
    when: (d, ctx) => tensorsOf(d, ctx).length > 0,
    default: (d) => (d.compute ? 'infer' : 'never'),
    parse: (t, d) => {
      d.cast = parseCast(t);
    },
  },
  {
    name: 'relay',
    flag: 'relay',
    message: 'Relay op for the FromRelay converter: op [args=a,b] [attr=arg ...], or none',
    default: () => 'none',
    parse: (t, d) => {
      d.relay = parseMapping(t, 'args');
    },
  },
  {
    name: 'onnx',
    flag: 'onnx',
    message: 'ONNX op (importer and test oracle): Op [opset=N] [inputs=a,b] [attr=arg ...], or none',
    // Offered when the op's name or compute expression is an ONNX operator's (onnx-match.ts).
    default: (d, ctx) => onnxOffer(d.op ?? '', d.compute, argsOf(d, ctx))?.text ?? 'none',
    parse: (t, d) => {
      d.onnx = parseMapping(t, 'inputs');
    },
  },
  {
    name: 'dialects',
    flag: 'dialects',
    message: 'Dialects and their levels (higher is tried first)',
    default: () => 'cpu=10',
    parse: (t, d) => {
      d.dialects = parseDialects(t);
    },
  },
  {
    name: 'shapes',
    flag: 'shapes',
    message: 'Test shapes (YAML: one shape per case, or one per tensor arg)',
    default: (d, ctx) => (d.compute && tensorsOf(d, ctx).length === 1 ? '[[5], [2, 3, 4]]' : '[[3, 4]]'),
    parse: (t, d) => {
      d.shapes = parseFlow(t, 'shapes', isList);
    },
  },
  {
    name: 'grid',
    flag: 'grid',
    message: 'Test grid over the non-tensor args (YAML mapping; empty for the defaults only)',
    when: (d, ctx) => attrsOf(d, ctx).length > 0,
    default: (d, ctx) => formatGrid(defaultGrid(argsOf(d, ctx))),
    parse: (t, d) => {
      d.grid = parseFlow(t, 'grid', isGrid);
    },
  },
  {
    name: 'domain',
    flag: 'domain',
    message: 'Range random test inputs are drawn from',
    default: () => '[-2, 2]',
    parse: (t, d) => {
      const r = parseFlow(t.includes('[') ? t : `[${t}]`, 'domain', isRange);
      d.domain = r && !(r[0] === -2 && r[1] === 2) ? r : undefined;
    },
  },
];

/** Values worth testing per non-tensor arg: both flags, two axes, every allowed value. */
export function defaultGrid(args: readonly ArgAnswer[]): Record<string, unknown[]> {
  const grid: Record<string, unknown[]> = {};
  for (const a of args) {
    if (a.type.startsWith('Tensor')) continue;
    const check = a.check ?? '';
    const oneOf = /one_of\(([^)]*)\)/.exec(check);
    if (a.type === 'bool') grid[a.name] = [false, true];
    else if (/^axis\(/.test(check) && a.type.startsWith('int')) grid[a.name] = [0, -1];
    else if (oneOf)
      grid[a.name] = oneOf[1]!
        .split(',')
        .map((s) => s.trim())
        .map((s) => (/^-?\d+(\.\d+)?$/.test(s) ? Number(s) : s));
  }
  return grid;
}

function formatGrid(grid: Record<string, unknown[]>): string {
  const entries = Object.entries(grid);
  return entries.length
    ? `{ ${entries.map(([k, v]) => `${k}: ${JSON.stringify(v).replace(/,/g, ', ')}`).join(', ')} }`
    : '';
}

/** The draft, complete, as answers (questions that were not asked get their implied value). */
export function finish(d: Draft, ctx: ScaffoldContext): ScaffoldAnswers {
  const tensors = tensorsOf(d, ctx);
  const grad: GradAnswer =
    tensors.length === 0
      ? { kind: 'none' }
      : d.grad?.kind === 'formulas'
        ? { ...d.grad, saves: d.saves ?? d.grad.saves }
        : (d.grad ?? { kind: 'custom' });
  return {
    op: d.op!,
    category: d.category!,
    doc: d.doc!,
    compute: d.compute ?? null,
    schema: d.schema ?? null,
    args: d.schema ? [] : (d.args ?? []),
    out: d.out!,
    outputs: d.outputs?.length ? d.outputs : null,
    grad,
    fusion: d.fusion!,
    cast: tensors.length ? (d.cast ?? null) : null,
    relay: d.relay ?? null,
    onnx: d.onnx ?? null,
    dialects: d.dialects!,
    tests: { shapes: d.shapes, grid: d.grid && Object.keys(d.grid).length ? d.grid : undefined, domain: d.domain },
  };
}
