// Case: layer normalization over the last axis of a 256×1024 float32 matrix, with scale and bias.

import { ops } from '../../runtime/src/index.ts';
import { defineCase } from '../case.ts';
import { data, onnx, tf, tfjs } from '../peers.ts';
import { input, raf } from '../raf.ts';

const [R, C] = [256, 1024];
const EPS = 1e-5;
const x = data(R * C, 1);
const scale = data(C, 2);
const bias = data(C, 3);
const build = () => {
  const [tx, ts, tb] = [input([R, C], x), input([C], scale), input([C], bias)];
  return () => ops.layerNorm(tx, ts, tb, -1, EPS);
};
// tfjs has no layer-norm op: the usual composition from moments.
const tfBuild = () => {
  const [tx, ts, tb] = [tf.tensor2d(x, [R, C]), tf.tensor1d(scale), tf.tensor1d(bias)];
  return () => {
    const { mean, variance } = tf.moments(tx, -1, true);
    return tf.add(tf.mul(tf.mul(tf.sub(tx, mean), tf.rsqrt(tf.add(variance, EPS))), ts), tb);
  };
};

export default defineCase({
  name: 'layer_norm',
  what: `layer_norm(x, scale, bias, -1), x ${R}×${C} float32 (tfjs: composed from moments)`,
  group: 'kernels',
  impls: {
    'raf-op': raf('layer_norm', build),
    'raf-op cpu': raf('layer_norm', build, ['cpu']),
    'tfjs-cpu': tfjs('cpu', tfBuild),
    'tfjs-wasm': tfjs('wasm', tfBuild),
    onnxruntime: onnx(
      {
        nodes: [
          {
            op: 'LayerNormalization',
            inputs: ['x', 'scale', 'bias'],
            outputs: ['y'],
            attrs: { axis: -1, epsilon: { float: EPS } },
          },
        ],
        inputs: [
          { name: 'x', dtype: 'float32', shape: [R, C] },
          { name: 'scale', dtype: 'float32', shape: [C] },
          { name: 'bias', dtype: 'float32', shape: [C] },
        ],
        outputs: [{ name: 'y' }],
        opset: 17,
      },
      () => ({ x: { dims: [R, C], data: x }, scale: { dims: [C], data: scale }, bias: { dims: [C], data: bias } }),
    ),
  },
});
