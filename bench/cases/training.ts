// Cases: one training step (forward, backward, Adam update, loss read back) of an MLP with tanh hidden layers and mean
// softmax cross-entropy, at two sizes: raf-op's compiled step (train.compileTrainStep) against TF.js.
// TF.js's peer is tf.train.adam's minimize(), the step `model.fit` runs per batch (tfjs-layers, which holds model.fit,
// is not installed here; tfjs-core's optimizer is the same update), with the same model, batch and optimizer.

import { createRequire } from 'node:module';
import { buildSync } from 'esbuild';
import { ops, train, withDialect, type Tensor } from '../../runtime/src/index.ts';
import { defineCase, type Impl } from '../case.ts';
import { data, tf, tfjs } from '../peers.ts';
import { input } from '../raf.ts';

/**
 * TF.js registers its gradients in @tensorflow/tfjs (not installed here); tfjs-core ships them as ES files with
 * extensionless imports, which Node cannot load. They are bundled once here and run: registration goes to tfjs's
 * global gradient registry, which the tfjs-core this process uses reads.
 */
function registerTfjsGradients(): void {
  const require = createRequire(import.meta.url);
  const entry = require.resolve('@tensorflow/tfjs-core/dist/register_all_gradients.js');
  const { outputFiles } = buildSync({
    entryPoints: [entry],
    bundle: true,
    format: 'cjs',
    platform: 'node',
    write: false,
  });
  const module = { exports: {} };
  new Function('module', 'exports', 'require', outputFiles[0]!.text)(module, module.exports, require);
}
registerTfjsGradients();

interface Size {
  readonly name: string;
  readonly batch: number;
  readonly layers: readonly number[];
}

const SIZES: readonly Size[] = [
  { name: 'training: mlp 4-16-16-3 (iris-sized)', batch: 150, layers: [4, 16, 16, 3] },
  { name: 'training: mlp 784-256-10', batch: 128, layers: [784, 256, 10] },
];
const LR = 0.01;

function setup(s: Size) {
  const n = s.layers.length - 1;
  const x = data(s.batch * s.layers[0]!, 7);
  const classes = s.layers[n]!;
  const y = new Float32Array(s.batch * classes);
  for (let i = 0; i < s.batch; i++) y[i * classes + (i % classes)] = 1;
  // Weights [out, in] as dense takes them, scaled as torch.nn.Linear's uniform(±1/sqrt(fan_in)) roughly is.
  const ws = Array.from({ length: n }, (_, k) =>
    data(s.layers[k + 1]! * s.layers[k]!, 11 + k).map((v) => v / Math.sqrt(s.layers[k]!)),
  );
  const bs = Array.from({ length: n }, (_, k) => data(s.layers[k + 1]!, 31 + k).map((v) => v * 0.1));
  return { n, x, y, classes, ws, bs };
}

function rafStep(s: Size, pin?: readonly string[]): Impl {
  return {
    setup() {
      const d = setup(s);
      const params: Record<string, Tensor> = {};
      for (let k = 0; k < d.n; k++) {
        params[`w${k}`] = input([s.layers[k + 1]!, s.layers[k]!], d.ws[k]!);
        params[`b${k}`] = input([s.layers[k + 1]!], d.bs[k]!);
      }
      const bx = input([s.batch, s.layers[0]!], d.x);
      const by = input([s.batch, d.classes], d.y);
      const loss = (p: Record<string, Tensor>, xb: Tensor, yb: Tensor): Tensor => {
        let h = xb;
        for (let k = 0; k < d.n; k++) {
          h = ops.dense(h, p[`w${k}`]!, p[`b${k}`]!);
          if (k < d.n - 1) h = ops.tanh(h);
        }
        return ops.negative(ops.mean(ops.sum(ops.multiply(yb, ops.logSoftmax(h, -1)), [1])));
      };
      const opt = train.adam(params, { lr: LR });
      const step = train.compileTrainStep(loss, opt, [bx, by]);
      const once = () => {
        const l = step([bx, by]);
        l.dataSync();
        l.dispose();
      };
      return {
        run: pin ? () => withDialect(pin, once) : once,
        note: pin ? pin.join('+') : 'default dispatch',
        dispose: () => opt.dispose(),
      };
    },
  };
}

function tfStep(s: Size) {
  return () => {
    const d = setup(s);
    const vars: tf.Variable[] = [];
    for (let k = 0; k < d.n; k++) {
      vars.push(tf.variable(tf.tensor2d(d.ws[k]!, [s.layers[k + 1]!, s.layers[k]!])));
      vars.push(tf.variable(tf.tensor1d(d.bs[k]!)));
    }
    const bx = tf.tensor2d(d.x, [s.batch, s.layers[0]!]);
    const by = tf.tensor2d(d.y, [s.batch, d.classes]);
    const opt = tf.train.adam(LR);
    const loss = () => {
      let h: tf.Tensor = bx;
      for (let k = 0; k < d.n; k++) {
        h = tf.add(tf.matMul(h, vars[2 * k]!, false, true), vars[2 * k + 1]!);
        if (k < d.n - 1) h = tf.tanh(h);
      }
      return tf.neg(tf.mean(tf.sum(tf.mul(by, tf.logSoftmax(h, -1)), 1))) as tf.Scalar;
    };
    return () => opt.minimize(loss, true, vars)!;
  };
}

export default SIZES.map((s) =>
  defineCase({
    name: s.name,
    what: `one Adam step (lr ${LR}) of a ${s.layers.join('-')} tanh MLP, softmax cross-entropy, batch ${s.batch}`,
    group: 'training',
    impls: {
      'raf-op': rafStep(s),
      'raf-op cpu': rafStep(s, ['cpu']),
      'tfjs-cpu': tfjs('cpu', tfStep(s)),
      'tfjs-wasm': tfjs('wasm', tfStep(s)),
    },
  }),
);
