// Case: elementwise add of two float32 vectors of 2^20 elements.

import { ops } from '../../runtime/src/index.ts';
import { defineCase } from '../case.ts';
import { data, onnx, tf, tfjs } from '../peers.ts';
import { input, raf } from '../raf.ts';

const N = 1 << 20;
const a = data(N, 1);
const b = data(N, 2);
const build = () => {
  const [ta, tb] = [input([N], a), input([N], b)];
  return () => ops.add(ta, tb);
};
const tfBuild = () => {
  const [ta, tb] = [tf.tensor1d(a), tf.tensor1d(b)];
  return () => tf.add(ta, tb);
};

export default defineCase({
  name: 'add 2^20',
  what: 'add(a, b), two float32 vectors of 2^20',
  group: 'kernels',
  impls: {
    'raf-op': raf('add', build),
    'raf-op cpu': raf('add', build, ['cpu']),
    'tfjs-cpu': tfjs('cpu', tfBuild),
    'tfjs-wasm': tfjs('wasm', tfBuild),
    onnxruntime: onnx(
      {
        nodes: [{ op: 'Add', inputs: ['a', 'b'], outputs: ['c'] }],
        inputs: [
          { name: 'a', dtype: 'float32', shape: [N] },
          { name: 'b', dtype: 'float32', shape: [N] },
        ],
        outputs: [{ name: 'c' }],
      },
      () => ({ a: { dims: [N], data: a }, b: { dims: [N], data: b } }),
    ),
  },
});
