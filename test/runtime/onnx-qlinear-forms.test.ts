// onnxruntime's quantized contrib ops (runtime/src/graph/onnx/forms-qlinear.ts, and QAttention in forms-contrib.ts)
// on small models built here, against onnxruntime-node running the same bytes: the QOperator format's QLinearAdd,
// QLinearMul, QLinearSigmoid, QLinearLeakyRelu, QLinearSoftmax, QLinearAveragePool, QLinearGlobalAveragePool,
// QLinearConcat, QLinearWhere and QGemm over uint8 and int8, the 16-bit QuantizeLinear and DequantizeLinear, and
// QAttention. onnxruntime computes some of these in fixed point or
// through tables: a quantized output may be one code off where the exact value lies near a rounding boundary, so
// those compare within one code with at most 5% of the codes off by one, and their spread is checked (an output
// saturated to one code would compare nothing).

import { describe, it } from 'vitest';
import { randomUniform, tensor } from '../../runtime/src/index.ts';
import type { InitializerSpec } from '../support/onnx-proto.ts';
import { agree, codes, floats, MS, q, scalar } from '../support/onnx-agree.ts';

describe("onnxruntime's quantized contrib ops against onnxruntime-node", () => {
  it.each(['uint8', 'int8'] as const)('QLinearAdd and QLinearMul, broadcasting, %s', async (dtype) => {
    const zero = dtype === 'uint8' ? 128 : 0;
    const a = tensor(codes(dtype, [2, 3, 8], 1), { dtype, shape: [2, 3, 8] });
    for (const op of ['QLinearAdd', 'QLinearMul']) {
      await agree({ op, domain: MS, inputs: ['a', 'as', 'az', 'b', 'bs', 'bz', 'cs', 'cz'], outputs: ['c'] }, { a }, [
        scalar('as', 'float32', 0.0213),
        scalar('az', dtype, zero + 3),
        q('b', dtype, [3, 1], 2),
        scalar('bs', 'float32', 0.0331),
        scalar('bz', dtype, zero - 5),
        scalar('cs', 'float32', op === 'QLinearAdd' ? 0.0437 : 0.0529),
        scalar('cz', dtype, zero + 1),
      ]);
    }
  });

  it.each(['uint8', 'int8'] as const)(
    'QLinearSigmoid, QLinearLeakyRelu and QLinearSoftmax (opset 13 and 11), %s',
    async (dtype) => {
      const zero = dtype === 'uint8' ? 128 : 0;
      const x = tensor(codes(dtype, [2, 3, 10], 5), { dtype, shape: [2, 3, 10] });
      const inits = (ys: number, yz: number) => [
        scalar('xs', 'float32', 0.05),
        scalar('xz', dtype, zero + 2),
        scalar('ys', 'float32', ys),
        scalar('yz', dtype, yz),
      ];
      const io = { domain: MS, inputs: ['x', 'xs', 'xz', 'ys', 'yz'], outputs: ['y'] };
      await agree({ op: 'QLinearSigmoid', ...io }, { x }, inits(1 / 256, dtype === 'uint8' ? 0 : -128));
      await agree({ op: 'QLinearLeakyRelu', ...io, attrs: { alpha: 0.2 } }, { x }, inits(0.04, zero - 20));
      const sm = inits(1 / 256, dtype === 'uint8' ? 0 : -128);
      await agree({ op: 'QLinearSoftmax', ...io, attrs: { opset: 13, axis: -1 } }, { x }, sm);
      await agree({ op: 'QLinearSoftmax', ...io, attrs: { opset: 11, axis: 1 } }, { x }, sm, { spread: 4 });
    },
  );

  it('QLinearAveragePool, and QLinearGlobalAveragePool, NCHW and channels last', async () => {
    const x = tensor(codes('uint8', [2, 4, 6, 6], 6), { dtype: 'uint8', shape: [2, 4, 6, 6] });
    const io = { domain: MS, inputs: ['x', 'xs', 'xz', 'ys', 'yz'], outputs: ['y'] };
    // Means of many codes crowd near the middle: a finer output scale spreads them.
    const inits = (ys: number) => [
      scalar('xs', 'float32', 0.1),
      scalar('xz', 'uint8', 120),
      scalar('ys', 'float32', ys),
      scalar('yz', 'uint8', 128),
    ];
    for (const last of [0, 1])
      await agree(
        {
          op: 'QLinearAveragePool',
          ...io,
          attrs: { kernel_shape: [3, 3], strides: [2, 2], pads: [1, 1, 1, 1], channels_last: last },
        },
        { x },
        inits(0.02),
      );
    for (const last of [0, 1])
      await agree({ op: 'QLinearGlobalAveragePool', ...io, attrs: { channels_last: last } }, { x }, inits(0.025), {
        spread: 4,
      });
  });

  it("onnxruntime's QLinearConv (NCHW and channels last, with a bias) and NhwcMaxPool", async () => {
    for (const last of [0, 1]) {
      const shape = last ? [1, 6, 6, 3] : [1, 3, 6, 6];
      const x = tensor(codes('uint8', shape, 23), { dtype: 'uint8', shape });
      await agree(
        {
          op: 'QLinearConv',
          domain: MS,
          inputs: ['x', 'xs', 'xz', 'w', 'ws', 'wz', 'ys', 'yz', 'b'],
          outputs: ['y'],
          attrs: { kernel_shape: [3, 3], pads: [1, 1, 1, 1], strides: [1, 1], group: 1, channels_last: last },
        },
        { x },
        [
          scalar('xs', 'float32', 0.0213),
          scalar('xz', 'uint8', 125),
          q('w', 'int8', [4, 3, 3, 3], 24),
          scalar('ws', 'float32', 0.0037),
          scalar('wz', 'int8', 0),
          scalar('ys', 'float32', 0.0611),
          scalar('yz', 'uint8', 120),
          { name: 'b', dtype: 'int32', shape: [4], data: [1000, -2000, 0, 500] },
        ],
      );
    }
    const x = tensor(codes('int8', [2, 5, 5, 3], 25), { dtype: 'int8', shape: [2, 5, 5, 3] });
    await agree(
      {
        op: 'NhwcMaxPool',
        domain: MS,
        inputs: ['x'],
        outputs: ['y'],
        attrs: { kernel_shape: [2, 2], strides: [2, 2], pads: [0, 0, 1, 1] },
      },
      { x },
      [],
    );
  });

  it('QLinearConcat of inputs at different scales, and QLinearWhere', async () => {
    const x = tensor(codes('int8', [2, 3, 4], 7), { dtype: 'int8', shape: [2, 3, 4] });
    await agree(
      {
        op: 'QLinearConcat',
        domain: MS,
        inputs: ['ys', 'yz', 'x', 'xs', 'xz', 'w', 'ws', 'wz'],
        outputs: ['y'],
        attrs: { axis: 1 },
      },
      { x },
      [
        scalar('ys', 'float32', 0.03),
        scalar('yz', 'int8', 4),
        scalar('xs', 'float32', 0.02),
        scalar('xz', 'int8', -3),
        q('w', 'int8', [2, 5, 4], 8),
        scalar('ws', 'float32', 0.04),
        scalar('wz', 'int8', 7),
      ],
    );
    const cond = tensor(
      codes('uint8', [3, 4], 9).map((v) => v % 2),
      { dtype: 'bool', shape: [3, 4] },
    );
    await agree(
      {
        op: 'QLinearWhere',
        domain: MS,
        inputs: ['c', 'x', 'xs', 'xz', 'w', 'ws', 'wz', 'zs', 'zz'],
        outputs: ['z'],
      },
      { c: cond, x },
      [
        scalar('xs', 'float32', 0.02),
        scalar('xz', 'int8', -3),
        q('w', 'int8', [2, 1, 4], 10),
        scalar('ws', 'float32', 0.04),
        scalar('wz', 'int8', 7),
        scalar('zs', 'float32', 0.03),
        scalar('zz', 'int8', 0),
      ],
    );
  });

  it('QGemm: quantized and float outputs, transposes, alpha, an int32 bias, per-column weight scales', async () => {
    const a = tensor(codes('uint8', [4, 6], 11), { dtype: 'uint8', shape: [4, 6] });
    const bias: InitializerSpec = { name: 'c', dtype: 'int32', shape: [5], data: [300, -200, 0, 1000, -50] };
    const perColumn: InitializerSpec = {
      name: 'bs',
      dtype: 'float32',
      shape: [5],
      data: [0.01, 0.02, 0.015, 0.005, 0.03],
    };
    const common = [scalar('as', 'float32', 0.02), scalar('az', 'uint8', 130)];
    const bzColumns: InitializerSpec = { name: 'bz', dtype: 'int8', shape: [5], data: [0, 0, 0, 0, 0] };
    // A float output (no y_scale), B (6, 5) per column, alpha.
    await agree(
      {
        op: 'QGemm',
        domain: MS,
        inputs: ['a', 'as', 'az', 'b', 'bs', 'bz', 'c'],
        outputs: ['y'],
        attrs: { alpha: 0.5 },
      },
      { a },
      [...common, q('b', 'int8', [6, 5], 12), perColumn, bzColumns, bias],
    );
    // A quantized output, B given as (5, 6) with transB: per row of B then, and per tensor.
    for (const scales of [
      [perColumn, bzColumns],
      [scalar('bs', 'float32', 0.0117), scalar('bz', 'int8', 3)],
    ])
      await agree(
        {
          op: 'QGemm',
          domain: MS,
          inputs: ['a', 'as', 'az', 'b', 'bs', 'bz', 'c', 'ys', 'yz'],
          outputs: ['y'],
          attrs: { transB: 1 },
        },
        { a },
        [
          ...common,
          q('b', 'int8', [5, 6], 13),
          ...scales,
          bias,
          scalar('ys', 'float32', 0.0513),
          scalar('yz', 'uint8', 128),
        ],
      );
  });

  it('16-bit QuantizeLinear and DequantizeLinear, per tensor and per axis', async () => {
    const x = tensor(Array.from(randomUniform([3, 4], { seed: 14, low: -300, high: 300 }).dataSync()), {
      dtype: 'float32',
      shape: [3, 4],
    });
    for (const dtype of ['uint16', 'int16'] as const) {
      const zeroData = dtype === 'uint16' ? [30000, 32768, 40000] : [-100, 0, 250];
      const inits: InitializerSpec[] = [
        { name: 's', dtype: 'float32', shape: [3], data: [0.01, 0.02, 0.05] },
        { name: 'z', dtype, shape: [3], data: zeroData },
      ];
      await agree(
        { op: 'QuantizeLinear', domain: MS, inputs: ['x', 's', 'z'], outputs: ['q'], attrs: { axis: 0 } },
        { x },
        inits,
      );
      const codes16 = tensor(
        zeroData.flatMap((z, i) => [z - 7 * (i + 1), z, z + 1000, z - 2000]),
        { dtype, shape: [3, 4] },
      );
      await agree(
        { op: 'DequantizeLinear', domain: MS, inputs: ['q', 's', 'z'], outputs: ['x'], attrs: { axis: 0 } },
        { q: codes16 },
        inits,
      );
    }
  });

  it('QAttention: per-tensor and per-column weight scales, a length mask, unidirectional', async () => {
    const [B, S, H, heads] = [2, 5, 8, 2];
    const x = tensor(codes('uint8', [B, S, H], 18), { dtype: 'uint8', shape: [B, S, H] });
    const perColumn: InitializerSpec = floats('ws', [3 * H], 19, 0.01, 0.03);
    const zeroColumns: InitializerSpec = {
      name: 'wz',
      dtype: 'int8',
      shape: [3 * H],
      data: codes('int8', [3 * H], 20).map((v) => v >> 4),
    };
    const cases: [InitializerSpec, InitializerSpec, Record<string, number>][] = [
      [scalar('ws', 'float32', 0.02), scalar('wz', 'int8', 0), {}],
      [perColumn, zeroColumns, { unidirectional: 1 }],
    ];
    for (const [ws, wz, extra] of cases) {
      const mask: InitializerSpec = { name: 'mask', dtype: 'int32', shape: [B], data: [5, 3] };
      await agree(
        {
          op: 'QAttention',
          domain: MS,
          inputs: ['x', 'w', 'bias', 'xs', 'ws', 'mask', 'xz', 'wz'],
          outputs: ['y'],
          attrs: { num_heads: heads, ...extra },
        },
        { x },
        [
          q('w', 'int8', [H, 3 * H], 21),
          floats('bias', [3 * H], 22, -0.2, 0.2),
          scalar('xs', 'float32', 0.01),
          ws,
          mask,
          scalar('xz', 'uint8', 128),
          wz,
        ],
        { tol: 1e-4 },
      );
    }
  });
});
