// Spec `onnx.since`, `onnx.before` and `onnx.accept`: modelled as written, errors located at file:line:col.

import { describe, expect, it } from 'vitest';
import { buildModel } from '../../generators/src/spec/build.ts';
import { loadSpecText } from '../../generators/src/spec/load.ts';

function build(onnx: string) {
  const text = `op: squeeze\ndoc: Squeeze.\nargs:\n  x: { type: Tensor }\n  axis: { type: "int[]?", default: null }\nout: same(x)\ngrad: none\nonnx: ${onnx}\n`;
  const { spec, errors } = loadSpecText('specs/tensor/squeeze.yaml', text);
  const built = buildModel(spec ? [spec] : []);
  return { op: built.model.ops[0], errors: [...errors, ...built.errors].map(String) };
}

describe('spec onnx opset ranges', () => {
  it('models since, the older forms (newest first) and the accepted attributes', () => {
    const { op, errors } = build(
      '{ op: Squeeze, since: 1, opset: 13, inputs: [x, axis], before: { 13: { inputs: [x], attrs: { axes: axis } } }, accept: { foo: 0 } }',
    );
    // `accept` is modelled as written; gen also checks it against ONNX's Squeeze, which has no attribute foo.
    expect(errors).toEqual([
      "specs/tensor/squeeze.yaml:8:128: error: no version of ONNX Squeeze from opset 1 on has an attribute 'foo'\n  hint: attributes: axes",
    ]);
    expect(op!.onnx).toMatchObject({
      since: 1,
      opset: 13,
      before: [{ until: 13, inputs: ['x'], attrs: { axes: 'axis' }, defaults: {} }],
      accept: { foo: 0 },
    });
  });

  it('refuses a form key outside since..opset and a form naming an unknown arg, at their line and column', () => {
    const { errors } = build('{ op: Squeeze, since: 1, opset: 13, before: { 14: { attrs: { axes: axes } } } }');
    expect(errors.join('\n')).toContain(
      "specs/tensor/squeeze.yaml:8:57: error: onnx.before key '14' must be an opset above since (1) and at most opset (13)",
    );
    expect(errors.join('\n')).toContain("names 'axes', which is not an arg of squeeze");
  });
});
