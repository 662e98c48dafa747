// Cases: log_softmax and the reductions sum, mean and max over the last axis of a 256×1024 float32 matrix (issue 15
// item 4: at least as fast as tfjs-wasm).

import { ops, type Tensor } from '../../runtime/src/index.ts';
import { defineCase } from '../case.ts';
import { data, onnx, tf, tfjs } from '../peers.ts';
import { input, raf } from '../raf.ts';

const [R, C] = [256, 1024];
const x = data(R * C, 5);

type Ours = (t: Tensor) => Tensor;
type Theirs = (t: tf.Tensor2D) => tf.Tensor;

function reductionCase(name: string, what: string, op: string, ours: Ours, theirs: Theirs, node: object, axes = false) {
  const build = () => {
    const t = input([R, C], x);
    return () => ours(t);
  };
  const tfBuild = () => {
    const t = tf.tensor2d(x, [R, C]);
    return () => theirs(t);
  };
  return defineCase({
    name,
    what: `${what}, x ${R}×${C} float32`,
    group: 'kernels',
    impls: {
      'raf-op': raf(op, build),
      'raf-op cpu': raf(op, build, ['cpu']),
      'tfjs-cpu': tfjs('cpu', tfBuild),
      'tfjs-wasm': tfjs('wasm', tfBuild),
      onnxruntime: onnx(
        {
          nodes: [node as never],
          inputs: [{ name: 'x', dtype: 'float32', shape: [R, C] }],
          outputs: [{ name: 'y' }],
          // ReduceSum takes its axes as an input from opset 13 on.
          ...(axes ? { initializers: [{ name: 'axes', dtype: 'int64' as const, shape: [1], data: [-1] }] } : {}),
          opset: 13,
        },
        () => ({ x: { dims: [R, C], data: x } }),
      ),
    },
  });
}

export default [
  reductionCase(
    'log_softmax',
    'log_softmax(x, -1)',
    'log_softmax',
    (t) => ops.logSoftmax(t, -1),
    (t) => tf.logSoftmax(t),
    { op: 'LogSoftmax', inputs: ['x'], outputs: ['y'], attrs: { axis: -1 } },
  ),
  reductionCase(
    'sum last axis',
    'sum(x, -1)',
    'sum',
    (t) => ops.sum(t, [-1]),
    (t) => tf.sum(t, -1),
    { op: 'ReduceSum', inputs: ['x', 'axes'], outputs: ['y'], attrs: { keepdims: 0 } },
    true,
  ),
  reductionCase(
    'mean last axis',
    'mean(x, -1)',
    'mean',
    (t) => ops.mean(t, [-1]),
    (t) => tf.mean(t, -1),
    { op: 'ReduceMean', inputs: ['x'], outputs: ['y'], attrs: { axes: [-1], keepdims: 0 } },
  ),
  reductionCase(
    'max last axis',
    'max(x, -1)',
    'max',
    (t) => ops.max(t, [-1]),
    (t) => tf.max(t, -1),
    { op: 'ReduceMax', inputs: ['x'], outputs: ['y'], attrs: { axes: [-1], keepdims: 0 } },
  ),
];
