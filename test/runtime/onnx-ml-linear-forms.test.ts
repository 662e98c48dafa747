// The ai.onnx.ml ops skl2onnx writes around a scikit-learn model (runtime/src/graph/onnx/forms-ml-linear.ts) on
// one-node models against onnxruntime-node: Scaler, Normalizer (MAX, L1, L2, a zero row), Imputer (a value and NaN),
// FeatureVectorizer, OneHotEncoder, LabelEncoder (lists and ml opset 4's tensors, NaN keys, defaults),
// LinearRegressor, LinearClassifier (each post-transform, one row of coefficients for two labels) and SVMRegressor
// (each kernel, the linear form, one-class).

import { describe, expect, it } from 'vitest';
import { randomUniform, tensor } from '../../runtime/src/index.ts';
import { fromOnnx } from '../../runtime/src/graph/frontends/from-onnx.ts';
import { buildModel } from '../support/onnx-proto.ts';
import { agree } from '../support/onnx-agree.ts';

const ML = 'ai.onnx.ml';
const rnd = (shape: number[], seed: number, low = -2, high = 2) => randomUniform(shape, { seed, low, high });
const list = (n: number, seed: number, low = -1, high = 1) => Array.from(rnd([n], seed, low, high).dataSync());
const io = { domain: ML, inputs: ['x'], outputs: ['y'] };

describe('ai.onnx.ml preprocessing ops against onnxruntime-node', () => {
  it('Scaler (per feature and one value; float64 and int64 input)', async () => {
    const x = rnd([5, 3], 1);
    await agree(
      { op: 'Scaler', ...io, attrs: { offset: { floats: [0.5, -1, 2] }, scale: { floats: [2, 0.25, -1.5] } } },
      { x },
      [],
    );
    await agree(
      { op: 'Scaler', ...io, attrs: { offset: { floats: [0.5] }, scale: { floats: [3] } } },
      { x: tensor(Array.from(x.dataSync()), { dtype: 'float64', shape: [5, 3] }) },
      [],
    );
    await agree(
      { op: 'Scaler', ...io, attrs: { offset: { floats: [1.5] }, scale: { floats: [0.5] } } },
      { x: tensor([3, -4, 7, 0, 2, 9], { dtype: 'int64', shape: [2, 3] }) },
      [],
    );
  });

  it('Normalizer: MAX, L1, L2, with a row of zeros', async () => {
    const x = tensor([...Array.from(rnd([3, 4], 2).dataSync()), 0, 0, 0, 0], { dtype: 'float32', shape: [4, 4] });
    for (const norm of ['MAX', 'L1', 'L2']) await agree({ op: 'Normalizer', ...io, attrs: { norm } }, { x }, []);
  });

  it('Imputer: a replaced value per feature, and NaN', async () => {
    const x = tensor([1, 0, 3, 0, 5, 0, NaN, 2, 0], { dtype: 'float32', shape: [3, 3] });
    await agree(
      {
        op: 'Imputer',
        ...io,
        attrs: { imputed_value_floats: { floats: [9, 8, 7] }, replaced_value_float: { float: 0 } },
      },
      { x },
      [],
    );
    await agree(
      {
        op: 'Imputer',
        ...io,
        attrs: { imputed_value_floats: { floats: [-1.5] }, replaced_value_float: { float: NaN } },
      },
      { x },
      [],
    );
    const xi = tensor([4, -1, 6, -1], { dtype: 'int64', shape: [2, 2] });
    await agree(
      { op: 'Imputer', ...io, attrs: { imputed_value_int64s: [100], replaced_value_int64: -1 } },
      { x: xi },
      [],
    );
  });

  it('FeatureVectorizer: three inputs, one cut and one padded to its inputdimension', async () => {
    const a = tensor([1, 2, 3, 4, 5, 6], { dtype: 'float32', shape: [2, 3] });
    const b = rnd([2, 2], 3);
    const c = rnd([2, 4], 4);
    await agree(
      {
        op: 'FeatureVectorizer',
        domain: ML,
        inputs: ['a', 'b', 'c'],
        outputs: ['y'],
        attrs: { inputdimensions: [3, 4, 2] },
      },
      { a, b, c },
      [],
    );
  });

  it('OneHotEncoder over int64 and float categories', async () => {
    const x = tensor([3, 1, 7, 3, 2, 5], { dtype: 'int64', shape: [2, 3] });
    await agree({ op: 'OneHotEncoder', ...io, attrs: { cats_int64s: [1, 2, 3, 5] } }, { x }, []);
    const xf = tensor([1.7, 2, 3.2], { dtype: 'float32', shape: [3] });
    await agree({ op: 'OneHotEncoder', ...io, attrs: { cats_int64s: [1, 2, 3] } }, { x: xf }, []);
  });

  it('LabelEncoder: int64 to float and float to int64 lists, defaults; ml opset 4 tensors with a NaN key', async () => {
    const x = tensor([3, 1, 7, 3, 2, 5], { dtype: 'int64', shape: [6] });
    await agree(
      {
        op: 'LabelEncoder',
        ...io,
        attrs: { keys_int64s: [1, 2, 3], values_floats: { floats: [0.5, -1, 2.5] }, default_float: { float: 9 } },
      },
      { x },
      [],
    );
    const xf = tensor([0.5, 1.5, 2.5, 0.5], { dtype: 'float32', shape: [2, 2] });
    await agree(
      { op: 'LabelEncoder', ...io, attrs: { keys_floats: { floats: [0.5, 2.5] }, values_int64s: [10, 20] } },
      { x: xf },
      [],
    );
    const xn = tensor([NaN, 1, 2, 4], { dtype: 'float32', shape: [4] });
    await agree(
      {
        op: 'LabelEncoder',
        ...io,
        attrs: {
          keys_tensor: { tensor: { dtype: 'float32', shape: [3], data: [1, NaN, 4] } },
          values_tensor: { tensor: { dtype: 'int64', shape: [3], data: [7, 8, 9] } },
          default_tensor: { tensor: { dtype: 'int64', shape: [1], data: [-5] } },
        },
      },
      { x: xn },
      [],
      { ml: 4 },
    );
  });

  it("fromOnnx points a classifier's ZipMap to OnnxSession.runValues (test/runtime/onnx-zipmap.test.ts runs it)", () => {
    const model = buildModel({
      nodes: [
        {
          op: 'LinearClassifier',
          domain: ML,
          inputs: ['x'],
          outputs: ['label', 'p'],
          attrs: { coefficients: { floats: [1, 2, 3, 4] }, classlabels_ints: [0, 1] },
        },
        { op: 'ZipMap', domain: ML, inputs: ['p'], outputs: ['probabilities'], attrs: { classlabels_int64s: [0, 1] } },
      ],
      inputs: [{ name: 'x', dtype: 'float32', shape: [3, 2] }],
      outputs: [{ name: 'label' }, { name: 'probabilities' }],
      opset: [
        { domain: '', version: 17 },
        { domain: ML, version: 1 },
      ],
    });
    expect(() => fromOnnx(model)).toThrow(
      /'probabilities' is ZipMap's sequence of maps; run the model with OnnxSession\.runValues/,
    );
  });

  it('a LabelEncoder with string keys over a numeric input is refused, naming the mismatch', () => {
    const model = buildModel({
      nodes: [{ op: 'LabelEncoder', ...io, attrs: { keys_strings: ['a', 'b'], values_int64s: [1, 2] } }],
      inputs: [{ name: 'x', dtype: 'int64', shape: [2] }],
      outputs: [{ name: 'y' }],
      opset: [
        { domain: '', version: 17 },
        { domain: ML, version: 3 },
      ],
    });
    expect(() => fromOnnx(model)).toThrow(/LabelEncoder's keys are strings, its input X is not/);
  });
});

describe('ai.onnx.ml linear models and SVMRegressor against onnxruntime-node', () => {
  it('LinearRegressor: one target and three, with intercepts', async () => {
    const x = rnd([6, 4], 5);
    await agree(
      { op: 'LinearRegressor', ...io, attrs: { coefficients: { floats: list(4, 6) }, intercepts: { floats: [0.3] } } },
      { x },
      [],
    );
    await agree(
      {
        op: 'LinearRegressor',
        ...io,
        attrs: { coefficients: { floats: list(12, 7) }, intercepts: { floats: [0.1, -0.2, 0.3] }, targets: 3 },
      },
      { x },
      [],
    );
  });

  it.each(['NONE', 'LOGISTIC', 'SOFTMAX', 'SOFTMAX_ZERO'])(
    'LinearClassifier, three classes, post_transform %s',
    async (post) => {
      const x = rnd([7, 4], 8);
      await agree(
        {
          op: 'LinearClassifier',
          domain: ML,
          inputs: ['x'],
          outputs: ['label', 'scores'],
          attrs: {
            coefficients: { floats: list(12, 9) },
            intercepts: { floats: [0.1, 0, -0.1] },
            classlabels_ints: [10, 20, 30],
            post_transform: post,
          },
        },
        { x },
        [],
      );
    },
  );

  it('LinearClassifier: two labels from one row of coefficients, and from two', async () => {
    const x = rnd([6, 3], 10);
    for (const [coef, post] of [
      [list(3, 11), 'NONE'],
      [list(3, 11), 'LOGISTIC'],
      [list(3, 11), 'SOFTMAX'],
      [list(6, 12), 'LOGISTIC'],
    ] as const)
      await agree(
        {
          op: 'LinearClassifier',
          domain: ML,
          inputs: ['x'],
          outputs: ['label', 'scores'],
          attrs: {
            coefficients: { floats: [...coef] },
            intercepts: { floats: coef.length === 3 ? [0.2] : [0.2, -0.2] },
            classlabels_ints: [0, 1],
            post_transform: post,
          },
        },
        { x },
        [],
      );
  });

  it.each(['LINEAR', 'POLY', 'RBF', 'SIGMOID'])('SVMRegressor with 5 support vectors, kernel %s', async (kernel) => {
    const x = rnd([4, 3], 13, -1, 1);
    await agree(
      {
        op: 'SVMRegressor',
        ...io,
        attrs: {
          kernel_type: kernel,
          kernel_params: { floats: [0.7, 0.3, 3] },
          n_supports: 5,
          support_vectors: { floats: list(15, 14) },
          coefficients: { floats: list(5, 15) },
          rho: { floats: [0.25] },
        },
      },
      { x },
      [],
      { tol: 1e-4 },
    );
  });

  it('SVMRegressor: the linear form (no support vectors) and a one-class SVM', async () => {
    const x = rnd([6, 3], 16, -1, 1);
    await agree(
      {
        op: 'SVMRegressor',
        ...io,
        attrs: {
          coefficients: { floats: list(3, 17) },
          rho: { floats: [-0.1] },
          n_supports: 0,
          kernel_params: { floats: [0, 0, 0] },
        },
      },
      { x },
      [],
    );
    await agree(
      {
        op: 'SVMRegressor',
        ...io,
        attrs: {
          kernel_type: 'RBF',
          kernel_params: { floats: [0.5, 0, 0] },
          n_supports: 4,
          support_vectors: { floats: list(12, 18) },
          coefficients: { floats: list(4, 19) },
          rho: { floats: [-0.2] },
          one_class: 1,
        },
      },
      { x },
      [],
    );
  });
});

describe('ai.onnx.ml SVMClassifier (no probability estimates) against onnxruntime-node', () => {
  const svc = (labels: number[], perClass: number[], kernel: string, seed: number, post = 'NONE') => {
    const S = perClass.reduce((a, b) => a + b, 0);
    const K = labels.length;
    return {
      op: 'SVMClassifier',
      domain: ML,
      inputs: ['x'],
      outputs: ['label', 'scores'],
      attrs: {
        classlabels_ints: labels,
        vectors_per_class: perClass,
        support_vectors: { floats: list(S * 3, seed) },
        coefficients: { floats: list((K - 1) * S, seed + 1, -2, 2) },
        rho: { floats: list((K * (K - 1)) / 2, seed + 2, -0.5, 0.5) },
        kernel_type: kernel,
        kernel_params: { floats: [0.8, 0.2, 2] },
        post_transform: post,
      },
    };
  };

  it.each(['RBF', 'LINEAR', 'POLY', 'SIGMOID'])('four classes (libsvm one-against-one), kernel %s', async (kernel) => {
    const x = rnd([9, 3], 20, -1, 1);
    await agree(svc([3, 5, 7, 9], [2, 3, 1, 2], kernel, 21), { x }, [], { tol: 1e-4 });
  });

  it('two classes: the decision value as [-d, d]', async () => {
    const x = rnd([8, 3], 22, -1, 1);
    await agree(svc([0, 1], [3, 2], 'RBF', 23), { x }, [], { tol: 1e-4 });
  });

  it('a linear model (no support vectors): three classes, and two with signed and with positive weights', async () => {
    const x = rnd([7, 3], 24, -1, 1);
    const linear = (labels: number[], coef: number[], post = 'NONE') => ({
      op: 'SVMClassifier',
      domain: ML,
      inputs: ['x'],
      outputs: ['label', 'scores'],
      attrs: {
        classlabels_ints: labels,
        coefficients: { floats: coef },
        rho: { floats: [0.1] },
        kernel_params: { floats: [0, 0, 0] },
        post_transform: post,
      },
    });
    await agree(linear([1, 2, 3], list(9, 25)), { x }, []);
    await agree(linear([4, 8], list(6, 26)), { x }, []);
    await agree(linear([4, 8], list(6, 27, 0, 0.4)), { x }, []);
  });
});
