// Cases: softmax, log_softmax, sums, matmul, conv2d and add on the GPU, raf-op's webgpu dialect against tfjs-backend-webgpu on the same adapter.

import { ops } from '../../runtime/src/index.ts';
import { defineCase, type BenchCase } from '../case.ts';
import { noWebGpu, rafGpu, tfjsGpu } from '../gpu.ts';
import { data, tf } from '../peers.ts';

export function softmaxGpuCase(rows = 256, cols = 1024): BenchCase {
  const x = [{ shape: [rows, cols], data: data(rows * cols) }];
  return defineCase({
    name: `softmax ${rows}×${cols} · webgpu`,
    what: `softmax(x, -1), x ${rows}×${cols} float32, on the GPU; each run waits for the queue`,
    group: 'webgpu',
    unavailable: noWebGpu,
    impls: {
      'raf-op': rafGpu('softmax', x, (t) => ops.softmax(t, -1)),
      'tfjs-webgpu': tfjsGpu(x, (t) => tf.softmax(t)),
    },
  });
}

export function logSoftmaxGpuCase(rows = 256, cols = 1024): BenchCase {
  const x = [{ shape: [rows, cols], data: data(rows * cols) }];
  return defineCase({
    name: `log_softmax ${rows}×${cols} · webgpu`,
    what: `log_softmax(x, -1), x ${rows}×${cols} float32, on the GPU; each run waits for the queue`,
    group: 'webgpu',
    unavailable: noWebGpu,
    impls: {
      'raf-op': rafGpu('log_softmax', x, (t) => ops.logSoftmax(t, -1)),
      'tfjs-webgpu': tfjsGpu(x, (t) => tf.logSoftmax(t)),
    },
  });
}

/** sum over the last axis of a [rows, cols] matrix, or over everything when rows is 1. */
export function sumGpuCase(rows: number, cols: number): BenchCase {
  const x = [{ shape: [rows, cols], data: data(rows * cols) }];
  const all = rows === 1;
  return defineCase({
    name: all ? `sum 2^${Math.log2(cols)} · webgpu` : `sum ${rows}×${cols} rows · webgpu`,
    what: `${all ? 'sum(x), all' : 'sum(x, [-1]), x'} ${rows}×${cols} float32, on the GPU; each run waits for the queue`,
    group: 'webgpu',
    unavailable: noWebGpu,
    impls: {
      'raf-op': rafGpu('sum', x, (t) => (all ? ops.sum(t) : ops.sum(t, [-1]))),
      'tfjs-webgpu': tfjsGpu(x, (t) => (all ? tf.sum(t) : tf.sum(t, -1))),
    },
  });
}

export function matmulGpuCase(n: number): BenchCase {
  const ab = [
    { shape: [n, n], data: data(n * n, 1) },
    { shape: [n, n], data: data(n * n, 2) },
  ];
  return defineCase({
    name: `matmul ${n}³ · webgpu`,
    what: `matmul(a, b), ${n}×${n} · ${n}×${n} float32, on the GPU; each run waits for the queue`,
    group: 'webgpu',
    // 2 GFLOP a run: seconds on llvmpipe.
    slow: n > 256,
    unavailable: noWebGpu,
    impls: {
      'raf-op': rafGpu('matmul', ab, (a, b) => ops.matmul(a, b)),
      'tfjs-webgpu': tfjsGpu(ab, (a, b) => tf.matMul(a as tf.Tensor2D, b as tf.Tensor2D)),
    },
  });
}

/** The ResNet-style 3×3 convolution (64→64 on 56×56, padding 1); tfjs gets NHWC/HWIO copies of the data. */
export function conv2dGpuCase(): BenchCase {
  const [C, H, W, O, K] = [64, 56, 56, 64, 3];
  const [x, w] = [data(C * H * W, 1), data(O * C * K * K, 2)];
  // Made once, outside the timing: x as HWC, w as HWIO.
  const xHwc = new Float32Array(x.length);
  for (let c = 0; c < C; c++) for (let p = 0; p < H * W; p++) xHwc[p * C + c] = x[c * H * W + p]!;
  const wHwio = new Float32Array(w.length);
  for (let o = 0; o < O; o++)
    for (let c = 0; c < C; c++)
      for (let t = 0; t < K * K; t++) wHwio[(t * C + c) * O + o] = w[(o * C + c) * K * K + t]!;
  return defineCase({
    name: 'conv2d 3×3 · webgpu',
    what: `conv2d x[1,${C},${H},${W}] w[${O},${C},${K},${K}] pad 1, float32, on the GPU (tfjs in NHWC); each run waits for the queue`,
    group: 'webgpu',
    // 0.23 GFLOP a run: a second on llvmpipe.
    slow: true,
    unavailable: noWebGpu,
    impls: {
      'raf-op': rafGpu(
        'conv2d',
        [
          { shape: [1, C, H, W], data: x },
          { shape: [O, C, K, K], data: w },
        ],
        (a, b) => ops.conv2d(a, b, [1, 1], [1, 1, 1, 1]),
      ),
      'tfjs-webgpu': tfjsGpu(
        [
          { shape: [1, H, W, C], data: xHwc },
          { shape: [K, K, C, O], data: wHwio },
        ],
        (a, b) => tf.conv2d(a as tf.Tensor4D, b as tf.Tensor4D, 1, 'same'),
      ),
    },
    incomparable: { 'tfjs-webgpu': 'tfjs returns NHWC' },
  });
}

export function addGpuCase(n = 1 << 20): BenchCase {
  const ab = [
    { shape: [n], data: data(n, 1) },
    { shape: [n], data: data(n, 2) },
  ];
  return defineCase({
    name: `add ${n === 1 << 20 ? '2^20' : n} · webgpu`,
    what: `add(a, b), two float32 vectors of ${n}, on the GPU; each run waits for the queue`,
    group: 'webgpu',
    unavailable: noWebGpu,
    impls: {
      'raf-op': rafGpu('add', ab, (a, b) => ops.add(a, b)),
      'tfjs-webgpu': tfjsGpu(ab, (a, b) => tf.add(a, b)),
    },
  });
}

export default [
  softmaxGpuCase(),
  logSoftmaxGpuCase(),
  sumGpuCase(256, 1024),
  sumGpuCase(1, 1 << 20),
  matmulGpuCase(256),
  matmulGpuCase(1024),
  conv2dGpuCase(),
  addGpuCase(),
];
