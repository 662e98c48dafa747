// Cases: float32 matrix products n×n·n×n for n = 256 and 1024.

import { ops } from '../../runtime/src/index.ts';
import { defineCase, type BenchCase, type Impl } from '../case.ts';
import { data, onnx, onnxWeb, tf, tfjs } from '../peers.ts';
import { input, raf } from '../raf.ts';

/** onnxruntime's MatMul of two n×n float32 matrices (also bench/simd-ceiling.ts's); `peer` picks node or web. */
export const onnxMatmul = (n: number, a: Float32Array, b: Float32Array, peer = onnx): Impl =>
  peer(
    {
      nodes: [{ op: 'MatMul', inputs: ['a', 'b'], outputs: ['c'] }],
      inputs: [
        { name: 'a', dtype: 'float32', shape: [n, n] },
        { name: 'b', dtype: 'float32', shape: [n, n] },
      ],
      outputs: [{ name: 'c' }],
    },
    () => ({ a: { dims: [n, n], data: a }, b: { dims: [n, n], data: b } }),
  );

export function matmulCase(n: number): BenchCase {
  const a = data(n * n, 1);
  const b = data(n * n, 2);
  const build = () => {
    const [ta, tb] = [input([n, n], a), input([n, n], b)];
    return () => ops.matmul(ta, tb);
  };
  const tfBuild = () => {
    const [ta, tb] = [tf.tensor2d(a, [n, n]), tf.tensor2d(b, [n, n])];
    return () => tf.matMul(ta, tb);
  };
  return defineCase({
    name: `matmul ${n}³`,
    what: `matmul(a, b), ${n}×${n} · ${n}×${n} float32`,
    group: 'kernels',
    slow: n > 256,
    ...(n > 256 ? { gaps: { 'raf-op cpu': 'not timed at this size (about 20 s a run)' } } : {}),
    impls: {
      'raf-op': raf('matmul', build),
      // The TypeScript reference takes about 20 s at 1024³; it is timed at 256³ only.
      ...(n <= 256 ? { 'raf-op cpu': raf('matmul', build, ['cpu']) } : {}),
      // The browser's dispatch: raf-op's own kernels (no ort dialect there), against onnxruntime-web.
      'raf-op wasm': raf('matmul', build, ['wasm', 'cpu']),
      'tfjs-cpu': tfjs('cpu', tfBuild),
      'tfjs-wasm': tfjs('wasm', tfBuild),
      onnxruntime: onnxMatmul(n, a, b),
      'onnxruntime-web': onnxMatmul(n, a, b, onnxWeb),
    },
  });
}

export default [matmulCase(256), matmulCase(1024)];
