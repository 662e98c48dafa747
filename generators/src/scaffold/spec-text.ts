// Answers → the spec as data → YAML text in the repository's spec style, the editor modeline first.

import { posix } from 'node:path';
import { Document, isCollection, type Node } from 'yaml';
import { renderTemplate } from '../emit/stubs.ts';
import { SPECS_DIR } from '../generate.ts';
import { specSchema, targetOf } from '../layout.ts';
import { onnxFirstOpset } from '../spec/targets.ts';
import { format } from '../write.ts';
import type { MappingAnswer, ScaffoldAnswers } from './answers.ts';

export function specPathOf(a: Pick<ScaffoldAnswers, 'op' | 'category'>): string {
  return `${SPECS_DIR}/${a.category}/${a.op}.yaml`;
}

/** The spec as plain data, keys in the order the README documents them. */
export function specData(
  a: ScaffoldAnswers,
  tensors: readonly string[],
  attrs: readonly string[],
): Record<string, unknown> {
  const spec: Record<string, unknown> = { op: a.op, doc: a.doc };
  if (a.schema) spec.schema = a.schema;
  else {
    spec.args = Object.fromEntries(
      a.args.map((arg) => [
        arg.name,
        {
          type: arg.type,
          ...(arg.default ? { default: arg.default.value } : {}),
          ...(arg.check ? { check: arg.check } : {}),
        },
      ]),
    );
  }
  if (a.compute) spec.compute = a.compute;
  const tuple = /^tuple:\s*(.*)$/.exec(a.out);
  spec.out = tuple ? { tuple: tuple[1], ...(a.outputs ? { outputs: [...a.outputs] } : {}) } : a.out;
  // A derived gradient is what an absent `grad` means for a compute op; other kinds are written out.
  if (a.grad.kind === 'custom' || a.grad.kind === 'none') spec.grad = a.grad.kind;
  else if (a.grad.kind === 'formulas') spec.grad = { saves: [...a.grad.saves], ...a.grad.formulas };
  spec.fusion = a.fusion;
  if (a.cast) spec.cast = { rule: a.cast, data_args: dataArgs(tensors) };
  if (a.relay) spec.relay = mapping(a.relay, 'args', attrs);
  if (a.onnx) spec.onnx = mapping(a.onnx, 'inputs', attrs);
  spec.dialects = { ...a.dialects };
  const tests: Record<string, unknown> = {};
  if (a.tests.shapes) tests.shapes = a.tests.shapes;
  if (a.tests.grid) tests.grid = a.tests.grid;
  if (a.tests.domain) tests.domain = [...a.tests.domain];
  if (Object.keys(tests).length) spec.tests = tests;
  return spec;
}

/** Tensor args that hold indices, labels or conditions, by name: AMP must not cast them as data. */
const NOT_DATA = /^(indices|index|idx|ids|labels?|targets?|mask|condition|cond)$|_(indices|index|idx|ids|mask)$/;

/** The cast rule's data args: every tensor arg but index-like ones; a count when they lead, else their names. */
export function dataArgs(tensors: readonly string[]): number | string[] {
  const data = tensors.filter((t) => !NOT_DATA.test(t));
  return data.every((t, i) => tensors[i] === t) ? data.length : data;
}

/** Attrs not given map every non-tensor arg that is not already an input to the attr of the same name. */
function mapping(m: MappingAnswer, inputsKey: 'args' | 'inputs', attrs: readonly string[]): Record<string, unknown> {
  const explicit = Object.keys(m.attrs).length > 0;
  const implied = Object.fromEntries(attrs.filter((n) => !m.inputs?.includes(n)).map((n) => [n, n]));
  const out: Record<string, unknown> = { op: m.op };
  // An ONNX op newer than opset 1 (HardSwish: 14): `since` defaults to 1, which gen refuses as before the op existed.
  const first = inputsKey === 'inputs' ? onnxFirstOpset(m.op) : undefined;
  if (first !== undefined && first > 1) out.since = first;
  if (m.opset !== undefined) out.opset = m.opset;
  if (m.inputs) out[inputsKey] = [...m.inputs];
  const mapped = explicit ? m.attrs : implied;
  if (Object.keys(mapped).length) out.attrs = { ...mapped };
  return out;
}

/** Fields no question asks about: --force keeps them from the spec it replaces. */
const UNASKED_TESTS = ['cases', 'dtypes', 'inputs', 'errors', 'oracle', 'non_finite'];

/**
 * `--force` rewrites the answered fields and keeps what no question covers (tests.cases, dtypes, errors, oracle...;
 * a mapping's defaults, consts and conversions when the mapping's op is unchanged).
 */
function keepUnasked(spec: Record<string, unknown>, previous: Record<string, unknown>): Record<string, unknown> {
  const out = { ...spec };
  const prevTests = (previous.tests ?? {}) as Record<string, unknown>;
  const tests = { ...((out.tests ?? {}) as Record<string, unknown>) };
  for (const k of UNASKED_TESTS) if (k in prevTests) tests[k] = prevTests[k];
  if (Object.keys(tests).length) out.tests = tests;
  for (const key of ['relay', 'onnx'] as const) {
    const now = out[key] as Record<string, unknown> | undefined;
    const before = previous[key] as Record<string, unknown> | undefined;
    if (now && before && now.op === before.op) out[key] = { ...before, ...now };
  }
  if (out.cast && previous.cast && typeof previous.cast === 'object')
    out.cast = { ...(out.cast as object), data_args: (previous.cast as Record<string, unknown>).data_args };
  if (typeof previous.out === 'object' && previous.out && 'dtype' in previous.out && typeof out.out === 'string')
    out.out = { shape: out.out, dtype: (previous.out as Record<string, unknown>).dtype };
  return out;
}

/** Collections written on one line, as the hand-written specs do (`x: { type: Tensor }`). */
const FLOW_PATHS: readonly (readonly string[])[] = [
  ['out'],
  ['grad', 'saves'],
  ['cast'],
  ['relay'],
  ['onnx'],
  ['dialects'],
  ['tests', 'shapes'],
  ['tests', 'grid'],
  ['tests', 'domain'],
  ['tests', 'dtypes'],
];

/** The spec text, formatted by prettier like every other file raf-op writes. */
export async function renderSpec(
  root: string,
  a: ScaffoldAnswers,
  tensors: readonly string[],
  attrs: readonly string[],
  previous?: Record<string, unknown>,
): Promise<string> {
  const data = previous ? keepUnasked(specData(a, tensors, attrs), previous) : specData(a, tensors, attrs);
  const doc = new Document(data);
  const flow = (node: unknown) => {
    if (isCollection(node)) (node as Node & { flow: boolean }).flow = true;
  };
  for (const arg of Object.keys((data.args as object | undefined) ?? {})) flow(doc.getIn(['args', arg], true));
  for (const path of FLOW_PATHS) flow(doc.getIn(path, true));
  // Kept fields (--force) in the hand-written specs' style: one line per case, error and input.
  const tests = (data.tests ?? {}) as Record<string, unknown>;
  for (const key of ['cases', 'errors'])
    if (Array.isArray(tests[key]))
      (tests[key] as unknown[]).forEach((_, i) => flow(doc.getIn(['tests', key, i], true)));
  for (const key of Object.keys((tests.inputs as object | undefined) ?? {}))
    flow(doc.getIn(['tests', 'inputs', key], true));
  const body = doc.toString({ lineWidth: 0 }).trimEnd();
  const path = specPathOf(a);
  const content = renderTemplate('spec.yaml.hbs', {
    op: a.op,
    body,
    schemaPath: posix.relative(posix.dirname(path), specSchema(targetOf(root))),
  });
  return format(root, { path, content, emitter: 'scaffold', source: path, kind: 'stub' });
}
