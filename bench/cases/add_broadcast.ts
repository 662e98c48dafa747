// Case: a per-channel broadcast add, [1, C, 1, 1] onto [1, C, H, W] (conv bias, BatchNorm shift, squeeze-excite).

import { ops } from '../../runtime/src/index.ts';
import { defineCase } from '../case.ts';
import { data, onnx, tf, tfjs } from '../peers.ts';
import { input, raf } from '../raf.ts';

const X = [1, 120, 12, 80];
const B = [1, 120, 1, 1];
const x = data(120 * 12 * 80, 1);
const b = data(120, 2);
const build = () => {
  const [tx, tb] = [input(X, x), input(B, b)];
  return () => ops.add(tx, tb);
};
const tfBuild = () => {
  const [tx, tb] = [
    tf.tensor4d(x, X as [number, number, number, number]),
    tf.tensor4d(b, B as [number, number, number, number]),
  ];
  return () => tf.add(tx, tb);
};

export default defineCase({
  name: 'add [1,C,1,1]',
  what: 'add(x, b), x 1×120×12×80 and b 1×120×1×1 float32 (broadcast per channel)',
  group: 'kernels',
  impls: {
    'raf-op': raf('add', build),
    'raf-op cpu': raf('add', build, ['cpu']),
    'tfjs-cpu': tfjs('cpu', tfBuild),
    'tfjs-wasm': tfjs('wasm', tfBuild),
    onnxruntime: onnx(
      {
        nodes: [{ op: 'Add', inputs: ['x', 'b'], outputs: ['y'] }],
        inputs: [
          { name: 'x', dtype: 'float32', shape: X },
          { name: 'b', dtype: 'float32', shape: B },
        ],
        outputs: [{ name: 'y' }],
      },
      () => ({ x: { dims: X, data: x }, b: { dims: B, data: b } }),
    ),
  },
});
