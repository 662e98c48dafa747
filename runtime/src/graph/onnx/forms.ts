// Importer forms: ONNX nodes FromOnnx rewrites before (or instead of) the generated mappings, because exporters spell them
// in ways no single op's signature covers (Conv with a bias and 1-D, Gemm's alpha/beta, Reshape's 0 rule, If on a known
// condition) or because they only move values known at import (Shape, Size, ConstantOfShape, Range, Identity).

import type { DType } from '../../dtype.ts';
import { add } from '../../generated/api/add.ts';
import { expandDims } from '../../generated/api/expand_dims.ts';
import { logSoftmax } from '../../generated/api/log_softmax.ts';
import { matmul } from '../../generated/api/matmul.ts';
import { maximum } from '../../generated/api/maximum.ts';
import { minimum } from '../../generated/api/minimum.ts';
import { multiply } from '../../generated/api/multiply.ts';
import { reshape } from '../../generated/api/reshape.ts';
import { softmax } from '../../generated/api/softmax.ts';
import { squeeze } from '../../generated/api/squeeze.ts';
import { take } from '../../generated/api/take.ts';
import { transpose } from '../../generated/api/transpose.ts';
import { where } from '../../generated/api/where.ts';
import { concatenate } from '../../generated/api/concatenate.ts';
import { constantOfShape } from '../../generated/api/constant_of_shape.ts';
import { range as rangeOp } from '../../generated/api/range.ts';
import { size } from '../../generated/api/size.ts';
import { resize } from '../../generated/api/resize.ts';
import { broadcastShapes, normalizeAxis, shapesEqual, sizeOf } from '../../shape.ts';
import { Tensor, tensor, zeros } from '../../tensor.ts';
import { invoke } from '../../dispatch.ts';
import { IF_OP, type IfBranches } from '../control.ts';
import { typeOfAtom, type Graph } from '../ir.ts';
import { isSymbolic } from '../trace.ts';
import { constTensor, importedDType, onnxDType, valuesOf } from './values.ts';
import { quantizeForm } from './quant-forms.ts';
import { NORM_FORMS } from './forms-norm.ts';
import { TENSOR_FORMS } from './forms-tensor.ts';
import { NN_FORMS } from './nn-forms.ts';
import { MATH_FORMS } from './forms-math.ts';
import { SEQUENCE_FORMS } from './forms-sequence.ts';
import { EXTRA_FORMS, lstmWithPeepholes } from './forms-extra.ts';
import { TEXT_FORMS } from './forms-text.ts';
import { STRING_FORMS } from './forms-strings.ts';
import { conv3dByTaps } from '../../conv3d.ts';
import { kindOf, type ImportValue } from './containers.ts';
import { isOnnxGraph, narrowFormatOf, type OnnxAttr, type OnnxGraph, type OnnxNode, type OnnxTensor } from './proto.ts';
import { castToFormat, markFormat, roundModeOf } from './narrow.ts';
import { cast } from '../../generated/api/cast.ts';

/** What a form sees of the node it imports. */
export interface ImportContext {
  readonly node: OnnxNode;
  readonly opset: number;
  /** The value of input i; undefined where the node leaves it out. A sequence or optional there is refused. */
  input(i: number): Tensor | undefined;
  /** The value of input i of any kind (a tensor, an ONNX sequence or optional); undefined where it is left out. */
  value(i: number): ImportValue | undefined;
  attr(name: string): OnnxAttr['value'] | undefined;
  /**
   * Converts a subgraph (If's branches, Loop's body) in a scope that sees this graph's values, its formal inputs bound
   * to `inputs` by position; its outputs.
   */
  subgraph(g: OnnxGraph, inputs?: readonly ImportValue[]): ImportValue[];
  /**
   * Converts subgraphs (If's branches) into graphs of their own for a call that runs one of them at run time (an error
   * converting one is prefixed with its name): every graph takes `inputs` (the values of this graph they read that are computed at run time), in that order. Null where
   * that cannot run (off the CPU, whose devices cannot read a condition synchronously; a model imported for training,
   * whose graph is differentiated; a branch reading an ONNX sequence computed at run time): the caller computes every
   * branch then.
   */
  branches(
    graphs: readonly { readonly name: string; readonly graph: OnnxGraph }[],
  ): { readonly inputs: readonly Tensor[]; readonly fns: readonly Graph[] } | null;
  /**
   * The part of the graph this node belongs to that computes `output` from the values named by `params` (ONNX's
   * Gradient names them), converted into a graph of its own: its params are `params`' values, then `outer`, the values
   * computed at run time that part reads from elsewhere.
   */
  functionOf(
    params: readonly { readonly name: string; readonly value: Tensor }[],
    output: string,
  ): { readonly graph: Graph; readonly outer: readonly Tensor[] };
  /**
   * Imports `opType` over these inputs and attributes through the generated mappings, as of the model's default-domain
   * opset or of `opset`.
   */
  mapped(opType: string, inputs: readonly (Tensor | undefined)[], attrs: readonly OnnxAttr[], opset?: number): Tensor[];
}

/** A form returns the node's outputs, or null to leave the node to the generated mappings. */
export type Form = (ctx: ImportContext) => ImportValue[] | null;

const need = (ctx: ImportContext, i: number): Tensor => {
  const t = ctx.input(i);
  if (!t) throw new Error(`input ${i} is required`);
  return t;
};
const ints = (ctx: ImportContext, name: string): number[] | undefined => ctx.attr(name) as number[] | undefined;
const num = (ctx: ImportContext, name: string, dflt: number): number => (ctx.attr(name) as number | undefined) ?? dflt;
const known = (ctx: ImportContext, i: number, what: string): number[] => valuesOf(need(ctx, i), what);

/** Pads [begin..., end...] for ONNX's auto_pad SAME_UPPER / SAME_LOWER (the extra cell goes at the end / start). */
function autoPads(
  mode: string,
  inShape: readonly number[],
  kernel: readonly number[],
  strides: readonly number[],
  dil: readonly number[],
) {
  const n = kernel.length;
  const pads = new Array<number>(2 * n).fill(0);
  if (mode === 'VALID') return pads;
  for (let i = 0; i < n; i++) {
    const out = Math.ceil(inShape[i]! / strides[i]!);
    const total = Math.max(0, (out - 1) * strides[i]! + (kernel[i]! - 1) * dil[i]! + 1 - inShape[i]!);
    const small = Math.floor(total / 2);
    pads[i] = mode === 'SAME_LOWER' ? total - small : small;
    pads[i + n] = total - pads[i]!;
  }
  return pads;
}

/** Conv with any of: a bias input, 1-D input, auto_pad, kernel_shape. The 2-D core goes through conv2d's mapping. */
const conv: Form = (ctx) => {
  const x = need(ctx, 0);
  const w = need(ctx, 1);
  const b = ctx.input(2);
  const rank = x.shape.length - 2;
  if (rank < 1 || rank > 3) throw new Error(`${rank}-D convolution is not imported (1-D, 2-D and 3-D are)`);
  const kernel = w.shape.slice(2);
  const ks = ints(ctx, 'kernel_shape');
  if (ks && !shapesEqual(ks, kernel))
    throw new Error(`kernel_shape [${ks.join(', ')}] disagrees with the weight's [${kernel.join(', ')}]`);
  const strides = ints(ctx, 'strides') ?? kernel.map(() => 1);
  const dil = ints(ctx, 'dilations') ?? kernel.map(() => 1);
  const mode = (ctx.attr('auto_pad') as string | undefined) ?? 'NOTSET';
  const pads =
    mode === 'NOTSET'
      ? (ints(ctx, 'pads') ?? [...kernel, ...kernel].map(() => 0))
      : autoPads(mode, x.shape.slice(2), kernel, strides, dil);
  if (rank === 3) return [conv3d(ctx, x, w, b, strides, dil, pads, num(ctx, 'group', 1))];
  const as2d = (v: readonly number[], fill: number) => (rank === 1 ? [fill, v[0]!] : [...v]);
  const attrs: OnnxAttr[] = [
    { name: 'strides', value: as2d(strides, 1) },
    { name: 'dilations', value: as2d(dil, 1) },
    { name: 'pads', value: rank === 1 ? [0, pads[0]!, 0, pads[1]!] : pads },
    { name: 'group', value: num(ctx, 'group', 1) },
  ];
  const [x2, w2] = rank === 1 ? [expandDims(x, 2), expandDims(w, 2)] : [x, w];
  let y = ctx.mapped('Conv', [x2, w2], attrs)[0]!;
  if (b) y = add(y, reshape(b, [b.shape[0]!, 1, 1]));
  return [rank === 1 ? squeeze(y, [2]) : y];
};

/** 3-D Conv: conv3dByTaps (conv3d.ts), each tap's 2-D convolution through Conv's mapping, then the bias. */
function conv3d(
  ctx: ImportContext,
  x: Tensor,
  w: Tensor,
  b: Tensor | undefined,
  strides: readonly number[],
  dil: readonly number[],
  pads: readonly number[],
  group: number,
): Tensor {
  const out = conv3dByTaps(
    x,
    w,
    strides,
    dil,
    pads,
    group,
    (x2, w2, s, d, p, g) =>
      ctx.mapped(
        'Conv',
        [x2, w2],
        [
          { name: 'strides', value: [...s] },
          { name: 'dilations', value: [...d] },
          { name: 'pads', value: [...p] },
          { name: 'group', value: g },
        ],
      )[0]!,
  );
  return b ? add(out, reshape(b, [w.shape[0]!, 1, 1, 1])) : out;
}

/** Gemm: alpha · op(A) · op(B) + beta · C; the plain x·Wᵀ + b goes to dense through its mapping. */
const gemm: Form = (ctx) => {
  const [a, b, c] = [need(ctx, 0), need(ctx, 1), ctx.input(2)];
  const [alpha, beta] = [num(ctx, 'alpha', 1), num(ctx, 'beta', 1)];
  const [ta, tb] = [num(ctx, 'transA', 0), num(ctx, 'transB', 0)];
  if (alpha === 1 && beta === 1 && !ta && tb && c && c.shape.length === 1)
    return ctx.mapped('Gemm', [a, b, c], [{ name: 'transB', value: 1 }]);
  let y = matmul(ta ? transpose(a, [1, 0]) : a, tb ? transpose(b, [1, 0]) : b);
  if (alpha !== 1) y = multiply(y, alpha);
  if (c) y = add(y, beta === 1 ? c : multiply(c, beta));
  return [y];
};

/** Reshape with ONNX's 0 (copy the input's dim unless allowzero) and -1. */
const reshapeForm: Form = (ctx) => {
  const x = need(ctx, 0);
  const allowzero = num(ctx, 'allowzero', 0);
  const target = known(ctx, 1, "Reshape's shape").map((d, i) => (d === 0 && !allowzero ? x.shape[i]! : d));
  return [reshape(x, target)];
};

/** Softmax and LogSoftmax before opset 13: over x coerced to 2-D at `axis` (default 1). */
const oldSoftmax =
  (log: boolean): Form =>
  (ctx) => {
    if (ctx.opset >= 13) return null;
    const x = need(ctx, 0);
    const axis = normalizeAxis(num(ctx, 'axis', 1), x.shape.length);
    const f = log ? logSoftmax : softmax;
    if (axis === x.shape.length - 1) return [f(x, -1)];
    const flat = reshape(x, [sizeOf(x.shape.slice(0, axis)), sizeOf(x.shape.slice(axis))]);
    return [reshape(f(flat, -1), x.shape)];
  };

const constantForm: Form = (ctx) => {
  const v = ctx.node.attrs[0];
  if (!v) throw new Error('Constant without a value');
  const value = v.value;
  switch (v.name) {
    case 'value':
      return [markFormat(constTensor(value as OnnxTensor), (value as OnnxTensor).format)];
    case 'value_float':
      return [tensor([value as number], { dtype: importedDType('float32'), shape: [] })];
    case 'value_floats':
      return [tensor(value as number[], { dtype: importedDType('float32') })];
    case 'value_int':
      return [tensor([value as number], { dtype: 'int64', shape: [] })];
    case 'value_ints':
      return [tensor(value as number[], { dtype: 'int64' })];
    default:
      throw new Error(`Constant's '${v.name}' is not imported`);
  }
};

/** Shapes, sizes and indices computed at import are int64, as ONNX has them. */
const intTensor = (values: readonly number[], shape?: readonly number[]) =>
  tensor(values, { dtype: 'int64', ...(shape ? { shape } : {}) });

const shapeForm: Form = (ctx) => {
  const s = need(ctx, 0).shape;
  const n = s.length;
  const clamp = (v: number) => Math.min(n, Math.max(0, v < 0 ? v + n : v));
  return [intTensor(s.slice(clamp(num(ctx, 'start', 0)), clamp(num(ctx, 'end', n))))];
};

/**
 * ConstantOfShape as raf.op.constant_of_shape, its value attribute (a one-element tensor) giving value and dtype. A shape
 * known at import (from Shape of an input, whose dims each signature fixes) runs while converting, so the result is a
 * constant; one computed at run time is refused by the op's type function, naming the input.
 */
const constantOfShapeForm: Form = (ctx) => {
  const v = ctx.attr('value') as OnnxTensor | undefined;
  const dtype: DType = importedDType(v ? v.dtype : 'float32');
  return [constantOfShape(need(ctx, 0), v?.values[0] ?? 0, dtype)];
};

/** Range as raf.op.range; known start, limit and delta (constants, folded scalar inputs) run while converting. */
const rangeForm: Form = (ctx) => [rangeOp(need(ctx, 0), need(ctx, 1), need(ctx, 2))];

/**
 * Size as raf.op.size on a known tensor; a traced input's shape is fixed per input signature, so its size folds to an
 * int64 constant there (as Shape does), which keeps the shape arithmetic that reads it known at import.
 */
const sizeForm: Form = (ctx) => {
  const x = need(ctx, 0);
  return [isSymbolic(x) ? intTensor([sizeOf(x.shape)], []) : size(x)];
};

const expand: Form = (ctx) => {
  const x = need(ctx, 0);
  const target = broadcastShapes(x.shape, known(ctx, 1, "Expand's shape"));
  if (!target) throw new Error(`cannot expand ${JSON.stringify(x.shape)} to the given shape`);
  return [shapesEqual(target, x.shape) ? x : add(x, zeros(target, x.dtype))];
};

/**
 * If: a condition known at import takes one branch (the other is never converted). One computed at run time becomes,
 * on the CPU, an `if` call that runs only the branch the condition picks (graph/control.ts); elsewhere both branches
 * are computed and each output selected with where. Either way the branches' outputs must agree in shape and dtype
 * (a graph's types are static).
 */
const ifForm: Form = (ctx) => {
  const cond = need(ctx, 0);
  const graphOf = (name: string): OnnxGraph => {
    const g = ctx.attr(name);
    if (!isOnnxGraph(g)) throw new Error(`If without a ${name} graph`);
    return g;
  };
  const named = <T>(name: string, f: () => T): T => {
    try {
      return f();
    } catch (e) {
      throw new Error(`${name}: ${(e as Error).message}`);
    }
  };
  const branch = (name: string): ImportValue[] => named(name, () => ctx.subgraph(graphOf(name)));
  if (!isSymbolic(cond)) return branch(valuesOf(cond, "If's condition")[0] ? 'then_branch' : 'else_branch');
  const check = (i: number, a: { shape: readonly number[]; dtype: DType }, b: typeof a) => {
    if (!shapesEqual(a.shape, b.shape) || a.dtype !== b.dtype)
      throw new Error(
        `If's condition is computed at run time and its branches' output ${i} differ (${a.dtype}[${a.shape.join(', ')}] vs ${b.dtype}[${b.shape.join(', ')}]); a graph's types are static, so the branches must agree`,
      );
  };
  const lazy = ctx.branches(['then_branch', 'else_branch'].map((name) => ({ name, graph: graphOf(name) })));
  if (lazy) {
    const [yes, no] = lazy.fns as [Graph, Graph];
    if (yes.outputs.length !== no.outputs.length)
      throw new Error(`If's branches return ${yes.outputs.length} and ${no.outputs.length} values`);
    const outTypes = yes.outputs.map((a, i) => {
      const t = typeOfAtom(a);
      check(i, t, typeOfAtom(no.outputs[i]!));
      return t;
    });
    const branches: IfBranches = { then: yes, else: no, outTypes };
    const outs = invoke(IF_OP, [cond, lazy.inputs, branches]) as Tensor | Tensor[];
    return Array.isArray(outs) ? outs : [outs];
  }
  const [yes, no] = [branch('then_branch'), branch('else_branch')];
  return yes.map((a, i) => {
    const b = no[i]!;
    if (!(a instanceof Tensor) || !(b instanceof Tensor))
      throw new Error(
        `If's condition is computed at run time and its output ${i} is not a tensor in both branches; only tensors are selected with where`,
      );
    check(i, a, b);
    return where(reshape(cond, []), a, b);
  });
};

/**
 * Pad in reflect, edge or wrap mode: one gather per padded axis, its indices known at import. Constant mode is pad's
 * mapping.
 */
const padForm: Form = (ctx) => {
  const mode = (ctx.attr('mode') as string | undefined) ?? 'constant';
  const withAxes = ctx.opset >= 18 && ctx.input(3) !== undefined;
  if (mode === 'constant' && !withAxes) return null;
  let x = need(ctx, 0);
  const n = x.shape.length;
  const pads = ctx.opset < 11 ? (ints(ctx, 'pads') ?? []) : known(ctx, 1, "Pad's pads");
  const axes = withAxes ? known(ctx, 3, "Pad's axes").map((a) => normalizeAxis(a, n)) : [...Array(n).keys()];
  if (mode === 'constant') {
    // Opset 18's axes: pads for the listed axes only; every other axis gets none.
    const full = new Array<number>(2 * n).fill(0);
    axes.forEach((axis, k) => {
      full[axis] = pads[k]!;
      full[axis + n] = pads[k + axes.length]!;
    });
    return ctx.mapped('Pad', [x, intTensor(full), ctx.input(2)], ctx.node.attrs);
  }
  if (mode !== 'reflect' && mode !== 'edge' && mode !== 'wrap') throw new Error(`Pad mode '${mode}' is not imported`);
  axes.forEach((axis, k) => {
    const [before, after] = [pads[k]!, pads[k + axes.length]!];
    if (before < 0 || after < 0) throw new Error(`Pad ${mode} with negative pads is not imported`);
    if (!before && !after) return;
    const len = x.shape[axis]!;
    if (mode === 'reflect' && (before >= len || after >= len))
      throw new Error(`Pad reflect of ${before}/${after} on an axis of ${len} reaches past the edge`);
    if (mode !== 'reflect' && !len) throw new Error(`Pad ${mode} of an empty axis has nothing to repeat`);
    // wrap repeats the axis as often as the pads need (NumPy's pad 'wrap').
    const at = (i: number) =>
      mode === 'edge'
        ? Math.min(len - 1, Math.max(0, i))
        : mode === 'wrap'
          ? ((i % len) + len) % len
          : i < 0
            ? -i
            : i >= len
              ? 2 * (len - 1) - i
              : i;
    const idx = Array.from({ length: before + len + after }, (_, i) => at(i - before));
    x = take(x, intTensor(idx), axis);
  });
  return [x];
};

/** Clip from opset 11 with bounds computed at run time: maximum and minimum. Known bounds are clip's mapping. */
const clipForm: Form = (ctx) => {
  if (ctx.opset < 11) return null;
  const [lo, hi] = [ctx.input(1), ctx.input(2)];
  if (!(lo && isSymbolic(lo)) && !(hi && isSymbolic(hi))) return null;
  let y = need(ctx, 0);
  if (lo) y = maximum(y, lo);
  if (hi) y = minimum(y, hi);
  return [y];
};

/**
 * LSTM and GRU as the ops lstm and gru (through their mappings; LSTM with peepholes unrolled in forms-extra.ts),
 * after refusing what those do not compute: custom activations (the defaults, spelled out, are fine), LSTM's
 * input_forget, clip; layout 1 (batch first) transposes around them. hidden_size, which the ops require, is read
 * from R when the node leaves it out; sequence_lens known at import to be the full length for every batch entry is
 * dropped.
 */
const rnnForm =
  (op: 'LSTM' | 'GRU', defaults: readonly string[]): Form =>
  (ctx) => {
    const [x, W, R] = [need(ctx, 0), need(ctx, 1), need(ctx, 2)];
    const direction = (ctx.attr('direction') as string | undefined) ?? 'forward';
    const dirs = direction === 'bidirectional' ? 2 : 1;
    // A STRINGS attribute arrives joined by NUL (proto.ts).
    const rawActs = ctx.attr('activations');
    const acts = rawActs === undefined ? undefined : String(rawActs).split('\u0000');
    const standard = Array.from({ length: dirs }, () => defaults).flat();
    if (
      acts &&
      (acts.length !== standard.length || acts.some((a, i) => a.toLowerCase() !== standard[i]!.toLowerCase()))
    )
      throw new Error(
        `${op} with custom activations [${acts.join(', ')}] is not imported (only ${standard.join(', ')})`,
      );
    if (ctx.attr('activation_alpha') !== undefined || ctx.attr('activation_beta') !== undefined)
      throw new Error(`${op} activation_alpha/activation_beta are not imported`);
    if (op === 'LSTM' && num(ctx, 'input_forget', 0)) throw new Error('LSTM input_forget is not imported');
    if (ctx.attr('clip') !== undefined) throw new Error(`${op} clip is not imported`);
    // layout 1 (batch first): X [batch, seq, input] and the initial states [batch, directions, hidden] in, Y [batch,
    // seq, directions, hidden] and the final states [batch, directions, hidden] out; the ops take and give seq first.
    const layout = num(ctx, 'layout', 0);
    if (layout !== 0 && layout !== 1) throw new Error(`${op} layout = ${layout} is not imported (0 or 1)`);
    const batchFirst = layout === 1;
    const states = (t: Tensor | undefined) => (t && batchFirst ? transpose(t, [1, 0, 2]) : t);
    const seqFirst = batchFirst ? transpose(x, [1, 0, 2]) : x;
    const T = seqFirst.shape[0]!;
    let seqLens = ctx.input(4);
    if (seqLens && !isSymbolic(seqLens) && valuesOf(seqLens, 'sequence_lens').every((l) => l === T))
      seqLens = undefined;
    const inputs = [
      seqFirst,
      W,
      R,
      ctx.input(3),
      seqLens,
      states(ctx.input(5)),
      op === 'LSTM' ? states(ctx.input(6)) : undefined,
    ];
    const attrs: OnnxAttr[] = [
      { name: 'direction', value: direction },
      { name: 'hidden_size', value: num(ctx, 'hidden_size', R.shape[2]!) },
    ];
    if (op === 'GRU') attrs.push({ name: 'linear_before_reset', value: num(ctx, 'linear_before_reset', 0) });
    // Peepholes, which lstm does not take, unroll into matmul, sigmoid and tanh (forms-extra.ts).
    const outs =
      op === 'LSTM' && ctx.input(7)
        ? lstmWithPeepholes(ctx, direction, num(ctx, 'hidden_size', R.shape[2]!), seqLens, {
            x: seqFirst,
            h0: states(ctx.input(5)),
            c0: states(ctx.input(6)),
          })
        : ctx.mapped(op, op === 'LSTM' ? inputs : inputs.slice(0, 6), attrs);
    return batchFirst ? outs.map((t, k) => transpose(t, k === 0 ? [2, 0, 1, 3] : [1, 0, 2])) : outs;
  };
const lstm = rnnForm('LSTM', ['Sigmoid', 'Tanh', 'Tanh']);
const gru = rnnForm('GRU', ['Sigmoid', 'Tanh']);

/** The most iterations FromOnnx unrolls a Loop to. */
const MAX_UNROLL = 4096;

/**
 * Loop whose trip count and condition are known at import: unrolled, the body converted once per iteration with the
 * carried values of the one before; scan outputs are stacked along a new axis 0. A condition computed at run time,
 * or no bound at all, is refused, naming the reason.
 */
const loop: Form = (ctx) => {
  const body = ctx.attr('body');
  if (!isOnnxGraph(body)) throw new Error('Loop without a body graph');
  const M = ctx.input(0);
  const condIn = ctx.input(1);
  // The phrase "must be known when the model is imported" lets OnnxSession fold small inputs a trip count is computed
  // from (Range's start, limit and delta) and convert again.
  if (M && isSymbolic(M))
    throw new Error(
      "Loop's trip count is computed at run time, but must be known when the model is imported (unrolled)",
    );
  if (condIn && isSymbolic(condIn))
    throw new Error(
      "Loop's condition is computed at run time, but must be known when the model is imported (unrolled)",
    );
  const trips = M ? valuesOf(M, "Loop's trip count")[0]! : Infinity;
  let cond = condIn ? Boolean(valuesOf(condIn, "Loop's condition")[0]) : true;
  const nCarried = ctx.node.inputs.length - 2;
  let carried = Array.from({ length: nCarried }, (_, i) => {
    const v = ctx.value(i + 2);
    if (!v) throw new Error(`input ${i + 2} is required`);
    return v;
  });
  const scans: Tensor[][] = [];
  let i = 0;
  for (; i < trips && cond; i++) {
    if (i >= MAX_UNROLL)
      throw new Error(`Loop runs past ${MAX_UNROLL} iterations at import; only shorter loops are unrolled`);
    // The iteration number is int64, as ONNX declares it (a body adds it to int64 values).
    const iter = tensor([i], { dtype: 'int64', shape: [] });
    const flag = tensor([1], { dtype: 'bool', shape: [] });
    let outs: ImportValue[];
    try {
      outs = ctx.subgraph(body, [iter, flag, ...carried]);
    } catch (e) {
      throw new Error(`body (iteration ${i}): ${(e as Error).message}`);
    }
    const [condOut, ...rest] = outs;
    if (!condOut) throw new Error("Loop's body has no outputs");
    if (!(condOut instanceof Tensor)) throw new Error(`Loop's body gives ${kindOf(condOut)} as its condition`);
    if (isSymbolic(condOut))
      throw new Error(
        `Loop's condition is computed at run time in iteration ${i}, but must be known when the model is imported (unrolled)`,
      );
    cond = Boolean(valuesOf(condOut, "Loop's condition")[0]);
    carried = rest.slice(0, nCarried);
    rest.slice(nCarried).forEach((t, k) => {
      if (!(t instanceof Tensor)) throw new Error(`Loop's scan output ${k} is ${kindOf(t)}; only tensors are stacked`);
      (scans[k] ??= []).push(expandDims(t, 0));
    });
  }
  const nScans = body.outputs.length - 1 - nCarried;
  // No iteration: each scan output is empty, [0, ...] in the shape and type the body declares for it.
  const empty = (k: number): Tensor => {
    const o = body.outputs[1 + nCarried + k]!;
    if (!o.dtype || !o.shape || o.shape.some((d) => typeof d !== 'number'))
      throw new Error(
        `Loop runs zero iterations and its body does not declare the full shape and type of scan output '${o.name}'`,
      );
    return zeros([0, ...(o.shape as number[])], importedDType(o.dtype));
  };
  return [...carried, ...Array.from({ length: nScans }, (_, k) => (scans[k] ? concatenate(scans[k]!, 0) : empty(k)))];
};

/**
 * Nearest resize before Resize 11 (Resize 10, Upsample), which had no nearest_mode: onnxruntime (and ONNX's own
 * Resize-10 example) rounds the asymmetric source coordinate down on an axis it upsamples and up on one it downsamples.
 * resize takes one nearest_mode, so scales that do both resize twice: the downsampled axes, then the upsampled ones
 * (a nearest resize only copies elements, so the two passes give what one would).
 */
function legacyNearest(x: Tensor, scales: readonly number[]): Tensor {
  const pass = (y: Tensor, keep: (s: number) => boolean, rounding: string) => {
    const only = scales.map((s) => (keep(s) ? s : 1));
    return resize(y, only, null, [], 'nearest', 'asymmetric', rounding);
  };
  const down = scales.some((s) => s < 1);
  const up = scales.some((s) => !(s <= 1));
  if (!down) return pass(x, () => true, 'floor');
  const y = pass(x, (s) => s < 1, 'ceil');
  return up ? pass(y, (s) => !(s < 1), 'floor') : y;
}

/**
 * Resize as raf.op.resize, which takes every opset's form: before 11 the scales are input 1 and the coordinates
 * asymmetric (nearest rounding as legacyNearest says); from 11 roi, scales and sizes are inputs 1 to 3 (an empty one is
 * not given); 18 adds axes, antialias and keep_aspect_ratio_policy. Scales and sizes must be known at import, as the
 * output shape depends on them.
 */
const resizeForm: Form = (ctx) => {
  const x = need(ctx, 0);
  const old = ctx.opset < 11;
  const list = (i: number, what: string) => {
    const t = ctx.input(i);
    return t && t.size ? known(ctx, i, what) : [];
  };
  const str = (name: string, dflt: string) => (ctx.attr(name) as string | undefined) ?? dflt;
  const mode = str('mode', 'nearest');
  const ctm = old ? 'asymmetric' : str('coordinate_transformation_mode', 'half_pixel');
  const scales = list(old ? 1 : 2, "Resize's scales");
  const sizes = old ? [] : list(3, "Resize's sizes");
  if (old && mode === 'nearest') return [legacyNearest(x, scales)];
  const v18 = ctx.opset >= 18;
  return [
    resize(
      x,
      scales,
      sizes.length ? sizes : null,
      // roi only matters to tf_crop_and_resize; other modes ignore it, as ONNX says.
      ctm === 'tf_crop_and_resize' ? list(1, "Resize's roi") : [],
      mode,
      ctm,
      old ? 'floor' : str('nearest_mode', 'round_prefer_floor'),
      num(ctx, 'cubic_coeff_a', -0.75),
      !old && num(ctx, 'exclude_outside', 0) !== 0,
      v18 ? (ints(ctx, 'axes') ?? null) : null,
      v18 && num(ctx, 'antialias', 0) !== 0,
      v18 ? str('keep_aspect_ratio_policy', 'stretch') : 'stretch',
      old ? 0 : num(ctx, 'extrapolation_value', 0),
    ),
  ];
};

/**
 * Upsample (opsets 7 to 9; deprecated at 10) as raf.op.resize with scales (an attribute before opset 9, input 1
 * from 9): output lengths floor(length × scale), asymmetric coordinates, as Resize 10.
 */
const upsampleForm: Form = (ctx) => {
  if (ctx.opset < 7)
    throw new Error(`Upsample of opset ${ctx.opset} (width_scale/height_scale) is not imported (7 on is)`);
  const x = need(ctx, 0);
  const scales =
    ctx.opset < 9 ? ((ctx.attr('scales') as number[] | undefined) ?? []) : known(ctx, 1, "Upsample's scales");
  if (!scales.length) throw new Error('Upsample needs scales');
  if (scales.some((s) => !(s >= 1)))
    throw new Error(`Upsample's scales must be at least 1 (ONNX), got [${scales.join(', ')}]; downsampling is Resize`);
  const mode = (ctx.attr('mode') as string | undefined) ?? 'nearest';
  if (mode === 'nearest') return [legacyNearest(x, scales)];
  if (mode !== 'linear') throw new Error(`Upsample mode '${mode}' is not imported (nearest and linear are)`);
  return [resize(x, scales, null, [], mode, 'asymmetric')];
};

/** Unsqueeze of any number of axes (an attribute before opset 13, an input after), as expand_dims one axis at a time. */
const unsqueeze: Form = (ctx) => {
  let x = need(ctx, 0);
  const axes = ctx.opset < 13 ? (ints(ctx, 'axes') ?? []) : known(ctx, 1, "Unsqueeze's axes");
  const rank = x.shape.length + axes.length;
  for (const a of axes.map((a) => normalizeAxis(a, rank)).sort((p, q) => p - q)) x = expandDims(x, a);
  return [x];
};

export const IMPORTER_FORMS: Readonly<Record<string, Form>> = {
  ...NN_FORMS,
  ...NORM_FORMS,
  ...TENSOR_FORMS,
  ...MATH_FORMS,
  ...SEQUENCE_FORMS,
  ...EXTRA_FORMS,
  ...TEXT_FORMS,
  ...STRING_FORMS,
  Constant: constantForm,
  // Identity passes any value on: a tensor, a sequence (opset 14) or an optional (opset 16).
  Identity: (ctx) => [ctx.value(0) ?? need(ctx, 0)],
  Cast: (ctx) => {
    const x = need(ctx, 0);
    const to = num(ctx, 'to', 1);
    // To int4, float8...: rounded as ONNX's Cast (saturate from opset 19, round_mode from 24, for float8e8m0).
    const format = narrowFormatOf(to);
    if (format) return [castToFormat(x, format, num(ctx, 'saturate', 1) !== 0, roundModeOf(ctx.attr('round_mode')))];
    // From a narrow type its carrier holds the exact values: a plain cast. round_mode only concerns float8e8m0.
    if (ctx.attr('round_mode') !== undefined) return [onnxDType(to) === x.dtype ? x : cast(x, onnxDType(to))];
    return onnxDType(to) === x.dtype ? [x] : null;
  },
  Shape: shapeForm,
  Size: sizeForm,
  ConstantOfShape: constantOfShapeForm,
  Range: rangeForm,
  Expand: expand,
  Reshape: reshapeForm,
  Conv: conv,
  Gemm: gemm,
  Softmax: oldSoftmax(false),
  LogSoftmax: oldSoftmax(true),
  If: ifForm,
  Loop: loop,
  Pad: padForm,
  Clip: clipForm,
  LSTM: lstm,
  GRU: gru,
  Resize: resizeForm,
  Upsample: upsampleForm,
  Unsqueeze: unsqueeze,
  QuantizeLinear: quantizeForm('QuantizeLinear'),
  DequantizeLinear: quantizeForm('DequantizeLinear'),
};
