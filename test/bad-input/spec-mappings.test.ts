// ONNX and Relay mappings checked at gen against the targets' own op definitions (generators/data/onnx-schemas.json
// from ONNX's operator changelog, generators/data/relay-ops.json from TVM's Relay op registry): a mapping that names
// an op, attribute, input or opset the target lacks is refused at its file:line:col with the nearest real name, and
// `npm run gen` writes nothing. Also: which args a mapping carries, and so which test cases it can express.

import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildModel } from '../../generators/src/spec/build.ts';
import { loadSpecText } from '../../generators/src/spec/load.ts';
import { generate } from '../../generators/src/generate.ts';
import { SpecErrors } from '../../generators/src/spec/errors.ts';
import { carriedArgs, fixedArgs } from '../../generators/src/spec/targets.ts';
import { emitTests } from '../../generators/src/emit/tests.ts';
import { opSuite } from '../support/op-suite.ts';
import { REPO, SPECS, spec, errorsWith, where, edit } from './spec-texts.ts';

const ONNX_TABLE = JSON.parse(readFileSync(new URL('generators/data/onnx-schemas.json', REPO), 'utf8')) as {
  source: { describe: string };
  ops: Record<string, { since: number; attrs?: Record<string, unknown> }[]>;
};
const RELAY_TABLE = JSON.parse(readFileSync(new URL('generators/data/relay-ops.json', REPO), 'utf8')) as {
  source: { describe: string };
  ops: Record<string, { attrs: Record<string, unknown> | null }>;
};

/** `where` of `needle`, moved `skip` columns right (a value inside a flow sequence the needle pins down). */
function whereIn(file: string, text: string, needle: string, skip: number): string {
  return where(file, text, needle).replace(/:(\d+)$/, (_m, c: string) => `:${Number(c) + skip}`);
}

const SOFTMAX = 'specs/nn/softmax.yaml';
const CUMSUM = 'specs/tensor/cumsum.yaml';
const LRN = 'specs/nn/lrn.yaml';
const FILL = 'specs/tensor/fill_shape.yaml';
const ONNX_SRC = `ONNX ${ONNX_TABLE.source.describe}`;
const TVM_SRC = `TVM ${RELAY_TABLE.source.describe}`;

/** A ConstantOfShape mapping whose value conversion has no dtype arg to type its tensor. */
const FILL_TEXT = `op: fill_shape
doc: A float32 tensor whose shape is the values of shape, every element value.
args:
  shape: { type: Tensor, check: values }
  value: { type: float, default: 0 }
out: custom(constant_of_shape_rule)
grad: none
fusion: opaque
onnx: { op: ConstantOfShape, since: 9, inputs: [shape], attrs: { value: value }, convert: { value: value_tensor } }
dialects: { cpu: 10 }
tests:
  shapes: [[2]]
  inputs: { shape: { dtype: int64, domain: [0, 4] } }
`;

interface Case {
  readonly name: string;
  readonly file: string;
  readonly text: string;
  /** The refusal, exactly as printed, with the location counted by hand. */
  readonly expected: () => string;
}

const cases: Case[] = [
  {
    name: 'an ONNX op that does not exist (NotAnOnnxOp)',
    file: SOFTMAX,
    text: edit(SOFTMAX, 'onnx: { op: Softmax,', 'onnx: { op: NotAnOnnxOp,'),
    expected: () =>
      `${where(SOFTMAX, edit(SOFTMAX, 'onnx: { op: Softmax,', 'onnx: { op: NotAnOnnxOp,'), 'NotAnOnnxOp')}: error: ` +
      `ONNX has no op 'NotAnOnnxOp' (operator schemas of ${ONNX_SRC}, every opset)\n` +
      `  hint: write an ONNX op type of the default domain as docs/Operators.md spells it (generators/data/onnx-schemas.json)`,
  },
  {
    name: "ONNX Softmax's attribute written axes (ONNX says axis)",
    file: SOFTMAX,
    text: edit(SOFTMAX, 'opset: 13, attrs: { axis: axis }', 'opset: 13, attrs: { axes: axis }'),
    expected: () =>
      `${where(SOFTMAX, edit(SOFTMAX, 'opset: 13, attrs: { axis: axis }', 'opset: 13, attrs: { axes: axis }'), 'axes')}: error: ` +
      `ONNX Softmax-13 has no attribute 'axes'\n  hint: did you mean 'axis'?`,
  },
  {
    name: 'a Relay op that does not exist (nn.softmaxx)',
    file: SOFTMAX,
    text: edit(SOFTMAX, 'relay: { op: nn.softmax,', 'relay: { op: nn.softmaxx,'),
    expected: () =>
      `${where(SOFTMAX, spec(SOFTMAX), 'nn.softmax')}: error: Relay has no op 'nn.softmaxx' (op registry of ${TVM_SRC})\n` +
      `  hint: did you mean 'nn.softmax'?`,
  },
  {
    name: "an ONNX since above the mapping's opset",
    file: SOFTMAX,
    text: edit(SOFTMAX, 'since: 13, opset: 13', 'since: 14, opset: 13'),
    expected: () =>
      `${where(SOFTMAX, edit(SOFTMAX, 'since: 13, opset: 13', 'since: 14, opset: 13'), '14')}: error: ` +
      `onnx since (14) is above the mapping's opset (13)\n` +
      `  hint: since is the first opset FromOnnx imports and opset the one inputs and attrs follow: since ≤ opset (Softmax versions: 1, 11, 13)`,
  },
  {
    name: 'an ONNX input list naming an arg twice',
    file: CUMSUM,
    text: edit(CUMSUM, 'inputs: [x, axis]', 'inputs: [x, x]'),
    expected: () =>
      `${whereIn(CUMSUM, edit(CUMSUM, 'inputs: [x, axis]', 'inputs: [x, x]'), 'inputs: [x, x]', 'inputs: [x, '.length)}: error: ` +
      `onnx inputs names 'x' twice (positions 1 and 2)\n` +
      `  hint: each position is one input of the target op: name each arg once, in the target's input order`,
  },
  {
    name: 'a value conversion on an op with no dtype arg to type it',
    file: FILL,
    text: FILL_TEXT,
    expected: () =>
      `${where(FILL, FILL_TEXT, 'value_tensor')}: error: ` +
      `convert: { value: value_tensor } makes a one-element tensor of the op's dtype arg, and fill_shape has no dtype arg\n` +
      "  hint: add an arg `dtype: { type: dtype }` for the tensor's element type, or drop the conversion",
  },
  {
    name: "a made-up Relay attribute 'reverse' on cumsum",
    file: CUMSUM,
    text: edit(CUMSUM, 'exclusive: exclusive } }\nonnx', 'exclusive: exclusive, reverse: exclusive } }\nonnx'),
    expected: () =>
      `${whereIn(CUMSUM, spec(CUMSUM), 'exclusive } }\nonnx', 'exclusive, '.length)}: error: Relay cumsum has no attribute 'reverse' (${TVM_SRC})\n  hint: cumsum's attributes: axis, dtype, exclusive`,
  },
  {
    name: 'an ONNX int attribute mapped from a float arg',
    file: LRN,
    text: edit(LRN, 'attrs: { size: size,', 'attrs: { size: alpha,'),
    expected: () =>
      `${where(LRN, edit(LRN, 'attrs: { size: size,', 'attrs: { size: alpha,'), 'alpha,')}: error: ` +
      `ONNX LRN-13's attribute 'size' is an int, but 'alpha' is float\n  hint: map 'size' from an arg of type int or int? or bool or dtype or dtype?`,
  },
];

describe('spec mappings checked against the ONNX operator schemas and the Relay op registry', () => {
  it('the tables come from the targets, with their versions', () => {
    // Independent facts about the targets, from their documentation: ONNX Softmax changed at opsets 1, 11 and 13
    // and has an `axis` attribute; TVM's ScanopAttrs (cumsum) has axis, dtype and exclusive, no reverse.
    expect(ONNX_TABLE.ops.Softmax!.map((v) => v.since)).toEqual([1, 11, 13]);
    expect(Object.keys(ONNX_TABLE.ops.Softmax!.at(-1)!.attrs!)).toEqual(['axis']);
    expect(Object.keys(ONNX_TABLE.ops.CumSum!.at(-1)!.attrs!).sort()).toEqual(['exclusive', 'reverse']);
    expect(Object.keys(RELAY_TABLE.ops.cumsum!.attrs!).sort()).toEqual(['axis', 'dtype', 'exclusive']);
    expect(ONNX_TABLE.source.describe).toMatch(/^v\d+\.\d+/);
    expect(RELAY_TABLE.source.describe).toBe('v0.19.0');
  });

  it("every repository spec's mappings pass", () => {
    expect(errorsWith({})).toEqual([]);
  });

  it.each(cases.map((c) => [c.name, c] as const))('refuses %s at its file:line:col, with a hint', (_n, c) => {
    expect(errorsWith({ [c.file]: c.text })).toEqual([c.expected()]);
  });
});

describe('`npm run gen` writes nothing when a mapping is refused', () => {
  const root = mkdtempSync(join(tmpdir(), 'raf-op-mappings-'));
  cpSync(new URL('specs', REPO), join(root, 'specs'), { recursive: true });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  /** Every file under root with its size and modification time. */
  function listing(dir = root, prefix = ''): string[] {
    return readdirSync(dir).flatMap((n) => {
      const p = join(dir, n);
      const s = statSync(p);
      return s.isDirectory() ? listing(p, `${prefix}${n}/`) : [`${prefix}${n} ${s.size} ${s.mtimeMs}`];
    });
  }

  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_n, c) => {
    const file = join(root, c.file);
    const original = SPECS.get(c.file);
    writeFileSync(file, c.text);
    const before = listing().sort();
    try {
      const err = await generate(root).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(SpecErrors);
      const message = (err as SpecErrors).message;
      expect(message).toContain(c.expected());
      expect(message).not.toMatch(/\n\s+at /); // no stack trace
      expect(listing().sort()).toEqual(before);
    } finally {
      if (original === undefined) rmSync(file);
      else writeFileSync(file, original);
    }
  });
});

describe('the args a mapping carries', () => {
  const { model, errors } = buildModel([...SPECS].map(([f, t]) => loadSpecText(f, t).spec!));
  const op = (n: string) => model.ops.find((o) => o.name === n)!;

  it('cumsum: Relay carries axis, dtype, exclusive and x; ONNX leaves dtype at its default', () => {
    expect(errors).toEqual([]);
    expect([...carriedArgs(op('cumsum'), 'relay')].sort()).toEqual(['axis', 'dtype', 'exclusive', 'x']);
    expect(fixedArgs(op('cumsum'), 'relay')).toEqual({});
    expect([...carriedArgs(op('cumsum'), 'onnx')].sort()).toEqual(['axis', 'exclusive', 'x']);
    expect(fixedArgs(op('cumsum'), 'onnx')).toEqual({ dtype: null });
  });
});

describe('generated suites run a mapping only over the cases it expresses, and count the rest', () => {
  const SCAN = 'specs/tensor/my_scan.yaml';
  // cumsum with a `reverse` arg that TVM's Relay cumsum does not have (issue 44): the honest mapping leaves it out.
  const scan = edit(CUMSUM, 'op: cumsum', 'op: my_scan')
    .replace(/\ngrad:\n(?: {2}.*\n)+/, '\ngrad: none\n')
    .replace(/\ncast:.*\n/, '\n')
    .replace(/\nonnx:.*\n/, '\n')
    .replace(/\n {2}non_finite_cases:.*\n/, '\n') // its NumPy reference is ONNX's, dropped above
    .replace('exclusive: { type: bool', 'reverse: { type: bool, default: false }\n  exclusive: { type: bool')
    .replace(
      'grid: { axis: [null, 0, -1], exclusive: [false, true] }',
      'grid: { axis: [null, 0, -1], exclusive: [false, true], reverse: [false, true] }',
    );

  it('the emitted FromRelay block names the uncarried arg and how many cases set it', () => {
    const raws = [...SPECS, [SCAN, scan] as const].map(([f, t]) => loadSpecText(f, t).spec!);
    const { model, errors } = buildModel(raws);
    expect(errors.map(String)).toEqual([]);
    const file = emitTests(model).find((f) => f.path.endsWith('/my_scan.test.ts'))!;
    // The emitted text is printed unformatted (quoted keys) until gen formats it.
    const relayBlock = file.content.slice(file.content.search(/'?relay'?:/));
    expect(relayBlock).toMatch(/'?fixed'?:\s*\{\s*'?reverse'?:\s*false,?\s*\}/);
    // shapes × axis × exclusive with reverse: true; the grid has two shapes, three axes, two exclusive values.
    const shapes = 2;
    const axes = 3;
    const exclusives = 2;
    expect(relayBlock).toMatch(new RegExp(`'?inexpressible'?:\\s*${shapes * axes * exclusives}\\b`));
  });
});

// The harness itself: a case setting an arg the mappings do not carry (cumsum's dtype: neither ONNX CumSum nor this
// Relay mapping carries it) is counted in a test title and checked against the generator's count, not run.
opSuite({
  op: 'cumsum',
  spec: CUMSUM,
  dialects: ['cpu'],
  dtypes: ['float64'],
  tensors: ['x'],
  domain: [-2, 2],
  cases: [
    { shapes: { x: [5] }, args: { axis: 0 }, full: { axis: 0, dtype: null, exclusive: false } },
    { shapes: { x: [3, 4] }, args: { axis: -1, exclusive: true }, full: { axis: -1, dtype: null, exclusive: true } },
    { shapes: { x: [5] }, args: { axis: 0, dtype: 'float32' }, full: { axis: 0, dtype: 'float32', exclusive: false } },
  ],
  oracle: {
    kind: 'onnx',
    op: 'CumSum',
    opset: 14,
    inputs: ['x', 'axis'],
    attrs: { exclusive: 'exclusive' },
    flatten: 'axis',
    fixed: { dtype: null },
    inexpressible: 1,
  },
  grad: [],
  errors: [],
  relay: {
    op: 'cumsum',
    args: ['x'],
    attrs: { axis: 'axis', exclusive: 'exclusive' },
    fixed: { dtype: null },
    inexpressible: 1,
  },
});
