// Case: a ResNet-style 3×3 convolution, 64→64 channels on 56×56, stride 1, padding 1, batch 1, float32.

import { ops } from '../../runtime/src/index.ts';
import { defineCase } from '../case.ts';
import { data, onnx, onnxWeb, tf, tfjs } from '../peers.ts';
import { input, raf } from '../raf.ts';
import type { ModelSpec } from '../../test/support/onnx-proto.ts';

const [N, C, H, W, O, K] = [1, 64, 56, 56, 64, 3];
const x = data(N * C * H * W, 1);
const w = data(O * C * K * K, 2);
const build = () => {
  const [tx, tw] = [input([N, C, H, W], x), input([O, C, K, K], w)];
  return () => ops.conv2d(tx, tw, [1, 1], [1, 1, 1, 1]);
};
// tfjs convolves NHWC with HWIO filters, its native layouts; the transposes are made once, outside the timing.
const tfBuild = () => {
  const tx = tf.transpose(tf.tensor4d(x, [N, C, H, W]), [0, 2, 3, 1]);
  const tw = tf.transpose(tf.tensor4d(w, [O, C, K, K]), [2, 3, 1, 0]) as tf.Tensor4D;
  return () => tf.conv2d(tx as tf.Tensor4D, tw, 1, 'same');
};

/** The same Conv for onnxruntime-node and onnxruntime-web. */
const CONV: ModelSpec = {
  nodes: [{ op: 'Conv', inputs: ['x', 'w'], outputs: ['y'], attrs: { pads: [1, 1, 1, 1], kernel_shape: [K, K] } }],
  inputs: [
    { name: 'x', dtype: 'float32', shape: [N, C, H, W] },
    { name: 'w', dtype: 'float32', shape: [O, C, K, K] },
  ],
  outputs: [{ name: 'y' }],
};
const convFeeds = () => ({ x: { dims: [N, C, H, W], data: x }, w: { dims: [O, C, K, K], data: w } });

export default defineCase({
  name: 'conv2d 3×3',
  what: `conv2d x[${N},${C},${H},${W}] w[${O},${C},${K},${K}] pad 1, float32 (tfjs in NHWC)`,
  group: 'kernels',
  impls: {
    'raf-op': raf('conv2d', build),
    'raf-op cpu': raf('conv2d', build, ['cpu']),
    // The browser's dispatch: raf-op's own kernels (no ort dialect there), against onnxruntime-web.
    'raf-op wasm': raf('conv2d', build, ['wasm', 'cpu']),
    'tfjs-cpu': tfjs('cpu', tfBuild),
    'tfjs-wasm': tfjs('wasm', tfBuild),
    onnxruntime: onnx(CONV, convFeeds),
    'onnxruntime-web': onnxWeb(CONV, convFeeds),
  },
  incomparable: { 'tfjs-cpu': 'tfjs returns NHWC', 'tfjs-wasm': 'tfjs returns NHWC' },
});
