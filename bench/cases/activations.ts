// Cases: two activations whose float32 math the wasm dialect vectorizes, over 2^20 elements: GELU (exact, by erf, as
// transformers use it) and softplus (Mish's inner function).

import { ops } from '../../runtime/src/index.ts';
import { defineCase, type BenchCase } from '../case.ts';
import { data, onnx, tf, tfjs } from '../peers.ts';
import { input, raf } from '../raf.ts';

const N = 1 << 20;
// Spread over [-4, 4], where both functions are curved and erf's two forms both serve.
const x = data(N, 7).map((v) => v * 4);

function activationCase(
  op: 'gelu' | 'softplus',
  tfBody: (t: tf.Tensor) => tf.Tensor,
  onnxOp: string,
  opset: number,
): BenchCase {
  const build = () => {
    const t = input([N], x);
    return () => ops[op](t);
  };
  const tfBuild = () => {
    const t = tf.tensor1d(x);
    return () => tfBody(t);
  };
  return defineCase({
    name: `${op} 2^20`,
    what: `${op}(x), float32 2^20 in [-4, 4]; tfjs ${op === 'gelu' ? 'composes it from erf (no GELU op)' : 'tf.softplus'}, onnxruntime the ${onnxOp} op (opset ${opset})`,
    group: 'kernels',
    impls: {
      'raf-op': raf(op, build),
      'raf-op cpu': raf(op, build, ['cpu']),
      'tfjs-cpu': tfjs('cpu', tfBuild),
      'tfjs-wasm': tfjs('wasm', tfBuild),
      onnxruntime: onnx(
        {
          nodes: [{ op: onnxOp, inputs: ['x'], outputs: ['y'] }],
          inputs: [{ name: 'x', dtype: 'float32', shape: [N] }],
          outputs: [{ name: 'y' }],
          opset,
        },
        () => ({ x: { dims: [N], data: x } }),
      ),
    },
  });
}

export default [
  activationCase('gelu', (t) => tf.mul(tf.mul(t, 0.5), tf.add(1, tf.erf(tf.mul(t, Math.SQRT1_2)))), 'Gelu', 20),
  activationCase('softplus', (t) => tf.softplus(t), 'Softplus', 13),
];
