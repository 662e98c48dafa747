// Cases: one training step (forward, backward, Adam update, loss read back) of an MLP with tanh hidden layers and mean
// softmax cross-entropy, at two sizes, and of the small CNN of test/train/cnn-model.ts (conv2d 3x3 padding 1, relu,
// max_pool2d 2x2, conv2d 3x3, relu, dense) at two sizes: raf-op's compiled step (train.compileTrainStep) against TF.js
// (the CNN in TF.js's NHWC layout with conv weights [KH, KW, C, O] permuted from raf-op's [O, C, KH, KW]; the dense
// layer reads the NHWC flattening, the same arithmetic on features in another order).
// TF.js's peer is tf.train.adam's minimize(), the step `model.fit` runs per batch (tfjs-layers, which holds model.fit,
// is not installed here; tfjs-core's optimizer is the same update), with the same model, batch and optimizer.

import { createRequire } from 'node:module';
import { buildSync } from 'esbuild';
import { ops, train, withDialect, type Tensor } from '../../runtime/src/index.ts';
import { defineCase, type BenchCase, type Impl, type Runner } from '../case.ts';
import { noWebGpu, webgpuReady } from '../gpu.ts';
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

function rafStep(s: Size, pin?: readonly string[], gpu = false): Impl {
  return {
    async setup() {
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
      return compiledStep(params, loss, [bx, by], pin, gpu);
    },
  };
}

/**
 * raf-op's column: Adam over `params`, the step compiled once for `batch` and run on it; the loss is read back each
 * run. On the GPU (`gpu`) parameters and batch are moved to WebGPU first and the loss is read asynchronously.
 */
async function compiledStep(
  params: Record<string, Tensor>,
  loss: (p: Record<string, Tensor>, xb: Tensor, yb: Tensor) => Tensor,
  batch: readonly [Tensor, Tensor],
  pin: readonly string[] | undefined,
  gpu: boolean,
): Promise<Runner> {
  if (gpu) {
    for (const [k, t] of Object.entries(params)) params[k] = await t.to('webgpu');
    batch = [await batch[0].to('webgpu'), await batch[1].to('webgpu')];
  }
  const opt = train.adam(params, { lr: LR });
  const step = train.compileTrainStep(loss, opt, batch);
  if (gpu)
    return {
      run: async () => {
        const l = step(batch);
        await l.data();
        l.dispose();
      },
      note: 'webgpu',
      dispose: () => opt.dispose(),
    };
  const once = () => {
    const l = step(batch);
    l.dataSync();
    l.dispose();
  };
  return {
    run: pin ? () => withDialect(pin, once) : once,
    note: pin ? pin.join('+') : 'default dispatch',
    dispose: () => opt.dispose(),
  };
}

/** tfjs-backend-webgpu on raf-op's adapter (bench/gpu.ts): `build`'s step runs and its loss is read asynchronously. */
function tfjsWebGpu(build: () => () => tf.Scalar): Impl {
  return {
    async setup() {
      const ready = await webgpuReady();
      if (typeof ready === 'string') throw new Error(ready);
      if (tf.getBackend() !== 'webgpu' && !(await tf.setBackend('webgpu')))
        throw new Error('tfjs-backend-webgpu is not available');
      const f = build();
      return {
        run: async () => {
          const l = tf.tidy(f);
          await l.data();
          l.dispose();
        },
        activate: async () => {
          if (tf.getBackend() !== 'webgpu') await tf.setBackend('webgpu');
        },
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

interface CnnSize {
  readonly name: string;
  readonly batch: number;
  /** Image side (single channel, even). */
  readonly side: number;
  readonly c1: number;
  readonly c2: number;
  readonly classes: number;
}

const CNN_SIZES: readonly CnnSize[] = [
  { name: 'training: cnn 8x8 1-4-8 (cnn-images parity model)', batch: 16, side: 8, c1: 4, c2: 8, classes: 4 },
  { name: 'training: cnn 28x28 1-8-16', batch: 64, side: 28, c1: 8, c2: 16, classes: 10 },
];

function cnnSetup(s: CnnSize) {
  const half = s.side / 2;
  const flat = s.c2 * (half - 2) * (half - 2);
  const x = data(s.batch * s.side * s.side, 7).map((v) => (v + 1) / 2);
  const y = new Float32Array(s.batch * s.classes);
  for (let i = 0; i < s.batch; i++) y[i * s.classes + (i % s.classes)] = 1;
  // Weights in raf-op's layouts ([O, C, KH, KW], dense [out, in]), scaled by 1/sqrt(fan_in) as torch's defaults are.
  const scaled = (n: number, seed: number, fanIn: number) => data(n, seed).map((v) => v / Math.sqrt(fanIn));
  return {
    flat,
    x,
    y,
    c1w: scaled(s.c1 * 9, 11, 9),
    c1b: scaled(s.c1, 12, 9),
    c2w: scaled(s.c2 * s.c1 * 9, 13, s.c1 * 9),
    c2b: scaled(s.c2, 14, s.c1 * 9),
    fw: scaled(s.classes * flat, 15, flat),
    fb: scaled(s.classes, 16, flat),
  };
}

/** `a` of shape `shape` with its axes permuted by `perm` (a new row-major array). */
function permute(a: Float32Array, shape: readonly number[], perm: readonly number[]): Float32Array {
  const outShape = perm.map((p) => shape[p]!);
  const strides = shape.map((_, k) => shape.slice(k + 1).reduce((m, d) => m * d, 1));
  const out = new Float32Array(a.length);
  const idx = new Array<number>(outShape.length).fill(0);
  for (let i = 0; i < a.length; i++) {
    let src = 0;
    for (let k = 0; k < idx.length; k++) src += idx[k]! * strides[perm[k]!]!;
    out[i] = a[src]!;
    for (let k = idx.length - 1; k >= 0 && ++idx[k]! === outShape[k]!; k--) idx[k] = 0;
  }
  return out;
}

function rafCnnStep(s: CnnSize, pin?: readonly string[], gpu = false): Impl {
  return {
    async setup() {
      const d = cnnSetup(s);
      const params: Record<string, Tensor> = {
        c1w: input([s.c1, 1, 3, 3], d.c1w),
        c1b: input([s.c1], d.c1b),
        c2w: input([s.c2, s.c1, 3, 3], d.c2w),
        c2b: input([s.c2], d.c2b),
        fw: input([s.classes, d.flat], d.fw),
        fb: input([s.classes], d.fb),
      };
      const bx = input([s.batch, 1, s.side, s.side], d.x);
      const by = input([s.batch, s.classes], d.y);
      const loss = (p: Record<string, Tensor>, xb: Tensor, yb: Tensor): Tensor => {
        const h1 = ops.relu(ops.add(ops.conv2d(xb, p.c1w!, [1, 1], [1, 1, 1, 1]), ops.reshape(p.c1b!, [-1, 1, 1])));
        const m1 = ops.maxPool2d(h1, [2, 2], [2, 2]);
        const h2 = ops.relu(ops.add(ops.conv2d(m1, p.c2w!), ops.reshape(p.c2b!, [-1, 1, 1])));
        const z = ops.dense(ops.reshape(h2, [s.batch, -1]), p.fw!, p.fb!);
        return ops.negative(ops.mean(ops.sum(ops.multiply(yb, ops.logSoftmax(z, -1)), [1])));
      };
      return compiledStep(params, loss, [bx, by], pin, gpu);
    },
  };
}

function tfCnnStep(s: CnnSize) {
  return () => {
    const d = cnnSetup(s);
    const hwio = (w: Float32Array, o: number, c: number) =>
      tf.tensor4d(permute(w, [o, c, 3, 3], [2, 3, 1, 0]), [3, 3, c, o]);
    const vars = [
      tf.variable(hwio(d.c1w, s.c1, 1)),
      tf.variable(tf.tensor1d(d.c1b)),
      tf.variable(hwio(d.c2w, s.c2, s.c1)),
      tf.variable(tf.tensor1d(d.c2b)),
      tf.variable(tf.tensor2d(d.fw, [s.classes, d.flat])),
      tf.variable(tf.tensor1d(d.fb)),
    ];
    const [c1w, c1b, c2w, c2b, fw, fb] = vars as [
      tf.Variable,
      tf.Variable,
      tf.Variable,
      tf.Variable,
      tf.Variable,
      tf.Variable,
    ];
    const bx = tf.tensor4d(d.x, [s.batch, s.side, s.side, 1]);
    const by = tf.tensor2d(d.y, [s.batch, s.classes]);
    const opt = tf.train.adam(LR);
    const loss = () => {
      const h1 = tf.relu(tf.add(tf.conv2d(bx, c1w as tf.Tensor4D, 1, 'same'), c1b));
      const m1 = tf.maxPool(h1 as tf.Tensor4D, 2, 2, 'valid');
      const h2 = tf.relu(tf.add(tf.conv2d(m1, c2w as tf.Tensor4D, 1, 'valid'), c2b));
      const z = tf.add(tf.matMul(tf.reshape(h2, [s.batch, -1]), fw, false, true), fb);
      return tf.neg(tf.mean(tf.sum(tf.mul(by, tf.logSoftmax(z, -1)), 1))) as tf.Scalar;
    };
    return () => opt.minimize(loss, true, vars)!;
  };
}

const mlpWhat = (s: Size) =>
  `one Adam step (lr ${LR}) of a ${s.layers.join('-')} tanh MLP, softmax cross-entropy, batch ${s.batch}`;
const cnnWhat = (s: CnnSize) =>
  `one Adam step (lr ${LR}) of a CNN (conv2d 3x3 1->${s.c1} padding 1, relu, max_pool2d 2x2, conv2d 3x3 ${s.c1}->${s.c2}, relu, dense ${s.classes}) on ${s.side}x${s.side} images, softmax cross-entropy, batch ${s.batch}`;

/** The same step on WebGPU: raf-op's compiled step against tfjs-backend-webgpu's minimize(), each reading the loss. */
const gpuCase = (name: string, what: string, raf: Impl, tfjsStep: () => () => tf.Scalar): BenchCase =>
  defineCase({
    name: `${name}, webgpu`,
    what: `${what}, on WebGPU`,
    group: 'training',
    unavailable: noWebGpu,
    impls: { 'raf-op': raf, 'tfjs-webgpu': tfjsWebGpu(tfjsStep) },
  });

export default [
  ...SIZES.map((s) =>
    defineCase({
      name: s.name,
      what: mlpWhat(s),
      group: 'training',
      impls: {
        'raf-op': rafStep(s),
        'raf-op cpu': rafStep(s, ['cpu']),
        'tfjs-cpu': tfjs('cpu', tfStep(s)),
        'tfjs-wasm': tfjs('wasm', tfStep(s)),
      },
    }),
  ),
  ...CNN_SIZES.map((s) =>
    defineCase({
      name: s.name,
      what: cnnWhat(s),
      group: 'training',
      impls: {
        'raf-op': rafCnnStep(s),
        'raf-op cpu': rafCnnStep(s, ['cpu']),
        // tfjs-backend-wasm registers no Conv2DBackpropFilter kernel, so the CNN has no tfjs-wasm column.
        'tfjs-cpu': tfjs('cpu', tfCnnStep(s)),
      },
    }),
  ),
  ...SIZES.map((s) => gpuCase(s.name, mlpWhat(s), rafStep(s, undefined, true), tfStep(s))),
  ...CNN_SIZES.map((s) => gpuCase(s.name, cnnWhat(s), rafCnnStep(s, undefined, true), tfCnnStep(s))),
];
