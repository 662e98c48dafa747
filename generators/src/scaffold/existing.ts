// `--force` on an existing op starts from that op's spec: each question's default is the spec's current answer,
// in the one-line syntax the flag takes, so replacing one answer keeps all the others.

import type { OpModel, ShapeRule } from '../spec/model.ts';
import { checkText } from '../emit/docs.ts';
import { formatDialects, formatMapping } from './answers.ts';

function ruleText(r: ShapeRule): string {
  switch (r.kind) {
    case 'same':
      return `same(${r.of})`;
    case 'broadcast':
      return `broadcast(${r.of.join(', ')})`;
    case 'reduce':
      return `reduce(${[r.x, r.axis, ...(r.keepdims ? [r.keepdims] : [])].join(', ')})`;
    case 'matmul':
      return `matmul(${r.a}, ${r.b}${r.mode === 'nn' ? '' : `, ${r.mode}`})`;
    case 'concat':
      return `concat(${r.xs}, ${r.axis})`;
    case 'custom':
      return `custom(${r.fn})`;
    case 'host':
      return 'host';
  }
}

const flow = (v: unknown) => JSON.stringify(v).replace(/,/g, ', ').replace(/:/g, ': ');

/** Answer text per question name, as the existing spec gives it; a question missing here keeps its usual default. */
export function existingAnswers(op: OpModel): Partial<Record<string, string>> {
  const g = op.grad;
  const out: Partial<Record<string, string>> = {
    doc: op.doc,
    compute: op.compute?.source ?? '',
    schema: op.schema !== op.name ? op.schema : '',
    args: op.args
      .map(
        (a) =>
          `${a.name}: ${a.type}${a.default ? ` = ${JSON.stringify(a.default.value)}` : ''}${a.checks.length ? ` check ${a.checks.map(checkText).join(' and ')}` : ''}`,
      )
      .join(', '),
    out: op.out.tuple ? `tuple: ${ruleText(op.out.shape)}` : ruleText(op.out.shape),
    outputs: op.out.outputs?.join(', ') ?? '',
    gradKind: g.kind === 'formulas' ? 'formula' : g.kind,
    grad: g.kind === 'formulas' ? g.inputs.map((i) => `${i.name}: ${i.source}`).join(', ') : undefined,
    saves: g.kind === 'formulas' ? g.saves.join(', ') || 'none' : undefined,
    fusion: op.fusion,
    cast: op.cast?.rule ?? 'none',
    relay: formatMapping(
      op.relay && {
        op: op.relay.op,
        ...(op.relay.args.length ? { inputs: op.relay.args } : {}),
        attrs: op.relay.attrs,
      },
      'args',
    ),
    onnx: formatMapping(
      op.onnx && { op: op.onnx.op, opset: op.onnx.opset, inputs: op.onnx.inputs, attrs: op.onnx.attrs },
      'inputs',
    ),
    dialects: formatDialects(Object.fromEntries(op.dialects.map((d) => [d.name, d.level]))),
    shapes: flow(op.tests.shapes.map((s) => (s.length === 1 ? s[0] : s))),
    grid: Object.keys(op.tests.grid).length ? flow(op.tests.grid) : '',
    domain: flow(op.tests.domain),
  };
  return out;
}
