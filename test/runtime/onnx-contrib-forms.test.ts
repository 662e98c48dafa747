// onnxruntime's contrib ops (runtime/src/graph/onnx/forms-contrib.ts) on small models built here, against
// onnxruntime-node running the same bytes: MatMulNBits at 2, 4 and 8 bits with packed, float and default zero points
// and a K that is not a multiple of the block; MatMulBnb4's FP4 and NF4 codes; the skip and simplified layer norms; the GELU family; RotaryEmbedding
// with a position table and with an offset; BERT's and GPT-2's fused Attention with every mask form it imports.

import { describe, expect, it } from 'vitest';
import { initWebGpu, randomUniform, tensor, type Tensor } from '../../runtime/src/index.ts';
import { execute, moveGraph, printGraph } from '../../runtime/src/graph/index.ts';
import { fromOnnx } from '../../runtime/src/graph/frontends/from-onnx.ts';
import { loadOnnx } from '../../runtime/src/graph/onnx/session.ts';
import { generateGreedy } from '../../runtime/src/graph/onnx/generate.ts';
import { buildModel, type InitializerSpec, type ModelSpec, type NodeSpec } from '../support/onnx-proto.ts';
import { runOnnxModel, toFloat64, type OracleTensor } from '../support/onnx-oracle.ts';
import { assertAllClose } from '../support/assert.ts';
import { lcgValues } from '../support/reference.ts';
import { packFormat } from '../../runtime/src/formats.ts';

const MS = 'com.microsoft';
const REQUIRE_GPU = Boolean(process.env.CI) || process.env.RAF_REQUIRE_WEBGPU === '1';
const gpu = await initWebGpu().catch(() => false);
if (REQUIRE_GPU && !gpu) throw new Error('WebGPU is required here but no adapter was found');
const values = (shape: number[], seed: number, low = -1, high = 1) =>
  Array.from(randomUniform(shape, { seed, low, high }).dataSync());
const floats = (name: string, shape: number[], seed: number, low = -1, high = 1): InitializerSpec => ({
  name,
  dtype: 'float32',
  shape,
  data: values(shape, seed, low, high),
});
/** Bytes from a seeded generator (every bit pattern, so every code and zero point occurs). */
const bytes = (name: string, shape: number[], seed: number): InitializerSpec => {
  let s = seed >>> 0;
  const n = shape.reduce((a, b) => a * b, 1);
  const data = Array.from({ length: n }, () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0), s >>> 24));
  return { name, dtype: 'uint8', shape, data };
};

function oracleFeed(t: Tensor): OracleTensor {
  if (t.dtype === 'int64')
    return { dtype: 'int64', shape: [...t.shape], data: BigInt64Array.from(Array.from(t.dataSync()), BigInt) };
  if (t.dtype === 'int32') return { dtype: 'int32', shape: [...t.shape], data: Int32Array.from(t.dataSync()) };
  if (t.dtype === 'uint8') return { dtype: 'uint8', shape: [...t.shape], data: Uint8Array.from(t.dataSync()) };
  return { dtype: 'float32', shape: [...t.shape], data: t.dataSync() as Float32Array };
}

/** One node over graph inputs `feeds` and initializers; every output compared with onnxruntime's. */
async function agree(
  node: NodeSpec,
  feeds: Record<string, Tensor>,
  inits: InitializerSpec[],
  tol = 1e-5,
): Promise<string> {
  const spec: ModelSpec = {
    nodes: [node],
    inputs: Object.entries(feeds).map(([name, t]) => ({ name, dtype: t.dtype as 'float32', shape: [...t.shape] })),
    outputs: node.outputs.filter(Boolean).map((name) => ({ name })),
    initializers: inits,
    opset: [
      { domain: '', version: 17 },
      { domain: MS, version: 1 },
    ],
  };
  const model = buildModel(spec);
  const theirs = await runOnnxModel(
    model,
    Object.fromEntries(Object.entries(feeds).map(([n, t]) => [n, oracleFeed(t)])),
  );
  const g = fromOnnx(model);
  // The graph as converted, and the session a user loads (its passes, and onnxruntime regions where they apply).
  const session = loadOnnx(model);
  const run = session.run(feeds);
  for (const ours of [execute(g, Object.values(feeds)), session.outputNames.map((n) => run[n]!)]) {
    expect(ours.length).toBe(theirs.length);
    ours.forEach((t, i) => {
      if (process.env.DUMP) {
        const a = Array.from(t.dataSync() as ArrayLike<number>),
          b = Array.from(toFloat64(theirs[i]!));
        console.log(
          'DUMP',
          a
            .map((x, j) => (Math.abs(x - b[j]!) > 1e-4 ? j : -1))
            .filter((j) => j >= 0)
            .join(','),
        );
      }
      expect([...t.shape]).toEqual(theirs[i]!.shape);
      assertAllClose(
        Array.from(t.dataSync() as ArrayLike<number>),
        Array.from(toFloat64(theirs[i]!)),
        { atol: tol, rtol: tol },
        `${node.op} output ${i}`,
      );
    });
  }
  return printGraph(g);
}

describe("onnxruntime's contrib ops (com.microsoft) against onnxruntime-node", () => {
  it('MatMulNBits: 4-bit with packed zero points, a partial last block and bias; 8-bit default; 2-bit float zero points', async () => {
    const cases = [
      { bits: 4, block: 16, K: 40, N: 6, a: [2, 3, 40], zp: 'packed', bias: true },
      { bits: 8, block: 32, K: 64, N: 5, a: [4, 64], zp: 'none', bias: false },
      { bits: 2, block: 16, K: 32, N: 3, a: [1, 2, 32], zp: 'float', bias: false },
      { bits: 4, block: 32, K: 96, N: 7, a: [5, 96], zp: 'float', bias: true },
      { bits: 2, block: 64, K: 100, N: 4, a: [3, 100], zp: 'packed', bias: false },
    ];
    for (const [k, c] of cases.entries()) {
      const kBlocks = Math.ceil(c.K / c.block);
      const inits: InitializerSpec[] = [
        bytes('B', [c.N, kBlocks, (c.block * c.bits) / 8], 10 + k),
        floats('scales', [c.N, kBlocks], 20 + k, 0.01, 0.2),
      ];
      const inputs = ['A', 'B', 'scales'];
      if (c.zp === 'packed') {
        inits.push(bytes('zp', [c.N, Math.ceil((kBlocks * c.bits) / 8)], 30 + k));
        inputs.push('zp');
      } else if (c.zp === 'float') {
        inits.push(floats('zp', [c.N, kBlocks], 30 + k, 0, 2 ** c.bits - 1));
        inputs.push('zp');
      }
      if (c.bias) {
        while (inputs.length < 5) inputs.push('');
        inits.push(floats('bias', [c.N], 40 + k));
        inputs.push('bias');
      }
      const text = await agree(
        {
          op: 'MatMulNBits',
          domain: MS,
          inputs,
          outputs: ['Y'],
          attrs: { K: c.K, N: c.N, bits: c.bits, block_size: c.block },
        },
        { A: randomUniform(c.a, { seed: 50 + k, low: -1, high: 1 }) },
        inits,
        1e-4,
      );
      expect(text).toMatch(/raf\.op\.(matmul|dense|batch_matmul)\(/);
    }
  });

  it('MatMulBnb4: FP4 and NF4 codes, a partial last block and an odd element count', async () => {
    const cases = [
      { type: 0, block: 16, K: 24, N: 5, a: [2, 3, 24] },
      { type: 1, block: 32, K: 40, N: 3, a: [4, 40] },
      { type: 1, block: 64, K: 17, N: 7, a: [1, 2, 17] },
    ];
    for (const [k, c] of cases.entries()) {
      const count = c.N * c.K;
      await agree(
        {
          op: 'MatMulBnb4',
          domain: MS,
          inputs: ['a', 'B', 'absmax'],
          outputs: ['y'],
          attrs: { K: c.K, N: c.N, block_size: c.block, quant_type: c.type },
        },
        { a: randomUniform(c.a, { seed: 300 + k, low: -1, high: 1 }) },
        [bytes('B', [Math.ceil(count / 2)], 310 + k), floats('absmax', [Math.ceil(count / c.block)], 320 + k, 0.1, 2)],
      );
    }
  });

  it('GatherBlockQuantized over uint8 tables: 4-bit with packed zero points, 8-bit with a partial block, 2-bit', async () => {
    const ids = tensor([3, 0, 9, 3, 7, 1], { dtype: 'int64', shape: [2, 3] });
    for (const [k, c] of [
      { bits: 4, block: 16, rows: 10, K: 48, zp: true },
      { bits: 8, block: 16, rows: 10, K: 40, zp: false },
      { bits: 2, block: 32, rows: 12, K: 64, zp: true },
    ].entries()) {
      const kBlocks = Math.ceil(c.K / c.block);
      const inits = [
        bytes('data', [c.rows, (c.K * c.bits) / 8], 170 + k),
        floats('scales', [c.rows, kBlocks], 175 + k, 0.01, 0.2),
        ...(c.zp ? [bytes('zp', [c.rows, Math.ceil((kBlocks * c.bits) / 8)], 180 + k)] : []),
      ];
      await agree(
        {
          op: 'GatherBlockQuantized',
          domain: MS,
          inputs: ['data', 'ids', 'scales', ...(c.zp ? ['zp'] : [])],
          outputs: ['y'],
          attrs: { bits: c.bits, block_size: c.block, gather_axis: 0, quantize_axis: 1 },
        },
        { ids },
        inits,
      );
    }
  });

  it('GatherBlockQuantized over int4 and uint4 tables, with and without zero points', async () => {
    const ids = tensor([3, 0, 9, 3, 7, 1], { dtype: 'int64', shape: [2, 3] });
    const [rows, K, block] = [10, 40, 16];
    const kBlocks = Math.ceil(K / block);
    // Every code of the type, from a seeded generator; ONNX element types 22 (int4) and 21 (uint4).
    const codes = (n: number, seed: number, signed: boolean) =>
      lcgValues(n, seed).map((v) => Math.floor(((v + 1) / 2) * 16) - (signed ? 8 : 0));
    const narrow = (name: string, shape: number[], format: 'int4' | 'uint4', seed: number): InitializerSpec => ({
      name,
      dtype: format === 'int4' ? 'int8' : 'uint8',
      shape,
      data: Array.from(packFormat(format, codes(shape[0]! * shape[1]!, seed, format === 'int4'))),
      elemType: format === 'int4' ? 22 : 21,
    });
    const configs = [
      { format: 'int4', zp: false },
      { format: 'int4', zp: true },
      { format: 'uint4', zp: false },
      { format: 'uint4', zp: true },
    ] as const;
    for (const [k, c] of configs.entries())
      await agree(
        {
          op: 'GatherBlockQuantized',
          domain: MS,
          inputs: ['data', 'ids', 'scales', ...(c.zp ? ['zp'] : [])],
          outputs: ['y'],
          attrs: { block_size: block, gather_axis: 0, quantize_axis: 1 },
        },
        { ids },
        [
          narrow('data', [rows, K], c.format, 190 + k),
          floats('scales', [rows, kBlocks], 195 + k, 0.01, 0.2),
          ...(c.zp ? [narrow('zp', [rows, kBlocks], c.format, 200 + k)] : []),
        ],
      );
  });

  it('MatMulNBits refuses what it does not compute, naming it', () => {
    const model = (attrs: Record<string, number>, extra: string[] = []) =>
      buildModel({
        nodes: [{ op: 'MatMulNBits', domain: MS, inputs: ['A', 'B', 'scales', ...extra], outputs: ['Y'], attrs }],
        inputs: [{ name: 'A', dtype: 'float32', shape: [2, 32] }],
        outputs: [{ name: 'Y', dtype: 'float32' }],
        initializers: [
          bytes('B', [3, 2, 8], 1),
          floats('scales', [3, 2], 2),
          { name: 'g', dtype: 'int32', shape: [32], data: Array(32).fill(0) },
        ],
        opset: [
          { domain: '', version: 17 },
          { domain: MS, version: 1 },
        ],
      });
    expect(() => fromOnnx(model({ K: 32, N: 3, bits: 3, block_size: 16 }))).toThrow(/MatMulNBits bits = 3/);
    expect(() => fromOnnx(model({ K: 32, N: 3, bits: 4, block_size: 16 }, ['', 'g']))).toThrow(/g_idx/);
    expect(() => fromOnnx(model({ K: 32, N: 4, bits: 4, block_size: 16 }))).toThrow(/B has 48 bytes/);
    expect(() => fromOnnx(model({ K: 32, N: 3, bits: 4, block_size: 16, weight_prepacked: 1 }))).toThrow(
      /weight_prepacked/,
    );
  });

  it('SkipLayerNormalization, SkipSimplifiedLayerNormalization (with the sum output) and SimplifiedLayerNormalization', async () => {
    const x = randomUniform([2, 3, 8], { seed: 1, low: -2, high: 2 });
    const skip = randomUniform([2, 3, 8], { seed: 2, low: -2, high: 2 });
    const inits = [floats('gamma', [8], 3), floats('beta', [8], 4), floats('bias', [8], 5)];
    await agree(
      {
        op: 'SkipLayerNormalization',
        domain: MS,
        inputs: ['x', 'skip', 'gamma', 'beta', 'bias'],
        outputs: ['y', '', '', 'sum'],
        attrs: { epsilon: 1e-5 },
      },
      { x, skip },
      inits,
    );
    await agree(
      { op: 'SkipLayerNormalization', domain: MS, inputs: ['x', 'skip', 'gamma'], outputs: ['y'] },
      { x, skip },
      inits,
    );
    await agree(
      {
        op: 'SkipSimplifiedLayerNormalization',
        domain: MS,
        inputs: ['x', 'skip', 'gamma', 'bias'],
        outputs: ['y', '', '', 'sum'],
        attrs: { epsilon: 1e-6 },
      },
      { x, skip },
      inits,
    );
    await agree(
      { op: 'SimplifiedLayerNormalization', inputs: ['x', 'gamma'], outputs: ['y'], attrs: { epsilon: 1e-6 } },
      { x },
      inits,
    );
  });

  it('Gelu, BiasGelu, FastGelu (with and without bias) and QuickGelu', async () => {
    const x = randomUniform([2, 5, 6], { seed: 7, low: -4, high: 4 });
    const inits = [floats('b', [6], 9)];
    await agree({ op: 'Gelu', domain: MS, inputs: ['x'], outputs: ['y'] }, { x }, []);
    await agree({ op: 'BiasGelu', domain: MS, inputs: ['x', 'b'], outputs: ['y'] }, { x }, inits);
    await agree({ op: 'FastGelu', domain: MS, inputs: ['x'], outputs: ['y'] }, { x }, []);
    await agree({ op: 'FastGelu', domain: MS, inputs: ['x', 'b'], outputs: ['y'] }, { x }, inits);
    await agree({ op: 'QuickGelu', domain: MS, inputs: ['x'], outputs: ['y'], attrs: { alpha: 1.5 } }, { x }, []);
  });

  it('BiasAdd (no CPU kernel in onnxruntime) equals x + bias + skip in float64', () => {
    const x = randomUniform([2, 5, 6], { seed: 7, low: -4, high: 4 });
    const skip = randomUniform([2, 5, 6], { seed: 8, low: -4, high: 4 });
    const bias = floats('b', [6], 9);
    const model = buildModel({
      nodes: [{ op: 'BiasAdd', domain: MS, inputs: ['x', 'b', 'skip'], outputs: ['y'] }],
      inputs: [
        { name: 'x', dtype: 'float32', shape: [2, 5, 6] },
        { name: 'skip', dtype: 'float32', shape: [2, 5, 6] },
      ],
      outputs: [{ name: 'y', dtype: 'float32' }],
      initializers: [bias],
      opset: [
        { domain: '', version: 17 },
        { domain: MS, version: 1 },
      ],
    });
    const [y] = execute(fromOnnx(model), [x, skip]);
    const [xs, ss, bs] = [x.dataSync(), skip.dataSync(), bias.data as number[]];
    assertAllClose(
      Array.from(y!.dataSync() as ArrayLike<number>),
      Array.from(xs, (v, i) => v + bs[i % 6]! + ss[i]!),
      { atol: 1e-6, rtol: 1e-6 },
      'BiasAdd',
    );
  });

  it('RotaryEmbedding with a position table, with an offset, interleaved, on 3-D and 4-D input', async () => {
    const [B, S, H, D] = [2, 5, 3, 8];
    const caches = [floats('cos', [16, D / 2], 11), floats('sin', [16, D / 2], 12)];
    const table = { name: 'pos', dtype: 'int64' as const, shape: [B, S], data: [0, 1, 2, 3, 4, 7, 8, 9, 10, 11] };
    const offset = { name: 'pos', dtype: 'int64' as const, shape: [1], data: [6] };
    for (const [k, [pos, interleaved, rank4]] of (
      [
        [table, 0, false],
        [offset, 1, false],
        [offset, 0, true],
        [table, 1, true],
      ] as const
    ).entries()) {
      const x = randomUniform(rank4 ? [B, H, S, D] : [B, S, H * D], { seed: 13 + k });
      await agree(
        {
          op: 'RotaryEmbedding',
          domain: MS,
          inputs: ['x', 'pos', 'cos', 'sin'],
          outputs: ['y'],
          attrs: { interleaved, ...(rank4 ? {} : { num_heads: H }) },
        },
        { x },
        [...caches, pos],
      );
    }
  });

  it('Attention: raw 2-D and 3-D masks, lengths, unidirectional, attention_bias, a custom scale, uneven V, a past', async () => {
    const [B, S, Hin, heads] = [2, 4, 12, 3];
    const x = randomUniform([B, S, Hin], { seed: 21 });
    const mask2 = tensor([1, 1, 1, 0, 1, 1, 0, 0], { dtype: 'int32', shape: [B, S] });
    const mask3 = tensor(
      Array.from({ length: B * S * S }, (_, i) => ((i * 7) % 5 === 0 ? 0 : 1)),
      { dtype: 'int32', shape: [B, S, S] },
    );
    const lengths = tensor([3, 2], { dtype: 'int32', shape: [B] });
    const w = (cols: number) => [floats('w', [Hin, cols], 22), floats('bias', [cols], 23)];
    const run = (
      feeds: Record<string, Tensor>,
      inputs: string[],
      attrs: Record<string, number | number[]>,
      cols = 3 * Hin,
      extra: InitializerSpec[] = [],
    ) =>
      agree({ op: 'Attention', domain: MS, inputs, outputs: ['y'], attrs: { num_heads: heads, ...attrs } }, feeds, [
        ...w(cols),
        ...extra,
      ]);
    await run({ x }, ['x', 'w', 'bias'], {});
    await run({ x, m: mask2 }, ['x', 'w', 'bias', 'm'], {});
    await run({ x, m: mask3 }, ['x', 'w', 'bias', 'm'], { scale: 0.3 });
    await run({ x, m: lengths }, ['x', 'w', 'bias', 'm'], {});
    await run({ x, m: mask2 }, ['x', 'w', 'bias', 'm'], { unidirectional: 1 });
    await run({ x }, ['x', 'w', 'bias', '', '', 'ab'], {}, 3 * Hin, [floats('ab', [1, heads, S, S], 24)]);
    await run({ x }, ['x', 'w', 'bias'], { qkv_hidden_sizes: [12, 12, 6] }, 30);
    // GPT-2 as the optimizer fuses it: a past of 3 tokens, causal, the mask over all 7, and present.
    const past = randomUniform([2, B, heads, 3, Hin / heads], { seed: 25 });
    const total = tensor([1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1], { dtype: 'int32', shape: [B, 7] });
    await agree(
      {
        op: 'Attention',
        domain: MS,
        inputs: ['x', 'w', 'bias', 'm', 'past'],
        outputs: ['y', 'present'],
        attrs: { num_heads: heads, unidirectional: 1 },
      },
      { x, m: total, past },
      w(3 * Hin),
    );
  });

  it('GroupQueryAttention: prompts (packed, padded, rotary) and generation steps over a cache (window, softcap, bias)', async () => {
    const [Hq, Hkv, D] = [4, 2, 16];
    const i32 = (values: number[], shape = [values.length]) => tensor(values, { dtype: 'int32', shape });
    const total = (n: number): InitializerSpec => ({ name: 'total', dtype: 'int32', shape: [], data: [n] });
    const caches = [floats('cos', [32, D / 2], 61), floats('sin', [32, D / 2], 62)];
    const gqa = (inputs: string[], attrs: Record<string, number>, outputs = ['y', 'pk', 'pv']): NodeSpec => ({
      op: 'GroupQueryAttention',
      domain: MS,
      inputs,
      outputs,
      attrs: { num_heads: Hq, kv_num_heads: Hkv, ...attrs },
    });
    const qkv = (B: number, S: number, seed: number) => ({
      q: randomUniform([B, S, Hq * D], { seed }),
      k: randomUniform([B, S, Hkv * D], { seed: seed + 1 }),
      v: randomUniform([B, S, Hkv * D], { seed: seed + 2 }),
    });
    // A first prompt, Q, K and V packed into one input.
    await agree(
      gqa(['qkv', '', '', '', '', 'seqlens', 'total'], {}),
      { qkv: randomUniform([2, 4, (Hq + 2 * Hkv) * D], { seed: 63 }), seqlens: i32([3, 3]) },
      [total(4)],
    );
    // A right-padded prompt (the second entry holds 2 tokens), rotated.
    await agree(
      gqa(['q', 'k', 'v', '', '', 'seqlens', 'total', 'cos', 'sin'], { do_rotary: 1 }),
      { ...qkv(2, 4, 64), seqlens: i32([3, 1]) },
      [total(4), ...caches],
    );
    // One generation step after 5 tokens: rotary (interleaved), a local window of 3, a soft cap.
    const past = (B: number, P: number, seed: number) => ({
      pastK: randomUniform([B, Hkv, P, D], { seed }),
      pastV: randomUniform([B, Hkv, P, D], { seed: seed + 1 }),
    });
    await agree(
      gqa(['q', 'k', 'v', 'pastK', 'pastV', 'seqlens', 'total', 'cos', 'sin'], {
        do_rotary: 1,
        rotary_interleaved: 1,
        local_window_size: 3,
        softcap: 2.5,
      }),
      { ...qkv(1, 1, 70), ...past(1, 5, 73), seqlens: i32([5]) },
      [total(6), ...caches],
    );
    // Two entries continuing at different lengths (5 and 3 tokens before): cache rows past an entry's length are zeros.
    // (onnxruntime 1.30's CPU kernel gives another output when the node names no present outputs, so they are named.)
    await agree(
      gqa(['q', 'k', 'v', 'pastK', 'pastV', 'seqlens', 'total', 'cos', 'sin'], { do_rotary: 1 }),
      { ...qkv(2, 1, 75), ...past(2, 5, 78), seqlens: i32([5, 3]) },
      [total(6), ...caches],
    );
    // A later prompt of 3 tokens after 4, with an attention bias and a scale.
    await agree(
      gqa(['q', 'k', 'v', 'pastK', 'pastV', 'seqlens', 'total', '', '', '', 'bias'], { scale: 0.2 }),
      { ...qkv(1, 3, 80), ...past(1, 4, 83), seqlens: i32([6]) },
      [total(7), floats('bias', [1, Hq, 3, 7], 85)],
    );
  });

  it('FusedConv (Z and each activation), FusedGemm and FusedMatMul (transposes, alpha)', async () => {
    const x = randomUniform([1, 3, 6, 6], { seed: 90, low: -2, high: 2 });
    const conv = [floats('W', [4, 3, 3, 3], 91), floats('B', [4], 92), floats('Z', [1, 4, 6, 6], 93)];
    for (const [activation, params] of [
      ['Relu', []],
      ['LeakyRelu', [0.2]],
      ['Clip', [-0.5, 0.7]],
      ['HardSigmoid', [0.3, 0.4]],
      ['Tanh', []],
      ['Sigmoid', []],
    ] as const)
      await agree(
        {
          op: 'FusedConv',
          domain: MS,
          inputs: ['x', 'W', 'B', 'Z'],
          outputs: ['y'],
          attrs: { activation, ...(params.length ? { activation_params: [...params] } : {}), pads: [1, 1, 1, 1] },
        },
        { x },
        conv,
        1e-5,
      );
    const a = randomUniform([5, 4], { seed: 94 });
    await agree(
      {
        op: 'FusedGemm',
        domain: MS,
        inputs: ['a', 'b', 'c'],
        outputs: ['y'],
        attrs: { transB: 1, alpha: 0.5, beta: 1.5, activation: 'LeakyRelu', activation_alpha: 0.1 },
      },
      { a },
      [floats('b', [3, 4], 95), floats('c', [3], 96)],
    );
    const m = randomUniform([2, 4, 3], { seed: 97 });
    await agree(
      {
        op: 'FusedMatMul',
        domain: MS,
        inputs: ['m', 'w'],
        outputs: ['y'],
        attrs: { transA: 1, transB: 1, alpha: 0.25 },
      },
      { m },
      [floats('w', [2, 5, 4], 98)],
    );
  });

  it('DynamicQuantizeMatMul and MatMulIntegerToFloat, per tensor and per column, int8 and uint8 weights', async () => {
    const a = randomUniform([2, 3, 8], { seed: 100, low: -3, high: 2 });
    const i8 = (name: string, shape: number[], seed: number): InitializerSpec => ({
      ...bytes(name, shape, seed),
      dtype: 'int8',
      data: (bytes(name, shape, seed).data as number[]).map((v) => v - 128),
    });
    for (const [weights, scale, zero] of [
      [i8('B', [8, 5], 101), floats('bs', [], 102, 0.01, 0.05), null],
      [bytes('B', [8, 5], 103), floats('bs', [5], 104, 0.01, 0.05), bytes('bz', [5], 105)],
    ] as const) {
      const inits = [weights, scale, floats('bias', [5], 106), ...(zero ? [zero] : [])];
      await agree(
        {
          op: 'DynamicQuantizeMatMul',
          domain: MS,
          inputs: ['a', 'B', 'bs', zero ? 'bz' : '', 'bias'],
          outputs: ['y'],
        },
        { a },
        inits,
        1e-5,
      );
    }
    const aq = tensor(
      (bytes('aq', [4, 8], 107).data as number[]).map((v) => v),
      { dtype: 'uint8', shape: [4, 8] },
    );
    await agree(
      {
        op: 'MatMulIntegerToFloat',
        domain: MS,
        inputs: ['aq', 'B', 'as', 'bs', 'az', 'bz', 'bias'],
        outputs: ['y'],
      },
      { aq },
      [
        bytes('B', [8, 5], 108),
        floats('as', [], 109, 0.01, 0.05),
        floats('bs', [5], 110, 0.01, 0.05),
        bytes('az', [], 111),
        bytes('bz', [5], 112),
        floats('bias', [5], 113),
      ],
    );
  });

  it('EmbedLayerNormalization: segments, a padded mask (mask_index) and the sum; given position_ids', async () => {
    const ids = tensor([1, 4, 2, 9, 0, 3, 3, 7], { dtype: 'int32', shape: [2, 4] });
    const seg = tensor([0, 0, 1, 1, 0, 1, 1, 1], { dtype: 'int32', shape: [2, 4] });
    const mask = tensor([1, 1, 1, 0, 1, 1, 0, 0], { dtype: 'int32', shape: [2, 4] });
    const inits = [
      floats('word', [10, 8], 120),
      floats('pos', [6, 8], 121),
      floats('segE', [2, 8], 122),
      floats('gamma', [8], 123),
      floats('beta', [8], 124),
    ];
    await agree(
      {
        op: 'EmbedLayerNormalization',
        domain: MS,
        inputs: ['ids', 'seg', 'word', 'pos', 'segE', 'gamma', 'beta', 'mask'],
        outputs: ['y', 'mask_index', 'sum'],
        attrs: { epsilon: 1e-5 },
      },
      { ids, seg, mask },
      inits,
    );
    const posIds = tensor([2, 3, 4, 5], { dtype: 'int32', shape: [1, 4] });
    await agree(
      {
        op: 'EmbedLayerNormalization',
        domain: MS,
        inputs: ['ids', '', 'word', 'pos', '', 'gamma', 'beta', '', 'posIds'],
        outputs: ['y'],
        attrs: { mask_index_type: 0 },
      },
      { ids, posIds },
      inits,
    );
  });

  it('MultiHeadAttention: bias and a padding mask, cross attention over split heads, a past with causal masking', async () => {
    const [B, S, L, heads, d] = [2, 3, 5, 2, 8];
    const q = randomUniform([B, S, heads * d], { seed: 130 });
    const k = randomUniform([B, L, heads * d], { seed: 131 });
    const v = randomUniform([B, L, heads * d], { seed: 132 });
    const mha = (inputs: string[], attrs: Record<string, number> = {}, outputs = ['y']): NodeSpec => ({
      op: 'MultiHeadAttention',
      domain: MS,
      inputs,
      outputs,
      attrs: { num_heads: heads, ...attrs },
    });
    const bias = floats('bias', [3 * heads * d], 133);
    const padding = tensor([1, 1, 1, 0, 0, 1, 1, 1, 1, 0], { dtype: 'int32', shape: [B, L] });
    await agree(mha(['q', 'k', 'v', 'bias', 'pad']), { q, k, v, pad: padding }, [bias]);
    await agree(
      mha(['q', 'k', 'v', '', 'len'], { scale: 0.3 }),
      { q, k, v, len: tensor([4, 2], { dtype: 'int32', shape: [B] }) },
      [],
    );
    const k4 = randomUniform([B, heads, L, d], { seed: 134 });
    const v4 = randomUniform([B, heads, L, d], { seed: 135 });
    await agree(mha(['q', 'k4', 'v4', '', '', 'ab']), { q, k4, v4 }, [floats('ab', [1, heads, S, L], 136)]);
    const pastK = randomUniform([B, heads, 4, d], { seed: 137 });
    const pastV = randomUniform([B, heads, 4, d], { seed: 138 });
    const kn = randomUniform([B, S, heads * d], { seed: 139 });
    const vn = randomUniform([B, S, heads * d], { seed: 140 });
    await agree(
      mha(['q', 'kn', 'vn', 'bias', '', '', 'pastK', 'pastV'], { unidirectional: 1 }, ['y', 'pk', 'pv']),
      { q, kn, vn, pastK, pastV },
      [bias],
    );
  });

  it("a decoder in onnxruntime-genai's spelling (4-bit weights, GQA with rotary, RMS norms) generates as onnxruntime does, and through generateGreedy's cache", async () => {
    // Token ids, attention mask and a KV cache in; logits and the present cache out: a prompt of 5 tokens (the cache
    // empty), then 4 greedy steps, each feeding the last present back. Logits compared at every step.
    const [V, Hd, Hq, Hkv, D, F] = [32, 64, 4, 2, 16, 96];
    const q4 = (name: string, K: number, N: number, seed: number): [InitializerSpec, InitializerSpec] => [
      bytes(`${name}.q`, [N, K / 32, 16], seed),
      floats(`${name}.s`, [N, K / 32], seed + 1, 0.002, 0.02),
    ];
    const nbits = (name: string, x: string, y: string, K: number, N: number): NodeSpec => ({
      op: 'MatMulNBits',
      domain: MS,
      inputs: [x, `${name}.q`, `${name}.s`],
      outputs: [y],
      attrs: { K, N, bits: 4, block_size: 32 },
    });
    const i64 = (name: string, data: number[], shape: number[] = [data.length]): InitializerSpec => ({
      name,
      dtype: 'int64',
      shape,
      data,
    });
    const spec: ModelSpec = {
      nodes: [
        { op: 'Gather', inputs: ['embed', 'input_ids'], outputs: ['x'] },
        { op: 'SimplifiedLayerNormalization', inputs: ['x', 'ln1'], outputs: ['h'], attrs: { epsilon: 1e-5 } },
        nbits('qkv', 'h', 'qkv', Hd, (Hq + 2 * Hkv) * D),
        { op: 'ReduceSum', inputs: ['attention_mask', 'one'], outputs: ['len'], attrs: { keepdims: 0 } },
        { op: 'Sub', inputs: ['len', 'one'], outputs: ['len1'] },
        { op: 'Cast', inputs: ['len1'], outputs: ['seqlens'], attrs: { to: 6 } },
        { op: 'Shape', inputs: ['attention_mask'], outputs: ['mshape'] },
        { op: 'Gather', inputs: ['mshape', 'one_scalar'], outputs: ['tot64'] },
        { op: 'Cast', inputs: ['tot64'], outputs: ['total'], attrs: { to: 6 } },
        {
          op: 'GroupQueryAttention',
          domain: MS,
          inputs: ['qkv', '', '', 'past.key', 'past.value', 'seqlens', 'total', 'cos', 'sin'],
          outputs: ['attn', 'present.key', 'present.value'],
          attrs: { num_heads: Hq, kv_num_heads: Hkv, do_rotary: 1 },
        },
        nbits('o', 'attn', 'o', Hq * D, Hd),
        {
          op: 'SkipSimplifiedLayerNormalization',
          domain: MS,
          inputs: ['o', 'x', 'ln2'],
          outputs: ['h2', '', '', 'res'],
          attrs: { epsilon: 1e-5 },
        },
        nbits('gate', 'h2', 'g', Hd, F),
        nbits('up', 'h2', 'u', Hd, F),
        { op: 'Sigmoid', inputs: ['g'], outputs: ['sg'] },
        { op: 'Mul', inputs: ['g', 'sg'], outputs: ['silu'] },
        { op: 'Mul', inputs: ['silu', 'u'], outputs: ['m'] },
        nbits('down', 'm', 'd', F, Hd),
        { op: 'Add', inputs: ['d', 'res'], outputs: ['x2'] },
        { op: 'SimplifiedLayerNormalization', inputs: ['x2', 'lnf'], outputs: ['hf'], attrs: { epsilon: 1e-5 } },
        nbits('lm', 'hf', 'logits', Hd, V),
      ],
      inputs: [
        { name: 'input_ids', dtype: 'int64', shape: [1, 'seq'] },
        { name: 'attention_mask', dtype: 'int64', shape: [1, 'total'] },
        { name: 'past.key', dtype: 'float32', shape: [1, Hkv, 'past', D] },
        { name: 'past.value', dtype: 'float32', shape: [1, Hkv, 'past', D] },
      ],
      outputs: [{ name: 'logits' }, { name: 'present.key' }, { name: 'present.value' }],
      initializers: [
        floats('embed', [V, Hd], 140),
        floats('ln1', [Hd], 141, 0.5, 1.5),
        floats('ln2', [Hd], 142, 0.5, 1.5),
        floats('lnf', [Hd], 143, 0.5, 1.5),
        // cos/sin of position · 10000^(-2i/D), as the model builder writes them.
        ...(['cos', 'sin'] as const).map((name) => ({
          name,
          dtype: 'float32' as const,
          shape: [64, D / 2],
          data: Array.from({ length: 64 * (D / 2) }, (_, k) => {
            const angle = Math.floor(k / (D / 2)) * 10000 ** (-(2 * (k % (D / 2))) / D);
            return name === 'cos' ? Math.cos(angle) : Math.sin(angle);
          }),
        })),
        i64('one', [1]),
        i64('one_scalar', [1], []),
        ...q4('qkv', Hd, (Hq + 2 * Hkv) * D, 150),
        ...q4('o', Hq * D, Hd, 152),
        ...q4('gate', Hd, F, 154),
        ...q4('up', Hd, F, 156),
        ...q4('down', F, Hd, 158),
        ...q4('lm', Hd, V, 160),
      ],
      opset: [
        { domain: '', version: 17 },
        { domain: MS, version: 1 },
      ],
    };
    const model = buildModel(spec);
    const session = loadOnnx(model);
    const prompt = [3, 17, 5, 29, 11];
    let ids = prompt;
    const tokens: number[] = [];
    let past: { key: Float32Array | number[]; value: Float32Array | number[]; length: number } = {
      key: [],
      value: [],
      length: 0,
    };
    for (let step = 0; step < 5; step++) {
      const total = past.length + ids.length;
      const feeds: Record<string, OracleTensor> = {
        input_ids: { dtype: 'int64', shape: [1, ids.length], data: BigInt64Array.from(ids.map(BigInt)) },
        attention_mask: { dtype: 'int64', shape: [1, total], data: new BigInt64Array(total).fill(1n) },
        'past.key': { dtype: 'float32', shape: [1, Hkv, past.length, D], data: past.key },
        'past.value': { dtype: 'float32', shape: [1, Hkv, past.length, D], data: past.value },
      };
      const [logits, presentK, presentV] = await runOnnxModel(model, feeds);
      const ours = session.run(
        Object.fromEntries(
          Object.entries(feeds).map(([n, t]) => [
            n,
            tensor(t.data instanceof BigInt64Array ? Array.from(t.data, Number) : (t.data as Float32Array), {
              dtype: t.dtype as 'int64',
              shape: t.shape,
            }),
          ]),
        ),
      );
      assertAllClose(
        Array.from(ours.logits!.dataSync() as ArrayLike<number>),
        Array.from(toFloat64(logits!)),
        { atol: 1e-4, rtol: 1e-4 },
        `logits at step ${step}`,
      );
      assertAllClose(
        Array.from(ours['present.key']!.dataSync() as ArrayLike<number>),
        Array.from(toFloat64(presentK!)),
        { atol: 1e-5, rtol: 1e-5 },
        `present key at step ${step}`,
      );
      // The next token: the last position's argmax, the same from both.
      const argmax = (values: number[]) => values.indexOf(Math.max(...values));
      const next = argmax(Array.from(toFloat64(logits!)).slice(-V));
      expect(argmax(Array.from(ours.logits!.dataSync() as ArrayLike<number>).slice(-V)), `token ${step}`).toBe(next);
      tokens.push(next);
      ids = [next];
      past = {
        key: presentK!.data as Float32Array,
        value: presentV!.data as Float32Array,
        length: total,
      };
    }
    // generateGreedy runs the same loop: the prompt over an empty cache, then one token at a time.
    expect(generateGreedy(loadOnnx(model), prompt, { steps: 5 })).toEqual([[...prompt, ...tokens]]);
  });

  it('generateGreedy refuses an input it cannot feed, naming it', () => {
    const model = buildModel({
      nodes: [{ op: 'Identity', inputs: ['past_thing'], outputs: ['logits'] }],
      inputs: [
        { name: 'input_ids', dtype: 'int64', shape: [1, 'seq'] },
        { name: 'past_thing', dtype: 'float32', shape: [1, 'seq', 4] },
      ],
      outputs: [{ name: 'logits', dtype: 'float32' }],
    });
    expect(() => generateGreedy(loadOnnx(model), [1, 2], { steps: 1 })).toThrow(
      /generateGreedy: the model reads 'past_thing'; it can feed only input_ids, .*use_cache_branch and a key\/value cache/,
    );
  });

  it('a model with an unimported contrib op names it with its domain', () => {
    const model = buildModel({
      nodes: [{ op: 'NoSuchOp', domain: MS, inputs: ['x'], outputs: ['y'] }],
      inputs: [{ name: 'x', dtype: 'float32', shape: [2] }],
      outputs: [{ name: 'y', dtype: 'float32' }],
      opset: [
        { domain: '', version: 17 },
        { domain: MS, version: 1 },
      ],
    });
    expect(() => fromOnnx(model)).toThrow(/com\.microsoft\.NoSuchOp/);
  });

  it.runIf(gpu)(
    "an LLM block's contrib ops move to WebGPU: GQA over a cache with rotary, 4-bit weights, RMS norms",
    async () => {
      // The CPU results (checked against onnxruntime above) are the reference for the same graph moved to the GPU.
      const [Hq, Hkv, D, P] = [4, 2, 16, 5];
      const model = buildModel({
        nodes: [
          { op: 'SimplifiedLayerNormalization', inputs: ['x', 'ln'], outputs: ['h'], attrs: { epsilon: 1e-5 } },
          {
            op: 'MatMulNBits',
            domain: MS,
            inputs: ['h', 'w.q', 'w.s'],
            outputs: ['qkv'],
            attrs: { K: 64, N: (Hq + 2 * Hkv) * D, bits: 4, block_size: 32 },
          },
          {
            op: 'GroupQueryAttention',
            domain: MS,
            inputs: ['qkv', '', '', 'pk', 'pv', 'seqlens', 'total', 'cos', 'sin'],
            outputs: ['y', 'k', 'v'],
            attrs: { num_heads: Hq, kv_num_heads: Hkv, do_rotary: 1 },
          },
          { op: 'SkipSimplifiedLayerNormalization', domain: MS, inputs: ['y', 'x', 'ln'], outputs: ['z'] },
        ],
        inputs: [
          { name: 'x', dtype: 'float32', shape: [1, 2, 64] },
          { name: 'pk', dtype: 'float32', shape: [1, Hkv, P, D] },
          { name: 'pv', dtype: 'float32', shape: [1, Hkv, P, D] },
          { name: 'seqlens', dtype: 'int32', shape: [1] },
        ],
        outputs: [{ name: 'z' }, { name: 'k' }, { name: 'v' }],
        initializers: [
          floats('ln', [64], 190, 0.5, 1.5),
          bytes('w.q', [(Hq + 2 * Hkv) * D, 2, 16], 191),
          floats('w.s', [(Hq + 2 * Hkv) * D, 2], 192, 0.002, 0.02),
          floats('cos', [32, D / 2], 193),
          floats('sin', [32, D / 2], 194),
          { name: 'total', dtype: 'int32', shape: [], data: [P + 2] },
        ],
        opset: [
          { domain: '', version: 17 },
          { domain: MS, version: 1 },
        ],
      });
      const g = fromOnnx(model);
      const feeds = [
        randomUniform([1, 2, 64], { seed: 195 }),
        randomUniform([1, Hkv, P, D], { seed: 196 }),
        randomUniform([1, Hkv, P, D], { seed: 197 }),
        tensor([P + 1], { dtype: 'int32', shape: [1] }),
      ];
      const cpu = execute(g, feeds);
      const onGpu = execute(await moveGraph(g, 'webgpu'), await Promise.all(feeds.map((t) => t.to('webgpu'))));
      for (const [i, t] of onGpu.entries()) {
        expect(t.device.kind).toBe('webgpu');
        assertAllClose(
          Array.from(await t.data()),
          Array.from(cpu[i]!.dataSync() as ArrayLike<number>),
          { atol: 1e-4, rtol: 1e-4 },
          `output ${i} on WebGPU`,
        );
      }
    },
  );
});
