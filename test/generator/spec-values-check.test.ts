// `check: values` (a tensor arg whose values decide the output type, as range's bounds): where it is refused, and the
// type function it generates (the values read by argValues and handed to the custom rule).

import { describe, expect, it } from 'vitest';
import { buildModel } from '../../generators/src/spec/build.ts';
import { loadSpecText, type RawSpec } from '../../generators/src/spec/load.ts';
import { emitTypes } from '../../generators/src/emit/type.ts';

function build(body: string) {
  const { spec, errors } = loadSpecText('specs/tensor/my_fill.yaml', `op: my_fill\ndoc: Fill.\n${body}grad: none\n`);
  expect(errors.map(String)).toEqual([]);
  return buildModel([spec as RawSpec]);
}

describe("check 'values'", () => {
  it('hands the values of each checked tensor to the custom rule', () => {
    const m = build(
      'args:\n  shape: { type: Tensor, check: values }\n  value: { type: float, default: 0 }\nout: custom(fill_rule)\n',
    );
    expect(m.errors.map(String)).toEqual([]);
    const text = emitTypes(m.model!).find((f) => f.path.endsWith('type/my_fill.ts'))!.content;
    expect(text).toContain("const shapeValues = argValues('my_fill', 'shape', args.shape);");
    expect(text).toContain('fillRule(a, { shape: shapeValues })');
  });

  it('is refused on a number arg and without a custom output rule, naming line and column', () => {
    expect(
      build(
        'args:\n  x: { type: Tensor, check: values }\n  n: { type: int, default: 1, check: values }\nout: same(x)\n',
      ).errors.map(String),
    ).toEqual([
      "specs/tensor/my_fill.yaml:4:29: error: check 'values' hands 'x''s values to a custom output rule, but out is same\n  hint: write out: custom(fn) and read them in its second parameter",
      "specs/tensor/my_fill.yaml:5:38: error: check 'values' reads a tensor's values, but 'n' is int",
    ]);
  });
});
