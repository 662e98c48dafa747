// Importer forms of the `ai.onnx.ml` ops skl2onnx writes around the models of a scikit-learn pipeline: Scaler,
// Normalizer, Imputer, FeatureVectorizer, OneHotEncoder and LabelEncoder (over numbers or strings), LinearRegressor,
// LinearClassifier with int64 or string labels, and SVMRegressor (with one-class SVMs). Each composes raf-op's ops with the
// semantics of ONNX's Operators-ml.md as onnxruntime computes them: inputs of any numeric type are read as float32,
// outputs documented as tensor(float) are float32, and Normalizer divides by the row's maximum, sum of absolute values
// or Euclidean norm, leaving a row whose divisor is 0 as it is.
//
// SVMClassifier too, without probability estimates (libsvm's one-against-one votes, or a linear model). Strings are ids
// in raf-op's string table (strings.ts). DictVectorizer and ZipMap's maps, SVMClassifier's prob_a and prob_b and the
// PROBIT post-transform are refused with their names.

import { isFloat, type DType } from '../../dtype.ts';
import { abs } from '../../generated/api/abs.ts';
import { add } from '../../generated/api/add.ts';
import { argmax } from '../../generated/api/argmax.ts';
import { cast } from '../../generated/api/cast.ts';
import { concatenate } from '../../generated/api/concatenate.ts';
import { divide } from '../../generated/api/divide.ts';
import { equal } from '../../generated/api/equal.ts';
import { exp } from '../../generated/api/exp.ts';
import { greater } from '../../generated/api/greater.ts';
import { greaterEqual } from '../../generated/api/greater_equal.ts';
import { isnan } from '../../generated/api/isnan.ts';
import { logicalAnd } from '../../generated/api/logical_and.ts';
import { logicalOr } from '../../generated/api/logical_or.ts';
import { matmul } from '../../generated/api/matmul.ts';
import { max } from '../../generated/api/max.ts';
import { multiply } from '../../generated/api/multiply.ts';
import { power } from '../../generated/api/power.ts';
import { reshape } from '../../generated/api/reshape.ts';
import { sigmoid } from '../../generated/api/sigmoid.ts';
import { softmax } from '../../generated/api/softmax.ts';
import { sqrt } from '../../generated/api/sqrt.ts';
import { stridedSlice } from '../../generated/api/strided_slice.ts';
import { subtract } from '../../generated/api/subtract.ts';
import { sum } from '../../generated/api/sum.ts';
import { take } from '../../generated/api/take.ts';
import { transpose } from '../../generated/api/transpose.ts';
import { tanh } from '../../generated/api/tanh.ts';
import { where } from '../../generated/api/where.ts';
import { tensor, zeros, type Tensor } from '../../tensor.ts';
import type { ImportContext } from './forms.ts';
import type { OnnxTensor } from './proto.ts';
import { constTensor } from './values.ts';
import { isStringTensor, markStrings, stringTensor } from '../../strings.ts';

type Form = (ctx: ImportContext) => Tensor[] | null;

const need = (ctx: ImportContext, i: number, what: string): Tensor => {
  const t = ctx.input(i);
  if (!t) throw new Error(`input ${i} (${what}) is missing`);
  return t;
};
const str = (ctx: ImportContext, name: string, dflt: string): string => (ctx.attr(name) as string | undefined) ?? dflt;
const num = (ctx: ImportContext, name: string, dflt: number): number => (ctx.attr(name) as number | undefined) ?? dflt;

/** A list attribute's numbers, or undefined; a string list is refused (raf-op has no string tensor). */
function numbers(ctx: ImportContext, name: string): number[] | undefined {
  const v = ctx.attr(name);
  if (v === undefined) return undefined;
  if (typeof v === 'number') return [v];
  if (!Array.isArray(v)) throw new Error(`attribute ${name} is not a list of numbers`);
  return v as number[];
}

/** A string list attribute (NUL-joined, proto.ts), or undefined. */
function stringList(ctx: ImportContext, name: string): string[] | undefined {
  const v = ctx.attr(name);
  return typeof v === 'string' ? (v ? v.split('\u0000') : []) : undefined;
}

/**
 * A classifier's labels: classlabels_ints (int64), or classlabels_strings as their ids in raf-op's string table (int32,
 * the label output marked as strings).
 */
function classLabels(ctx: ImportContext): { labels: number[]; table: Tensor; strings: boolean } {
  const names = stringList(ctx, 'classlabels_strings');
  if (names?.length) {
    const table = stringTensor(names);
    return { labels: Array.from(table.dataSync() as ArrayLike<number>), table, strings: true };
  }
  const labels = numbers(ctx, 'classlabels_ints');
  if (!labels?.length) throw new Error(`${ctx.node.opType} needs classlabels_ints or classlabels_strings`);
  return { labels, table: tensor(labels, { dtype: 'int64' }), strings: false };
}

/** X as float32 rows: [C] is one row [1, C]. */
function rows(ctx: ImportContext): Tensor {
  const x = need(ctx, 0, 'X');
  const x2 = x.shape.length === 1 ? reshape(x, [1, x.shape[0]!]) : x;
  if (x2.shape.length !== 2) throw new Error(`${ctx.node.opType} takes X of rank 1 or 2, got rank ${x.shape.length}`);
  return x2.dtype === 'float32' ? x2 : cast(x2, 'float32');
}

const floats = (values: readonly number[], shape?: number[]) => tensor([...values], { dtype: 'float32', shape });

/** The post_transform of the scores [N, classes]: NONE, LOGISTIC, SOFTMAX, SOFTMAX_ZERO (zeros stay zero). */
function postTransform(ctx: ImportContext, scores: Tensor): Tensor {
  const p = str(ctx, 'post_transform', 'NONE');
  if (p === 'NONE') return scores;
  if (p === 'LOGISTIC') return sigmoid(scores);
  if (p === 'SOFTMAX') return softmax(scores, 1);
  if (p === 'SOFTMAX_ZERO') {
    const nonzero = logicalOr(greater(scores, 0), greater(multiply(scores, -1), 0));
    const e = where(nonzero, exp(subtract(scores, max(scores, [1], true))), 0);
    return divide(e, sum(e, [1], true));
  }
  throw new Error(
    `${ctx.node.opType}'s post_transform ${p} is not imported (NONE, LOGISTIC, SOFTMAX, SOFTMAX_ZERO are)`,
  );
}

/** Scaler: (x - offset) · scale per feature (or one value for all), as float32. */
const scaler: Form = (ctx) => {
  const x = need(ctx, 0, 'X');
  const x32 = x.dtype === 'float32' ? x : cast(x, 'float32');
  const offset = numbers(ctx, 'offset') ?? [0];
  const scale = numbers(ctx, 'scale') ?? [1];
  return [multiply(subtract(x32, floats(offset)), floats(scale))];
};

/** Normalizer: each row divided by its MAX, L1 (sum of |x|) or L2 (Euclidean norm); a zero divisor leaves the row. */
const normalizer: Form = (ctx) => {
  const x = rows(ctx);
  const norm = str(ctx, 'norm', 'MAX');
  const divisor =
    norm === 'MAX'
      ? max(x, [1], true)
      : norm === 'L1'
        ? sum(abs(x), [1], true)
        : norm === 'L2'
          ? sqrt(sum(multiply(x, x), [1], true))
          : null;
  if (!divisor) throw new Error(`Normalizer norm '${norm}' is not one of MAX, L1, L2`);
  const zero = equal(divisor, 0);
  const y = divide(x, where(zero, 1, divisor));
  return [need(ctx, 0, 'X').shape.length === 1 ? reshape(y, [y.shape[1]!]) : y];
};

/** Imputer: values equal to replaced_value (NaN matches NaN) become imputed_value (per feature, or one for all). */
const imputer: Form = (ctx) => {
  const x = need(ctx, 0, 'X');
  const float = isFloat(x.dtype);
  const imputed = numbers(ctx, float ? 'imputed_value_floats' : 'imputed_value_int64s');
  if (!imputed?.length)
    throw new Error(`Imputer needs ${float ? 'imputed_value_floats' : 'imputed_value_int64s'} for ${x.dtype} input`);
  const replaced = float ? num(ctx, 'replaced_value_float', 0) : num(ctx, 'replaced_value_int64', 0);
  const hit = Number.isNaN(replaced) ? isnan(x) : equal(x, tensor([replaced], { dtype: x.dtype, shape: [] }));
  return [where(hit, tensor(imputed, { dtype: x.dtype }), x)];
};

/** FeatureVectorizer: the inputs' columns side by side as float32, each cut or zero-padded to its inputdimension. */
const featureVectorizer: Form = (ctx) => {
  const dims = numbers(ctx, 'inputdimensions');
  const parts = ctx.node.inputs.map((_, i) => {
    let x = need(ctx, i, `X${i}`);
    if (x.shape.length === 1) x = reshape(x, [1, x.shape[0]!]);
    if (x.shape.length !== 2) x = reshape(x, [x.shape[0]!, -1]);
    x = x.dtype === 'float32' ? x : cast(x, 'float32');
    const [n, c] = [x.shape[0]!, x.shape[1]!];
    const d = dims?.[i] ?? c;
    if (d < c) return stridedSlice(x, [0], [d], null, [1]);
    return d > c ? concatenate([x, zeros([n, d - c], 'float32')], 1) : x;
  });
  return [parts.length === 1 ? parts[0]! : concatenate(parts, 1)];
};

/** OneHotEncoder over cats_int64s: [...X.shape, categories], 1 where x (truncated to an integer) is the category. */
const oneHotEncoder: Form = (ctx) => {
  const x = need(ctx, 0, 'X');
  const names = stringList(ctx, 'cats_strings');
  if (names?.length) {
    if (!isStringTensor(x)) throw new Error("OneHotEncoder's cats_strings need a string input X");
    return [cast(equal(reshape(x, [...x.shape, 1]), stringTensor(names)), 'float32')];
  }
  const cats = numbers(ctx, 'cats_int64s');
  if (!cats?.length) throw new Error('OneHotEncoder needs cats_int64s or cats_strings');
  const ints = x.dtype === 'int64' ? x : cast(x, 'int64');
  const hot = equal(reshape(ints, [...x.shape, 1]), tensor(cats, { dtype: 'int64' }));
  return [cast(hot, 'float32')];
};

/**
 * LabelEncoder: each element equal to keys[i] (NaN matches a NaN key) becomes values[i], any other the default; keys
 * and values as lists (keys_int64s, values_floats, keys_strings...) or tensors (ml opset 4), strings as their ids.
 */
const labelEncoder: Form = (ctx) => {
  const tensorAttr = (name: string): Tensor | undefined => {
    const v = ctx.attr(name);
    if (v === undefined) return undefined;
    if (typeof v === 'object' && v !== null && 'values' in v && 'dtype' in v) return constTensor(v as OnnxTensor);
    throw new Error(`LabelEncoder's ${name} is not a tensor`);
  };
  // Strings (keys_strings, values_strings, default_string, string tensors) are ids in raf-op's string table.
  const stringList = (name: string): Tensor | undefined => {
    const v = ctx.attr(name);
    return typeof v === 'string' ? stringTensor(v ? v.split('\u0000') : []) : undefined;
  };
  const x = need(ctx, 0, 'X');
  const keysList = numbers(ctx, 'keys_int64s') ?? numbers(ctx, 'keys_floats');
  const valueInts = numbers(ctx, 'values_int64s');
  const valuesList = valueInts ?? numbers(ctx, 'values_floats');
  const keys = keysList
    ? tensor(keysList, { dtype: x.dtype })
    : (stringList('keys_strings') ?? tensorAttr('keys_tensor'));
  let values: Tensor | undefined = valuesList
    ? tensor(valuesList, { dtype: valueInts ? 'int64' : 'float32' })
    : (stringList('values_strings') ?? tensorAttr('values_tensor'));
  if (!keys || !values) throw new Error('LabelEncoder needs keys and values (keys_* and values_* attributes)');
  if (keys.size !== values.size)
    throw new Error(`LabelEncoder has ${keys.size} keys and ${values.size} values; they pair up one to one`);
  if (isStringTensor(keys) !== isStringTensor(x))
    throw new Error(`LabelEncoder's keys are ${isStringTensor(keys) ? 'strings' : 'numbers'}, its input X is not`);
  const outStrings = isStringTensor(values);
  const dtype: DType = values.dtype;
  const fallback =
    tensorAttr('default_tensor') ??
    (outStrings
      ? stringTensor([(ctx.attr('default_string') as string | undefined) ?? '_Unused'], [])
      : tensor([dtype === 'int64' ? num(ctx, 'default_int64', -1) : num(ctx, 'default_float', -0)], {
          dtype,
          shape: [],
        }));
  const flatKeys = reshape(keys.dtype === x.dtype ? keys : cast(keys, x.dtype), [keys.size]);
  values = reshape(values, [values.size]);
  const column = reshape(x, [...x.shape, 1]);
  let hit = equal(column, flatKeys);
  if (isFloat(x.dtype)) hit = logicalOr(hit, logicalAnd(isnan(column), isnan(flatKeys)));
  const anyHit = greater(sum(cast(hit, 'int32'), [-1]), 0);
  const picked = take(values, argmax(cast(hit, 'int32'), -1, false, false), 0);
  const y = where(anyHit, picked, reshape(fallback, []));
  return [outStrings ? markStrings(y) : y];
};

/** LinearRegressor: X · coefficientsᵀ + intercepts for each target, then post_transform. */
const linearRegressor: Form = (ctx) => {
  const x = rows(ctx);
  const targets = num(ctx, 'targets', 1);
  const coef = numbers(ctx, 'coefficients') ?? [];
  const C = x.shape[1]!;
  if (coef.length !== targets * C)
    throw new Error(`LinearRegressor has ${coef.length} coefficients; targets × features is ${targets} × ${C}`);
  let y = matmul(x, transpose(floats(coef, [targets, C]), [1, 0]));
  const intercepts = numbers(ctx, 'intercepts');
  if (intercepts?.length) y = add(y, floats(intercepts));
  return [postTransform(ctx, y)];
};

/** LinearClassifier with int64 labels: scores X · coefficientsᵀ + intercepts, post_transform, the best class's label. */
const linearClassifier: Form = (ctx) => {
  const { labels, table, strings } = classLabels(ctx);
  const labelled = (t: Tensor) => (strings ? markStrings(t) : t);
  const x = rows(ctx);
  const coef = numbers(ctx, 'coefficients') ?? [];
  const C = x.shape[1]!;
  const classes = coef.length / C;
  if (!Number.isInteger(classes) || classes < 1)
    throw new Error(`LinearClassifier's ${coef.length} coefficients are not a whole number of rows of ${C} features`);
  let scores = matmul(x, transpose(floats(coef, [classes, C]), [1, 0]));
  const intercepts = numbers(ctx, 'intercepts');
  if (intercepts?.length) scores = add(scores, floats(intercepts));
  if (classes === 1) {
    if (labels.length !== 2) throw new Error(`LinearClassifier with one row of coefficients needs two labels`);
    // One score s for the second label, as onnxruntime expands it: the label by the sign of s; the scores
    // [sigmoid(-s), sigmoid(s)] under LOGISTIC and [1 - s, s] under NONE, SOFTMAX and SOFTMAX_ZERO.
    const post = str(ctx, 'post_transform', 'NONE');
    if (post === 'PROBIT') throw new Error(`LinearClassifier's post_transform PROBIT is not imported`);
    const z =
      post === 'LOGISTIC'
        ? concatenate([sigmoid(multiply(scores, -1)), sigmoid(scores)], 1)
        : concatenate([subtract(1, scores), scores], 1);
    const second = cast(reshape(greater(scores, 0), [x.shape[0]!]), 'int32');
    return [labelled(take(table, second, 0)), z];
  }
  if (classes !== labels.length)
    throw new Error(`LinearClassifier has ${classes} rows of coefficients for ${labels.length} labels`);
  const z = postTransform(ctx, scores);
  return [labelled(take(table, argmax(scores, 1, false, false), 0)), z];
};

/** The kernel of X [N, F] against the rows of V [S, F], [N, S]: LINEAR, POLY, RBF or SIGMOID. */
function kernel(ctx: ImportContext, x: Tensor, v: Tensor): Tensor {
  const type = str(ctx, 'kernel_type', 'LINEAR');
  const [gamma, coef0, degree] = [...(numbers(ctx, 'kernel_params') ?? []), 0, 0, 0] as [number, number, number];
  const dot = () => matmul(x, transpose(v, [1, 0]));
  if (type === 'LINEAR') return dot();
  if (type === 'POLY') return power(add(multiply(dot(), gamma), coef0), degree);
  if (type === 'SIGMOID') return tanh(add(multiply(dot(), gamma), coef0));
  if (type === 'RBF') {
    const d = subtract(reshape(x, [x.shape[0]!, 1, x.shape[1]!]), reshape(v, [1, v.shape[0]!, v.shape[1]!]));
    return exp(multiply(sum(multiply(d, d), [2]), -gamma));
  }
  throw new Error(`kernel_type '${type}' is not one of LINEAR, POLY, RBF, SIGMOID`);
}

/**
 * SVMRegressor: Σ coefficients[s] · K(x, support_vectors[s]) + rho[0] (n_supports > 0), or K(x, coefficients) +
 * rho[0] (a linear model, n_supports 0); one_class gives 1 where that is positive, else -1.
 */
const svmRegressor: Form = (ctx) => {
  const x = rows(ctx);
  const F = x.shape[1]!;
  const supports = num(ctx, 'n_supports', 0);
  const coef = numbers(ctx, 'coefficients') ?? [];
  const rho = numbers(ctx, 'rho')?.[0] ?? 0;
  if (str(ctx, 'post_transform', 'NONE') !== 'NONE')
    throw new Error(`SVMRegressor's post_transform ${str(ctx, 'post_transform', '')} is not imported (NONE is)`);
  let y: Tensor;
  if (supports > 0) {
    const sv = numbers(ctx, 'support_vectors') ?? [];
    if (sv.length !== supports * F)
      throw new Error(
        `SVMRegressor has ${sv.length} support vector values; n_supports × features is ${supports} × ${F}`,
      );
    if (coef.length !== supports)
      throw new Error(`SVMRegressor has ${coef.length} coefficients for ${supports} support vectors`);
    y = matmul(kernel(ctx, x, floats(sv, [supports, F])), floats(coef, [supports, 1]));
  } else {
    if (coef.length !== F) throw new Error(`SVMRegressor (linear) has ${coef.length} coefficients for ${F} features`);
    y = kernel(ctx, x, floats(coef, [1, F]));
  }
  y = add(y, rho);
  if (num(ctx, 'one_class', 0)) y = where(greater(y, 0), 1, -1);
  return [cast(y, 'float32')];
};

/**
 * SVMClassifier with int64 labels and no probability coefficients, as onnxruntime computes it. With support vectors
 * (libsvm's one-against-one): for each pair of classes i < j, the decision value Σ coefficients · K over both classes'
 * support vectors + rho, a vote for i where it is positive, else for j; the label is the class with the most votes
 * (the first on a tie) and the scores are the decision values (two classes: [-d, d] without a post transform). Without
 * (a linear model): scores X · coefficientsᵀ + rho[0] per class, the label of the largest (two classes: the second
 * label where that score is positive, or at least 0.5 when every coefficient is).
 */
const svmClassifier: Form = (ctx) => {
  const { labels, table: labelTable, strings } = classLabels(ctx);
  const labelled = (t: Tensor) => (strings ? markStrings(t) : t);
  if (numbers(ctx, 'prob_a')?.length)
    throw new Error(`SVMClassifier's prob_a and prob_b (probability estimates) are not imported`);
  const x = rows(ctx);
  const [N, F] = [x.shape[0]!, x.shape[1]!];
  const K = labels.length;
  const coef = numbers(ctx, 'coefficients') ?? [];
  const rho = numbers(ctx, 'rho') ?? [];
  const perClass = numbers(ctx, 'vectors_per_class') ?? [];
  const S = perClass.reduce((a, b) => a + b, 0);
  if (S === 0) {
    if (coef.length !== K * F)
      throw new Error(`SVMClassifier (linear) has ${coef.length} coefficients for ${K} × ${F}`);
    const scores = add(matmul(x, transpose(floats(coef, [K, F]), [1, 0])), rho[0] ?? 0);
    let label = take(labelTable, argmax(scores, 1, false, false), 0);
    if (K === 2) {
      const best = max(scores, [1]);
      const positive = coef.every((v) => v >= 0);
      label = where(positive ? greaterEqual(best, 0.5) : greater(best, 0), labels[1]!, label);
    }
    return [labelled(label), postTransform(ctx, scores)];
  }
  if (perClass.length !== K)
    throw new Error(`SVMClassifier has vectors_per_class for ${perClass.length} of ${K} classes`);
  const sv = numbers(ctx, 'support_vectors') ?? [];
  if (sv.length !== S * F) throw new Error(`SVMClassifier has ${sv.length} support vector values for ${S} × ${F}`);
  if (coef.length < (K - 1) * S) throw new Error(`SVMClassifier has ${coef.length} coefficients for (${K} - 1) × ${S}`);
  const pairs = (K * (K - 1)) / 2;
  if (rho.length < pairs) throw new Error(`SVMClassifier has ${rho.length} rho values for ${pairs} pairs of classes`);
  const starts = perClass.map((_, k) => perClass.slice(0, k).reduce((a, b) => a + b, 0));
  // One column of weights per pair (i, j): class i's vectors weighted by row j - 1, class j's by row i.
  const w = new Float32Array(S * pairs);
  const votes: [number, number][] = [];
  let p = 0;
  for (let i = 0; i < K - 1; i++)
    for (let j = i + 1; j < K; j++, p++) {
      for (let m = 0; m < perClass[i]!; m++) w[(starts[i]! + m) * pairs + p] = coef[(j - 1) * S + starts[i]! + m]!;
      for (let m = 0; m < perClass[j]!; m++) w[(starts[j]! + m) * pairs + p] = coef[i * S + starts[j]! + m]!;
      votes.push([i, j]);
    }
  const d = add(matmul(kernel(ctx, x, floats(sv, [S, F])), floats([...w], [S, pairs])), floats(rho.slice(0, pairs)));
  // Votes per class: +1 to i where d > 0, else to j; the first class with the most votes wins.
  const positive = cast(greater(d, 0), 'float32');
  const toClass = new Float32Array(pairs * K);
  const toOther = new Float32Array(pairs * K);
  votes.forEach(([i, j], q) => {
    toClass[q * K + i] = 1;
    toOther[q * K + j] = 1;
  });
  const tally = add(
    matmul(positive, floats([...toClass], [pairs, K])),
    matmul(subtract(1, positive), floats([...toOther], [pairs, K])),
  );
  const label = take(labelTable, argmax(tally, 1, false, false), 0);
  const post = str(ctx, 'post_transform', 'NONE');
  if (K === 2) {
    if (post !== 'NONE') throw new Error(`SVMClassifier's post_transform ${post} for two classes is not imported`);
    return [labelled(label), concatenate([multiply(d, -1), d], 1)];
  }
  return [labelled(label), postTransform(ctx, d)];
};

export const ML_LINEAR_FORMS: Readonly<Record<string, Form>> = {
  'ai.onnx.ml.Scaler': scaler,
  'ai.onnx.ml.Normalizer': normalizer,
  'ai.onnx.ml.Imputer': imputer,
  'ai.onnx.ml.FeatureVectorizer': featureVectorizer,
  'ai.onnx.ml.OneHotEncoder': oneHotEncoder,
  'ai.onnx.ml.LabelEncoder': labelEncoder,
  'ai.onnx.ml.LinearRegressor': linearRegressor,
  'ai.onnx.ml.LinearClassifier': linearClassifier,
  'ai.onnx.ml.SVMRegressor': svmRegressor,
  'ai.onnx.ml.SVMClassifier': svmClassifier,
};
