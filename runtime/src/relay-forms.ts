// FromRelay, composite forms: Relay ops that no single raf-op op is (TVM's nn.batch_flatten, stack, one_hot,
// depth_to_space...), each written as raf-op calls with Relay's semantics (TVM's topi and type relations). Every attr
// a form does not read is refused by name, as the generated converters refuse theirs.

import { call } from './dispatch.ts';
import { convertRelayCall } from './relay.ts';
import type { DType } from './dtype.ts';
import { Tensor, tensor } from './tensor.ts';
import {
  arg,
  arity,
  axisOf,
  broadcastTo,
  c,
  dtypeAttr,
  fail,
  inverse,
  knownList,
  knownNumber,
  only,
  permute,
  roundHalfAway,
  scalar,
  size,
  toNchw,
  type Attrs,
  type Form,
} from './relay-form-kit.ts';
import { MORE_FORMS } from './relay-forms-more.ts';
import { QNN_FORMS } from './relay-forms-qnn.ts';

/** Relay's floor division of integers (and floats): the quotient rounded toward -infinity. */
function floorDivide(a: Tensor, b: Tensor): Tensor {
  if (a.dtype.startsWith('float') || a.dtype === 'bfloat16') return c('floor', c('divide', a, b));
  const q = c('trunc_divide', a, b);
  const inexact = c('logical_not', c('equal', c('trunc_mod', a, b), scalar(0, a.dtype)));
  const signs = c('logical_xor', c('less', a, scalar(0, a.dtype)), c('less', b, scalar(0, b.dtype)));
  return c('subtract', q, c('cast', c('logical_and', inexact, signs), q.dtype));
}

/** The averaging matrix of adaptive pooling along one axis: out rows, in columns, PyTorch's and TVM's windows. */
function adaptiveMatrix(inSize: number, outSize: number, dtype: DType): Tensor {
  const m = new Array<number>(outSize * inSize).fill(0);
  for (let o = 0; o < outSize; o++) {
    const start = Math.floor((o * inSize) / outSize);
    const end = Math.ceil(((o + 1) * inSize) / outSize);
    for (let i = start; i < end; i++) m[o * inSize + i] = 1 / (end - start);
  }
  return tensor(m, { dtype, shape: [outSize, inSize] });
}

/** One output position's taps along an axis: input indices (clamped to the edge) and their weights. */
interface Taps {
  readonly index: number[][];
  readonly weight: number[][];
}

const f32 = Math.fround;

/**
 * TVM's resize along one axis (topi.image.resize2d), its coordinates in float32 as TVM computes them: the source
 * coordinate of each output position by coordinate_transformation_mode, then the nearest pixel (rounding_method; ""
 * is round for align_corners and floor otherwise, floor and ceil nudged by 1e-5 as TVM does), two linear taps, or
 * four cubic ones (alpha, exclude_outside renormalizing). Pixels outside the image read its edge.
 */
function resizeTaps(
  op: string,
  inSize: number,
  outSize: number,
  method: string,
  mode: string,
  rounding: string,
  alpha: number,
  exclude: boolean,
): Taps {
  const scale = f32(inSize / outSize);
  const source = (x: number): number => {
    switch (mode) {
      case 'half_pixel':
        return f32(f32(f32(x + 0.5) * scale) - 0.5);
      case 'align_corners':
        return f32(f32((inSize - 1) / (outSize - 1)) * x);
      case 'asymmetric':
        return f32(scale * x);
      case 'pytorch_half_pixel':
        return outSize > 1 ? f32(f32(f32(x + 0.5) * scale) - 0.5) : 0;
      case 'tf_half_pixel_for_nn':
        return f32(f32(x + 0.5) * scale);
      default:
        fail(op, `coordinate_transformation_mode '${mode}' is not supported`);
    }
  };
  const clamp = (i: number) => Math.min(Math.max(i, 0), inSize - 1);
  const index: number[][] = [];
  const weight: number[][] = [];
  // Nearest with asymmetric floor at a whole-number upscale: TVM divides integers instead.
  const intDiv =
    method === 'nearest_neighbor' &&
    mode === 'asymmetric' &&
    (rounding === '' || rounding === 'floor') &&
    outSize % inSize === 0 &&
    outSize / inSize <= 1 / (1e-5 * inSize + 1e-5);
  for (let x = 0; x < outSize; x++) {
    if (method === 'nearest_neighbor') {
      let i: number;
      if (intDiv) i = Math.floor(x / (outSize / inSize));
      else {
        const v = source(x);
        const r = rounding || (mode === 'align_corners' ? 'round' : 'floor');
        // TVM's round (te.round) lowers to llvm.round: ties away from zero.
        if (r === 'round') i = roundHalfAway(v);
        else if (r === 'round_prefer_floor') i = Math.ceil(v - 0.5);
        else if (r === 'round_prefer_ceil') i = Math.floor(v + 0.5);
        else if (r === 'floor') i = Math.floor(f32(v + 1e-5));
        else if (r === 'ceil') i = Math.ceil(f32(v - 1e-5));
        else fail(op, `rounding_method '${r}' is not supported`);
      }
      index.push([clamp(i)]);
      weight.push([1]);
    } else if (method === 'linear') {
      const v = source(x);
      const i = Math.floor(v);
      const t = f32(v - i);
      index.push([clamp(i), clamp(i + 1)]);
      weight.push([f32(1 - t), t]);
    } else if (method === 'cubic') {
      const v = source(x);
      const i = Math.floor(v);
      const t = f32(v - i);
      const [t2, t3] = [t * t, t * t * t];
      let w = [
        alpha * (t3 - 2 * t2 + t),
        (alpha + 2) * t3 - (3 + alpha) * t2 + 1,
        -(alpha + 2) * t3 + (3 + 2 * alpha) * t2 - alpha * t,
        -alpha * t3 + alpha * t2,
      ];
      if (exclude) {
        w = w.map((wk, k) => (i - 1 + k < 0 || i + k > inSize ? 0 : wk));
        const total = w.reduce((p, q) => p + q, 0);
        w = w.map((wk) => wk / total);
      }
      index.push([0, 1, 2, 3].map((k) => clamp(i - 1 + k)));
      weight.push(w);
    } else fail(op, `method '${method}' is not supported (nearest_neighbor, linear and cubic are)`);
  }
  return { index, weight };
}

/** x resized along `axis` by taps: Σk take(x, index_k) · weight_k. */
function applyTaps(x: Tensor, taps: Taps, axis: number): Tensor {
  const k = taps.index[0]!.length;
  const out = taps.index.length;
  let y: Tensor | undefined;
  for (let j = 0; j < k; j++) {
    const picked = c(
      'take',
      x,
      tensor(
        taps.index.map((t) => t[j]!),
        { dtype: 'int32' },
      ),
      axis,
    );
    if (k === 1) return picked;
    const w = tensor(
      taps.weight.map((t) => t[j]!),
      { dtype: x.dtype, shape: x.shape.map((_, i) => (i === axis ? out : 1)) },
    );
    const term = c('multiply', picked, w);
    y = y ? c('add', y, term) : term;
  }
  return y!;
}

/** The attrs of image.resize2d and image.resize3d. */
const RESIZE_ATTRS = [
  'size',
  'roi',
  'layout',
  'method',
  'coordinate_transformation_mode',
  'rounding_method',
  'cubic_alpha',
  'cubic_exclude',
  'extrapolation_value',
  'out_dtype',
] as const;

/** A resize's coordinate_transformation_mode (half_pixel by default); tf_crop_and_resize is refused. */
function resizeMode(op: string, attrs: Attrs): string {
  const mode = (attrs.coordinate_transformation_mode as string | undefined) ?? 'half_pixel';
  if (mode === 'tf_crop_and_resize') fail(op, "coordinate_transformation_mode 'tf_crop_and_resize' is not supported");
  return mode;
}

/**
 * Adaptive pooling along one axis of x: output cell i of `out` reduces (mean or max) the input cells
 * [floor(i · n / out), ceil((i + 1) · n / out)), one slice and reduction per cell.
 */
function adaptiveAxis(x: Tensor, axis: number, out: number, reduce: 'mean' | 'max'): Tensor {
  const n = x.shape[axis]!;
  return c(
    'concatenate',
    Array.from({ length: out }, (_, i) =>
      c(
        reduce,
        c('strided_slice', x, [Math.floor((i * n) / out)], [Math.ceil(((i + 1) * n) / out)], null, [axis]),
        [axis],
        true,
      ),
    ),
    axis,
  );
}

/** TVM's resize2d of NCHW or NHWC data to `size` (columns first, then rows, as TVM interpolates). */
function resize2d(
  op: string,
  data: Tensor,
  size: readonly number[],
  layout: unknown,
  method: string,
  mode: string,
  rounding: string,
  alpha: number,
  exclude: boolean,
): Tensor {
  const perm = toNchw(op, layout);
  const x = permute(data, perm);
  if (!x.dtype.startsWith('float')) fail(op, `data of dtype ${x.dtype} is not supported (float data is)`);
  const [H, W] = [x.shape[2]!, x.shape[3]!];
  const [OH, OW] = [size[0]!, size[1]!];
  const cols = applyTaps(x, resizeTaps(op, W, OW, method, mode, rounding, alpha, exclude), 3);
  const y = applyTaps(cols, resizeTaps(op, H, OH, method, mode, rounding, alpha, exclude), 2);
  return permute(y, inverse(perm));
}

/** One op under another name: TVM's FastMath approximations stand for the exact functions here. */
const alias =
  (target: string): Form =>
  (args, attrs) =>
    call(target, [...args], { ...attrs });

/** A 1-D convolution or pool (NCW) as its 2-D form over a height of 1. */
function oneD(op: string, twoD: string, kind: 'conv' | 'pool'): Form {
  return (args, attrs) => {
    const layout = (attrs.data_layout ?? attrs.layout) as string | undefined;
    if (layout && layout !== 'NCW') fail(op, `layout '${layout}' is not supported (NCW is)`);
    const kl = attrs.kernel_layout as string | undefined;
    if (kl && kl !== 'OIW') fail(op, `kernel_layout '${kl}' is not supported (OIW is)`);
    const widen = (v: unknown, fill: number) => (Array.isArray(v) ? [fill, ...(v as number[])] : v);
    const pad = (attrs.padding as number[] | undefined) ?? [0];
    const [l, r] = pad.length === 1 ? [pad[0]!, pad[0]!] : [pad[0]!, pad[1]!];
    const attrs2: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(attrs)) {
      if (k === 'data_layout' || k === 'layout' || k === 'kernel_layout' || k === 'out_layout') continue;
      if (k === 'padding') attrs2.padding = [0, l, 0, r];
      else if (k === 'strides' || k === 'dilation') attrs2[k] = widen(v, 1);
      else if (k === 'kernel_size' || k === 'pool_size') attrs2[k] = widen(v, 1);
      else attrs2[k] = v;
    }
    const x = c('expand_dims', arg(op, args, 0, 'data'), 2);
    const rest = kind === 'conv' ? [c('expand_dims', arg(op, args, 1, 'weight'), 2), ...args.slice(2)] : args.slice(1);
    return call('squeeze', [convertRelayCall(twoD, [x, ...rest], attrs2), [2]]);
  };
}

/** The elements of a tensor known while converting (a Relay constant), else an error naming what. */
/**
 * A dyn.* op of Relay's dynamic-shape dialect whose shape arguments are constants: the static op, with those
 * arguments read into the attrs they stand for (`names`, after the `data` arguments that stay tensors).
 */
function dynamic(
  op: string,
  data: number,
  names: readonly string[],
  read: (name: string, v: unknown) => unknown = (n, v) => knownList(op, v, n),
): Form {
  return (args, attrs) => {
    if (args.length > data + names.length)
      fail(op, `takes at most ${data + names.length} arguments, got ${args.length}`);
    const fixed: Record<string, unknown> = { ...attrs };
    names.forEach((name, i) => {
      if (args[data + i] !== undefined) fixed[name] = read(name, args[data + i]);
    });
    return convertRelayCall(op.slice('dyn.'.length), args.slice(0, data), fixed);
  };
}

/** Source index of each padded position along an axis of n: REFLECT leaves the edge out, SYMMETRIC repeats it. */
function mirrorIndex(n: number, before: number, after: number, symmetric: boolean): number[] {
  const period = symmetric ? 2 * n : 2 * n - 2;
  return Array.from({ length: n + before + after }, (_, j) => {
    if (n === 1) return 0;
    let i = (((j - before) % period) + period) % period;
    if (i >= n) i = symmetric ? period - 1 - i : period - i;
    return i;
  });
}

const FORMS: ReadonlyMap<string, Form> = new Map<string, Form>([
  ...MORE_FORMS,
  ...QNN_FORMS,
  [
    'nn.mirror_pad',
    (args, attrs) => {
      const op = 'nn.mirror_pad';
      arity(op, args, 1);
      only(op, attrs, ['pad_width', 'mode']);
      const mode = (attrs.mode as string | undefined) ?? 'SYMMETRIC';
      if (mode !== 'REFLECT' && mode !== 'SYMMETRIC') fail(op, `mode '${mode}' is not REFLECT or SYMMETRIC`);
      let x = arg(op, args, 0, 'data');
      const pw = attrs.pad_width as number[][];
      pw.forEach(([b, e], axis) => {
        if (!b && !e) return;
        const n = x.shape[axis]!;
        if (b! > n - (mode === 'REFLECT' ? 1 : 0) || e! > n - (mode === 'REFLECT' ? 1 : 0))
          fail(op, `pad [${b}, ${e}] on axis ${axis} is wider than the ${n} elements it mirrors`);
        const idx = mirrorIndex(n, b!, e!, mode === 'SYMMETRIC');
        x = c('take', x, tensor(idx, { dtype: 'int32' }), axis);
      });
      return x;
    },
  ],
  [
    // Relay's gather_nd reads the index tuple from the indices' first axis (ONNX's from its last).
    'gather_nd',
    (args, attrs) => {
      const op = 'gather_nd';
      arity(op, args, 2);
      only(op, attrs, ['batch_dims', 'index_rank']);
      if (attrs.batch_dims !== undefined && attrs.batch_dims !== 0)
        fail(op, 'batch_dims other than 0 is not supported');
      const [x, idx] = [arg(op, args, 0, 'data'), arg(op, args, 1, 'indices')];
      const r = idx.shape.length;
      const last =
        r === 1 ? c('reshape', idx, [1, idx.shape[0]!]) : c('transpose', idx, [...Array(r).keys()].slice(1).concat(0));
      const asInt = last.dtype === 'int64' || last.dtype === 'int32' ? last : c('cast', last, 'int64');
      const y = c('gather_nd', x, asInt, 0);
      return r === 1 ? c('reshape', y, y.shape.slice(1)) : y;
    },
  ],
  ['dyn.reshape', dynamic('dyn.reshape', 1, ['newshape'])],
  ['dyn.broadcast_to', dynamic('dyn.broadcast_to', 1, ['shape'])],
  ['dyn.zeros', dynamic('dyn.zeros', 0, ['shape'])],
  ['dyn.ones', dynamic('dyn.ones', 0, ['shape'])],
  ['dyn.full', dynamic('dyn.full', 1, ['shape'])],
  ['dyn.tile', dynamic('dyn.tile', 1, ['reps'])],
  ['dyn.squeeze', dynamic('dyn.squeeze', 1, ['axis'])],
  ['dyn.expand_dims', dynamic('dyn.expand_dims', 1, ['axis'], (n, v) => knownList('dyn.expand_dims', v, n)[0])],
  ['dyn.strided_slice', dynamic('dyn.strided_slice', 1, ['begin', 'end', 'strides'])],
  ['dyn.one_hot', dynamic('dyn.one_hot', 3, ['depth'], (n, v) => knownList('dyn.one_hot', v, n)[0])],
  ['dyn.topk', dynamic('dyn.topk', 1, ['k'], (n, v) => knownList('dyn.topk', v, n)[0])],
  [
    'dyn.nn.pad',
    (args, attrs) => {
      const op = 'dyn.nn.pad';
      const pw = args[1] instanceof Tensor ? args[1] : undefined;
      if (!pw) fail(op, 'pad_width (argument 1) must be a tensor');
      const flat = knownList(op, pw, 'pad_width');
      const pairs = Array.from({ length: flat.length / 2 }, (_, i) => [flat[2 * i]!, flat[2 * i + 1]!]);
      return convertRelayCall('nn.pad', [args[0], ...args.slice(2)], { ...attrs, pad_width: pairs });
    },
  ],
  ['dyn.image.resize2d', dynamic('dyn.image.resize2d', 1, ['size', 'roi'])],
  [
    'dyn.nn.upsampling',
    dynamic('dyn.nn.upsampling', 1, ['scale_h', 'scale_w'], (n, v) => knownList('dyn.nn.upsampling', v, n)[0]),
  ],
  [
    'dyn.nn.upsampling3d',
    dynamic(
      'dyn.nn.upsampling3d',
      1,
      ['scale_d', 'scale_h', 'scale_w'],
      (n, v) => knownList('dyn.nn.upsampling3d', v, n)[0],
    ),
  ],
  ['fast_exp', alias('exp')],
  ['fast_tanh', alias('tanh')],
  ['fast_erf', alias('erf')],
  [
    'nn.fast_softmax',
    (args, attrs) => {
      only('nn.fast_softmax', attrs, ['axis']);
      return call('softmax', [args[0], (attrs.axis as number | undefined) ?? -1]);
    },
  ],
  ['nn.conv1d', oneD('nn.conv1d', 'nn.conv2d', 'conv')],
  ['nn.max_pool1d', oneD('nn.max_pool1d', 'nn.max_pool2d', 'pool')],
  ['nn.avg_pool1d', oneD('nn.avg_pool1d', 'nn.avg_pool2d', 'pool')],
  [
    'isinf',
    (args, attrs) => {
      arity('isinf', args, 1);
      only('isinf', attrs, []);
      return c('isinf', args[0]);
    },
  ],
  ...(['all', 'any'] as const).map((op): [string, Form] => [
    op,
    (args, attrs) => {
      arity(op, args, 1);
      only(op, attrs, ['axis', 'keepdims', 'exclude']);
      const x = arg(op, args, 0, 'data');
      const rank = x.shape.length;
      let axes = ((attrs.axis as number[] | null | undefined) ?? [...x.shape.keys()]).map((a) => axisOf(a, rank));
      if (attrs.exclude === true) axes = [...x.shape.keys()].filter((a) => !axes.includes(a));
      const asInt = c('cast', x, 'int32');
      const r = call(op === 'all' ? 'min' : 'max', [asInt], { axis: axes, keepdims: attrs.keepdims === true });
      return c('cast', r, 'bool');
    },
  ]),
  [
    // Relay's AD: the sum of data over the axes it was broadcast along, to `shape`.
    'collapse_sum_to',
    (args, attrs) => {
      const op = 'collapse_sum_to';
      only(op, attrs, ['shape']);
      const x = arg(op, args, 0, 'data');
      const shape = (attrs.shape as number[] | undefined) ?? [...arg(op, args, 1, 'shape').dataSync()].map(Number);
      return c('collapse_sum_like', x, tensor(new Array<number>(size(shape)).fill(0), { dtype: x.dtype, shape }));
    },
  ],
  [
    'broadcast_to_like',
    (args, attrs) => {
      const op = 'broadcast_to_like';
      arity(op, args, 2);
      only(op, attrs, []);
      return broadcastTo(op, arg(op, args, 0, 'data'), arg(op, args, 1, 'broadcast_type').shape);
    },
  ],
  [
    'ndarray_size',
    (args, attrs) => {
      only('ndarray_size', attrs, ['dtype']);
      const x = arg('ndarray_size', args, 0, 'data');
      return tensor([size(x.shape)], { dtype: dtypeAttr('ndarray_size', attrs.dtype, 'int32'), shape: [] });
    },
  ],
  ...(['sort', 'argsort'] as const).map((op): [string, Form] => [
    op,
    (args, attrs) => {
      arity(op, args, 1);
      only(op, attrs, ['axis', 'is_ascend', ...(op === 'argsort' ? ['dtype'] : [])]);
      const x = arg(op, args, 0, 'data');
      const axis = (attrs.axis as number | undefined) ?? -1;
      const n = x.shape[axisOf(axis, x.shape.length)]!;
      // A full top-k in the requested order; equal values keep their order, as TVM's stable sort does.
      const [values, indices] = call('topk', [x, n, axis, attrs.is_ascend === false, true]) as Tensor[];
      return op === 'sort' ? values! : c('cast', indices!, dtypeAttr(op, attrs.dtype, 'int32'));
    },
  ]),
  [
    'nn.lrn',
    (args, attrs) => {
      const op = 'nn.lrn';
      arity(op, args, 1);
      only(op, attrs, ['size', 'axis', 'bias', 'alpha', 'beta']);
      const x = arg(op, args, 0, 'data');
      if (axisOf((attrs.axis as number | undefined) ?? 1, x.shape.length) !== 1)
        fail(op, `axis ${String(attrs.axis)} is not supported (the channel axis 1 is)`);
      // TVM's lrn divides alpha by size, as ONNX's LRN does.
      return c(
        'lrn',
        x,
        (attrs.size as number | undefined) ?? 5,
        (attrs.alpha as number | undefined) ?? 1e-4,
        (attrs.beta as number | undefined) ?? 0.75,
        (attrs.bias as number | undefined) ?? 2,
      );
    },
  ],
  [
    'trilu',
    (args, attrs) => {
      const op = 'trilu';
      only(op, attrs, ['upper']);
      const x = arg(op, args, 0, 'data');
      const k = args.length > 1 ? knownNumber(op, args[1], 'k') : 0;
      return c('trilu', x, k, attrs.upper !== false);
    },
  ],
  [
    // sequence_mask(data, valid_length): positions along axis at or past each batch entry's length take mask_value.
    'sequence_mask',
    (args, attrs) => {
      const op = 'sequence_mask';
      arity(op, args, 2);
      only(op, attrs, ['mask_value', 'axis']);
      const [x, len] = [arg(op, args, 0, 'data'), arg(op, args, 1, 'valid_length')];
      const a = axisOf((attrs.axis as number | undefined) ?? 0, x.shape.length);
      if (a !== 0 && a !== 1) fail(op, `axis ${a} is not supported (0 or 1)`);
      const T = x.shape[a]!;
      const steps = tensor(
        Array.from({ length: T }, (_, i) => i),
        { dtype: 'float32', shape: a === 0 ? [T, 1] : [1, T] },
      );
      const lens = c('reshape', c('cast', len, 'float32'), a === 0 ? [1, len.shape[0]!] : [len.shape[0]!, 1]);
      const keep = c('less', steps, lens);
      const fullKeep = c('reshape', keep, [...keep.shape, ...Array<number>(x.shape.length - 2).fill(1)]);
      const fill = scalar((attrs.mask_value as number | undefined) ?? 0, x.dtype);
      return c('where', fullKeep, x, fill);
    },
  ],
  [
    'nn.cross_entropy',
    (args, attrs) => {
      const op = 'nn.cross_entropy';
      arity(op, args, 2);
      only(op, attrs, []);
      const [p, y] = [arg(op, args, 0, 'predictions'), arg(op, args, 1, 'targets')];
      const s = c('sum', c('multiply', c('log', p), y));
      return c('divide', c('negative', s), scalar(p.shape[0]!, p.dtype));
    },
  ],
  [
    'nn.cross_entropy_with_logits',
    (args, attrs) => {
      const op = 'nn.cross_entropy_with_logits';
      arity(op, args, 2);
      only(op, attrs, []);
      const [p, y] = [arg(op, args, 0, 'predictions'), arg(op, args, 1, 'targets')];
      return c('divide', c('negative', c('sum', c('multiply', p, y))), scalar(p.shape[0]!, p.dtype));
    },
  ],
  [
    'image.affine_grid',
    (args, attrs) => {
      const op = 'image.affine_grid';
      arity(op, args, 1);
      only(op, attrs, ['target_shape']);
      const theta = arg(op, args, 0, 'data');
      const [H, W] = attrs.target_shape as [number, number];
      // TVM's grid spans [-1, 1] corner to corner (align_corners), laid out [N, 2, H, W] (x, then y).
      const grid = c('affine_grid', theta, [theta.shape[0]!, 1, H, W], true);
      return c('transpose', grid, [0, 3, 1, 2]);
    },
  ],
  [
    'image.grid_sample',
    (args, attrs) => {
      const op = 'image.grid_sample';
      arity(op, args, 2);
      only(op, attrs, ['method', 'layout', 'padding_mode', 'align_corners']);
      const method = (attrs.method as string | undefined) ?? 'bilinear';
      // TVM's nearest and bicubic round and weigh as topi does; only bilinear is known to match raf-op's sampler.
      if (method !== 'bilinear') fail(op, `method '${method}' is not supported (bilinear is)`);
      if (((attrs.layout as string | undefined) ?? 'NCHW') !== 'NCHW') fail(op, `layout '${String(attrs.layout)}'`);
      const padding = (attrs.padding_mode as string | undefined) ?? 'zeros';
      if (padding !== 'zeros' && padding !== 'border') fail(op, `padding_mode '${padding}' is not supported`);
      const grid = c('transpose', arg(op, args, 1, 'grid'), [0, 2, 3, 1]);
      const corners = attrs.align_corners === undefined ? true : Boolean(attrs.align_corners);
      return c('grid_sample', arg(op, args, 0, 'data'), grid, 'bilinear', padding, corners);
    },
  ],
  [
    'image.resize3d',
    (args, attrs) => {
      const op = 'image.resize3d';
      arity(op, args, 1);
      only(op, attrs, RESIZE_ATTRS);
      const layout = (attrs.layout as string | undefined) ?? 'NCDHW';
      if (layout !== 'NCDHW' && layout !== 'NDHWC') fail(op, `layout '${layout}' is not supported (NCDHW, NDHWC are)`);
      const mode = resizeMode(op, attrs);
      const perm = layout === 'NCDHW' ? [0, 1, 2, 3, 4] : [0, 4, 1, 2, 3];
      const x = permute(arg(op, args, 0, 'data'), perm);
      if (!x.dtype.startsWith('float')) fail(op, `data of dtype ${x.dtype} is not supported (float data is)`);
      const size = attrs.size as number[];
      const taps = (n: number, o: number) =>
        resizeTaps(
          op,
          n,
          o,
          (attrs.method as string | undefined) ?? 'linear',
          mode,
          (attrs.rounding_method as string | undefined) ?? '',
          (attrs.cubic_alpha as number | undefined) ?? -0.75,
          Boolean(attrs.cubic_exclude),
        );
      // Separable: width, height, then depth, each axis resized by gathering its taps.
      let y = x;
      for (const a of [4, 3, 2]) y = applyTaps(y, taps(x.shape[a]!, size[a - 2]!), a);
      y = permute(y, inverse(perm));
      const od = attrs.out_dtype as string | undefined;
      return od && od !== y.dtype ? c('cast', y, od) : y;
    },
  ],
  [
    'image.resize1d',
    (args, attrs) => {
      const op = 'image.resize1d';
      arity(op, args, 1);
      const layout = (attrs.layout as string | undefined) ?? 'NCW';
      if (layout !== 'NCW' && layout !== 'NWC') fail(op, `layout '${layout}' is not supported (NCW, NWC are)`);
      const roi = (attrs.roi as number[] | undefined) ?? [];
      if (roi.some((v) => v !== 0)) fail(op, 'a nonzero roi (tf_crop_and_resize) is not supported');
      // As image.resize2d over a height of 1, which every method and coordinate mode leaves as it is.
      const at = layout === 'NCW' ? 2 : 1;
      const x = c('expand_dims', arg(op, args, 0, 'data'), at);
      const size = (attrs.size as number[] | undefined) ?? [x.shape[at + 1]!];
      const y = convertRelayCall('image.resize2d', [x], {
        ...attrs,
        size: [1, size[0]!],
        roi: [0, 0, 0, 0],
        layout: layout === 'NCW' ? 'NCHW' : 'NHWC',
      }) as Tensor;
      return c('squeeze', y, [at]);
    },
  ],
  [
    'image.resize2d',
    (args, attrs) => {
      const op = 'image.resize2d';
      // roi and output sizes may come as a second and third argument in newer Relay; here only the data.
      arity(op, args, 1);
      only(op, attrs, RESIZE_ATTRS);
      const mode = resizeMode(op, attrs);
      const od = attrs.out_dtype as string | undefined;
      const x = arg(op, args, 0, 'data');
      const y = resize2d(
        op,
        x,
        attrs.size as number[],
        attrs.layout,
        (attrs.method as string | undefined) ?? 'linear',
        mode,
        (attrs.rounding_method as string | undefined) ?? '',
        (attrs.cubic_alpha as number | undefined) ?? -0.75,
        Boolean(attrs.cubic_exclude),
      );
      return od && od !== y.dtype ? c('cast', y, od) : y;
    },
  ],
  [
    // topi.nn.upsampling: resize2d to round(size · scale), align_corners or asymmetric coordinates.
    'nn.upsampling',
    (args, attrs) => {
      const op = 'nn.upsampling';
      arity(op, args, 1);
      only(op, attrs, ['scale_h', 'scale_w', 'layout', 'method', 'align_corners']);
      const x = arg(op, args, 0, 'data');
      const perm = toNchw(op, attrs.layout);
      const [H, W] = [x.shape[perm[2]!]!, x.shape[perm[3]!]!];
      const sh = (attrs.scale_h as number | undefined) ?? 1;
      const sw = (attrs.scale_w as number | undefined) ?? 1;
      const method = ((attrs.method as string | undefined) ?? 'nearest_neighbor').replace(/^bi/, '');
      return resize2d(
        op,
        x,
        [Math.round(f32(H * sh)), Math.round(f32(W * sw))],
        attrs.layout,
        method,
        attrs.align_corners === true ? 'align_corners' : 'asymmetric',
        '',
        -0.75,
        false,
      );
    },
  ],
  [
    // topi.nn.upsampling3d: resize3d to round(size · scale) per axis, with the given coordinate mode.
    'nn.upsampling3d',
    (args, attrs) => {
      const op = 'nn.upsampling3d';
      arity(op, args, 1);
      only(op, attrs, ['scale_d', 'scale_h', 'scale_w', 'layout', 'method', 'coordinate_transformation_mode']);
      const x = arg(op, args, 0, 'data');
      const layout = (attrs.layout as string | undefined) ?? 'NCDHW';
      const axes = layout === 'NDHWC' ? [1, 2, 3] : [2, 3, 4];
      const scales = [attrs.scale_d, attrs.scale_h, attrs.scale_w].map((v) => (v as number | undefined) ?? 1);
      const size = axes.map((a, k) => Math.round(f32(x.shape[a]! * scales[k]!)));
      const method = ((attrs.method as string | undefined) ?? 'nearest_neighbor').replace(/^tri/, '');
      return convertRelayCall('image.resize3d', [x], {
        size,
        layout,
        method,
        coordinate_transformation_mode: (attrs.coordinate_transformation_mode as string | undefined) ?? 'half_pixel',
      });
    },
  ],
  [
    'nn.batch_flatten',
    (args, attrs) => {
      const op = 'nn.batch_flatten';
      arity(op, args, 1);
      only(op, attrs, []);
      const x = arg(op, args, 0, 'data');
      return c('reshape', x, [x.shape[0] ?? 1, size(x.shape.slice(1))]);
    },
  ],
  [
    // Inference: the data passes unchanged, and the mask (the tuple's second field) is all ones.
    'nn.dropout',
    (args, attrs) => {
      const op = 'nn.dropout';
      arity(op, args, 1);
      only(op, attrs, ['rate']);
      const x = arg(op, args, 0, 'data');
      return [x, c('ones_like', x)];
    },
  ],
  [
    'nn.prelu',
    (args, attrs) => {
      const op = 'nn.prelu';
      arity(op, args, 2);
      only(op, attrs, ['axis']);
      const [x, alpha] = [arg(op, args, 0, 'data'), arg(op, args, 1, 'alpha')];
      const a = axisOf((attrs.axis as number | undefined) ?? 1, x.shape.length);
      if (alpha.shape.length !== 1 || alpha.shape[0] !== x.shape[a])
        fail(op, `alpha has shape [${alpha.shape}]; it must be [${x.shape[a]}], one slope per index of axis ${a}`);
      const slope = c(
        'reshape',
        alpha,
        x.shape.map((d, i) => (i === a ? d : 1)),
      );
      return c('where', c('greater', x, scalar(0, x.dtype)), x, c('multiply', x, slope));
    },
  ],
  ...(['zeros', 'ones'] as const).map((name): [string, Form] => [
    name,
    (args, attrs) => {
      arity(name, args, 0);
      only(name, attrs, ['shape', 'dtype']);
      const shape = (attrs.shape as number[] | undefined) ?? [];
      return tensor(new Array<number>(size(shape)).fill(name === 'ones' ? 1 : 0), {
        dtype: dtypeAttr(name, attrs.dtype, 'float32'),
        shape,
      });
    },
  ]),
  [
    'full',
    (args, attrs) => {
      const op = 'full';
      arity(op, args, 1);
      only(op, attrs, ['shape', 'dtype']);
      const shape = (attrs.shape as number[] | undefined) ?? [];
      const fill = args[0];
      const dtype = dtypeAttr(op, attrs.dtype, fill instanceof Tensor ? fill.dtype : 'float32');
      return broadcastTo(
        op,
        c('cast', fill instanceof Tensor ? fill : scalar(knownNumber(op, fill, 'fill_value'), dtype), dtype),
        shape,
      );
    },
  ],
  [
    'full_like',
    (args, attrs) => {
      const op = 'full_like';
      arity(op, args, 2);
      only(op, attrs, []);
      const x = arg(op, args, 0, 'data');
      const fill = args[1] instanceof Tensor ? args[1] : scalar(knownNumber(op, args[1], 'fill_value'), x.dtype);
      return broadcastTo(op, c('cast', fill, x.dtype), x.shape);
    },
  ],
  [
    'broadcast_to',
    (args, attrs) => {
      const op = 'broadcast_to';
      arity(op, args, 1);
      only(op, attrs, ['shape']);
      return broadcastTo(op, arg(op, args, 0, 'data'), (attrs.shape as number[] | undefined) ?? []);
    },
  ],
  [
    'stack',
    (args, attrs) => {
      const op = 'stack';
      only(op, attrs, ['axis']);
      const xs = (Array.isArray(args[0]) ? args[0] : args) as unknown[];
      if (!xs.length || !xs.every((x) => x instanceof Tensor)) fail(op, 'takes a tuple of tensors');
      const ts = xs as Tensor[];
      const a = axisOf((attrs.axis as number | undefined) ?? 0, ts[0]!.shape.length + 1);
      return c(
        'concatenate',
        ts.map((t) => c('expand_dims', t, a)),
        a,
      );
    },
  ],
  [
    'not_equal',
    (args, attrs) => {
      only('not_equal', attrs, []);
      return c('logical_not', c('equal', args[0], args[1]));
    },
  ],
  [
    'floor_divide',
    (args, attrs) => {
      const op = 'floor_divide';
      only(op, attrs, []);
      // A literal beside a tensor takes the tensor's dtype, as Relay's type inference gives it.
      const [x, y] = args;
      const lhs = x instanceof Tensor ? x : scalar(knownNumber(op, x, 'lhs'), arg(op, args, 1, 'rhs').dtype);
      const rhs = y instanceof Tensor ? y : scalar(knownNumber(op, y, 'rhs'), lhs.dtype);
      return floorDivide(lhs, rhs);
    },
  ],
  [
    // Relay's mod keeps the dividend's sign (C's fmod), as trunc_mod does.
    'mod',
    (args, attrs) => {
      only('mod', attrs, []);
      return c('trunc_mod', args[0], args[1]);
    },
  ],
  ...(
    [
      ['log2', Math.LN2],
      ['log10', Math.LN10],
    ] as const
  ).map(([name, ln]): [string, Form] => [
    name,
    (args, attrs) => {
      arity(name, args, 1);
      only(name, attrs, []);
      const x = arg(name, args, 0, 'data');
      return c('divide', c('log', x), scalar(ln, x.dtype));
    },
  ]),
  [
    'trunc',
    (args, attrs) => {
      arity('trunc', args, 1);
      only('trunc', attrs, []);
      const x = arg('trunc', args, 0, 'data');
      return c('where', c('less', x, scalar(0, x.dtype)), c('ceil', x), c('floor', x));
    },
  ],
  [
    'isfinite',
    (args, attrs) => {
      arity('isfinite', args, 1);
      only('isfinite', attrs, []);
      const x = arg('isfinite', args, 0, 'data');
      return c('logical_not', c('logical_or', c('isinf', x), c('isnan', x)));
    },
  ],
  [
    'arange',
    (args, attrs) => {
      const op = 'arange';
      only(op, attrs, ['dtype']);
      if (args.length < 1 || args.length > 3) fail(op, `takes start, stop and step, got ${args.length} arguments`);
      const nums = args.map((v, i) => knownNumber(op, v, ['start', 'stop', 'step'][i]!));
      const [start, stop, step] = args.length === 1 ? [0, nums[0]!, 1] : [nums[0]!, nums[1]!, nums[2] ?? 1];
      const dtype = dtypeAttr(op, attrs.dtype, 'float32');
      const n = Math.max(0, Math.ceil((stop - start) / step));
      return tensor(
        Array.from({ length: n }, (_, i) => start + i * step),
        { dtype, shape: [n] },
      );
    },
  ],
  [
    'shape_of',
    (args, attrs) => {
      const op = 'shape_of';
      arity(op, args, 1);
      only(op, attrs, ['dtype']);
      const x = arg(op, args, 0, 'data');
      return tensor([...x.shape], { dtype: dtypeAttr(op, attrs.dtype, 'int32'), shape: [x.shape.length] });
    },
  ],
  [
    'cast_like',
    (args, attrs) => {
      const op = 'cast_like';
      arity(op, args, 2);
      only(op, attrs, []);
      const [x, like] = [arg(op, args, 0, 'data'), arg(op, args, 1, 'dtype_like')];
      return x.dtype === like.dtype ? x : c('cast', x, like.dtype);
    },
  ],
  [
    'reshape_like',
    (args, attrs) => {
      const op = 'reshape_like';
      arity(op, args, 2);
      only(op, attrs, []);
      return c('reshape', arg(op, args, 0, 'data'), [...arg(op, args, 1, 'shape_like').shape]);
    },
  ],
  [
    'reverse',
    (args, attrs) => {
      const op = 'reverse';
      arity(op, args, 1);
      only(op, attrs, ['axis']);
      const x = arg(op, args, 0, 'data');
      const a = axisOf((attrs.axis as number | undefined) ?? 0, x.shape.length);
      const n = x.shape[a]!;
      return c(
        'take',
        x,
        tensor(
          Array.from({ length: n }, (_, i) => n - 1 - i),
          { dtype: 'int32' },
        ),
        a,
      );
    },
  ],
  [
    'repeat',
    (args, attrs) => {
      const op = 'repeat';
      arity(op, args, 1);
      only(op, attrs, ['repeats', 'axis']);
      const x = arg(op, args, 0, 'data');
      const a = axisOf((attrs.axis as number | undefined) ?? 0, x.shape.length);
      const k = attrs.repeats as number;
      if (!Number.isInteger(k) || k < 1) fail(op, `repeats must be a positive integer, got ${String(k)}`);
      const idx = Array.from({ length: x.shape[a]! * k }, (_, i) => Math.floor(i / k));
      return c('take', x, tensor(idx, { dtype: 'int32' }), a);
    },
  ],
  [
    // TVM's variance(data, mean): the mean of squared deviations from the given mean, over axis.
    'variance',
    (args, attrs) => {
      const op = 'variance';
      arity(op, args, 2);
      only(op, attrs, ['axis', 'keepdims', 'exclude', 'unbiased']);
      if (attrs.exclude === true) fail(op, 'exclude=True is not supported');
      const [x, mu] = [arg(op, args, 0, 'data'), arg(op, args, 1, 'mean')];
      const axes = ((attrs.axis as number[] | null | undefined) ?? [...x.shape.keys()]).map((a) =>
        axisOf(a, x.shape.length),
      );
      const d = c('subtract', x, mu);
      const v = call('mean', [c('multiply', d, d)], { axis: axes, keepdims: attrs.keepdims === true }) as Tensor;
      if (attrs.unbiased !== true) return v;
      const n = size(axes.map((a) => x.shape[a]!));
      return c('multiply', v, scalar(n / (n - 1), v.dtype));
    },
  ],
  [
    'nn.l2_normalize',
    (args, attrs) => {
      const op = 'nn.l2_normalize';
      arity(op, args, 1);
      only(op, attrs, ['eps', 'axis']);
      const x = arg(op, args, 0, 'data');
      const axes = ((attrs.axis as number[] | undefined) ?? [1]).map((a) => axisOf(a, x.shape.length));
      const ss = call('sum', [c('multiply', x, x)], { axis: axes, keepdims: true }) as Tensor;
      const eps = scalar((attrs.eps as number | undefined) ?? 0, x.dtype);
      return c('divide', x, c('sqrt', c('maximum', ss, eps)));
    },
  ],
  ...(['nn.instance_norm', 'nn.group_norm'] as const).map((op): [string, Form] => [
    op,
    (args, attrs) => {
      arity(op, args, 3);
      only(op, attrs, ['axis', 'epsilon', 'center', 'scale', ...(op === 'nn.group_norm' ? ['num_groups'] : [])]);
      const [x, gamma, beta] = [arg(op, args, 0, 'data'), arg(op, args, 1, 'gamma'), arg(op, args, 2, 'beta')];
      if (axisOf((attrs.axis as number | undefined) ?? 1, x.shape.length) !== 1)
        fail(op, `axis ${String(attrs.axis)} is not supported (the channel axis 1 is)`);
      const g = attrs.scale === false ? c('ones_like', gamma) : gamma;
      const b = attrs.center === false ? c('zeros_like', beta) : beta;
      const eps = (attrs.epsilon as number | undefined) ?? 1e-5;
      return op === 'nn.instance_norm'
        ? c('instance_norm', x, g, b, eps)
        : c('group_norm', x, g, b, attrs.num_groups as number, eps);
    },
  ]),
  [
    'nn.adaptive_avg_pool2d',
    (args, attrs) => {
      const op = 'nn.adaptive_avg_pool2d';
      arity(op, args, 1);
      only(op, attrs, ['output_size', 'layout', 'out_layout']);
      if (attrs.out_layout && attrs.out_layout !== attrs.layout) fail(op, `out_layout differs from layout`);
      const perm = toNchw(op, attrs.layout);
      const x = permute(arg(op, args, 0, 'data'), perm);
      const [H, W] = [x.shape[2]!, x.shape[3]!];
      const out = (attrs.output_size as (number | null)[] | null | undefined) ?? [H, W];
      const [OH, OW] = [out[0] ?? H, out.length > 1 ? (out[1] ?? W) : (out[0] ?? W)];
      // Each output averages a window of rows and of columns: two products with averaging matrices.
      const rows = c('matmul', adaptiveMatrix(H, OH, x.dtype), x);
      const y = c('matmul', rows, c('transpose', adaptiveMatrix(W, OW, x.dtype), [1, 0]));
      return permute(y, inverse(perm));
    },
  ],
  ...(['nn.max_pool3d', 'nn.avg_pool3d'] as const).map((op): [string, Form] => [
    op,
    (args, attrs) => {
      arity(op, args, 1);
      const avg = op === 'nn.avg_pool3d';
      only(op, attrs, [
        'pool_size',
        'strides',
        'dilation',
        'padding',
        'layout',
        'out_layout',
        'ceil_mode',
        ...(avg ? ['count_include_pad'] : []),
      ]);
      const layout = (attrs.layout as string | undefined) ?? 'NCDHW';
      if (layout !== 'NCDHW' && layout !== 'NDHWC') fail(op, `layout '${layout}' is not supported (NCDHW, NDHWC are)`);
      if (attrs.out_layout && attrs.out_layout !== layout) fail(op, `out_layout differs from layout`);
      const last = layout === 'NDHWC';
      let x = arg(op, args, 0, 'data');
      if (last) x = c('transpose', x, [0, 4, 1, 2, 3]);
      const triple = (v: unknown, d: number) => {
        const l = (v as number[] | undefined) ?? [d];
        return l.length === 1 ? [l[0]!, l[0]!, l[0]!] : l;
      };
      // Relay's padding: one value, one per axis on both sides, or [front, top, left, back, bottom, right].
      const p = (attrs.padding as number[] | undefined) ?? [0];
      const pads = p.length === 1 ? Array(6).fill(p[0]) : p.length === 3 ? [...p, ...p] : p;
      if (pads.length !== 6) fail(op, `padding has ${p.length} values (1, 3 or 6)`);
      const [kernel, stride, dil] = [triple(attrs.pool_size, 1), triple(attrs.strides, 1), triple(attrs.dilation, 1)];
      const ceil = Boolean(attrs.ceil_mode);
      // TVM's ceil_mode keeps a last window that starts in the end padding; raf-op's pools drop it, as ONNX does.
      if (ceil)
        x.shape.slice(2).forEach((n, a) => {
          const span = (kernel[a]! - 1) * dil[a]! + 1;
          const tvm = Math.ceil((n + pads[a]! + pads[a + 3]! - span) / stride[a]!) + 1;
          if ((tvm - 1) * stride[a]! >= n + pads[a]!)
            fail(
              op,
              `ceil_mode adds a window starting in the end padding of spatial axis ${a}, which is not supported`,
            );
        });
      const y = avg
        ? c('avg_pool', x, kernel, stride, pads, dil, ceil, 'NOTSET', Boolean(attrs.count_include_pad))
        : (call('max_pool', [x, kernel, stride, pads, dil, ceil, 'NOTSET', 0]) as Tensor[])[0]!; // values, indices
      return last ? c('transpose', y, [0, 2, 3, 4, 1]) : y;
    },
  ]),
  [
    'scatter_elements',
    (args, attrs) => {
      const op = 'scatter_elements';
      arity(op, args, 3);
      only(op, attrs, ['axis', 'reduction']);
      // Relay's reductions: update (the last write wins), add, mul, min, max; mean has no raf-op form.
      const r = (attrs.reduction as string | undefined) ?? 'update';
      const reduction = r === 'update' ? 'none' : r;
      if (!['none', 'add', 'mul', 'min', 'max'].includes(reduction)) fail(op, `reduction '${r}' is not supported`);
      return c(
        'scatter_elements',
        arg(op, args, 0, 'data'),
        arg(op, args, 1, 'indices'),
        arg(op, args, 2, 'updates'),
        (attrs.axis as number | undefined) ?? 0,
        reduction,
      );
    },
  ],
  [
    'nn.nll_loss',
    (args, attrs) => {
      const op = 'nn.nll_loss';
      arity(op, args, 3);
      only(op, attrs, ['reduction', 'ignore_index']);
      const ignore = (attrs.ignore_index as number | undefined) ?? -100;
      return c(
        'negative_log_likelihood_loss',
        arg(op, args, 0, 'predictions'),
        arg(op, args, 1, 'targets'),
        arg(op, args, 2, 'weights'),
        (attrs.reduction as string | undefined) ?? 'mean',
        ignore,
      );
    },
  ],
  [
    'slice_like',
    (args, attrs) => {
      const op = 'slice_like';
      arity(op, args, 2);
      only(op, attrs, ['axes']);
      const [x, like] = [arg(op, args, 0, 'data'), arg(op, args, 1, 'shape_like')];
      // The leading corner of data of shape_like's size on `axes` (every axis both have when absent).
      const given = attrs.axes as number[] | null | undefined;
      const axes = given?.length
        ? given.map((a) => axisOf(a, x.shape.length))
        : [...Array(Math.min(x.shape.length, like.shape.length)).keys()];
      return c(
        'strided_slice',
        x,
        axes.map(() => 0),
        axes.map((a) => like.shape[a]!),
        null,
        axes,
      );
    },
  ],
  ...(['nn.adaptive_avg_pool1d', 'nn.adaptive_max_pool1d'] as const).map((op): [string, Form] => [
    op,
    (args, attrs) => {
      arity(op, args, 1);
      only(op, attrs, ['output_size', 'layout', 'out_layout']);
      const layout = (attrs.layout as string | undefined) ?? 'NCW';
      if (layout !== 'NCW' && layout !== 'NWC') fail(op, `layout '${layout}' is not supported (NCW, NWC are)`);
      if (attrs.out_layout && attrs.out_layout !== layout) fail(op, `out_layout differs from layout`);
      // As the 2-D op over a height of 1.
      const x = c('expand_dims', arg(op, args, 0, 'data'), layout === 'NCW' ? 2 : 1);
      const size = (attrs.output_size as (number | null)[] | null | undefined) ?? [null];
      const y = convertRelayCall(op.replace('1d', '2d'), [x], {
        output_size: [1, size[0] ?? x.shape[layout === 'NCW' ? 3 : 2]!],
        layout: layout === 'NCW' ? 'NCHW' : 'NHWC',
      }) as Tensor;
      return c('squeeze', y, [layout === 'NCW' ? 2 : 1]);
    },
  ]),
  [
    'meshgrid',
    (args, attrs) => {
      const op = 'meshgrid';
      only(op, attrs, ['indexing']);
      const xs = (Array.isArray(args[0]) ? args[0] : args) as unknown[];
      if (!xs.length || !xs.every((x) => x instanceof Tensor && x.shape.length <= 1))
        fail(op, 'takes a tuple of 1-D tensors (or scalars)');
      const indexing = (attrs.indexing as string | undefined) ?? 'ij';
      if (indexing !== 'ij' && indexing !== 'xy') fail(op, `indexing '${indexing}' is not one of ij, xy`);
      const ts = xs as Tensor[];
      const lens = ts.map((t) => t.size);
      // xy swaps the first two axes of the grid (Cartesian indexing), as NumPy's meshgrid does.
      const order =
        indexing === 'xy' && ts.length > 1 ? [1, 0, ...lens.slice(2).map((_, i) => i + 2)] : lens.map((_, i) => i);
      const shape = order.map((k) => lens[k]!);
      return ts.map((t, k) => {
        const at = order.indexOf(k);
        const view = shape.map((n, i) => (i === at ? n : 1));
        return broadcastTo(op, c('reshape', t, view), shape);
      });
    },
  ],
  [
    'unravel_index',
    (args, attrs) => {
      const op = 'unravel_index';
      arity(op, args, 2);
      only(op, attrs, []);
      const idx = arg(op, args, 0, 'indices');
      const dims = knownList(op, args[1], 'shape');
      // Coordinates from the last axis inward: idx mod d, then idx floor-divided by d.
      let rest = idx;
      const coords: Tensor[] = [];
      for (let a = dims.length - 1; a >= 0; a--) {
        const d = scalar(dims[a]!, idx.dtype);
        coords.unshift(c('floor_mod', rest, d));
        rest = convertRelayCall('floor_divide', [rest, d], {}) as Tensor;
      }
      return c(
        'concatenate',
        coords.map((t) => c('expand_dims', t, 0)),
        0,
      );
    },
  ],
  [
    'nn.space_to_batch_nd',
    (args, attrs) => {
      const op = 'nn.space_to_batch_nd';
      arity(op, args, 1);
      only(op, attrs, ['block_shape', 'paddings', 'pad_value']);
      const x = arg(op, args, 0, 'data');
      const block = attrs.block_shape as number[];
      const M = block.length;
      const pads = (attrs.paddings as number[][] | undefined) ?? block.map(() => [0, 0]);
      const r = x.shape.length;
      // TensorFlow's layout: [batch, spatial (M axes)..., rest...]; each spatial axis padded, then split by its block.
      const before = Array(r).fill(0);
      const after = Array(r).fill(0);
      pads.forEach((p, k) => ([before[k + 1], after[k + 1]] = [p[0]!, p[1]!]));
      const padded = c('pad', x, [...before, ...after], (attrs.pad_value as number | undefined) ?? 0);
      const spatial = padded.shape.slice(1, M + 1);
      spatial.forEach(
        (n, k) => n % block[k]! && fail(op, `padded axis ${k + 1} (${n}) is not a multiple of ${block[k]}`),
      );
      const rest = padded.shape.slice(M + 1);
      const N = padded.shape[0]!;
      const split = c('reshape', padded, [N, ...spatial.flatMap((n, k) => [n / block[k]!, block[k]!]), ...rest]);
      const perm = [
        ...block.map((_, k) => 2 + 2 * k),
        0,
        ...block.map((_, k) => 1 + 2 * k),
        ...rest.map((_, k) => 1 + 2 * M + k),
      ];
      const prod = block.reduce((a, b) => a * b, 1);
      return c('reshape', c('transpose', split, perm), [N * prod, ...spatial.map((n, k) => n / block[k]!), ...rest]);
    },
  ],
  [
    'nn.batch_to_space_nd',
    (args, attrs) => {
      const op = 'nn.batch_to_space_nd';
      arity(op, args, 1);
      only(op, attrs, ['block_shape', 'crops']);
      const x = arg(op, args, 0, 'data');
      const block = attrs.block_shape as number[];
      const M = block.length;
      const crops = (attrs.crops as number[][] | undefined) ?? block.map(() => [0, 0]);
      const prod = block.reduce((a, b) => a * b, 1);
      const [B, ...tail] = x.shape as [number, ...number[]];
      if (B % prod) fail(op, `batch ${B} is not a multiple of the blocks' product ${prod}`);
      const spatial = tail.slice(0, M);
      const rest = tail.slice(M);
      const split = c('reshape', x, [...block, B / prod, ...tail]);
      // [b1..bM, n, d1..dM, rest] to [n, d1, b1, ..., dM, bM, rest].
      const perm = [M, ...block.flatMap((_, k) => [M + 1 + k, k]), ...rest.map((_, k) => 2 * M + 1 + k)];
      const joined = c('reshape', c('transpose', split, perm), [
        B / prod,
        ...spatial.map((d, k) => d * block[k]!),
        ...rest,
      ]);
      const axes = block.map((_, k) => k + 1);
      return c(
        'strided_slice',
        joined,
        crops.map((cr) => cr[0]!),
        crops.map((cr, k) => joined.shape[k + 1]! - cr[1]!),
        null,
        axes,
      );
    },
  ],
  ...(['nn.adaptive_avg_pool3d', 'nn.adaptive_max_pool3d'] as const).map((op): [string, Form] => [
    op,
    (args, attrs) => {
      arity(op, args, 1);
      only(op, attrs, ['output_size', 'layout', 'out_layout']);
      const layout = (attrs.layout as string | undefined) ?? 'NCDHW';
      if (layout !== 'NCDHW' && layout !== 'NDHWC') fail(op, `layout '${layout}' is not supported (NCDHW, NDHWC are)`);
      if (attrs.out_layout && attrs.out_layout !== layout) fail(op, `out_layout differs from layout`);
      const perm = layout === 'NCDHW' ? [0, 1, 2, 3, 4] : [0, 4, 1, 2, 3];
      const x = permute(arg(op, args, 0, 'data'), perm);
      const dims = x.shape.slice(2);
      const given = (attrs.output_size as (number | null)[] | null | undefined) ?? [];
      const out = dims.map((n, a) => (given.length === 1 ? given[0] : given[a]) ?? n);
      // A box's mean (max) is the mean (max) over each axis's window in turn.
      const reduce = op === 'nn.adaptive_avg_pool3d' ? 'mean' : 'max';
      let y = x;
      dims.forEach((_, k) => (y = adaptiveAxis(y, k + 2, out[k]!, reduce)));
      return permute(y, inverse(perm));
    },
  ]),
  [
    'nn.dilate',
    (args, attrs) => {
      const op = 'nn.dilate';
      arity(op, args, 1);
      only(op, attrs, ['strides', 'dilation_value']);
      let y = arg(op, args, 0, 'data');
      const strides = (attrs.strides as number[] | undefined) ?? [];
      if (strides.length !== y.shape.length)
        fail(op, `strides has ${strides.length} values for rank ${y.shape.length}`);
      const fill = (attrs.dilation_value as number | undefined) ?? 0;
      // Per axis of stride s: each element followed by s - 1 fill values, the trailing ones cut: n → (n - 1) · s + 1.
      strides.forEach((st, a) => {
        const n = y.shape[a]!;
        if (st === 1 || n === 0) return;
        const r = y.shape.length;
        const wide = c('expand_dims', y, a + 1);
        const pads = Array(2 * (r + 1)).fill(0);
        pads[r + 1 + a + 1] = st - 1;
        const spread = c('reshape', c('pad', wide, pads, fill), [
          ...y.shape.slice(0, a),
          n * st,
          ...y.shape.slice(a + 1),
        ]);
        y = c('strided_slice', spread, [0], [(n - 1) * st + 1], null, [a]);
      });
      return y;
    },
  ],
  [
    'matrix_set_diag',
    (args, attrs) => {
      const op = 'matrix_set_diag';
      arity(op, args, 2);
      only(op, attrs, ['k1', 'k2', 'super_diag_right_align', 'sub_diag_right_align']);
      if ((attrs.k1 ?? 0) !== 0 || (attrs.k2 ?? 0) !== 0)
        fail(
          op,
          `diagonals other than the main one (k1 = ${String(attrs.k1)}, k2 = ${String(attrs.k2)}) are not supported`,
        );
      const [x, d] = [arg(op, args, 0, 'data'), arg(op, args, 1, 'diagonal')];
      const [M, N] = [x.shape.at(-2)!, x.shape.at(-1)!];
      // The main diagonal: diagonal[..., i] at [..., i, i], everything else kept.
      const eye = tensor(
        Array.from({ length: M * N }, (_, i) => (Math.floor(i / N) === i % N ? 1 : 0)),
        { dtype: 'bool', shape: [M, N] },
      );
      const K = Math.min(M, N);
      const row = c('expand_dims', d, d.shape.length - 1);
      const padded = N > K ? c('pad', row, [...Array(2 * row.shape.length - 1).fill(0), N - K]) : row;
      return c('where', eye, broadcastTo(op, padded, x.shape), x);
    },
  ],
  [
    'invert_permutation',
    (args, attrs) => {
      const op = 'invert_permutation';
      arity(op, args, 1);
      only(op, attrs, []);
      const x = arg(op, args, 0, 'data');
      if (x.shape.length !== 1) fail(op, `takes a 1-D permutation, got rank ${x.shape.length}`);
      // y[x[i]] = i: the positions that sort a permutation are its inverse.
      return convertRelayCall('argsort', [x], { axis: 0, is_ascend: true, dtype: x.dtype });
    },
  ],
  [
    'reverse_sequence',
    (args, attrs) => {
      const op = 'reverse_sequence';
      arity(op, args, 2);
      only(op, attrs, ['seq_axis', 'batch_axis']);
      const x = arg(op, args, 0, 'data');
      const r = x.shape.length;
      const seqAxis = axisOf((attrs.seq_axis as number | undefined) ?? 1, r);
      const batchAxis = axisOf((attrs.batch_axis as number | undefined) ?? 0, r);
      const lengths = c('cast', arg(op, args, 1, 'seq_lengths'), 'int32');
      // Position t of batch b reads length - 1 - t where t < length, else t itself; gathered along seq_axis.
      const T = x.shape[seqAxis]!;
      const pos = tensor(
        Array.from({ length: T }, (_, i) => i),
        { dtype: 'int32', shape: x.shape.map((_, a) => (a === seqAxis ? T : 1)) },
      );
      const len = c(
        'reshape',
        lengths,
        x.shape.map((n, a) => (a === batchAxis ? n : 1)),
      );
      const src = c('where', c('less', pos, len), c('subtract', c('subtract', len, pos), scalar(1, 'int32')), pos);
      return c('gather_elements', x, broadcastTo(op, src, x.shape), seqAxis);
    },
  ],
  [
    'nn.adaptive_max_pool2d',
    (args, attrs) => {
      const op = 'nn.adaptive_max_pool2d';
      arity(op, args, 1);
      only(op, attrs, ['output_size', 'layout', 'out_layout']);
      if (attrs.out_layout && attrs.out_layout !== attrs.layout) fail(op, `out_layout differs from layout`);
      const perm = toNchw(op, attrs.layout);
      const x = permute(arg(op, args, 0, 'data'), perm);
      const [H, W] = [x.shape[2]!, x.shape[3]!];
      const out = (attrs.output_size as (number | null)[] | null | undefined) ?? [H, W];
      const [OH, OW] = [out[0] ?? H, out.length > 1 ? (out[1] ?? W) : (out[0] ?? W)];
      return permute(adaptiveAxis(adaptiveAxis(x, 2, OH, 'max'), 3, OW, 'max'), inverse(perm));
    },
  ],
  [
    'reinterpret',
    (args, attrs) => {
      const op = 'reinterpret';
      arity(op, args, 1);
      only(op, attrs, ['dtype']);
      const x = arg(op, args, 0, 'data');
      return c('bitcast', x, dtypeAttr(op, attrs.dtype, x.dtype));
    },
  ],
  ...(['nn.depth_to_space', 'nn.space_to_depth'] as const).map((op): [string, Form] => [
    op,
    (args, attrs) => {
      arity(op, args, 1);
      only(op, attrs, ['block_size', 'layout', ...(op === 'nn.depth_to_space' ? ['mode'] : [])]);
      const perm = toNchw(op, attrs.layout);
      const x = permute(arg(op, args, 0, 'data'), perm);
      const b = attrs.block_size as number;
      const [N, C, H, W] = x.shape as [number, number, number, number];
      let y: Tensor;
      if (op === 'nn.space_to_depth') {
        if (H % b || W % b) fail(op, `height ${H} and width ${W} must be multiples of block_size ${b}`);
        y = c('reshape', x, [N, C, H / b, b, W / b, b]);
        y = c('reshape', c('transpose', y, [0, 3, 5, 1, 2, 4]), [N, C * b * b, H / b, W / b]);
      } else {
        if (C % (b * b)) fail(op, `channels ${C} must be a multiple of block_size² ${b * b}`);
        const crd = attrs.mode === 'CRD';
        if (!crd && attrs.mode !== undefined && attrs.mode !== 'DCR') fail(op, `mode '${String(attrs.mode)}'`);
        y = crd
          ? c('transpose', c('reshape', x, [N, C / (b * b), b, b, H, W]), [0, 1, 4, 2, 5, 3])
          : c('transpose', c('reshape', x, [N, b, b, C / (b * b), H, W]), [0, 3, 4, 1, 5, 2]);
        y = c('reshape', y, [N, C / (b * b), H * b, W * b]);
      }
      return permute(y, inverse(perm));
    },
  ]),
  [
    'topk',
    (args, attrs) => {
      const op = 'topk';
      arity(op, args, 1);
      only(op, attrs, ['k', 'axis', 'ret_type', 'is_ascend', 'dtype']);
      const x = arg(op, args, 0, 'data');
      const axis = (attrs.axis as number | undefined) ?? -1;
      const n = x.shape[axisOf(axis, x.shape.length)]!;
      const k = (attrs.k as number | null | undefined) ?? n;
      const [values, indices] = call('topk', [x, k < 1 ? n : k, axis, attrs.is_ascend !== true, true]) as Tensor[];
      const idx = c('cast', indices!, dtypeAttr(op, attrs.dtype, 'int32'));
      const ret = (attrs.ret_type as string | undefined) ?? 'both';
      if (ret === 'both') return [values!, idx];
      if (ret === 'values') return values!;
      if (ret === 'indices') return idx;
      fail(op, `ret_type '${ret}' is not both, values or indices`);
    },
  ],
  [
    'one_hot',
    (args, attrs) => {
      const op = 'one_hot';
      arity(op, args, 3);
      only(op, attrs, ['depth', 'axis', 'dtype']);
      const [indices, on, off] = [arg(op, args, 0, 'indices'), args[1], args[2]];
      const depth = attrs.depth as number;
      const dtype = dtypeAttr(op, attrs.dtype, 'float32');
      const rank = indices.shape.length + 1;
      const a = axisOf((attrs.axis as number | undefined) ?? -1, rank);
      const classes = tensor(
        Array.from({ length: depth }, (_, i) => i),
        { dtype: indices.dtype, shape: Array.from({ length: rank }, (_, i) => (i === a ? depth : 1)) },
      );
      const hit = c('equal', c('expand_dims', indices, a), classes);
      const value = (v: unknown, what: string) =>
        c('cast', v instanceof Tensor ? v : scalar(knownNumber(op, v, what), dtype), dtype);
      return c('where', hit, value(on, 'on_value'), value(off, 'off_value'));
    },
  ],
  [
    'nn.conv1d_transpose',
    (args, attrs) => {
      const op = 'nn.conv1d_transpose';
      if (args.length !== 2) fail(op, `takes 2 arguments (data, weight), got ${args.length}`);
      const layout = (attrs.data_layout as string | undefined) || 'NCW';
      if (layout !== 'NCW') fail(op, `data_layout '${layout}' is not supported (NCW is)`);
      const kl = (attrs.kernel_layout as string | undefined) || 'IOW';
      if (kl !== 'IOW' && kl !== 'OIW') fail(op, `kernel_layout '${kl}' is not supported (IOW and OIW are)`);
      // As nn.conv2d_transpose over a height of 1: each list attr gains a leading 1 (0 for paddings).
      const one = (v: unknown, fill: number) => (Array.isArray(v) ? [fill, ...(v as number[])] : v);
      const pad = (attrs.padding as number[] | undefined) ?? [0];
      const [l, r] = pad.length === 1 ? [pad[0]!, pad[0]!] : [pad[0]!, pad[1]!];
      const attrs2: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(attrs)) {
        if (k === 'data_layout' || k === 'out_layout') continue;
        if (k === 'padding') attrs2.padding = [0, l, 0, r];
        else if (k === 'kernel_layout') attrs2.kernel_layout = kl === 'IOW' ? 'IOHW' : 'OIHW';
        else if (k === 'strides' || k === 'dilation' || k === 'kernel_size') attrs2[k] = one(v, 1);
        else if (k === 'output_padding') attrs2[k] = one(v, 0);
        else attrs2[k] = v;
      }
      const x = c('expand_dims', arg(op, args, 0, 'data'), 2);
      const w = c('expand_dims', arg(op, args, 1, 'weight'), 2);
      return c('squeeze', convertRelayCall('nn.conv2d_transpose', [x, w], attrs2) as Tensor, [2]);
    },
  ],
  [
    'nn.conv2d_transpose',
    (args, attrs) => {
      const op = 'nn.conv2d_transpose';
      if (args.length !== 2) fail(op, `takes 2 arguments (data, weight), got ${args.length}`);
      only(op, attrs, [
        'channels',
        'kernel_size',
        'strides',
        'padding',
        'output_padding',
        'dilation',
        'groups',
        'data_layout',
        'kernel_layout',
        'out_layout',
        'out_dtype',
      ]);
      if (attrs.out_layout && attrs.out_layout !== (attrs.data_layout ?? 'NCHW'))
        fail(op, `out_layout differs from data_layout`);
      const perm = toNchw(op, attrs.data_layout);
      let x = permute(arg(op, args, 0, 'data'), perm);
      let w = arg(op, args, 1, 'weight');
      const groups = (attrs.groups as number | undefined) ?? 1;
      // raf-op's conv_transpose (ONNX ConvTranspose) reads the weight as IOHW, TVM's default kernel layout.
      const kl = (attrs.kernel_layout as string | undefined) || 'IOHW';
      if (kl === 'OIHW') {
        if (groups !== 1) fail(op, 'kernel_layout OIHW with groups > 1 is not supported (IOHW is)');
        w = c('transpose', w, [1, 0, 2, 3]);
      } else if (kl !== 'IOHW') fail(op, `kernel_layout '${kl}' is not supported (IOHW and OIHW are)`);
      const od = attrs.out_dtype as string | undefined;
      if (od && od !== x.dtype) {
        x = c('cast', x, od);
        w = c('cast', w, od);
      }
      const pair = (v: unknown, d: number): number[] => {
        const l = (v as number[] | undefined) ?? [d, d];
        return l.length === 1 ? [l[0]!, l[0]!] : l;
      };
      let pad = pair(attrs.padding, 0);
      if (pad.length === 2) pad = [pad[0]!, pad[1]!, pad[0]!, pad[1]!];
      const y = call('conv_transpose', [x, w], {
        stride: pair(attrs.strides, 1),
        padding: pad,
        output_padding: pair(attrs.output_padding, 0),
        dilation: pair(attrs.dilation, 1),
        groups,
      }) as Tensor;
      if (attrs.channels !== undefined && attrs.channels !== null && attrs.channels !== y.shape[1])
        fail(op, `channels=${String(attrs.channels)} disagrees with the weight, which gives ${y.shape[1]}`);
      return permute(y, inverse(perm));
    },
  ],
]);

/** The composite form of a Relay op, if raf-op has one. */
export function relayForm(relayOp: string): Form | undefined {
  return FORMS.get(relayOp);
}

/** Every Relay op a composite form imports. */
export const RELAY_FORM_OPS: readonly string[] = [...FORMS.keys()];
