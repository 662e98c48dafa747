// FromOnnx on small models built here, one per op the importer gained as a spec (GatherElements, Tile, ScatterND,
// Einsum, Flatten, ...): each runs in raf-op (CPU, and WebGPU when there is an adapter) and in onnxruntime-node, and
// every output must agree within 1e-4 (CPU) and 1e-3 (WebGPU, float32 in WGSL).

import { describe, expect, it, vi } from 'vitest';
import { getOp, initWebGpu, loadOnnx, ops, randomUniform, tensor, type Tensor } from '../../runtime/src/index.ts';
import { execute, moveGraph, printGraph } from '../../runtime/src/graph/index.ts';
import { fromOnnx } from '../../runtime/src/graph/frontends/from-onnx.ts';
import { buildModel, type InitializerSpec, type ModelSpec, type NodeSpec } from '../support/onnx-proto.ts';
import { runOnnxModel, toFloat64, type OracleTensor } from '../support/onnx-oracle.ts';
import { assertAllClose } from '../support/assert.ts';

const REQUIRE_GPU = Boolean(process.env.CI) || process.env.RAF_REQUIRE_WEBGPU === '1';
const gpu = await initWebGpu().catch(() => false);
if (REQUIRE_GPU && !gpu) throw new Error('WebGPU is required here but no adapter was found');

const ints = (name: string, values: number[], shape = [values.length]): InitializerSpec => ({
  name,
  dtype: 'int64',
  shape,
  data: values,
});
const floats = (name: string, shape: number[], seed: number): InitializerSpec => ({
  name,
  dtype: 'float32',
  shape,
  data: Array.from(randomUniform(shape, { seed, low: -1, high: 1 }).dataSync()),
});

/** A float32 or int64 input (the int64 the model declares, fed to onnxruntime as BigInts). */
function oracleFeed(t: Tensor): OracleTensor {
  if (t.dtype === 'int64')
    return { dtype: 'int64', shape: [...t.shape], data: BigInt64Array.from(Array.from(t.dataSync()), BigInt) };
  return { dtype: 'float32', shape: [...t.shape], data: t.dataSync() as Float32Array };
}

/** Imports the model, runs it here and in onnxruntime on `feeds`; returns the graph's text and the worst error. */
async function agree(spec: ModelSpec, feeds: Record<string, Tensor>): Promise<{ text: string; maxError: number }> {
  const bytes = buildModel(spec);
  const g = fromOnnx(bytes);
  const names = spec.inputs.map((i) => i.name);
  const theirs = await runOnnxModel(bytes, Object.fromEntries(names.map((n) => [n, oracleFeed(feeds[n]!)])));
  let maxError = 0;
  const check = async (ours: Tensor[], where: string, tol: number) => {
    expect(ours.length).toBe(theirs.length);
    for (const [i, t] of ours.entries()) {
      expect([...t.shape]).toEqual(theirs[i]!.shape);
      const [a, b] = [Array.from(await t.data()), Array.from(toFloat64(theirs[i]!))];
      a.forEach((v, k) => (maxError = Math.max(maxError, Math.abs(v - b[k]!) / Math.max(1, Math.abs(b[k]!)))));
      assertAllClose(a, b, { atol: tol, rtol: tol }, `output ${i} (${where}) vs onnxruntime`);
    }
  };
  const args = names.map((n) => feeds[n]!);
  await check(execute(g, args), 'cpu', 1e-4);
  if (gpu) {
    const onGpu = await Promise.all(args.map((a) => a.to('webgpu')));
    await check(execute(await moveGraph(g, 'webgpu'), onGpu), 'webgpu', 1e-3);
  }
  return { text: printGraph(g), maxError };
}

const model = (
  nodes: NodeSpec[],
  inputs: ModelSpec['inputs'],
  initializers: InitializerSpec[] = [],
  opset = 17,
  outputs = [{ name: 'y' }],
): ModelSpec => ({ nodes, inputs, outputs, initializers, opset });

describe(`FromOnnx ops as specs (CPU${gpu ? ' and WebGPU' : ''}) vs onnxruntime-node`, () => {
  it('GatherElements along axis 1 with constant indices, then along axis 0 with indices computed at run time', async () => {
    const idx = tensor([0, -1, 2, 1, 1, 0, 3, 2, -4, 0, 1, 2], { dtype: 'int32', shape: [3, 4] });
    const { text, maxError } = await agree(
      model(
        [
          { op: 'GatherElements', inputs: ['x', 'i1'], outputs: ['a'], attrs: { axis: 1 } },
          { op: 'GatherElements', inputs: ['a', 'i0'], outputs: ['y'], attrs: { axis: 0 } },
        ],
        [
          { name: 'x', dtype: 'float32', shape: [3, 5] },
          { name: 'i0', dtype: 'int64', shape: [2, 3] },
        ],
        [ints('i1', Array.from(idx.dataSync()), [3, 4])],
        13,
      ),
      {
        x: randomUniform([3, 5], { seed: 1 }),
        i0: tensor([2, 0, -1, 1, 1, 0], { dtype: 'int64', shape: [2, 3] }),
      },
    );
    expect(text.match(/raf\.op\.gather_elements/g)).toHaveLength(2);
    console.log(`GatherElements max error ${maxError.toExponential(2)}`);
  });

  it('Tile of a run-time tensor by constant repeats, at opset 6 and 13', async () => {
    for (const opset of [6, 13]) {
      const { text, maxError } = await agree(
        model(
          [
            { op: 'Tile', inputs: ['x', 'reps'], outputs: ['t'] },
            { op: 'Relu', inputs: ['t'], outputs: ['y'] },
          ],
          [{ name: 'x', dtype: 'float32', shape: [2, 1, 3] }],
          [ints('reps', [2, 3, 1])],
          opset,
        ),
        { x: randomUniform([2, 1, 3], { seed: 2 }) },
      );
      expect(text).toContain('raf.op.tile(%x, [2, 3, 1])');
      console.log(`Tile (opset ${opset}) max error ${maxError.toExponential(2)}`);
    }
  });

  it('ScatterND of run-time updates at constant indices (opset 11), and with reduction add (opset 16)', async () => {
    const cases: { opset: number; attrs: Record<string, string> }[] = [
      { opset: 11, attrs: {} },
      { opset: 16, attrs: { reduction: 'add' } },
    ];
    for (const { opset, attrs } of cases) {
      const { text, maxError } = await agree(
        model(
          [{ op: 'ScatterND', inputs: ['x', 'idx', 'u'], outputs: ['y'], attrs }],
          [
            { name: 'x', dtype: 'float32', shape: [4, 3, 2] },
            { name: 'u', dtype: 'float32', shape: [3, 2] },
          ],
          [ints('idx', [1, 2, -1, 0, 1, 2], [3, 2])],
          opset,
        ),
        { x: randomUniform([4, 3, 2], { seed: 3 }), u: randomUniform([3, 2], { seed: 4 }) },
      );
      expect(text).toContain('raf.op.scatter_nd(%x');
      console.log(`ScatterND (opset ${opset}) max error ${maxError.toExponential(2)}`);
    }
  });

  it('Einsum: attention scores and weighted values, a transpose, a row sum and an outer product', async () => {
    const { text, maxError } = await agree(
      model(
        [
          { op: 'Einsum', inputs: ['q', 'k'], outputs: ['s'], attrs: { equation: 'bhqd,bhkd->bhqk' } },
          { op: 'Softmax', inputs: ['s'], outputs: ['p'], attrs: { axis: -1 } },
          { op: 'Einsum', inputs: ['p', 'k'], outputs: ['a'], attrs: { equation: 'bhqk,bhkd->bhqd' } },
          { op: 'Einsum', inputs: ['a'], outputs: ['t'], attrs: { equation: 'bhqd->bhdq' } },
          { op: 'Einsum', inputs: ['t'], outputs: ['r'], attrs: { equation: 'bhdq->bq' } },
          { op: 'Einsum', inputs: ['r', 'w'], outputs: ['y'], attrs: { equation: 'bq,j->bqj' } },
        ],
        [
          { name: 'q', dtype: 'float32', shape: [2, 2, 3, 4] },
          { name: 'k', dtype: 'float32', shape: [2, 2, 5, 4] },
        ],
        [floats('w', [3], 5)],
        12,
      ),
      { q: randomUniform([2, 2, 3, 4], { seed: 6 }), k: randomUniform([2, 2, 5, 4], { seed: 7 }) },
    );
    expect(text.match(/raf\.op\.einsum/g)).toHaveLength(5);
    console.log(`Einsum max error ${maxError.toExponential(2)}`);
  });

  it('Flatten at axes 0, 2 and -1 (opsets 9 and 13), and Not of a comparison selecting with Where', async () => {
    for (const [opset, axis] of [
      [9, 0],
      [9, 2],
      [13, -1],
    ] as const) {
      const { text, maxError } = await agree(
        model(
          [
            { op: 'Flatten', inputs: ['x'], outputs: ['f'], attrs: { axis } },
            { op: 'Greater', inputs: ['f', 'zero'], outputs: ['g'] },
            { op: 'Not', inputs: ['g'], outputs: ['n'] },
            { op: 'Where', inputs: ['n', 'f', 'zero'], outputs: ['y'] },
          ],
          [{ name: 'x', dtype: 'float32', shape: [2, 3, 4] }],
          [{ name: 'zero', dtype: 'float32', shape: [], data: [0] }],
          opset,
        ),
        { x: randomUniform([2, 3, 4], { seed: 8 }) },
      );
      expect(text).toContain(`raf.op.flatten(%x, ${axis})`);
      expect(text).toContain('raf.op.logical_not(');
      console.log(`Flatten (axis ${axis}, opset ${opset}) and Not max error ${maxError.toExponential(2)}`);
    }
  });

  it('GRU forward, reverse and bidirectional, linear_before_reset 0 and 1, with and without biases and initial state', async () => {
    const [T, B, I, H] = [4, 2, 3, 5];
    const cases = [
      { direction: 'forward', lbr: 0, bias: true, h0: false },
      { direction: 'reverse', lbr: 1, bias: true, h0: true },
      { direction: 'bidirectional', lbr: 0, bias: false, h0: true },
      { direction: 'bidirectional', lbr: 1, bias: true, h0: false },
    ];
    for (const [k, c] of cases.entries()) {
      const dirs = c.direction === 'bidirectional' ? 2 : 1;
      const inputs = ['x', 'W', 'R', c.bias ? 'B' : '', '', c.h0 ? 'h0' : ''];
      while (!inputs[inputs.length - 1]) inputs.pop();
      const { text, maxError } = await agree(
        model(
          [
            {
              op: 'GRU',
              inputs,
              outputs: ['y', 'yh'],
              attrs: { hidden_size: H, direction: c.direction, linear_before_reset: c.lbr },
            },
          ],
          [{ name: 'x', dtype: 'float32', shape: [T, B, I] }],
          [
            floats('W', [dirs, 3 * H, I], 10 + k),
            floats('R', [dirs, 3 * H, H], 20 + k),
            ...(c.bias ? [floats('B', [dirs, 6 * H], 30 + k)] : []),
            ...(c.h0 ? [floats('h0', [dirs, B, H], 40 + k)] : []),
          ],
          14,
          [{ name: 'y' }, { name: 'yh' }],
        ),
        { x: randomUniform([T, B, I], { seed: 50 + k }) },
      );
      expect(text).toContain('raf.op.gru(');
      console.log(`GRU ${c.direction} linear_before_reset=${c.lbr} max error ${maxError.toExponential(2)}`);
    }
  });

  it('LSTM as the lstm op: default activations spelled out, sequence_lens, initial states; refusals name the node', async () => {
    const [T, B, I, H] = [3, 2, 4, 3];
    const lstmNode = (inputs: string[], attrs: Record<string, unknown> = {}) =>
      model(
        [
          {
            op: 'LSTM',
            inputs,
            outputs: ['y', 'yh', 'yc'],
            attrs: { hidden_size: H, direction: 'bidirectional', ...attrs },
          },
        ],
        [{ name: 'x', dtype: 'float32', shape: [T, B, I] }],
        [
          floats('W', [2, 4 * H, I], 60),
          floats('R', [2, 4 * H, H], 61),
          floats('B', [2, 8 * H], 62),
          { name: 'lens', dtype: 'int32', shape: [B], data: [3, 2] },
          floats('h0', [2, B, H], 63),
          floats('c0', [2, B, H], 64),
          floats('P', [2, 3 * H], 65),
        ],
        14,
        [{ name: 'y' }, { name: 'yh' }, { name: 'yc' }],
      );
    const acts = { activations: ['Sigmoid', 'Tanh', 'Tanh', 'Sigmoid', 'Tanh', 'Tanh'] };
    const { text, maxError } = await agree(lstmNode(['x', 'W', 'R', 'B', 'lens', 'h0', 'c0'], acts), {
      x: randomUniform([T, B, I], { seed: 66 }),
    });
    expect(text).toContain('raf.op.lstm(');
    expect(text).not.toContain('raf.op.sigmoid');
    console.log(`LSTM bidirectional with sequence_lens max error ${maxError.toExponential(2)}`);
    // Peepholes are imported (unrolled over time): test/runtime/onnx-extra-forms.test.ts checks them.
    expect(() => fromOnnx(buildModel(lstmNode(['x', 'W', 'R'], { clip: { float: 3 } })))).toThrow(
      /node 0 \('n0_LSTM', LSTM\): LSTM clip is not imported/,
    );
    expect(() =>
      fromOnnx(
        buildModel(lstmNode(['x', 'W', 'R'], { activations: ['Relu', 'Tanh', 'Tanh', 'Relu', 'Tanh', 'Tanh'] })),
      ),
    ).toThrow(/node 0 \('n0_LSTM', LSTM\): LSTM with custom activations/);
  });

  it('LSTM (with and without peepholes) and GRU with layout 1 (batch first) equal onnxruntime on the same model in layout 0, transposed', async () => {
    // onnxruntime refuses layout 1, so the reference is its layout-0 run of the same weights on the transposed
    // input and initial states, its outputs transposed to batch first.
    const [T, B, I, H] = [3, 2, 4, 3];
    const swap01 = (t: { shape: number[]; data: ArrayLike<number> }, perm: number[]) =>
      ops.transpose(tensor(Array.from(t.data), { shape: t.shape }), perm);
    for (const [op, peepholes] of [
      ['LSTM', false],
      ['LSTM', true],
      ['GRU', false],
    ] as const) {
      const gates = op === 'LSTM' ? 4 : 3;
      const outs = op === 'LSTM' ? ['y', 'yh', 'yc'] : ['y', 'yh'];
      const states = op === 'LSTM' ? ['h0', 'c0'] : ['h0'];
      const weights = [
        floats('W', [2, gates * H, I], 70),
        floats('R', [2, gates * H, H], 71),
        floats('B', [2, 2 * gates * H], 72),
        { name: 'lens', dtype: 'int32' as const, shape: [B], data: [3, 2] },
        ...(peepholes ? [floats('P', [2, 3 * H], 73)] : []),
      ];
      const spec = (layout: number, shape: number[]): ModelSpec =>
        model(
          [
            {
              op,
              inputs: ['x', 'W', 'R', 'B', 'lens', ...states, ...(peepholes ? ['P'] : [])],
              outputs: outs,
              attrs: { hidden_size: H, direction: 'bidirectional', layout },
            },
          ],
          [
            { name: 'x', dtype: 'float32', shape },
            ...states.map((name) => ({ name, dtype: 'float32' as const, shape: layout ? [B, 2, H] : [2, B, H] })),
          ],
          weights,
          14,
          outs.map((name) => ({ name })),
        );
      const x = randomUniform([B, T, I], { seed: 75 });
      const init = states.map((_, k) => randomUniform([B, 2, H], { seed: 76 + k }));
      const ours = execute(fromOnnx(buildModel(spec(1, [B, T, I]))), [x, ...init]);
      // Peepholes unroll into matmuls; without them the node is one lstm or gru call.
      const printed = printGraph(fromOnnx(buildModel(spec(1, [B, T, I]))));
      if (peepholes) expect(printed).not.toContain('raf.op.lstm(');
      else expect(printed).toContain(`raf.op.${op.toLowerCase()}(`);
      const feed = (t: Tensor) => oracleFeed(t);
      const theirs = await runOnnxModel(buildModel(spec(0, [T, B, I])), {
        x: feed(swap01({ shape: [...x.shape], data: x.dataSync() }, [1, 0, 2])),
        ...Object.fromEntries(states.map((n, k) => [n, feed(ops.transpose(init[k]!, [1, 0, 2]))])),
      });
      expect(ours.length).toBe(theirs.length);
      theirs.forEach((t, k) => {
        // Y [seq, directions, batch, hidden] to [batch, seq, directions, hidden]; states [directions, batch, hidden] to
        // [batch, directions, hidden].
        const want = swap01({ shape: t.shape, data: toFloat64(t) }, k === 0 ? [2, 0, 1, 3] : [1, 0, 2]);
        expect([...ours[k]!.shape]).toEqual([...want.shape]);
        assertAllClose(
          Array.from(ours[k]!.dataSync()),
          Array.from(want.dataSync()),
          { atol: 1e-5, rtol: 1e-5 },
          `${op}${peepholes ? ' with peepholes' : ''} output ${k}`,
        );
      });
    }
  });

  it('Loop with a known trip count and condition unrolls (carried value, iteration number, scan output)', async () => {
    const body = {
      nodes: [
        { op: 'Cast', inputs: ['iter'], outputs: ['fi'], attrs: { to: 1 } },
        { op: 'Add', inputs: ['h_in', 'w'], outputs: ['a'] },
        { op: 'Mul', inputs: ['a', 'fi'], outputs: ['b'] },
        { op: 'Tanh', inputs: ['b'], outputs: ['h_out'] },
        { op: 'Identity', inputs: ['cond_in'], outputs: ['cond_out'] },
        { op: 'Sigmoid', inputs: ['h_out'], outputs: ['scan'] },
      ],
      inputs: [
        { name: 'iter', dtype: 'int64' as const, shape: [] },
        { name: 'cond_in', dtype: 'bool' as const, shape: [] },
        { name: 'h_in', dtype: 'float32' as const, shape: [2, 3] },
      ],
      outputs: [
        { name: 'cond_out', dtype: 'bool' as const, shape: [] },
        { name: 'h_out', dtype: 'float32' as const, shape: [2, 3] },
        { name: 'scan', dtype: 'float32' as const, shape: [2, 3] },
      ],
    };
    const { text, maxError } = await agree(
      model(
        [{ op: 'Loop', inputs: ['M', 'go', 'x'], outputs: ['y', 'ys'], attrs: { body: { graph: body } } }],
        [{ name: 'x', dtype: 'float32', shape: [2, 3] }],
        [
          { name: 'M', dtype: 'int64', shape: [], data: [3] },
          { name: 'go', dtype: 'bool', shape: [], data: [1] },
          floats('w', [2, 3], 60),
        ],
        13,
        [{ name: 'y' }, { name: 'ys' }],
      ),
      { x: randomUniform([2, 3], { seed: 61 }) },
    );
    expect(text.match(/raf\.op\.tanh/g)).toHaveLength(3);
    console.log(`Loop max error ${maxError.toExponential(2)}`);
    // A trip count known only at run time is refused, naming the node.
    const dynamic = buildModel(
      model(
        [{ op: 'Loop', inputs: ['M', 'go', 'x'], outputs: ['y', 'ys'], attrs: { body: { graph: body } } }],
        [
          { name: 'x', dtype: 'float32', shape: [2, 3] },
          { name: 'M', dtype: 'int64', shape: [] },
        ],
        [{ name: 'go', dtype: 'bool', shape: [], data: [1] }, floats('w', [2, 3], 60)],
        13,
        [{ name: 'y' }, { name: 'ys' }],
      ),
    );
    expect(() => fromOnnx(dynamic)).toThrow(
      "FromOnnx node 0 ('n0_Loop', Loop): Loop's trip count is computed at run time, but must be known when the model is imported (unrolled)",
    );
  });

  it('Resize cubic: up and down, half_pixel, align_corners and asymmetric, cubic_coeff_a, exclude_outside', async () => {
    const cases: { attrs: Record<string, string | number>; scales?: number[]; sizes?: number[] }[] = [
      { attrs: {}, scales: [1, 1, 2, 1.5] },
      { attrs: { coordinate_transformation_mode: 'align_corners', cubic_coeff_a: -0.5 }, sizes: [1, 2, 7, 3] },
      { attrs: { coordinate_transformation_mode: 'asymmetric', exclude_outside: 1 }, scales: [1, 1, 0.5, 2] },
      { attrs: { coordinate_transformation_mode: 'pytorch_half_pixel', exclude_outside: 1 }, sizes: [1, 2, 3, 9] },
    ];
    for (const [k, c] of cases.entries()) {
      const given = c.scales
        ? { name: 'scales', dtype: 'float32' as const, shape: [4], data: c.scales }
        : ints('sizes', c.sizes!);
      const { text, maxError } = await agree(
        model(
          [
            {
              op: 'Resize',
              inputs: c.scales ? ['x', '', 'scales'] : ['x', '', '', 'sizes'],
              outputs: ['y'],
              attrs: { mode: 'cubic', ...c.attrs },
            },
          ],
          [{ name: 'x', dtype: 'float32', shape: [1, 2, 4, 5] }],
          [given],
          13,
        ),
        { x: randomUniform([1, 2, 4, 5], { seed: 70 + k }) },
      );
      expect(text).toContain('raf.op.resize(%x');
      console.log(`Resize cubic ${JSON.stringify(c.attrs)} max error ${maxError.toExponential(2)}`);
    }
  });

  it('3-D Conv with a bias, pads, strides, dilations and groups, and with auto_pad SAME_UPPER', async () => {
    const cases: { attrs: Record<string, number[] | number | string>; w: number[] }[] = [
      { attrs: { pads: [1, 0, 1, 1, 1, 0], strides: [2, 1, 1] }, w: [4, 2, 3, 2, 3] },
      { attrs: { dilations: [2, 1, 1], group: 2 }, w: [4, 1, 2, 3, 2] },
      { attrs: { auto_pad: 'SAME_UPPER', strides: [1, 2, 2] }, w: [3, 2, 3, 3, 3] },
    ];
    for (const [k, c] of cases.entries()) {
      const { text, maxError } = await agree(
        model(
          [{ op: 'Conv', inputs: ['x', 'w', 'b'], outputs: ['y'], attrs: c.attrs }],
          [{ name: 'x', dtype: 'float32', shape: [2, 2, 5, 6, 5] }],
          [floats('w', c.w, 80 + k), floats('b', [c.w[0]!], 90 + k)],
          11,
        ),
        { x: randomUniform([2, 2, 5, 6, 5], { seed: 85 + k }) },
      );
      expect(text).toContain('raf.op.conv2d');
      console.log(`Conv 3-D ${JSON.stringify(c.attrs)} max error ${maxError.toExponential(2)}`);
    }
  });

  it('ConvTranspose as raf.op.conv_transpose: 1-D and 2-D, bias or none, output_padding, groups, auto_pad, output_shape, opsets 1 to 17', async () => {
    const cases: {
      x: number[];
      w: number[];
      bias: boolean;
      attrs: Record<string, number[] | number | string>;
      opset: number;
    }[] = [
      {
        x: [2, 4, 5, 4],
        w: [4, 3, 3, 3],
        bias: true,
        attrs: { strides: [2, 2], pads: [1, 0, 1, 1], output_padding: [1, 0] },
        opset: 17,
      },
      {
        x: [1, 4, 4, 3],
        w: [4, 1, 2, 3],
        bias: false,
        attrs: { group: 2, dilations: [2, 1], kernel_shape: [2, 3] },
        opset: 11,
      },
      { x: [2, 3, 6], w: [3, 2, 4], bias: true, attrs: { strides: [3], auto_pad: 'SAME_LOWER' }, opset: 1 },
      { x: [1, 2, 3, 3], w: [2, 2, 3, 3], bias: true, attrs: { strides: [2, 2], output_shape: [8, 6] }, opset: 13 },
    ];
    for (const [k, c] of cases.entries()) {
      const { text, maxError } = await agree(
        model(
          [{ op: 'ConvTranspose', inputs: c.bias ? ['x', 'w', 'b'] : ['x', 'w'], outputs: ['y'], attrs: c.attrs }],
          [{ name: 'x', dtype: 'float32', shape: c.x }],
          [
            floats('w', c.w, 100 + k),
            ...(c.bias ? [floats('b', [c.w[1]! * Number(c.attrs.group ?? 1)], 110 + k)] : []),
          ],
          c.opset,
        ),
        { x: randomUniform(c.x, { seed: 120 + k }) },
      );
      expect(text).toContain('raf.op.conv_transpose(%x');
      expect(text).not.toContain('conv2d_dx');
      console.log(`ConvTranspose (opset ${c.opset}) ${JSON.stringify(c.attrs)} max error ${maxError.toExponential(2)}`);
    }
  });

  it('ConstantOfShape, Range and Size on a dynamic dim go through their specs at each input shape; a run-time limit is refused', async () => {
    const spec = model(
      [
        { op: 'Shape', inputs: ['x'], outputs: ['s'] },
        {
          op: 'ConstantOfShape',
          inputs: ['s'],
          outputs: ['c'],
          attrs: { value: { tensor: { dtype: 'float32', shape: [1], data: [2.5] } } },
        },
        { op: 'Add', inputs: ['c', 'x'], outputs: ['y'] },
        { op: 'Gather', inputs: ['s', 'zero'], outputs: ['n'], attrs: { axis: 0 } },
        { op: 'Range', inputs: ['one', 'n', 'two'], outputs: ['r'] },
        { op: 'Size', inputs: ['x'], outputs: ['k'] },
      ],
      [{ name: 'x', dtype: 'float32', shape: ['N', 3] }],
      [ints('zero', [0], []), ints('one', [1], []), ints('two', [2], [])],
      13,
      [{ name: 'y' }, { name: 'r' }, { name: 'k' }],
    );
    const bytes = buildModel(spec);
    const session = loadOnnx(bytes);
    const declared = (op: string) => vi.spyOn(getOp(op), 'declare');
    const spies = ['constant_of_shape', 'range', 'size'].map(declared);
    try {
      for (const n of [2, 7]) {
        const x = randomUniform([n, 3], { seed: 130 + n });
        const ours = session.run({ x });
        const theirs = await runOnnxModel(bytes, { x: oracleFeed(x) });
        ['y', 'r', 'k'].forEach((name, i) => {
          expect([...ours[name]!.shape]).toEqual(theirs[i]!.shape);
          assertAllClose(Array.from(ours[name]!.dataSync()), Array.from(toFloat64(theirs[i]!)), {
            atol: 1e-6,
            rtol: 1e-6,
          });
        });
        console.log(`N = ${n}: range ${Array.from(ours.r!.dataSync()).join(' ')}, size ${ours.k!.dataSync()[0]}`);
      }
      // ConstantOfShape and Range ran through raf.op.constant_of_shape and raf.op.range at each of the two signatures.
      expect(spies[0]!.mock.calls.length).toBeGreaterThanOrEqual(2);
      expect(spies[1]!.mock.calls.length).toBeGreaterThanOrEqual(2);
      expect(session.specializations).toBe(2);
    } finally {
      spies.forEach((s) => s.mockRestore());
    }
    // Size of a known tensor (a constant) is the op itself.
    const size = fromOnnx(
      buildModel(
        model(
          [
            { op: 'Size', inputs: ['w'], outputs: ['k'] },
            { op: 'Cast', inputs: ['k'], outputs: ['kf'], attrs: { to: 1 } },
            { op: 'Mul', inputs: ['x', 'kf'], outputs: ['y'] },
          ],
          [{ name: 'x', dtype: 'float32', shape: [2] }],
          [floats('w', [2, 3], 140)],
        ),
      ),
    );
    expect(Array.from(execute(size, [tensor([1, -2], { shape: [2] })])[0]!.dataSync())).toEqual([6, -12]);
    // A limit computed from the data at run time cannot fix the output's length while converting.
    const dynamic = buildModel(
      model(
        [
          { op: 'ReduceMax', inputs: ['x'], outputs: ['m'], attrs: { keepdims: 0 } },
          { op: 'Cast', inputs: ['m'], outputs: ['limit'], attrs: { to: 7 } },
          { op: 'Range', inputs: ['one', 'limit', 'one'], outputs: ['y'] },
        ],
        [{ name: 'x', dtype: 'float32', shape: [4] }],
        [ints('one', [1], [])],
        13,
      ),
    );
    expect(() => fromOnnx(dynamic)).toThrow(
      /node 2 .*Range.*raf\.op\.range \(argument 'limit'\): decides the output shape by its values, so in a graph it must be a constant/,
    );
  });

  it('Resize as raf.op.resize: nearest (every nearest_mode) and linear, at opsets 10, 11 and 13 (nearest over any axis)', async () => {
    const cases: { opset: number; attrs: Record<string, string>; scales?: number[]; sizes?: number[] }[] = [
      { opset: 10, attrs: { mode: 'nearest' }, scales: [1, 1, 2, 1.5] },
      { opset: 10, attrs: { mode: 'linear' }, scales: [1, 1, 0.5, 2] },
      {
        opset: 11,
        attrs: { mode: 'nearest', nearest_mode: 'ceil', coordinate_transformation_mode: 'asymmetric' },
        sizes: [1, 2, 7, 9],
      },
      { opset: 13, attrs: { mode: 'nearest', nearest_mode: 'round_prefer_ceil' }, scales: [1, 3, 1.5, 0.6] },
      {
        opset: 13,
        attrs: { mode: 'linear', coordinate_transformation_mode: 'pytorch_half_pixel' },
        sizes: [1, 2, 3, 8],
      },
      {
        opset: 13,
        attrs: { mode: 'linear', coordinate_transformation_mode: 'align_corners' },
        // Whole resized lengths (4 × 1.75, 5 × 0.6): for a fractional one ONNX's align_corners divides by the
        // unfloored length (its reference and backend tests), onnxruntime by the floored one.
        scales: [1, 1, 1.75, 0.6],
      },
    ];
    for (const [k, c] of cases.entries()) {
      const given = c.scales
        ? { name: 'scales', dtype: 'float32' as const, shape: [4], data: c.scales }
        : ints('sizes', c.sizes!);
      // Opset 11 and 12 take roi and scales as inputs even when unused: empty tensors.
      const empty = (name: string) => ({ name, dtype: 'float32' as const, shape: [0], data: [] });
      const inputs =
        c.opset === 10
          ? ['x', 'scales']
          : c.opset < 13
            ? ['x', 'roi', c.scales ? 'scales' : 'none', ...(c.sizes ? ['sizes'] : [])]
            : c.scales
              ? ['x', '', 'scales']
              : ['x', '', '', 'sizes'];
      const { text, maxError } = await agree(
        model(
          [{ op: 'Resize', inputs, outputs: ['y'], attrs: c.attrs }],
          [{ name: 'x', dtype: 'float32', shape: [1, 2, 4, 5] }],
          [given, ...(c.opset === 11 || c.opset === 12 ? [empty('roi'), empty('none')] : [])],
          c.opset,
        ),
        { x: randomUniform([1, 2, 4, 5], { seed: 150 + k }) },
      );
      expect(text).toContain('raf.op.resize(%x');
      console.log(`Resize (opset ${c.opset}) ${JSON.stringify(c.attrs)} max error ${maxError.toExponential(2)}`);
    }
  });
});
