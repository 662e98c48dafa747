// Importer forms of ONNX's `ai.onnx.ml` domain (scikit-learn style pipelines, as skl2onnx writes them), keyed
// `ai.onnx.ml.OpType` in CONTRIB_FORMS: Binarizer and ArrayFeatureExtractor, composed from raf-op ops. Other ops of
// the domain (tree ensembles, SVMs, label encoders over strings) are refused by name.

import { isFloat } from '../../dtype.ts';
import { cast } from '../../generated/api/cast.ts';
import { greater } from '../../generated/api/greater.ts';
import { reshape } from '../../generated/api/reshape.ts';
import { take } from '../../generated/api/take.ts';
import { tensor, type Tensor } from '../../tensor.ts';
import type { ImportContext } from './forms.ts';

type Form = (ctx: ImportContext) => Tensor[] | null;

function need(ctx: ImportContext, i: number, what: string): Tensor {
  const t = ctx.input(i);
  if (!t) throw new Error(`input ${i} (${what}) is missing`);
  return t;
}

/** Binarizer: 1 where x > threshold, else 0, in x's dtype. */
const binarizer: Form = (ctx) => {
  const x = need(ctx, 0, 'X');
  const threshold = (ctx.attr('threshold') as number | undefined) ?? 0;
  // An integer x is compared with the (float) threshold in float64, as NumPy compares them.
  const xs = isFloat(x.dtype) ? x : cast(x, 'float64');
  const above = greater(xs, tensor([threshold], { dtype: xs.dtype, shape: [] }));
  return [cast(above, x.dtype)];
};

/**
 * ArrayFeatureExtractor: the elements of x's last axis at the given indices (flattened), as onnxruntime selects them:
 * [...x.shape[:-1], count]; a 1-D x gives one row, [1, count].
 */
const arrayFeatureExtractor: Form = (ctx) => {
  const x = need(ctx, 0, 'X');
  const indices = need(ctx, 1, 'Y');
  const count = indices.shape.reduce((a, b) => a * b, 1);
  const flat = indices.shape.length === 1 ? indices : reshape(indices, [count]);
  const picked = take(x, flat, -1);
  return [reshape(picked, x.shape.length === 1 ? [1, count] : [...x.shape.slice(0, -1), count])];
};

export const ML_FORMS: Readonly<Record<string, Form>> = {
  'ai.onnx.ml.Binarizer': binarizer,
  'ai.onnx.ml.ArrayFeatureExtractor': arrayFeatureExtractor,
};
