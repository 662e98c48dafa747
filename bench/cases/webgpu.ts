// Cases: softmax, log_softmax, sums, matmul and add on the GPU, raf-op's webgpu dialect against tfjs-backend-webgpu on the same adapter.

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
  addGpuCase(),
];
