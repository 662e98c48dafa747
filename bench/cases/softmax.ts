// Case: softmax over the last axis of a 256×1024 float32 matrix.

import { ops } from '../../runtime/src/index.ts';
import { defineCase } from '../case.ts';
import { data, onnx, tf, tfjs } from '../peers.ts';
import { input, raf } from '../raf.ts';

const [R, C] = [256, 1024];
const x = data(R * C);
const build = () => {
  const t = input([R, C], x);
  return () => ops.softmax(t, -1);
};
const tfBuild = () => {
  const t = tf.tensor2d(x, [R, C]);
  return () => tf.softmax(t);
};

export default defineCase({
  name: 'softmax',
  what: `softmax(x, -1), x ${R}×${C} float32`,
  group: 'kernels',
  impls: {
    'raf-op': raf('softmax', build),
    'raf-op cpu': raf('softmax', build, ['cpu']),
    'tfjs-cpu': tfjs('cpu', tfBuild),
    'tfjs-wasm': tfjs('wasm', tfBuild),
    onnxruntime: onnx(
      {
        nodes: [{ op: 'Softmax', inputs: ['x'], outputs: ['y'], attrs: { axis: -1 } }],
        inputs: [{ name: 'x', dtype: 'float32', shape: [R, C] }],
        outputs: [{ name: 'y' }],
        opset: 13,
      },
      () => ({ x: { dims: [R, C], data: x } }),
    ),
  },
});
