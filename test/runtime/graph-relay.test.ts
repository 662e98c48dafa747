// FromRelay: Relay text (functions, typed params, calls with attrs, lets, tuples, constants) converts through the generated converters.

import { describe, expect, it } from 'vitest';
import { ops, randomUniform, tensor, type Tensor } from '../../runtime/src/index.ts';
import { execute, fromRelay, parseRelay, printGraph, RelayParseError } from '../../runtime/src/graph/index.ts';

const mlp = `#[version = "0.0.5"]
def @main(%x: Tensor[(2, 3), float32], %w: Tensor[(3, 4), float32], %b: Tensor[(4,), float32]) -> (Tensor[(2, 4), float32], Tensor[(2, 1), float32]) {
  %0 = nn.matmul(%x, %w);
  %1 = add(%0, %b);
  let %y: Tensor[(2, 4), float32] = nn.relu(%1);
  %2 = multiply(%y, 2f);
  %3 = (%2, nn.softmax(%2, axis=-1));
  (%3.1, sum(%3.0, axis=[1], keepdims=True))
}`;

describe('FromRelay', () => {
  it('keeps the input dtype of sum and prod as TVM does (raf.op.sum accumulates int8 in int64; Relay wraps)', () => {
    const g = fromRelay(`#[version = "0.0.5"]
def @main(%x: Tensor[(2, 2), int8]) -> (Tensor[(2,), int8], Tensor[(2,), int8]) {
  (sum(%x, axis=[1]), prod(%x, axis=[0]))
}`);
    const [s, p] = execute(g, [tensor([100, 100, 3, 5], { dtype: 'int8', shape: [2, 2] })]);
    expect([s!.dtype, p!.dtype]).toEqual(['int8', 'int8']);
    // Row sums 200 and 8: 200 wraps to 200 - 256 = -56 in int8. Column products 300 and 500: 300 - 256 = 44,
    // 500 - 512 = -12.
    expect(Array.from(s!.dataSync())).toEqual([-56, 8]);
    expect(Array.from(p!.dataSync())).toEqual([44, -12]);
    // The runtime op itself widens, as NumPy's sum does.
    const wide = ops.sum(tensor([100, 100], { dtype: 'int8' }));
    expect([wide.dtype, Number(wide.dataSync()[0])]).toEqual(['int64', 200]);
  });

  it('converts a function with lets, tuples, attrs and constants', () => {
    const g = fromRelay(mlp);
    expect(printGraph(g)).toBe(
      [
        'fn (%x: Tensor[(2, 3), float32], %w: Tensor[(3, 4), float32], %b: Tensor[(4,), float32]) {',
        '  %0 = raf.op.matmul(%x, %w);',
        '  %1 = raf.op.add(%0, %b);',
        '  %2 = raf.op.relu(%1);',
        '  %3 = raf.op.multiply(%2, 2f);',
        '  %4 = raf.op.softmax(%3, -1);',
        '  %5 = raf.op.sum(%3, [1], True);',
        '  (%4, %5)',
        '}',
      ].join('\n'),
    );
    const [x, w, b] = [
      randomUniform([2, 3], { seed: 1 }),
      randomUniform([3, 4], { seed: 2 }),
      randomUniform([4], { seed: 3 }),
    ];
    const [p, s] = execute(g, [x, w, b]);
    const h = ops.multiply(ops.relu(ops.add(ops.matmul(x, w), b)), 2);
    expect(Array.from(p!.dataSync())).toEqual(Array.from(ops.softmax(h, -1).dataSync()));
    expect(Array.from(s!.dataSync())).toEqual(Array.from(ops.sum(h, [1], true).dataSync()));
  });

  it('accepts the fn form and float64 params', () => {
    const g = fromRelay('fn (%a: Tensor[(3,), float64]) {\n  negative(exp(%a))\n}');
    const a = randomUniform([3], { seed: 4, dtype: 'float64' });
    expect(Array.from(execute(g, [a])[0]!.dataSync())).toEqual(Array.from(ops.negative(ops.exp(a)).dataSync()));
  });

  it("reads an omitted attr as Relay's default, not ours", () => {
    // Relay's reductions drop the reduced axes unless told otherwise, and LeakyReluAttrs' alpha is 0.25.
    const g = fromRelay('fn (%x: Tensor[(3, 4), float32]) {\n  (sum(%x, axis=[1]), argmax(%x), nn.leaky_relu(%x))\n}');
    const x = randomUniform([3, 4], { seed: 5, low: -1, high: 1 });
    const [s, a, l] = execute(g, [x]);
    expect([...s!.shape]).toEqual([3]);
    expect([...a!.shape]).toEqual([]);
    expect(Array.from(l!.dataSync())).toEqual(Array.from(ops.leakyRelu(x, 0.25).dataSync()));
  });

  it('names an unknown op and where it is', () => {
    expect(() => fromRelay('fn (%x: Tensor[(1, 2), float32]) {\n  %0 = nn.relu(%x);\n  nn.frobnicate(%0)\n}')).toThrow(
      "FromRelay 3:3: unknown op 'nn.frobnicate'",
    );
  });

  it('names the position of a syntax error and of a bad attr', () => {
    expect(() => parseRelay('fn (%x: Tensor[(2), float32]) {\n  nn.relu(%x;\n}')).toThrow(
      "2:13: expected ',' between arguments, found ';'",
    );
    expect(() => fromRelay('fn (%x: Tensor[(2, 2), float32]) {\n  nn.softmax(%x, axis=5)\n}')).toThrow(
      "FromRelay 2:3: nn.softmax: raf.op.softmax (argument 'axis'): invalid axis = 5 on ndim = 2",
    );
  });
});

describe('FromRelay: TVM text', () => {
  const run = (src: string, inputs: Tensor[], opts = {}): Tensor[] => execute(fromRelay(src, opts), inputs);
  const values = (t: Tensor): number[] => Array.from(t.dataSync());

  it('reads comments, several defs calling each other, closures with attributes and one-element tuples', () => {
    const src = `#[version = "0.0.5"]
/* a module /* with a nested comment */ */
def @twice(%a: Tensor[(2), float32], Primitive=1) -> Tensor[(2), float32] {
  add(%a, %a) // doubles
}
def @main(%x: Tensor[(2), float32]) {
  %0 = fn (%y, Composite="neg") { negative(%y) };
  %1 = (@twice(%0(%x)),);
  (%1, %1.0 * 3f)
}`;
    const x = tensor([1, -2]);
    const [a, b] = run(src, [x]);
    expect(values(a!)).toEqual([-2, 4]);
    expect(values(b!)).toEqual([-6, 12]);
    // the one-element tuple is kept: it has an item .0, and prints as a tuple
    expect(parseRelay(src).main.body.kind).toBe('let');
  });

  it('types literal-only calls by their literals (add(1, 1) is int32) and picks a known if branch', () => {
    const [s, f] = run('fn () {\n  (add(1, 1), if (less(1f, 2f)) { 5i } else { 6i })\n}', []);
    expect(s!.dtype).toBe('int32');
    expect(values(s!)).toEqual([2]);
    expect(values(f!)).toEqual([5]);
  });

  it('turns if/else on a bool graph input into where', () => {
    const src = 'def @main(%c: bool, %x: Tensor[(3), float32]) {\n  if (%c) { %x } else { negative(%x) }\n}';
    const x = tensor([1, 2, 3]);
    expect(values(run(src, [tensor([1], { dtype: 'bool', shape: [] }), x])[0]!)).toEqual([1, 2, 3]);
    expect(values(run(src, [tensor([0], { dtype: 'bool', shape: [] }), x])[0]!)).toEqual([-1, -2, -3]);
  });

  it('takes meta constants from the caller, ? dims from opts.shapes, and Relay defaults (take flattens)', () => {
    const src = `def @main(%x: Tensor[(?, 3), float32]) {
  %0 = add(%x, meta[relay.Constant][0]);
  take(%0, meta[relay.Constant][1])
}`;
    const x = tensor([
      [0, 1, 2],
      [3, 4, 5],
    ]);
    const c = tensor([10, 20, 30]);
    const idx = tensor([4, 0], { dtype: 'int32' });
    const [y] = run(src, [x], { meta: { 'relay.Constant': [c, idx] }, shapes: { x: [2, 3] } });
    expect(values(y!)).toEqual([24, 10]);
    expect(() => fromRelay(src)).toThrow("FromRelay 1:15: parameter %x has a '?' dimension");
    expect(() => fromRelay(src, { shapes: { x: [2, 3] } })).toThrow(
      "FromRelay 2:16: meta[relay.Constant][0] is not supplied: pass it in opts.meta['relay.Constant']",
    );
  });

  it('reads a #[metadata] section with TVM-encoded constants', () => {
    // One float32 NDArray [2] = [1.5, -2], as TVM's SaveDLTensor writes it.
    const bytes = new Uint8Array(8 + 8 + 8 + 4 + 4 + 8 + 8 + 8);
    const v = new DataView(bytes.buffer);
    v.setBigUint64(0, 0xdd5e40f096b4a13fn, true);
    v.setInt32(16, 1, true); // device: CPU
    v.setInt32(24, 1, true); // ndim
    v.setUint8(28, 2); // float
    v.setUint8(29, 32);
    v.setUint16(30, 1, true);
    v.setBigInt64(32, 2n, true);
    v.setBigInt64(40, 8n, true);
    v.setFloat32(48, 1.5, true);
    v.setFloat32(52, -2, true);
    const b64 = btoa(String.fromCharCode(...bytes));
    const meta = JSON.stringify({
      root: 1,
      nodes: [
        { type_key: '' },
        { type_key: 'Map', keys: ['relay.Constant'], data: [2] },
        { type_key: 'Array', data: [3] },
        { type_key: 'relay.Constant', attrs: { data: '0', span: '0' } },
      ],
      b64ndarrays: [b64],
      attrs: { tvm_version: '0.18.0' },
    });
    const src = `def @main(%x: Tensor[(2), float32]) {\n  multiply(%x, meta[relay.Constant][0])\n}\n#[metadata]\n${meta}`;
    expect(values(run(src, [tensor([2, 3])])[0]!)).toEqual([3, -6]);
  });

  it('honours NHWC/HWIO layouts, checks channels and kernel_size, and names a layout it refuses', () => {
    const x = randomUniform([1, 5, 5, 2], { seed: 7 });
    const w = randomUniform([3, 3, 2, 4], { seed: 8 });
    const nhwc = run(
      `fn (%x: Tensor[(1, 5, 5, 2), float32], %w: Tensor[(3, 3, 2, 4), float32]) {
  nn.conv2d(%x, %w, padding=[1, 1], channels=4, kernel_size=[3, 3], data_layout="NHWC", kernel_layout="HWIO")
}`,
      [x, w],
    )[0]!;
    const want = ops.transpose(
      ops.conv2d(ops.transpose(x, [0, 3, 1, 2]), ops.transpose(w, [3, 2, 0, 1]), [1, 1], [1, 1, 1, 1]),
      [0, 2, 3, 1],
    );
    expect(values(nhwc)).toEqual(values(want));
    const bad =
      (attrs: string): (() => unknown) =>
      () =>
        fromRelay(
          `fn (%x: Tensor[(1, 2, 5, 5), float32], %w: Tensor[(4, 2, 3, 3), float32]) {\n  nn.conv2d(%x, %w, ${attrs})\n}`,
        );
    expect(bad('channels=8')).toThrow('FromRelay 2:3: nn.conv2d: channels=8 disagrees with the inputs, which give 4');
    expect(bad('kernel_size=[5, 5]')).toThrow('kernel_size=[5,5] disagrees');
    expect(bad('data_layout="NCHW16c"')).toThrow("layout 'NCHW16c' is not supported");
  });

  it('imports RAF IR text, including what printGraph writes', () => {
    const g = fromRelay(mlp);
    const again = fromRelay(printGraph(g));
    const inputs = [
      randomUniform([2, 3], { seed: 1 }),
      randomUniform([3, 4], { seed: 2 }),
      randomUniform([4], { seed: 3 }),
    ];
    const [a, b] = [execute(g, inputs), execute(again, inputs)];
    expect(a.map(values)).toEqual(b.map(values));
    const raf =
      'def @main(%x: Tensor[(2, 3), float32]) {\n  let %a = raf.op.sum(%x, [1], True, str"unused-not-an-arg");\n  %a\n}';
    expect(() => fromRelay(raf)).toThrow('FromRelay 2:12: raf.op.sum');
  });

  it('names unsupported constructs, and reports more than one error', () => {
    expect(() => parseRelay('type List[A] { Nil }\ndef @main() { 1 }')).toThrow(
      "1:1: algebraic data types ('type' definitions) are not supported",
    );
    expect(() => parseRelay('def @main(%x: Tensor[(2), float32]) {\n  match (%x) { _ => %x }\n}')).toThrow(
      "2:3: 'match' on algebraic data types is not supported",
    );
    let err: RelayParseError | undefined;
    try {
      parseRelay('def @main(%x: Tensor[(2), float32]) {\n  %0 = nn.relu(%x;\n  %1 = add(%0 %0);\n  %1\n}');
    } catch (e) {
      err = e as RelayParseError;
    }
    expect(err?.errors.map((e) => `${e.pos.line}:${e.pos.col}`)).toEqual(['2:18', '3:15']);
    expect(() => fromRelay('def @main(%x: Tensor[(2), int4]) {\n  %x\n}')).toThrow(
      "FromRelay 1:15: parameter %x has dtype 'int4', which raf-op's runtime does not have",
    );
    expect(() => fromRelay('def @main(%x: Tensor[(2), float32]) {\n  fn (%y) { %y }\n}')).toThrow(
      '@main returns a function',
    );
  });
});
