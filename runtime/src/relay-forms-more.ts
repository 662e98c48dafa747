// FromRelay, more composite forms: indexing (searchsorted, adv_index, scatter_nd, sparse_to_dense, strided_set,
// sliding_window, nn.fifo_buffer), TVM's packed dense (nn.contrib_dense_pack), 3-D convolution, the pooling and
// convolution gradients TVM's own autodiff writes, SSD's anchors (vision.multibox_prior) and AutoQuantize's
// simulated quantization, each with Relay's semantics as TVM's topi computes them.

import { call } from './dispatch.ts';
import { convertRelayCall } from './relay.ts';
import { conv3dByTaps } from './conv3d.ts';
import type { DType } from './dtype.ts';
import { Tensor, tensor } from './tensor.ts';
import {
  arg,
  arity,
  checkChannels,
  pads2d,
  triple,
  axisOf,
  broadcastTo,
  c,
  dtypeAttr,
  fail,
  knownList,
  knownNumber,
  only,
  permute,
  inverse,
  roundTensorHalfAway,
  relayNewShape,
  size,
  type Attrs,
  type Form,
} from './relay-form-kit.ts';

const int32 = (values: readonly number[], shape: readonly number[]) => tensor([...values], { dtype: 'int32', shape });
const ints = (v: unknown, dflt: readonly number[]): number[] => (v as number[] | undefined) ?? [...dflt];

/** Row-major positions of every element of `shape`, each as its index tuple. */
function tuples(shape: readonly number[]): number[][] {
  const out: number[][] = [];
  const n = size(shape);
  for (let i = 0; i < n; i++) {
    const t = new Array<number>(shape.length);
    let rest = i;
    for (let a = shape.length - 1; a >= 0; a--) {
      t[a] = rest % shape[a]!;
      rest = Math.floor(rest / shape[a]!);
    }
    out.push(t);
  }
  return out;
}

/** Index tensors as the int64 that raf-op's gather_nd and scatter_nd read. */
const asIndex = (t: Tensor) => (t.dtype === 'int64' || t.dtype === 'int32' ? t : c('cast', t, 'int64'));

/** A 2-D pool gradient's window attrs, refusing what raf-op's pool backward ops do not take. */
function poolGradAttrs(op: string, attrs: Attrs, x: Tensor, dy: Tensor) {
  const layout = (attrs.layout as string | undefined) || 'NCHW';
  if (layout !== 'NCHW') fail(op, `layout '${layout}' is not supported (NCHW is)`);
  if (attrs.out_layout && attrs.out_layout !== layout) fail(op, `out_layout differs from layout`);
  const dil = ints(attrs.dilation, [1, 1]);
  if (dil.some((d) => d !== 1)) fail(op, `dilation [${dil}] is not supported (1 is)`);
  const kernel = ints(attrs.pool_size, [1, 1]);
  const k = kernel.length === 1 ? [kernel[0]!, kernel[0]!] : kernel;
  const s0 = ints(attrs.strides, [1, 1]);
  const stride = s0.length === 1 ? [s0[0]!, s0[0]!] : s0;
  const padding = pads2d(attrs.padding);
  // ceil_mode only changes which windows exist; the gradient's windows are the forward's, read from its shape.
  const floorOut = [0, 1].map(
    (a) => Math.floor((x.shape[a + 2]! + padding[a]! + padding[a + 2]! - k[a]!) / stride[a]!) + 1,
  );
  if (floorOut[0] !== dy.shape[2] || floorOut[1] !== dy.shape[3])
    fail(
      op,
      `out_grad [${dy.shape}] is not the floor-mode pool's output ([${floorOut}] spatially); ceil_mode windows are not supported`,
    );
  return { kernel: k, stride, padding };
}

/** The block of a packed layout (NCHW8c → 8, OIHW4i8o → [4, 8]), or an error naming the layout. */
function packed(op: string, layout: string, pattern: RegExp, what: string): number[] {
  const m = pattern.exec(layout);
  if (!m) fail(op, `${what} '${layout}' is not supported`);
  return m.slice(1).map(Number);
}

/** NCHW{c}c data [N, C / c, H, W, c] as NCHW. */
const unpackNchwc = (x: Tensor) => {
  const [n, cb, h, w, c] = x.shape as [number, number, number, number, number];
  return c === undefined
    ? x
    : (call('reshape', [call('transpose', [x, [0, 1, 4, 2, 3]]), [n, cb * c, h, w]]) as Tensor);
};

/**
 * nn.contrib_conv2d_NCHWc and its depthwise twin (the layouts AlterOpLayout writes for x86): data NCHW{c}c, kernel
 * OIHW{i}i{o}o ([O / o, I / i, KH, KW, i, o]), output NCHW{o}c; unpacked to NCHW and OIHW, convolved as nn.conv2d, packed
 * again.
 */
function conv2dNchwc(op: string): Form {
  return (args, attrs) => {
    arity(op, args, 2);
    only(op, attrs, [
      'strides',
      'padding',
      'dilation',
      'groups',
      'channels',
      'kernel_size',
      'data_layout',
      'kernel_layout',
      'out_layout',
      'out_dtype',
    ]);
    const dl = (attrs.data_layout as string | undefined) || 'NCHW';
    const [dataBlock] = dl === 'NCHW' ? [0] : packed(op, dl, /^NCHW(\d+)c$/, 'data_layout');
    const [ib, ob] = packed(
      op,
      (attrs.kernel_layout as string | undefined) || '',
      /^OIHW(\d+)i(\d+)o$/,
      'kernel_layout',
    );
    const ol = (attrs.out_layout as string | undefined) || dl;
    const [outBlock] = ol === 'NCHW' ? [0] : packed(op, ol, /^NCHW(\d+)c$/, 'out_layout');
    const x0 = arg(op, args, 0, 'data');
    if (dataBlock && x0.shape[4] !== dataBlock)
      fail(op, `data's last axis is ${x0.shape[4]}, the layout ${dl} says ${dataBlock}`);
    const x = unpackNchwc(x0);
    const w0 = arg(op, args, 1, 'kernel');
    const [obk, ibk, kh, kw] = w0.shape as [number, number, number, number];
    if (w0.shape[4] !== ib || w0.shape[5] !== ob)
      fail(op, `kernel [${w0.shape}] does not match kernel_layout OIHW${ib}i${ob}o`);
    const w = c('reshape', c('transpose', w0, [0, 5, 1, 4, 2, 3]), [obk * ob!, ibk * ib!, kh, kw]);
    const rest: Record<string, unknown> = {};
    for (const k of ['strides', 'padding', 'dilation', 'groups', 'channels', 'kernel_size', 'out_dtype'])
      if (attrs[k] !== undefined) rest[k] = attrs[k];
    const y = convertRelayCall('nn.conv2d', [x, w], rest) as Tensor;
    if (!outBlock) return y;
    const [n, o, oh, ow] = y.shape as [number, number, number, number];
    if (o % outBlock) fail(op, `out_layout ${ol} does not divide the ${o} output channels`);
    return c('transpose', c('reshape', y, [n, o / outBlock, outBlock, oh, ow]), [0, 1, 3, 4, 2]);
  };
}

export const MORE_FORMS: readonly (readonly [string, Form])[] = [
  [
    // Relay's round is TVM's te.round, which lowers to llvm.round: ties away from zero (raf-op's round, as NumPy's and
    // ONNX's, rounds them to even).
    'round',
    (args, attrs) => {
      arity('round', args, 1);
      only('round', attrs, []);
      return roundTensorHalfAway(arg('round', args, 0, 'data'));
    },
  ],
  ['nn.contrib_conv2d_NCHWc', conv2dNchwc('nn.contrib_conv2d_NCHWc')],
  ['nn.contrib_depthwise_conv2d_NCHWc', conv2dNchwc('nn.contrib_depthwise_conv2d_NCHWc')],
  [
    // reshape with its newshape codes read right to left (MXNet's reverse): the input's dims and newshape reversed,
    // read as reshape reads them, and the result reversed back.
    'contrib_reverse_reshape',
    (args, attrs) => {
      const op = 'contrib_reverse_reshape';
      arity(op, args, 1);
      only(op, attrs, ['newshape']);
      const x = arg(op, args, 0, 'data');
      const ns = knownList(op, attrs.newshape, 'newshape');
      const out = relayNewShape(op, [...x.shape].reverse(), [...ns].reverse()).reverse();
      return c('reshape', x, out);
    },
  ],
  [
    // The VM's shape_of and reshape by a shape tensor (known while converting).
    'vm.shape_of',
    (args, attrs) => convertRelayCall('shape_of', args, attrs),
  ],
  [
    'vm.reshape_tensor',
    (args, attrs) => {
      const op = 'vm.reshape_tensor';
      arity(op, args, 2);
      only(op, attrs, ['newshape']);
      return c('reshape', arg(op, args, 0, 'data'), knownList(op, args[1], 'shape'));
    },
  ],
  [
    // Concatenates the buffer and the new data along axis and keeps the buffer's length from the end.
    'nn.fifo_buffer',
    (args, attrs) => {
      const op = 'nn.fifo_buffer';
      arity(op, args, 2);
      only(op, attrs, ['axis']);
      const [data, buffer] = [arg(op, args, 0, 'data'), arg(op, args, 1, 'buffer')];
      const axis = axisOf((attrs.axis as number | undefined) ?? 0, buffer.shape.length);
      const both = c('concatenate', [buffer, data], axis);
      const from = data.shape[axis]!;
      return c('strided_slice', both, [from], [from + buffer.shape[axis]!], null, [axis]);
    },
  ],
  [
    // The insertion point of each value in the innermost sorted sequence: how many elements are below it (<, or <= with
    // right), which is what TVM's binary search returns over a sorted sequence.
    'searchsorted',
    (args, attrs) => {
      const op = 'searchsorted';
      arity(op, args, 2);
      only(op, attrs, ['right', 'dtype']);
      const [sorted, values] = [arg(op, args, 0, 'sorted_sequence'), arg(op, args, 1, 'values')];
      const r = values.shape.length;
      if (sorted.shape.length !== 1 && sorted.shape.length !== r)
        fail(op, `sorted_sequence has rank ${sorted.shape.length}; it must be 1-D or of values' rank ${r}`);
      const m = sorted.shape[sorted.shape.length - 1]!;
      const seq =
        sorted.shape.length === 1
          ? c('reshape', sorted, [...Array<number>(r).fill(1), m])
          : c('expand_dims', sorted, sorted.shape.length - 1);
      const below = c(attrs.right === true ? 'less_equal' : 'less', seq, c('expand_dims', values, r));
      return c('cast', c('sum', c('cast', below, 'int32'), [r], false), dtypeAttr(op, attrs.dtype, 'int32'));
    },
  ],
  [
    // NumPy's advanced indexing by a tuple (data, i0, i1, ...): the indices broadcast together and index data's
    // leading axes, as one gather_nd over their stacked tuples.
    'adv_index',
    (args, attrs) => {
      const op = 'adv_index';
      only(op, attrs, []);
      const list = (args.length === 1 && Array.isArray(args[0]) ? args[0] : args) as unknown[];
      if (list.length < 2 || !list.every((t) => t instanceof Tensor))
        fail(op, 'takes a tuple of tensors (data, then one index tensor per leading axis)');
      const [data, ...idx] = list as Tensor[];
      if (idx.length > data!.shape.length)
        fail(op, `has ${idx.length} index tensors for data of rank ${data!.shape.length}`);
      const rank = Math.max(...idx.map((t) => t.shape.length));
      const shape = Array.from({ length: rank }, (_, a) =>
        Math.max(...idx.map((t) => t.shape[a - (rank - t.shape.length)] ?? 1)),
      );
      const stacked = c(
        'concatenate',
        idx.map((t) => c('expand_dims', broadcastTo(op, c('cast', t, 'int64'), shape), rank)),
        rank,
      );
      return c('gather_nd', data, stacked, 0);
    },
  ],
  [
    // Relay's scatter_nd reads each index tuple from the indices' first axis (raf-op's, as ONNX's, from the last).
    'scatter_nd',
    (args, attrs) => {
      const op = 'scatter_nd';
      arity(op, args, 3);
      only(op, attrs, ['mode']);
      const [data, idx, upd] = [arg(op, args, 0, 'data'), arg(op, args, 1, 'indices'), arg(op, args, 2, 'updates')];
      const mode = (attrs.mode as string | undefined) ?? 'update';
      if (mode !== 'update' && mode !== 'add') fail(op, `mode '${mode}' is not update or add`);
      const r = idx.shape.length;
      const last =
        r === 1 ? c('reshape', idx, [1, idx.shape[0]!]) : c('transpose', idx, [...Array(r).keys()].slice(1).concat(0));
      const updates = r === 1 ? c('reshape', upd, [1, ...upd.shape]) : upd;
      return c('scatter_nd', data, asIndex(last), updates, mode === 'add' ? 'add' : 'none');
    },
  ],
  [
    // A dense tensor of output_shape filled with default_value, the values written at sparse_indices (a scalar, [N]
    // for a 1-D output, or [N, rank] tuples).
    'sparse_to_dense',
    (args, attrs) => {
      const op = 'sparse_to_dense';
      arity(op, args, 3);
      only(op, attrs, ['output_shape']);
      const [idx, values] = [arg(op, args, 0, 'sparse_indices'), arg(op, args, 1, 'sparse_values')];
      const dflt =
        args[2] instanceof Tensor
          ? args[2]
          : tensor([knownNumber(op, args[2], 'default_value')], { dtype: values.dtype, shape: [] });
      const shape = knownList(op, attrs.output_shape, 'output_shape');
      const tuplesOf =
        idx.shape.length === 0
          ? c('reshape', idx, [1, 1])
          : idx.shape.length === 1
            ? c('reshape', idx, [idx.shape[0]!, 1])
            : idx;
      const n = tuplesOf.shape[0]!;
      if (tuplesOf.shape[1] !== shape.length)
        fail(op, `sparse_indices give ${tuplesOf.shape[1]} coordinates for an output of rank ${shape.length}`);
      const vals = values.shape.length === 0 ? broadcastTo(op, values, [n]) : values;
      return c('scatter_nd', broadcastTo(op, c('cast', dflt, values.dtype), shape), asIndex(tuplesOf), vals, 'none');
    },
  ],
  [
    // data with the strided slice begin:end:strides replaced by v: one scatter over the slice's index tuples.
    'strided_set',
    (args, attrs) => {
      const op = 'strided_set';
      arity(op, args, 5);
      only(op, attrs, []);
      const [data, v] = [arg(op, args, 0, 'data'), arg(op, args, 1, 'v')];
      const rank = data.shape.length;
      const [begin, end, strides] = [2, 3, 4].map((i, k) => knownList(op, args[i], ['begin', 'end', 'strides'][k]!));
      const axes = data.shape.map((n, a) => {
        const s = strides![a] ?? 1;
        if (s <= 0) fail(op, `stride ${s} on axis ${a} is not supported (positive strides are)`);
        const clamp = (x: number) => Math.min(Math.max(x < 0 ? x + n : x, 0), n);
        const b = clamp(begin![a] ?? 0);
        const e = clamp(end![a] ?? n);
        return Array.from({ length: Math.max(0, Math.ceil((e - b) / s)) }, (_, i) => b + i * s);
      });
      const sliceShape = axes.map((l) => l.length);
      const flat = tuples(sliceShape).flatMap((t) => t.map((i, a) => axes[a]![i]!));
      const idx = int32(flat, [size(sliceShape), rank]);
      const vals = c('reshape', broadcastTo(op, c('cast', v, data.dtype), sliceShape), [size(sliceShape)]);
      return c('scatter_nd', data, idx, vals, 'none');
    },
  ],
  [
    // Every window of window_shape over the axes from axis on, at the strides: data.shape[:axis], the window
    // positions, then the window itself; one take of the flattened trailing axes by an index table.
    'sliding_window',
    (args, attrs) => {
      const op = 'sliding_window';
      arity(op, args, 1);
      only(op, attrs, ['axis', 'window_shape', 'strides']);
      const x = arg(op, args, 0, 'data');
      const axis = axisOf((attrs.axis as number | undefined) ?? 0, x.shape.length);
      const win = ints(attrs.window_shape, []);
      const str = ints(attrs.strides, []);
      const tail = x.shape.slice(axis);
      if (win.length !== tail.length || str.length !== tail.length)
        fail(op, `window_shape and strides need ${tail.length} values (data's axes from ${axis} on)`);
      const positions = tail.map((n, i) => Math.floor((n - win[i]!) / str[i]!) + 1);
      if (positions.some((p) => p < 1)) fail(op, `window [${win}] does not fit [${tail}]`);
      const tailStrides = tail.map((_, i) => size(tail.slice(i + 1)));
      const table = tuples([...positions, ...win]).map((t) =>
        tail.reduce((off, _, i) => off + (t[i]! * str[i]! + t[positions.length + i]!) * tailStrides[i]!, 0),
      );
      const lead = x.shape.slice(0, axis);
      const flat = c('reshape', x, [size(lead), size(tail)]);
      const taken = c('take', flat, int32(table, [table.length]), 1);
      return c('reshape', taken, [...lead, ...positions, ...win]);
    },
  ],
  [
    // A dense layer whose weight TVM packed as [units / n, in, n] (weight_layout NC{n}n), or plain [units, in] (NC).
    'nn.contrib_dense_pack',
    (args, attrs) => {
      const op = 'nn.contrib_dense_pack';
      arity(op, args, 2);
      only(op, attrs, ['units', 'out_dtype', 'weight_layout']);
      let [x, w] = [arg(op, args, 0, 'data'), arg(op, args, 1, 'weight')];
      if (w.shape.length === 3) {
        const [blocks, k, n] = w.shape as [number, number, number];
        w = c('reshape', c('transpose', w, [0, 2, 1]), [blocks * n, k]);
      } else if (w.shape.length !== 2)
        fail(op, `weight has rank ${w.shape.length}; it is [units / n, in, n] or [units, in]`);
      if (attrs.units !== undefined && attrs.units !== null && attrs.units !== w.shape[0])
        fail(op, `units=${String(attrs.units)} disagrees with the weight, which gives ${w.shape[0]}`);
      const od = attrs.out_dtype as DType | '' | undefined;
      if (od && od !== x.dtype) {
        x = c('cast', x, od);
        w = c('cast', w, od);
      }
      return c('matmul', x, c('transpose', w, [1, 0]));
    },
  ],
  [
    // The weight gradient of nn.conv2d (TVM's autodiff writes it): conv2d_dw over the forward's data and the output
    // gradient, for a kernel of kernel_size.
    'nn.conv2d_backward_weight',
    (args, attrs) => {
      const op = 'nn.conv2d_backward_weight';
      arity(op, args, 2);
      only(op, attrs, [
        'strides',
        'padding',
        'dilation',
        'groups',
        'channels',
        'kernel_size',
        'grad_layout',
        'data_layout',
        'kernel_layout',
        'out_dtype',
      ]);
      for (const [k, want] of [
        ['grad_layout', 'NCHW'],
        ['data_layout', 'NCHW'],
        ['kernel_layout', 'OIHW'],
      ] as const)
        if (attrs[k] && attrs[k] !== want) fail(op, `${k} '${String(attrs[k])}' is not supported (${want} is)`);
      let [dy, x] = [arg(op, args, 0, 'grad'), arg(op, args, 1, 'data')];
      const groups = (attrs.groups as number | undefined) ?? 1;
      const k = ints(attrs.kernel_size, []);
      if (k.length !== 2) fail(op, 'needs kernel_size [kh, kw]');
      const od = attrs.out_dtype as DType | '' | undefined;
      if (od && od !== x.dtype) {
        x = c('cast', x, od);
        dy = c('cast', dy, od);
      }
      const shape = [dy.shape[1]!, x.shape[1]! / groups, k[0]!, k[1]!];
      const padding = pads2d(attrs.padding);
      const w = tensor(new Float32Array(size(shape)), { dtype: 'float32', shape });
      return call('conv2d_dw', [x, x.dtype === 'float32' ? w : c('cast', w, x.dtype), dy], {
        stride: ints(attrs.strides, [1, 1]),
        padding,
        dilation: ints(attrs.dilation, [1, 1]),
        groups,
      });
    },
  ],
  [
    'nn.avg_pool2d_grad',
    (args, attrs) => {
      const op = 'nn.avg_pool2d_grad';
      arity(op, args, 2);
      only(op, attrs, [
        'pool_size',
        'strides',
        'dilation',
        'padding',
        'layout',
        'out_layout',
        'ceil_mode',
        'count_include_pad',
      ]);
      const [dy, x] = [arg(op, args, 0, 'out_grad'), arg(op, args, 1, 'data')];
      const { kernel, stride, padding } = poolGradAttrs(op, attrs, x, dy);
      return call('avg_pool2d_dx', [x, dy, kernel, stride, padding, attrs.count_include_pad === true]);
    },
  ],
  [
    'nn.max_pool2d_grad',
    (args, attrs) => {
      const op = 'nn.max_pool2d_grad';
      arity(op, args, 2);
      only(op, attrs, ['pool_size', 'strides', 'dilation', 'padding', 'layout', 'out_layout', 'ceil_mode']);
      const [dy, x] = [arg(op, args, 0, 'out_grad'), arg(op, args, 1, 'data')];
      const { kernel, stride, padding } = poolGradAttrs(op, attrs, x, dy);
      return call('max_pool2d_dx', [x, dy, kernel, stride, padding]);
    },
  ],
  [
    // 3-D convolution, NCDHW (or NDHWC) data and OIDHW (or DHWIO) weights, as one 2-D convolution per depth tap.
    'nn.conv3d',
    (args, attrs) => {
      const op = 'nn.conv3d';
      arity(op, args, 2);
      only(op, attrs, [
        'strides',
        'padding',
        'dilation',
        'groups',
        'channels',
        'kernel_size',
        'data_layout',
        'kernel_layout',
        'out_layout',
        'out_dtype',
      ]);
      const dl = (attrs.data_layout as string | undefined) || 'NCDHW';
      const kl = (attrs.kernel_layout as string | undefined) || 'OIDHW';
      const toNcdhw =
        dl === 'NCDHW'
          ? [0, 1, 2, 3, 4]
          : dl === 'NDHWC'
            ? [0, 4, 1, 2, 3]
            : fail(op, `data_layout '${dl}' is not supported (NCDHW and NDHWC are)`);
      const toOidhw =
        kl === 'OIDHW'
          ? [0, 1, 2, 3, 4]
          : kl === 'DHWIO'
            ? [4, 3, 0, 1, 2]
            : fail(op, `kernel_layout '${kl}' is not supported (OIDHW and DHWIO are)`);
      if (attrs.out_layout && attrs.out_layout !== dl) fail(op, 'out_layout differs from data_layout');
      let x = permute(arg(op, args, 0, 'data'), toNcdhw);
      let w = permute(arg(op, args, 1, 'weight'), toOidhw);
      const od = attrs.out_dtype as DType | '' | undefined;
      if (od && od !== x.dtype) {
        x = c('cast', x, od);
        w = c('cast', w, od);
      }
      const p = ints(attrs.padding, [0, 0, 0]);
      const pads = p.length === 1 ? Array<number>(6).fill(p[0]!) : p.length === 3 ? [...p, ...p] : p;
      const groups = (attrs.groups as number | undefined) ?? 1;
      const y = conv3dByTaps(
        x,
        w,
        triple(attrs.strides, 1),
        triple(attrs.dilation, 1),
        pads,
        groups,
        (x2, w2, s, d, p4, g) => call('conv2d', [x2, w2, s, p4, d, g]) as Tensor,
      );
      checkChannels(op, attrs, y.shape[1]!);
      return permute(y, inverse(toNcdhw));
    },
  ],
  [
    // SSD's prior boxes for every cell of data's H × W grid: one per size at ratio 1, then one per further ratio at the
    // first size, as [xmin, ymin, xmax, ymax] in [0, 1] units (clip to [0, 1] on request). Only data's shape is read.
    'vision.multibox_prior',
    (args, attrs) => {
      const op = 'vision.multibox_prior';
      arity(op, args, 1);
      only(op, attrs, ['sizes', 'ratios', 'steps', 'offsets', 'clip']);
      const x = arg(op, args, 0, 'data');
      if (x.shape.length !== 4)
        fail(op, `data must be 4-D [batch, channel, height, width], got rank ${x.shape.length}`);
      const [H, W] = [x.shape[2]!, x.shape[3]!];
      const sizes = ints(attrs.sizes, [1]);
      const ratios = ints(attrs.ratios, [1]);
      const [sy, sx] = ints(attrs.steps, [-1, -1]);
      const [oy, ox] = ints(attrs.offsets, [0.5, 0.5]);
      const stepH = sy! > 0 ? sy! : 1 / H;
      const stepW = sx! > 0 ? sx! : 1 / W;
      const per = sizes.length + ratios.length - 1;
      const out = new Float32Array(H * W * per * 4);
      let o = 0;
      for (let i = 0; i < H; i++)
        for (let j = 0; j < W; j++) {
          const [cy, cx] = [(i + oy!) * stepH, (j + ox!) * stepW];
          for (let k = 0; k < per; k++) {
            const r = k < sizes.length ? 1 : Math.sqrt(ratios[k - sizes.length + 1]!);
            const s = k < sizes.length ? sizes[k]! : sizes[0]!;
            const w = (((s * H) / W) * r) / 2;
            const h = s / r / 2;
            const box = [cx - w, cy - h, cx + w, cy + h];
            for (const v of box) out[o++] = attrs.clip === true ? Math.min(Math.max(v, 0), 1) : v;
          }
        }
      return tensor(out, { dtype: 'float32', shape: [1, H * W * per, 4] });
    },
  ],
  [
    // AutoQuantize's simulated quantization: round(clip(data / dom_scale, clip_min, clip_max)) · dom_scale, or data
    // itself for kind 0 (IDENTITY).
    'relay.op.annotation.simulated_quantize',
    (args, attrs) => {
      const op = 'relay.op.annotation.simulated_quantize';
      arity(op, args, 4);
      only(op, attrs, ['kind', 'sign', 'rounding']);
      const x = arg(op, args, 0, 'data');
      if (attrs.rounding !== undefined && attrs.rounding !== 'round')
        fail(op, `rounding '${String(attrs.rounding)}' is not supported (round is)`);
      if (attrs.kind === 0) return x;
      const value = (i: number, what: string) =>
        args[i] instanceof Tensor
          ? c('cast', args[i], x.dtype)
          : tensor([knownNumber(op, args[i], what)], { dtype: x.dtype, shape: [] });
      const scale = value(1, 'dom_scale');
      const clipped = c('maximum', c('minimum', c('divide', x, scale), value(3, 'clip_max')), value(2, 'clip_min'));
      return c('multiply', roundTensorHalfAway(clipped), scale);
    },
  ],
  [
    // Darknet's reorg as TVM's topi computes it: output element (b, k, j, i) reads the input's flat element at
    // ((b·s² · C + (k mod C/s²) · s²) · H + (j·s + (k div C/s²) div s) · s) · W + i·s + (k div C/s²) mod s, and the
    // result is reshaped to [B, C·s², H/s, W/s]. One take of the flattened input by that index table.
    'vision.yolo_reorg',
    (args, attrs) => {
      const op = 'vision.yolo_reorg';
      arity(op, args, 1);
      only(op, attrs, ['stride']);
      const x = arg(op, args, 0, 'data');
      if (x.shape.length !== 4) fail(op, `data must be 4-D, got rank ${x.shape.length}`);
      const s = (attrs.stride as number | undefined) ?? 1;
      const [B, C, H, W] = x.shape as [number, number, number, number];
      const oc = Math.floor(C / (s * s));
      if (oc < 1 || H % s || W % s) fail(op, `stride ${s} does not divide [${x.shape}] (C by s², H and W by s)`);
      const total = B * C * H * W;
      const table = tuples([B, C, H, W]).map(([b, k, j, i]) => {
        const q = Math.floor(k! / oc);
        const at = ((b! * s * s * C + (k! % oc) * s * s) * H + (j! * s + Math.floor(q / s)) * s) * W + i! * s + (q % s);
        if (at >= total) fail(op, `batch ${B} reads past the input (TVM's reorg indexes batch b at b·s²)`);
        return at;
      });
      const flat = c('take', c('reshape', x, [total]), int32(table, [total]), 0);
      return c('reshape', flat, [B, C * s * s, H / s, W / s]);
    },
  ],
  [
    // Mask R-CNN's RoIAlign (avg mode): rois [R, 5] (batch index, x1, y1, x2, y2), coordinates scaled without the half
    // pixel offset and regions at least 1 wide, as ONNX's output_half_pixel mode.
    'vision.roi_align',
    (args, attrs) => {
      const op = 'vision.roi_align';
      arity(op, args, 2);
      only(op, attrs, ['pooled_size', 'spatial_scale', 'sample_ratio', 'layout', 'mode']);
      const mode = (attrs.mode as string | undefined) ?? 'avg';
      if (mode !== 'avg') fail(op, `mode '${mode}' is not supported (avg is; TVM's max differs from ONNX's)`);
      const layout = (attrs.layout as string | undefined) || 'NCHW';
      if (layout !== 'NCHW' && layout !== 'NHWC') fail(op, `layout '${layout}' is not supported (NCHW and NHWC are)`);
      const x = layout === 'NHWC' ? c('transpose', arg(op, args, 0, 'data'), [0, 3, 1, 2]) : arg(op, args, 0, 'data');
      const rois = arg(op, args, 1, 'rois');
      const [ph, pw] = ints(attrs.pooled_size, [1, 1]);
      const batch = c('cast', c('strided_slice', rois, [0], [1], null, [1]), 'int64');
      const y = call(
        'roi_align',
        [x, c('strided_slice', rois, [1], [5], null, [1]), c('reshape', batch, [rois.shape[0]!])],
        {
          output_height: ph,
          output_width: pw,
          sampling_ratio: Math.max(0, (attrs.sample_ratio as number | undefined) ?? -1),
          spatial_scale: (attrs.spatial_scale as number | undefined) ?? 1,
          mode: 'avg',
          coordinate_transformation_mode: 'output_half_pixel',
        },
      ) as Tensor;
      return layout === 'NHWC' ? c('transpose', y, [0, 2, 3, 1]) : y;
    },
  ],
  [
    // Grayscale morphology: the maximum over each window of (input + weight), the input padded with 0 (as topi pads),
    // NCHW with an IHW weight or NHWC with HWI. One strided slice per weight tap and a running maximum.
    'image.dilation2d',
    (args, attrs) => {
      const op = 'image.dilation2d';
      arity(op, args, 2);
      only(op, attrs, ['strides', 'padding', 'dilations', 'data_layout', 'kernel_layout', 'out_dtype']);
      const dl = (attrs.data_layout as string | undefined) || 'NCHW';
      const kl = (attrs.kernel_layout as string | undefined) || (dl === 'NHWC' ? 'HWI' : 'IHW');
      if (!((dl === 'NCHW' && kl === 'IHW') || (dl === 'NHWC' && kl === 'HWI')))
        fail(op, `data_layout ${dl} with kernel_layout ${kl} is not supported (NCHW with IHW, NHWC with HWI are)`);
      let x = arg(op, args, 0, 'data');
      let w = arg(op, args, 1, 'weight');
      if (dl === 'NHWC') [x, w] = [c('transpose', x, [0, 3, 1, 2]), c('transpose', w, [2, 0, 1])];
      const od = attrs.out_dtype as DType | '' | undefined;
      if (od && od !== x.dtype) [x, w] = [c('cast', x, od), c('cast', w, od)];
      const [sh, sw] = ints(attrs.strides, [1, 1]);
      const [dh, dw] = ints(attrs.dilations, [1, 1]);
      const p = ints(attrs.padding, [0, 0]);
      const [pt, pl, pb, pr] = p.length === 2 ? [p[0]!, p[1]!, p[0]!, p[1]!] : p;
      const [, C, H, W] = x.shape as [number, number, number, number];
      const [kh, kw] = [w.shape[1]!, w.shape[2]!];
      if (w.shape[0] !== C) fail(op, `weight has ${w.shape[0]} channels, data ${C}`);
      const padded = pt || pl || pb || pr ? c('pad', x, [0, 0, pt!, pl!, 0, 0, pb!, pr!]) : x;
      const OH = Math.floor((H + pt! + pb! - ((kh - 1) * dh! + 1)) / sh!) + 1;
      const OW = Math.floor((W + pl! + pr! - ((kw - 1) * dw! + 1)) / sw!) + 1;
      if (OH < 1 || OW < 1) fail(op, `the dilated window does not fit the padded [${H}, ${W}]`);
      let y: Tensor | undefined;
      for (let a = 0; a < kh; a++)
        for (let b = 0; b < kw; b++) {
          const [y0, x0] = [a * dh!, b * dw!];
          const window = c(
            'strided_slice',
            padded,
            [y0, x0],
            [y0 + (OH - 1) * sh! + 1, x0 + (OW - 1) * sw! + 1],
            [sh!, sw!],
            [2, 3],
          );
          const tap = c(
            'reshape',
            c('strided_slice', c('strided_slice', w, [a], [a + 1], null, [1]), [b], [b + 1], null, [2]),
            [1, C, 1, 1],
          );
          const v = c('add', window, tap);
          y = y ? c('maximum', y, v) : v;
        }
      return dl === 'NHWC' ? c('transpose', y!, [0, 2, 3, 1]) : y!;
    },
  ],
  [
    // The discrete Fourier transform of (re, im) along the last axis, as matrix products with cos and sin tables
    // (angles 2π·n·k/N, computed in float32 as TVM does); the inverse has the opposite sign and divides by N.
    'dft',
    (args, attrs) => {
      const op = 'dft';
      arity(op, args, 2);
      only(op, attrs, ['inverse']);
      const [re, im] = [arg(op, args, 0, 're_data'), arg(op, args, 1, 'im_data')];
      const n = re.shape[re.shape.length - 1]!;
      const inverse = attrs.inverse === true;
      const cosT = new Float32Array(n * n);
      const sinT = new Float32Array(n * n);
      for (let k = 0; k < n; k++)
        for (let j = 0; j < n; j++) {
          const angle = Math.fround((2 * Math.PI * ((k * j) % n)) / n);
          cosT[k * n + j] = Math.cos(angle);
          sinT[k * n + j] = (inverse ? 1 : -1) * Math.sin(angle);
        }
      const table = (v: Float32Array) => c('cast', tensor(v, { dtype: 'float32', shape: [n, n] }), re.dtype);
      const [C, S] = [table(cosT), table(sinT)];
      // (re + i·im)(cos + i·sin) summed over k: re·cos − im·sin, re·sin + im·cos.
      let outRe = c('subtract', c('matmul', re, C), c('matmul', im, S));
      let outIm = c('add', c('matmul', re, S), c('matmul', im, C));
      if (inverse) [outRe, outIm] = [c('divide', outRe, n), c('divide', outIm, n)];
      return [outRe, outIm];
    },
  ],
  [
    // Short-time Fourier transform of [B, L] signals: frames of win_length every hop_length (no centering), times the
    // window, against cos and sin tables of frequency f·w / win_length; [B, F, T, 2] (re, im), /√n_fft if normalized.
    'stft',
    (args, attrs) => {
      const op = 'stft';
      arity(op, args, 2);
      only(op, attrs, ['n_fft', 'hop_length', 'win_length', 'normalized', 'onesided']);
      const [x, win] = [arg(op, args, 0, 'data'), arg(op, args, 1, 'window')];
      if (x.shape.length !== 2) fail(op, `data must be [batch, length], got rank ${x.shape.length}`);
      const nfft = attrs.n_fft as number;
      const hop =
        ((attrs.hop_length as number | undefined) ?? -1) > 0 ? (attrs.hop_length as number) : Math.floor(nfft / 4);
      const wl = ((attrs.win_length as number | undefined) ?? -1) > 0 ? (attrs.win_length as number) : nfft;
      const F = attrs.onesided === false ? nfft : Math.floor(nfft / 2) + 1;
      const [B, L] = x.shape as [number, number];
      const T = Math.floor((L - nfft) / hop) + 1;
      if (T < 1) fail(op, `a signal of ${L} samples holds no frame of ${nfft}`);
      const index = tuples([T, wl]).map(([t, w]) => t! * hop + w!);
      const frames = c(
        'multiply',
        c('take', x, int32(index, [T, wl]), 1),
        c('reshape', c('cast', win, x.dtype), [1, 1, wl]),
      );
      const cosT = new Float32Array(wl * F);
      const sinT = new Float32Array(wl * F);
      for (let w = 0; w < wl; w++)
        for (let f = 0; f < F; f++) {
          const angle = (2 * Math.PI * f * w) / wl;
          cosT[w * F + f] = Math.cos(angle);
          sinT[w * F + f] = -Math.sin(angle);
        }
      const table = (v: Float32Array) => c('cast', tensor(v, { dtype: 'float32', shape: [wl, F] }), x.dtype);
      let re = c('matmul', frames, table(cosT));
      let im = c('matmul', frames, table(sinT));
      if (attrs.normalized === true) [re, im] = [c('divide', re, Math.sqrt(nfft)), c('divide', im, Math.sqrt(nfft))];
      // [B, T, F] each → [B, F, T, 2].
      const part = (t: Tensor) => c('expand_dims', c('transpose', t, [0, 2, 1]), 3);
      return c('concatenate', [part(re), part(im)], 3);
    },
  ],
  [
    // TensorFlow's crop_and_resize as topi computes it: for box b (normalized y1, x1, y2, x2) of image box_indices[b],
    // output (i, j) samples y = y1·(H−1) + i·(y2−y1)(H−1)/(ch−1) (x alike), bilinearly from the four neighbours
    // (indices clamped) or at the nearest one (rounded half away from zero); extrapolation_value where y or x lies
    // outside [0, H−1] or [0, W−1]. Gathered from the image in NHWC, one gather_nd per neighbour.
    'image.crop_and_resize',
    (args, attrs) => {
      const op = 'image.crop_and_resize';
      arity(op, args, 3);
      only(op, attrs, ['crop_size', 'layout', 'method', 'extrapolation_value', 'out_dtype']);
      const layout = (attrs.layout as string | undefined) || 'NCHW';
      if (layout !== 'NCHW' && layout !== 'NHWC') fail(op, `layout '${layout}' is not supported (NCHW and NHWC are)`);
      const method = (attrs.method as string | undefined) || 'bilinear';
      if (method !== 'bilinear' && method !== 'nearest_neighbor')
        fail(op, `method '${method}' is not bilinear or nearest_neighbor`);
      const data = arg(op, args, 0, 'data');
      const nhwc = layout === 'NHWC' ? data : c('transpose', data, [0, 2, 3, 1]);
      const [, H, W] = nhwc.shape as [number, number, number, number];
      const boxes = c('cast', arg(op, args, 1, 'boxes'), 'float32');
      const index = arg(op, args, 2, 'box_indices');
      const [ch, cw] = ints(attrs.crop_size, []);
      if (!ch || !cw || ch < 2 || cw < 2)
        fail(op, `crop_size [${attrs.crop_size}] must be at least 2 × 2 (TVM divides by crop_size − 1)`);
      const B = boxes.shape[0]!;
      const col = (k: number) => c('strided_slice', boxes, [k], [k + 1], null, [1]); // [B, 1]
      const [y1, x1, y2, x2] = [0, 1, 2, 3].map(col) as [Tensor, Tensor, Tensor, Tensor];
      const steps = (n: number) =>
        tensor(
          Array.from({ length: n }, (_, i) => i),
          { dtype: 'float32', shape: [1, n] },
        );
      // [B, ch] and [B, cw] sample coordinates, in float32.
      const ys = c(
        'add',
        c('multiply', y1, H - 1),
        c('multiply', c('divide', c('multiply', c('subtract', y2, y1), H - 1), ch - 1), steps(ch)),
      );
      const xs = c(
        'add',
        c('multiply', x1, W - 1),
        c('multiply', c('divide', c('multiply', c('subtract', x2, x1), W - 1), cw - 1), steps(cw)),
      );
      const grid = (yi: Tensor, xi: Tensor) => {
        // [B, ch, cw, 3] tuples (image, y, x) for gather_nd over [N, H, W, C].
        const b = broadcastTo(op, c('reshape', c('cast', index, 'int64'), [B, 1, 1, 1]), [B, ch, cw, 1]);
        const y = broadcastTo(op, c('reshape', yi, [B, ch, 1, 1]), [B, ch, cw, 1]);
        const x = broadcastTo(op, c('reshape', xi, [B, 1, cw, 1]), [B, ch, cw, 1]);
        return c('gather_nd', nhwc, c('concatenate', [b, y, x], 3), 0);
      };
      const clampIdx = (v: Tensor, n: number) => c('cast', c('clip', v, 0, n - 1), 'int64');
      let out: Tensor;
      if (method === 'nearest_neighbor')
        out = grid(clampIdx(roundTensorHalfAway(ys), H), clampIdx(roundTensorHalfAway(xs), W));
      else {
        const [fy, fx] = [c('floor', ys), c('floor', xs)];
        const [ly, lx] = [c('subtract', ys, fy), c('subtract', xs, fx)];
        const [y0, yb] = [clampIdx(fy, H), clampIdx(c('add', fy, 1), H)];
        const [x0, xb] = [clampIdx(fx, W), clampIdx(c('add', fx, 1), W)];
        const wy = c('reshape', ly, [B, ch, 1, 1]);
        const wx = c('reshape', lx, [B, 1, cw, 1]);
        const lerp = (a: Tensor, b: Tensor, t: Tensor) =>
          c('add', c('multiply', a, c('subtract', 1, t)), c('multiply', b, t));
        const top = lerp(grid(y0, x0), grid(y0, xb), wx);
        const bottom = lerp(grid(yb, x0), grid(yb, xb), wx);
        out = lerp(top, bottom, wy);
      }
      const inside = c(
        'logical_and',
        c('reshape', c('logical_and', c('greater_equal', ys, 0), c('less_equal', ys, H - 1)), [B, ch, 1, 1]),
        c('reshape', c('logical_and', c('greater_equal', xs, 0), c('less_equal', xs, W - 1)), [B, 1, cw, 1]),
      );
      const fill = tensor([(attrs.extrapolation_value as number | undefined) ?? 0], { dtype: out.dtype, shape: [] });
      let y = c('where', inside, out, fill);
      const od = attrs.out_dtype as string | undefined;
      if (od && od !== y.dtype) y = c('cast', y, od);
      return layout === 'NHWC' ? y : c('transpose', y, [0, 3, 1, 2]);
    },
  ],
  [
    // As topi computes it: the input dilated by the strides, padded by k − 1 − pad in front and k − 1 − pad +
    // output_padding behind on each axis, then a stride-1 3-D convolution by the kernel flipped in space with its
    // in and out channels swapped (IODHW weights, groups 1, dilation 1, as TVM's generic strategy takes).
    'nn.conv3d_transpose',
    (args, attrs) => {
      const op = 'nn.conv3d_transpose';
      arity(op, args, 2);
      only(op, attrs, [
        'strides',
        'padding',
        'output_padding',
        'dilation',
        'groups',
        'channels',
        'kernel_size',
        'data_layout',
        'kernel_layout',
        'out_layout',
        'out_dtype',
      ]);
      const dl = (attrs.data_layout as string | undefined) || 'NCDHW';
      const kl = (attrs.kernel_layout as string | undefined) || 'IODHW';
      if (dl !== 'NCDHW' || kl !== 'IODHW') fail(op, `layouts ${dl} / ${kl} are not supported (NCDHW with IODHW is)`);
      if (((attrs.groups as number | undefined) ?? 1) !== 1) fail(op, 'groups other than 1 are not supported');
      if (triple(attrs.dilation, 1).some((d) => d !== 1)) fail(op, 'dilation other than 1 is not supported');
      let x = arg(op, args, 0, 'data');
      let w = arg(op, args, 1, 'weight');
      const od = attrs.out_dtype as DType | '' | undefined;
      if (od && od !== x.dtype) [x, w] = [c('cast', x, od), c('cast', w, od)];
      const strides = triple(attrs.strides, 1);
      const opad = triple(attrs.output_padding, 0);
      const p = ints(attrs.padding, [0, 0, 0]);
      const pads = p.length === 1 ? Array<number>(6).fill(p[0]!) : p.length === 3 ? [...p, ...p] : p;
      const k = w.shape.slice(2) as number[];
      // Zeros between the input's elements along each spatial axis.
      for (let a = 0; a < 3; a++) {
        const s = strides[a]!;
        if (s === 1) continue;
        const axis = a + 2;
        const n = x.shape[axis]!;
        const zerosShape = x.shape.map((d, i) => (i === axis ? n * (s - 1) : d));
        const z = tensor(new Float32Array(size(zerosShape)), { dtype: 'float32', shape: zerosShape });
        const withZeros = c(
          'concatenate',
          [
            c('expand_dims', x, axis + 1),
            c('reshape', c('cast', z, x.dtype), [...x.shape.slice(0, axis), n, s - 1, ...x.shape.slice(axis + 1)]),
          ],
          axis + 1,
        );
        const spread = c(
          'reshape',
          withZeros,
          x.shape.map((d, i) => (i === axis ? n * s : d)),
        );
        x = c('strided_slice', spread, [0], [(n - 1) * s + 1], null, [axis]);
      }
      const front = [0, 1, 2].map((a) => k[a]! - 1 - pads[a]!);
      const back = [0, 1, 2].map((a) => k[a]! - 1 - pads[a + 3]! + opad[a]!);
      if ([...front, ...back].some((v) => v < 0))
        fail(op, `padding [${pads}] exceeds the kernel's reach (k − 1 per side)`);
      // The kernel flipped along its three spatial axes, in and out channels swapped: OIDHW.
      for (let a = 2; a < 5; a++) {
        const n = w.shape[a]!;
        w = c(
          'take',
          w,
          int32(
            Array.from({ length: n }, (_, i) => n - 1 - i),
            [n],
          ),
          a,
        );
      }
      w = c('transpose', w, [1, 0, 2, 3, 4]);
      const y = conv3dByTaps(
        x,
        w,
        [1, 1, 1],
        [1, 1, 1],
        [...front, ...back],
        1,
        (x2, w2, s2, d2, p4, g) => call('conv2d', [x2, w2, s2, p4, d2, g]) as Tensor,
      );
      checkChannels(op, attrs, y.shape[1]!);
      return y;
    },
  ],
  [
    // A dense matrix times a sparse one's transpose (or, with sparse_lhs, the sparse one times the dense one's
    // transpose), CSR (data [nnz]) or BSR (data [blocks, r, c]): the sparse matrix made dense by one scatter (its
    // structure, indices and indptr, known while converting; its values may be computed), then a matmul.
    'nn.sparse_dense',
    (args, attrs) => {
      const op = 'nn.sparse_dense';
      arity(op, args, 4);
      only(op, attrs, ['sparse_lhs']);
      const dense = arg(op, args, 0, 'dense');
      const data = arg(op, args, 1, 'sparse_data');
      const indices = knownList(op, args[2], 'sparse_indices');
      const indptr = knownList(op, args[3], 'sparse_indptr');
      if (dense.shape.length !== 2) fail(op, `dense must be 2-D, got rank ${dense.shape.length}`);
      const [br, bc] = data.shape.length === 3 ? [data.shape[1]!, data.shape[2]!] : [1, 1];
      const rows = (indptr.length - 1) * br;
      const K = dense.shape[1]!;
      const coords: number[] = [];
      for (let n = 0; n + 1 < indptr.length; n++)
        for (let j = indptr[n]!; j < indptr[n + 1]!; j++)
          for (let r = 0; r < br; r++)
            for (let q = 0; q < bc; q++) {
              const col = indices[j]! * bc + q;
              if (col >= K) fail(op, `sparse column ${col} is outside the dense matrix's ${K} columns`);
              coords.push(n * br + r, col);
            }
      const zeros = tensor(new Float32Array(rows * K), { dtype: 'float32', shape: [rows, K] });
      const base = dense.dtype === 'float32' ? zeros : c('cast', zeros, dense.dtype);
      const values = c('reshape', c('cast', data, dense.dtype), [coords.length / 2]);
      const S = coords.length ? c('scatter_nd', base, int32(coords, [coords.length / 2, 2]), values, 'add') : base;
      return attrs.sparse_lhs === true
        ? c('matmul', S, c('transpose', dense, [1, 0]))
        : c('matmul', dense, c('transpose', S, [1, 0]));
    },
  ],
  [
    // TVM's deformable convolution (v1): each kernel tap samples the input at its grid position moved by the offsets
    // (stored (y, x) per deformable group and tap), bilinearly, a sample outside the image being 0 and each corner
    // outside it adding nothing; then the taps' samples times the weight, summed. Per tap: four gather_nd of the
    // neighbours from the input in NHWC (channels split by deformable group) and one matrix product.
    'nn.deformable_conv2d',
    (args, attrs) => {
      const op = 'nn.deformable_conv2d';
      arity(op, args, 3);
      only(op, attrs, [
        'strides',
        'padding',
        'dilation',
        'deformable_groups',
        'groups',
        'channels',
        'kernel_size',
        'data_layout',
        'kernel_layout',
        'out_layout',
        'out_dtype',
      ]);
      if (((attrs.groups as number | undefined) ?? 1) !== 1) fail(op, 'groups other than 1 are not supported');
      const dl = (attrs.data_layout as string | undefined) || 'NCHW';
      const kl = (attrs.kernel_layout as string | undefined) || 'OIHW';
      if (dl !== 'NCHW' || kl !== 'OIHW') fail(op, `layouts ${dl} / ${kl} are not supported (NCHW with OIHW is)`);
      let [x, offset, w] = [arg(op, args, 0, 'data'), arg(op, args, 1, 'offset'), arg(op, args, 2, 'weight')];
      const od = attrs.out_dtype as DType | '' | undefined;
      if (od && od !== x.dtype) [x, offset, w] = [c('cast', x, od), c('cast', offset, od), c('cast', w, od)];
      const [N, C, H, W] = x.shape as [number, number, number, number];
      const [O, , KH, KW] = w.shape as [number, number, number, number];
      const [OH, OW] = [offset.shape[2]!, offset.shape[3]!];
      const dg = (attrs.deformable_groups as number | undefined) ?? 1;
      if (C % dg) fail(op, `deformable_groups ${dg} does not divide the ${C} channels`);
      const [sh, sw] = ints(attrs.strides, [1, 1]);
      const [dh, dw] = ints(attrs.dilation, [1, 1]);
      const p = ints(attrs.padding, [0, 0]);
      const [pt, pl] = [p[0]!, p[1]!];
      // The input as [N, H, W, groups, C / groups], gathered by (image, y, x, group) tuples.
      const data = c('reshape', c('transpose', x, [0, 2, 3, 1]), [N, H, W, dg, C / dg]);
      const f = x.dtype;
      const grid = (n: number, axis: number) =>
        tensor(
          Array.from({ length: n }, (_, i) => i),
          { dtype: f, shape: [1, 1, ...[OH, OW].map((d, a) => (a === axis ? d : 1))] },
        );
      const idx = (shape: number[], values: (i: number) => number) =>
        c(
          'cast',
          tensor(
            Array.from({ length: size(shape) }, (_, i) => values(i)),
            { dtype: 'int32', shape },
          ),
          'int64',
        );
      const image = broadcastTo(
        op,
        idx([N, 1, 1, 1, 1], (i) => i),
        [N, dg, OH, OW, 1],
      );
      const group = broadcastTo(
        op,
        idx([1, dg, 1, 1, 1], (i) => i),
        [N, dg, OH, OW, 1],
      );
      let out: Tensor | undefined;
      for (let i = 0; i < KH; i++)
        for (let j = 0; j < KW; j++) {
          const t = i * KW + j;
          const channels = (k: number) =>
            int32(
              Array.from({ length: dg }, (_, g) => g * KH * KW * 2 + t * 2 + k),
              [dg],
            );
          const y = c(
            'add',
            c('take', offset, channels(0), 1),
            c('add', c('multiply', grid(OH, 0), sh!), i * dh! - pt),
          );
          const xx = c(
            'add',
            c('take', offset, channels(1), 1),
            c('add', c('multiply', grid(OW, 1), sw!), j * dw! - pl),
          );
          const inside = c(
            'logical_and',
            c('logical_and', c('greater_equal', y, 0), c('less', y, H)),
            c('logical_and', c('greater_equal', xx, 0), c('less', xx, W)),
          );
          const [y0, x0] = [c('floor', y), c('floor', xx)];
          const [ly, lx] = [c('subtract', y, y0), c('subtract', xx, x0)];
          const corner = (yc: Tensor, xc: Tensor, weight: Tensor) => {
            const ok = c(
              'logical_and',
              inside,
              c(
                'logical_and',
                c('logical_and', c('greater_equal', yc, 0), c('less_equal', yc, H - 1)),
                c('logical_and', c('greater_equal', xc, 0), c('less_equal', xc, W - 1)),
              ),
            );
            const at = (v: Tensor, n: number) => c('expand_dims', c('cast', c('clip', v, 0, n - 1), 'int64'), 4);
            const picked = c('gather_nd', data, c('concatenate', [image, at(yc, H), at(xc, W), group], 4), 0);
            const wgt = c('where', ok, weight, tensor([0], { dtype: f, shape: [] }));
            return c('multiply', picked, c('expand_dims', wgt, 4));
          };
          const one = (v: Tensor) => c('subtract', 1, v);
          const sample = c(
            'add',
            c(
              'add',
              corner(y0, x0, c('multiply', one(ly), one(lx))),
              corner(y0, c('add', x0, 1), c('multiply', one(ly), lx)),
            ),
            c(
              'add',
              corner(c('add', y0, 1), x0, c('multiply', ly, one(lx))),
              corner(c('add', y0, 1), c('add', x0, 1), c('multiply', ly, lx)),
            ),
          ); // [N, dg, OH, OW, C / dg]
          const rows = c('reshape', c('transpose', sample, [0, 2, 3, 1, 4]), [N * OH * OW, C]);
          const tap = c(
            'transpose',
            c('reshape', c('strided_slice', c('strided_slice', w, [i], [i + 1], null, [2]), [j], [j + 1], null, [3]), [
              O,
              C,
            ]),
            [1, 0],
          );
          const contrib = c('matmul', rows, tap);
          out = out ? c('add', out, contrib) : contrib;
        }
      const y = c('transpose', c('reshape', out!, [N, OH, OW, O]), [0, 3, 1, 2]);
      checkChannels(op, attrs, O);
      return y;
    },
  ],
];
