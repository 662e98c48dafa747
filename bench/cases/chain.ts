// Case: an elementwise chain, SiLU-style sigmoid(x·a + b)·x over 2^20 float32; raf-op runs it eagerly, op by op.

import { ops } from '../../runtime/src/index.ts';
import { defineCase } from '../case.ts';
import { data, onnx, tf, tfjs } from '../peers.ts';
import { input, raf } from '../raf.ts';

const N = 1 << 20;
const x = data(N, 1);
const a = data(N, 2);
const b = data(N, 3);
const build = () => {
  const [tx, ta, tb] = [input([N], x), input([N], a), input([N], b)];
  return () => ops.multiply(ops.sigmoid(ops.add(ops.multiply(tx, ta), tb)), tx);
};
const tfBuild = () => {
  const [tx, ta, tb] = [tf.tensor1d(x), tf.tensor1d(a), tf.tensor1d(b)];
  return () => tf.mul(tf.sigmoid(tf.add(tf.mul(tx, ta), tb)), tx);
};

export default defineCase({
  name: 'ewise chain',
  what: 'sigmoid(x*a + b) * x, float32 2^20, eager (4 ops)',
  group: 'kernels',
  impls: {
    'raf-op': raf('sigmoid', build),
    'raf-op cpu': raf('sigmoid', build, ['cpu']),
    'tfjs-cpu': tfjs('cpu', tfBuild),
    'tfjs-wasm': tfjs('wasm', tfBuild),
    onnxruntime: onnx(
      {
        nodes: [
          { op: 'Mul', inputs: ['x', 'a'], outputs: ['xa'] },
          { op: 'Add', inputs: ['xa', 'b'], outputs: ['z'] },
          { op: 'Sigmoid', inputs: ['z'], outputs: ['s'] },
          { op: 'Mul', inputs: ['s', 'x'], outputs: ['y'] },
        ],
        inputs: ['x', 'a', 'b'].map((name) => ({ name, dtype: 'float32' as const, shape: [N] })),
        outputs: [{ name: 'y' }],
      },
      () => ({ x: { dims: [N], data: x }, a: { dims: [N], data: a }, b: { dims: [N], data: b } }),
    ),
  },
});
