// Answers → the spec as data → YAML text in the repository's spec style, the editor modeline first.

import { posix } from 'node:path';
import { Document, isCollection, type Node } from 'yaml';
import { renderTemplate } from '../emit/stubs.ts';
import { SPECS_DIR } from '../generate.ts';
import { specSchema, targetOf } from '../layout.ts';
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
  spec.out = a.out;
  // A derived gradient is what an absent `grad` means for a compute op; other kinds are written out.
  if (a.grad.kind === 'custom' || a.grad.kind === 'none') spec.grad = a.grad.kind;
  else if (a.grad.kind === 'formulas') spec.grad = { saves: [...a.grad.saves], ...a.grad.formulas };
  spec.fusion = a.fusion;
  if (a.cast) spec.cast = { rule: a.cast, data_args: tensors.length };
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

/** Attrs not given map every non-tensor arg that is not already an input to the attr of the same name. */
function mapping(m: MappingAnswer, inputsKey: 'args' | 'inputs', attrs: readonly string[]): Record<string, unknown> {
  const explicit = Object.keys(m.attrs).length > 0;
  const implied = Object.fromEntries(attrs.filter((n) => !m.inputs?.includes(n)).map((n) => [n, n]));
  const out: Record<string, unknown> = { op: m.op };
  if (m.opset !== undefined) out.opset = m.opset;
  if (m.inputs) out[inputsKey] = [...m.inputs];
  const mapped = explicit ? m.attrs : implied;
  if (Object.keys(mapped).length) out.attrs = { ...mapped };
  return out;
}

/** Collections written on one line, as the hand-written specs do (`x: { type: Tensor }`). */
const FLOW_PATHS: readonly (readonly string[])[] = [
  ['grad', 'saves'],
  ['cast'],
  ['relay'],
  ['onnx'],
  ['dialects'],
  ['tests', 'shapes'],
  ['tests', 'grid'],
  ['tests', 'domain'],
];

/** The spec text, formatted by prettier like every other file raf-op writes. */
export async function renderSpec(
  root: string,
  a: ScaffoldAnswers,
  tensors: readonly string[],
  attrs: readonly string[],
): Promise<string> {
  const data = specData(a, tensors, attrs);
  const doc = new Document(data);
  const flow = (node: unknown) => {
    if (isCollection(node)) (node as Node & { flow: boolean }).flow = true;
  };
  for (const arg of Object.keys((data.args as object | undefined) ?? {})) flow(doc.getIn(['args', arg], true));
  for (const path of FLOW_PATHS) flow(doc.getIn(path, true));
  const body = doc.toString({ lineWidth: 0 }).trimEnd();
  const path = specPathOf(a);
  const content = renderTemplate('spec.yaml.hbs', {
    op: a.op,
    body,
    schemaPath: posix.relative(posix.dirname(path), specSchema(targetOf(root))),
  });
  return format(root, { path, content, emitter: 'scaffold', source: path, kind: 'stub' });
}
