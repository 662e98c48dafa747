// Case: forward and backward of a two-layer MLP, loss = sum(relu(x·W1)·W2), gradients for W1 and W2.

import { grad, ops } from '../../runtime/src/index.ts';
import { defineCase } from '../case.ts';
import { data, onnx, tf, tfjs } from '../peers.ts';
import { input, raf } from '../raf.ts';

const [B, D, H, O] = [128, 784, 256, 10];
const x = data(B * D, 1);
const w1 = data(D * H, 2).map((v) => v * 0.05);
const w2 = data(H * O, 3).map((v) => v * 0.05);
const build = () => {
  const [tx, t1, t2] = [input([B, D], x), input([D, H], w1), input([H, O], w2)];
  const g = grad((a, b) => ops.sum(ops.matmul(ops.relu(ops.matmul(tx, a)), b)));
  return () => g(t1, t2);
};
const tfBuild = () => {
  const [tx, t1, t2] = [tf.tensor2d(x, [B, D]), tf.tensor2d(w1, [D, H]), tf.tensor2d(w2, [H, O])];
  const g = tf.grads((a: tf.Tensor, b: tf.Tensor) => tf.sum(tf.matMul(tf.relu(tf.matMul(tx, a)), b)));
  return () => g([t1, t2]);
};

// onnxruntime-node has no autodiff: the backward graph is written out by hand (dy = 1 for a sum).
const backwardGraph = {
  nodes: [
    { op: 'MatMul', inputs: ['x', 'w1'], outputs: ['z'] },
    { op: 'Relu', inputs: ['z'], outputs: ['h'] },
    { op: 'MatMul', inputs: ['h', 'w2'], outputs: ['y'] },
    { op: 'Transpose', inputs: ['h'], outputs: ['ht'], attrs: { perm: [1, 0] } },
    { op: 'MatMul', inputs: ['ht', 'dy'], outputs: ['dw2'] },
    { op: 'Transpose', inputs: ['w2'], outputs: ['w2t'], attrs: { perm: [1, 0] } },
    { op: 'MatMul', inputs: ['dy', 'w2t'], outputs: ['dh'] },
    { op: 'Sign', inputs: ['h'], outputs: ['mask'] },
    { op: 'Mul', inputs: ['dh', 'mask'], outputs: ['dz'] },
    { op: 'Transpose', inputs: ['x'], outputs: ['xt'], attrs: { perm: [1, 0] } },
    { op: 'MatMul', inputs: ['xt', 'dz'], outputs: ['dw1'] },
  ],
  inputs: [
    { name: 'x', dtype: 'float32' as const, shape: [B, D] },
    { name: 'w1', dtype: 'float32' as const, shape: [D, H] },
    { name: 'w2', dtype: 'float32' as const, shape: [H, O] },
    { name: 'dy', dtype: 'float32' as const, shape: [B, O] },
  ],
  outputs: [{ name: 'y' }, { name: 'dw1' }, { name: 'dw2' }],
};

export default defineCase({
  name: 'mlp backward',
  what: `grad of sum(relu(x·W1)·W2) for W1, W2; x ${B}×${D}, W1 ${D}×${H}, W2 ${H}×${O}`,
  group: 'kernels',
  impls: {
    'raf-op': raf('matmul', build),
    'raf-op cpu': raf('matmul', build, ['cpu']),
    'tfjs-cpu': tfjs('cpu', tfBuild),
    'tfjs-wasm': tfjs('wasm', tfBuild),
    onnxruntime: onnx(backwardGraph, () => ({
      x: { dims: [B, D], data: x },
      w1: { dims: [D, H], data: w1 },
      w2: { dims: [H, O], data: w2 },
      dy: { dims: [B, O], data: new Float32Array(B * O).fill(1) },
    })),
  },
  incomparable: { onnxruntime: 'the hand-written backward graph also returns y' },
  gaps: {
    'tfjs-cpu':
      'open: tf.grads fails with "gradient function not found for Sum" (tfjs-core\'s ES entry registers no gradients here)',
    'tfjs-wasm': 'same as tfjs-cpu',
  },
});
