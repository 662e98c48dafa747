// A forward op whose gradient calls a backward op no spec defines yet (`--grad "x: my_op_dx(y, dy, axis)"`) gets that
// backward op scaffolded with it, so the two can be written in either order or together: its args are the call's
// (tensors, y and dy as Tensor, the forward's attrs as declared there), its kernels are stubs to write.

import { FORMULA_NEGATE, FORMULA_OPERATORS, formulaRefs, parseFormula } from '../spec/formula.ts';
import type { ArgAnswer, ScaffoldAnswers } from './answers.ts';
import { checkName, ScaffoldError } from './names.ts';
import { argsOf, type ScaffoldContext } from './questions.ts';

const OPERATOR_OPS = new Set<string>([...Object.values(FORMULA_OPERATORS), FORMULA_NEGATE]);

/** Every op the gradient formulas call (backward ops, not the arithmetic operators). */
export function calledOps(a: ScaffoldAnswers): string[] {
  if (a.grad.kind !== 'formulas') return [];
  const names = new Set<string>();
  for (const src of Object.values(a.grad.formulas)) {
    try {
      for (const c of formulaRefs(parseFormula(src)).calls)
        if (c.kind === 'call' && !OPERATOR_OPS.has(c.op)) names.add(c.op);
    } catch {
      // reported when the spec is validated
    }
  }
  return [...names];
}

/** Answers for each backward op the forward's gradient formulas call and neither the model nor the answers define. */
export function missingBackwardOps(a: ScaffoldAnswers, ctx: ScaffoldContext): ScaffoldAnswers[] {
  if (a.grad.kind !== 'formulas') return [];
  const args = argsOf(a, ctx);
  const known = new Set(ctx.model.ops.map((o) => o.name));
  const out = new Map<string, ScaffoldAnswers>();
  for (const [input, src] of Object.entries(a.grad.formulas)) {
    let calls;
    try {
      ({ calls } = formulaRefs(parseFormula(src)));
    } catch {
      continue; // a malformed formula is reported with its file:line:col when the spec is validated
    }
    for (const c of calls) {
      if (c.kind !== 'call' || OPERATOR_OPS.has(c.op) || known.has(c.op) || c.op === a.op || out.has(c.op)) continue;
      checkName(c.op, 'op');
      const params: ArgAnswer[] = [];
      // A keyword argument (`scale=alpha`) names the backward op's arg; it takes the type of the name passed.
      const passed = [
        ...c.args.map((v) => ({ v, as: undefined as string | undefined })),
        ...c.kwargs.map((k) => ({ v: k.value, as: k.name })),
      ];
      for (const [i, { v: arg, as }] of passed.entries()) {
        if (arg.kind !== 'ref')
          throw new ScaffoldError(
            `${c.op} is scaffolded with ${a.op}, from its call in the gradient; argument ${i + 1} is an expression`,
            `pass names only (tensor args, y, dy, attrs), as in ${c.op}(y, dy, axis); or scaffold ${c.op} first`,
          );
        const name = as ?? arg.name;
        if (params.some((p) => p.name === name)) continue;
        const own = args.find((x) => x.name === arg.name);
        const tensor = !own || own.type.startsWith('Tensor');
        params.push(tensor ? { name, type: 'Tensor' } : { name, type: own.type, default: own.default });
      }
      // The forward's checks on the attrs it passes (`axis: axis(x)`) hold for the backward op too: copied where the
      // tensor they name is one of its args (or, for a forward shaped like that tensor, its y or dy, which share it).
      for (const [k, p] of params.entries()) {
        if (p.type === 'Tensor') continue;
        const from = passed.find(({ v, as }) => (as ?? (v.kind === 'ref' ? v.name : '')) === p.name)!.v;
        const own = from.kind === 'ref' ? args.find((x) => x.name === from.name) : undefined;
        const check = own?.check ? backwardCheck(own.check, params, a.out) : undefined;
        if (check) params[k] = { ...p, check };
      }
      const tensors = params.filter((p) => p.type === 'Tensor').map((p) => p.name);
      if (!tensors.length)
        throw new ScaffoldError(`${c.op} (called in the gradient of ${a.op}) would take no tensor`, 'pass it dy');
      out.set(c.op, {
        op: c.op,
        category: a.category,
        doc: `Backward of ${a.op} for '${input}' (scaffolded with ${a.op}: write its kernels).`,
        compute: null,
        schema: null,
        args: params,
        // The gradient of an input has that input's shape; y and dy have it too for an elementwise forward.
        out: `same(${tensors.includes(input) ? input : tensors.includes('y') ? 'y' : tensors[0]})`,
        outputs: null,
        grad: { kind: 'none' },
        fusion: 'opaque',
        cast: 'never',
        relay: null,
        onnx: null,
        dialects: a.dialects,
        tests: { shapes: [[3, 4]], grid: undefined, domain: a.tests.domain },
      });
    }
  }
  return [...out.values()];
}

/**
 * A forward arg's check as the backward op can state it: each `axis(t)`-like part whose tensor `t` the backward takes
 * (or whose y / dy has t's shape, where the forward's out is same(t)) and every part that names no tensor; parts it
 * cannot state are left to its author. Undefined when nothing is left.
 */
function backwardCheck(src: string, params: readonly ArgAnswer[], out: string | null | undefined): string | undefined {
  const tensors = new Set(params.filter((p) => p.type === 'Tensor').map((p) => p.name));
  const parts = src.split(/\s+and\s+/).flatMap((part) => {
    const m = /^(axis|axes|like|nonempty)\(\s*(\w+)\s*\)$/.exec(part.trim());
    if (!m) return [part.trim()];
    const t = m[2]!;
    if (tensors.has(t)) return [part.trim()];
    const alias = out?.replace(/\s+/g, '') === `same(${t})` ? ['y', 'dy'].find((n) => tensors.has(n)) : undefined;
    return alias ? [`${m[1]}(${alias})`] : [];
  });
  return parts.length ? parts.join(' and ') : undefined;
}
