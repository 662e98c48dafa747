// The wasm dialect's fast paths of issue 15 against float64 references computed here: the unpacked product for one to
// three rows (matmul, matmul_nt, dense), and graph constants read from wasm memory by the executor.

import { describe, expect, it } from 'vitest';
import { ops, tensor, toWasmMemory, withDialect } from '../../runtime/src/index.ts';
import { execute, fromOnnx, fuseOps } from '../../runtime/src/graph/index.ts';
import { buildModel } from '../support/onnx-proto.ts';
import { sizeOf } from '../../runtime/src/shape.ts';
import { assertAllClose, tolerance } from '../support/assert.ts';
import { lcgValues as values, matmulRef as product, transposeRef } from '../support/reference.ts';

describe('wasm product with few rows', () => {
  // k and n off the vector width, and a k of several vectors plus a tail.
  for (const [m, n, k] of [
    [1, 5, 7],
    [2, 9, 3],
    [3, 13, 37],
    [1, 1, 1],
  ] as const) {
    const a = values(m * k, 1);
    const b = values(k * n, 2);
    const want = product(a, b, m, n, k);
    it(`matmul ${m}×${k}·${k}×${n}`, () => {
      const got = withDialect(['wasm'], () =>
        ops.matmul(tensor(a, { shape: [m, k], dtype: 'float32' }), tensor(b, { shape: [k, n], dtype: 'float32' })),
      );
      assertAllClose(got.dataSync(), want, tolerance('float32'));
    });
    it(`matmul_nt and dense ${m}×${k}·(${n}×${k})ᵀ`, () => {
      const bt = transposeRef(b, k, n);
      const bias = values(n, 3);
      const [nt, dense] = withDialect(['wasm'], () => {
        const x = tensor(a, { shape: [m, k], dtype: 'float32' });
        const w = tensor(bt, { shape: [n, k], dtype: 'float32' });
        return [ops.matmulNt(x, w), ops.dense(x, w, tensor(bias, { shape: [n], dtype: 'float32' }))];
      });
      assertAllClose(nt!.dataSync(), want, tolerance('float32'));
      assertAllClose(
        dense!.dataSync(),
        want.map((v, i) => v + bias[i % n]!),
        tolerance('float32'),
      );
    });
  }
});

describe('graph constants in wasm memory', () => {
  it('a model run twice gives x·W + b both times and leaves its weights intact', () => {
    const [m, k, n] = [2, 6, 5];
    const w = values(k * n, 4);
    const b = values(n, 5);
    const spec = {
      nodes: [
        { op: 'MatMul', inputs: ['x', 'w'], outputs: ['h'] },
        { op: 'Add', inputs: ['h', 'b'], outputs: ['y'] },
      ],
      inputs: [{ name: 'x', dtype: 'float32' as const, shape: [m, k] }],
      outputs: [{ name: 'y' }],
      initializers: [
        { name: 'w', dtype: 'float32' as const, shape: [k, n], data: Float32Array.from(w) },
        { name: 'b', dtype: 'float32' as const, shape: [n], data: Float32Array.from(b) },
      ],
      opset: 17,
    };
    const g = fromOnnx(buildModel(spec));
    for (const seed of [6, 7]) {
      const x = values(m * k, seed);
      const want = product(x, w, m, n, k).map((v, i) => v + b[i % n]!);
      const [y] = execute(g, [tensor(x, { shape: [m, k], dtype: 'float32' })]);
      expect(y!.shape).toEqual([m, n]);
      assertAllClose(y!.dataSync(), want, tolerance('float32'));
    }
  });
});

/** Depthwise conv2d in float64: y[n, ch, oy, ox] = Σ w[ch, 0, ky, kx]·x[n, ch, iy, ix] over in-bounds taps. */
function depthwise(
  x: number[],
  [n, c, h, wd]: number[],
  w: number[],
  [kh, kw]: number[],
  [sh, sw]: number[],
  [pt, pl, pb, pr]: number[],
  [dh, dw]: number[],
): { shape: number[]; data: number[] } {
  const oh = Math.floor((h + pt + pb - (dh * (kh - 1) + 1)) / sh) + 1;
  const ow = Math.floor((wd + pl + pr - (dw * (kw - 1) + 1)) / sw) + 1;
  const data: number[] = [];
  for (let b = 0; b < n; b++)
    for (let ch = 0; ch < c; ch++)
      for (let oy = 0; oy < oh; oy++)
        for (let ox = 0; ox < ow; ox++) {
          let s = 0;
          for (let ky = 0; ky < kh; ky++)
            for (let kx = 0; kx < kw; kx++) {
              const iy = oy * sh - pt + ky * dh;
              const ix = ox * sw - pl + kx * dw;
              if (iy >= 0 && iy < h && ix >= 0 && ix < wd)
                s += w[(ch * kh + ky) * kw + kx]! * x[((b * c + ch) * h + iy) * wd + ix]!;
            }
          data.push(s);
        }
  return { shape: [n, c, oh, ow], data };
}

describe('wasm depthwise conv2d', () => {
  // Rows long enough for the four-wide path, with padding on every side, strides, dilation and a batch.
  const cases: [number[], number[], number[], number[], number[]][] = [
    [
      [1, 3, 7, 13],
      [5, 5],
      [1, 1],
      [2, 2, 2, 2],
      [1, 1],
    ],
    [
      [2, 4, 6, 17],
      [3, 3],
      [2, 1],
      [1, 1, 1, 1],
      [1, 1],
    ],
    [
      [1, 2, 5, 11],
      [3, 3],
      [1, 2],
      [0, 1, 1, 0],
      [1, 1],
    ],
    [
      [1, 2, 6, 12],
      [3, 2],
      [1, 1],
      [1, 0, 2, 1],
      [2, 2],
    ],
    [
      [1, 5, 3, 9],
      [1, 1],
      [1, 1],
      [0, 0, 0, 0],
      [1, 1],
    ],
  ];
  for (const [shape, kernel, stride, padding, dilation] of cases) {
    it(`x ${JSON.stringify(shape)} kernel ${kernel} stride ${stride} padding ${padding} dilation ${dilation}`, () => {
      const c = shape[1]!;
      const x = values(sizeOf(shape), 8);
      const w = values(c * kernel[0]! * kernel[1]!, 9);
      const want = depthwise(x, shape, w, kernel, stride, padding, dilation);
      const got = withDialect(['wasm'], () =>
        ops.conv2d(
          tensor(x, { shape, dtype: 'float32' }),
          tensor(w, { shape: [c, 1, ...kernel], dtype: 'float32' }),
          stride,
          padding,
          dilation,
          c,
        ),
      );
      expect(got.shape).toEqual(want.shape);
      assertAllClose(got.dataSync(), want.data, tolerance('float32'));
    });
  }
});

describe('fused CPU groups over wasm memory', () => {
  it('a depthwise Conv with bias and Relu, fused, equals the float64 reference and the unfused graph', () => {
    const shape = [1, 3, 6, 11];
    const [c, kh, kw] = [3, 3, 3];
    const x = values(sizeOf(shape), 10);
    const w = values(c * kh * kw, 11);
    const b = values(c, 12);
    const spec = {
      nodes: [
        {
          op: 'Conv',
          inputs: ['x', 'w', 'b'],
          outputs: ['h'],
          attrs: { group: c, pads: [1, 1, 1, 1], kernel_shape: [kh, kw] },
        },
        { op: 'Relu', inputs: ['h'], outputs: ['y'] },
      ],
      inputs: [{ name: 'x', dtype: 'float32' as const, shape }],
      outputs: [{ name: 'y' }],
      initializers: [
        { name: 'w', dtype: 'float32' as const, shape: [c, 1, kh, kw], data: Float32Array.from(w) },
        { name: 'b', dtype: 'float32' as const, shape: [c], data: Float32Array.from(b) },
      ],
      opset: 17,
    };
    const conv = depthwise(x, shape, w, [kh, kw], [1, 1], [1, 1, 1, 1], [1, 1]);
    const plane = conv.data.length / c;
    const want = conv.data.map((v, i) => Math.max(0, v + b[Math.floor(i / plane)]!));
    const g = fromOnnx(buildModel(spec));
    const fused = fuseOps(g);
    expect(fused.nodes.length).toBeLessThan(g.nodes.length);
    // The input in wasm memory, as a previous wasm kernel would leave it: the fused loop reads it in place.
    for (const graph of [fused, g]) {
      const [y] = execute(graph, [toWasmMemory(tensor(x, { shape, dtype: 'float32' }))]);
      expect(y!.shape).toEqual(conv.shape);
      assertAllClose(y!.dataSync(), want, tolerance('float32'));
    }
  });
});
