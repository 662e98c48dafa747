// Importer forms for ONNX pooling, loss, sampling and recurrent nodes (merged into IMPORTER_FORMS in forms.ts): every
// attribute each opset defines is either passed on or refused by name, never dropped.

import { avgPool } from '../../generated/api/avg_pool.ts';
import { dropout } from '../../generated/api/dropout.ts';
import { avgPool2d } from '../../generated/api/avg_pool2d.ts';
import { lpPool } from '../../generated/api/lp_pool.ts';
import { max } from '../../generated/api/max.ts';
import { maxPool } from '../../generated/api/max_pool.ts';
import { maxPool2d } from '../../generated/api/max_pool2d.ts';
import { mean } from '../../generated/api/mean.ts';
import { rnn } from '../../generated/api/rnn.ts';
import { transpose } from '../../generated/api/transpose.ts';
import { negativeLogLikelihoodLoss } from '../../generated/api/negative_log_likelihood_loss.ts';
import { softmaxCrossEntropyLoss } from '../../generated/api/softmax_cross_entropy_loss.ts';
import { tensor, type Tensor } from '../../tensor.ts';
import { isSymbolic } from '../trace.ts';
import { valuesOf } from './values.ts';
import type { ImportContext } from './forms.ts';
import type { OnnxNode } from './proto.ts';

type Form = (ctx: ImportContext) => Tensor[] | null;

const need = (ctx: ImportContext, i: number): Tensor => {
  const t = ctx.input(i);
  if (!t) throw new Error(`input ${i} is required`);
  return t;
};
const ints = (ctx: ImportContext, name: string): number[] | null =>
  (ctx.attr(name) as number[] | undefined)?.map(Number) ?? null;
const num = (ctx: ImportContext, name: string, dflt: number): number => (ctx.attr(name) as number | undefined) ?? dflt;
const str = (ctx: ImportContext, name: string, dflt: string): string => {
  const v = ctx.attr(name) as string | undefined;
  return v === undefined || v === '' ? dflt : v;
};

/** Refuses any attribute of the node outside `known`, naming it. */
function onlyAttrs(node: OnnxNode, known: readonly string[]): void {
  for (const a of node.attrs)
    if (!known.includes(a.name)) throw new Error(`attribute '${a.name}' of ${node.opType} is not imported`);
}

/** The node's number of outputs that are used (a trailing empty name is an omitted output). */
const outputCount = (node: OnnxNode) => node.outputs.filter(Boolean).length;

const POOL_ATTRS = ['kernel_shape', 'strides', 'pads', 'dilations', 'ceil_mode', 'auto_pad'];
const ones = (v: readonly number[] | null) => v === null || v.every((d) => d === 1);

/** MaxPool (any rank, both outputs); the plain 2-D one-output case goes to max_pool2d, whose kernels are faster. */
const maxPoolForm: Form = (ctx) => {
  onlyAttrs(ctx.node, [...POOL_ATTRS, 'storage_order']);
  const x = need(ctx, 0);
  const kernel = ints(ctx, 'kernel_shape');
  if (!kernel) throw new Error('MaxPool without kernel_shape');
  const [stride, pads, dil] = [ints(ctx, 'strides'), ints(ctx, 'pads'), ints(ctx, 'dilations')];
  const ceil = num(ctx, 'ceil_mode', 0) !== 0;
  const autoPad = str(ctx, 'auto_pad', 'NOTSET');
  const order = num(ctx, 'storage_order', 0);
  const withIndices = ctx.node.outputs.length > 1 && Boolean(ctx.node.outputs[1]);
  if (x.shape.length === 4 && !ceil && autoPad === 'NOTSET' && ones(dil) && !withIndices && kernel.length === 2)
    return [maxPool2d(x, kernel, stride ?? [1, 1], pads ?? [0, 0, 0, 0])];
  return maxPool(x, kernel, stride, pads, dil, ceil, autoPad, order);
};

/** AveragePool (any rank); the plain 2-D case goes to avg_pool2d, whose kernels are faster. */
const avgPoolForm: Form = (ctx) => {
  onlyAttrs(ctx.node, [...POOL_ATTRS, 'count_include_pad']);
  const x = need(ctx, 0);
  const kernel = ints(ctx, 'kernel_shape');
  if (!kernel) throw new Error('AveragePool without kernel_shape');
  const [stride, pads, dil] = [ints(ctx, 'strides'), ints(ctx, 'pads'), ints(ctx, 'dilations')];
  const ceil = num(ctx, 'ceil_mode', 0) !== 0;
  const autoPad = str(ctx, 'auto_pad', 'NOTSET');
  const include = num(ctx, 'count_include_pad', 0) !== 0;
  if (x.shape.length === 4 && !ceil && autoPad === 'NOTSET' && ones(dil) && kernel.length === 2)
    return [avgPool2d(x, kernel, stride ?? [1, 1], pads ?? [0, 0, 0, 0], include)];
  return [avgPool(x, kernel, stride, pads, dil, ceil, autoPad, include)];
};

/** LpPool: p is a float attribute in opset 1, an int from opset 2; a fractional p is refused. */
const lpPoolForm: Form = (ctx) => {
  onlyAttrs(ctx.node, [...POOL_ATTRS, 'p']);
  const x = need(ctx, 0);
  const kernel = ints(ctx, 'kernel_shape');
  if (!kernel) throw new Error('LpPool without kernel_shape');
  const p = num(ctx, 'p', 2);
  if (!Number.isInteger(p) || p < 1) throw new Error(`LpPool p = ${p} is not imported (a positive integer is)`);
  return [
    lpPool(
      x,
      kernel,
      ints(ctx, 'strides'),
      ints(ctx, 'pads'),
      ints(ctx, 'dilations'),
      num(ctx, 'ceil_mode', 0) !== 0,
      str(ctx, 'auto_pad', 'NOTSET'),
      p,
    ),
  ];
};

const spatialAxes = (x: Tensor) => {
  if (x.shape.length < 3)
    throw new Error(`needs an input of rank 3 or more [N, C, spatial...], got rank ${x.shape.length}`);
  return Array.from({ length: x.shape.length - 2 }, (_, i) => i + 2);
};

/** GlobalAveragePool / GlobalMaxPool of any rank: the 4-D case is the generated mapping; others reduce the spatial axes. */
const globalPool =
  (kind: 'avg' | 'max'): Form =>
  (ctx) => {
    onlyAttrs(ctx.node, []);
    const x = need(ctx, 0);
    if (x.shape.length === 4) return null;
    const axes = spatialAxes(x);
    return [kind === 'avg' ? mean(x, axes, true) : max(x, axes, true)];
  };

/** GlobalLpPool: lp_pool with the whole spatial extent as its window. */
const globalLpPool: Form = (ctx) => {
  onlyAttrs(ctx.node, ['p']);
  const x = need(ctx, 0);
  const p = num(ctx, 'p', 2);
  if (!Number.isInteger(p) || p < 1) throw new Error(`GlobalLpPool p = ${p} is not imported (a positive integer is)`);
  spatialAxes(x);
  return [lpPool(x, x.shape.slice(2), null, null, null, false, 'NOTSET', p)];
};

/**
 * NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (any rank, weight, reduction, ignore_index; SCE's log_prob
 * output), always through the ONNX-shaped ops: raf's nll_loss and cross_entropy, which map the same ONNX ops, only
 * cover [N, C] with mean.
 */
const lossForm =
  (sce: boolean): Form =>
  (ctx) => {
    onlyAttrs(ctx.node, ['reduction', 'ignore_index']);
    const args = [
      need(ctx, 0),
      need(ctx, 1),
      ctx.input(2) ?? null,
      str(ctx, 'reduction', 'mean'),
      (ctx.attr('ignore_index') as number | undefined) ?? null,
    ] as const;
    return sce ? softmaxCrossEntropyLoss(...args) : [negativeLogLikelihoodLoss(...args)];
  };

/**
 * Dropout. Opsets 7 to 11 are inference only (identity); from 12 training_mode (input 2, known at import) selects
 * raf.op.dropout with the ratio input and the seed attribute; before 7 is_test = 0 (its default) is training mode with
 * the ratio attribute. The identity's mask is all true (bool from opset 10, x's dtype before).
 */
const dropoutForm: Form = (ctx) => {
  onlyAttrs(ctx.node, ['ratio', 'is_test', 'seed', 'consumed_inputs']);
  const x = need(ctx, 0);
  let training = false;
  let ratio: Tensor | null = null;
  if (ctx.opset < 7) {
    training = num(ctx, 'is_test', 0) === 0;
    ratio = tensor([num(ctx, 'ratio', 0.5)], { dtype: x.dtype, shape: [] });
  } else if (ctx.opset >= 12) {
    const mode = ctx.input(2);
    if (mode && isSymbolic(mode))
      throw new Error("Dropout's training_mode is computed at run time; only a known one is imported");
    training = mode ? valuesOf(mode, "Dropout's training_mode")[0] !== 0 : false;
    ratio = ctx.input(1) ?? null;
  }
  if (training) {
    const seed = ctx.attr('seed') as number | undefined;
    return dropout(x, ratio, seed === undefined ? null : Math.trunc(seed) >>> 0);
  }
  if (outputCount(ctx.node) < 2) return [x];
  const maskType = ctx.opset >= 10 ? 'bool' : x.dtype;
  const size = x.shape.reduce((p, d) => p * d, 1);
  return [x, tensor(new Array<number>(size).fill(1), { dtype: maskType, shape: x.shape })];
};

const RNN_ACTIVATIONS: Readonly<Record<string, string>> = { tanh: 'Tanh', relu: 'Relu', sigmoid: 'Sigmoid' };

/**
 * RNN as raf.op.rnn: one activation for every direction (Tanh, Relu or Sigmoid, any case), clip, and layout 1 (batch
 * first) through transposes. Activations that differ per direction, or that take alpha / beta, are refused by name.
 */
const rnnForm: Form = (ctx) => {
  onlyAttrs(ctx.node, [
    'activations',
    'activation_alpha',
    'activation_beta',
    'clip',
    'direction',
    'hidden_size',
    'layout',
  ]);
  let x = need(ctx, 0);
  const R = need(ctx, 2);
  const direction = str(ctx, 'direction', 'forward');
  const raw = ctx.attr('activations');
  // A STRINGS attribute arrives joined by NUL (proto.ts).
  const acts = raw === undefined ? ['Tanh'] : String(raw).split('\u0000');
  const names = acts.map((a) => RNN_ACTIVATIONS[a.toLowerCase()]);
  if (names.some((a) => !a) || new Set(names).size !== 1)
    throw new Error(
      `RNN activations [${acts.join(', ')}] are not imported (one of Tanh, Relu, Sigmoid for every direction)`,
    );
  if (ctx.attr('activation_alpha') !== undefined || ctx.attr('activation_beta') !== undefined)
    throw new Error('RNN activation_alpha/activation_beta are not imported (Tanh, Relu and Sigmoid take none)');
  const layout = num(ctx, 'layout', 0);
  let h0 = ctx.input(5);
  if (layout === 1) {
    x = transpose(x, [1, 0, 2]);
    if (h0) h0 = transpose(h0, [1, 0, 2]);
  } else if (layout !== 0) throw new Error(`RNN layout = ${layout} is not imported (0 or 1)`);
  const clip = ctx.attr('clip') as number | undefined;
  const [y, yh] = rnn(
    x,
    need(ctx, 1),
    R,
    num(ctx, 'hidden_size', R.shape[2]!),
    ctx.input(3) ?? null,
    ctx.input(4) ?? null,
    h0 ?? null,
    direction,
    names[0]!,
    clip ?? null,
  ) as [Tensor, Tensor];
  return layout === 1 ? [transpose(y, [2, 0, 1, 3]), transpose(yh, [1, 0, 2])] : [y, yh];
};

/** RoiAlign before opset 16 has no coordinate_transformation_mode and behaves as output_half_pixel. */
const roiAlignForm: Form = (ctx) => {
  if (ctx.opset >= 16 || ctx.attr('coordinate_transformation_mode') !== undefined) return null;
  const inputs = [0, 1, 2].map((i) => ctx.input(i));
  return ctx.mapped('RoiAlign', inputs, [
    ...ctx.node.attrs,
    { name: 'coordinate_transformation_mode', value: 'output_half_pixel' },
  ]);
};

export const NN_FORMS: Readonly<Record<string, Form>> = {
  MaxPool: maxPoolForm,
  AveragePool: avgPoolForm,
  LpPool: lpPoolForm,
  GlobalAveragePool: globalPool('avg'),
  GlobalMaxPool: globalPool('max'),
  GlobalLpPool: globalLpPool,
  Dropout: dropoutForm,
  RNN: rnnForm,
  RoiAlign: roiAlignForm,
  NegativeLogLikelihoodLoss: lossForm(false),
  SoftmaxCrossEntropyLoss: lossForm(true),
};

export { outputCount };
