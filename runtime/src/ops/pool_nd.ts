// N-D pooling geometry (ONNX MaxPool, AveragePool, LpPool, MaxUnpool) shared by the rules and CPU kernels of
// raf.op.max_pool, avg_pool, lp_pool and max_unpool: x [N, C, d1, ..., dk], per-axis kernel, strides, dilations,
// pads [begin..., end...], auto_pad and ceil_mode resolved once into output sizes and leading pads.

import { OpError } from '../errors.ts';
import { formatShape } from '../shape.ts';

export interface PoolGeometry {
  /** Spatial axes (k). */
  readonly rank: number;
  readonly input: readonly number[];
  readonly kernel: readonly number[];
  readonly stride: readonly number[];
  readonly dilation: readonly number[];
  /** Leading pad per axis. */
  readonly padBegin: readonly number[];
  /** Trailing pad per axis, as given or resolved from auto_pad (ceil_mode adds no pad here). */
  readonly padEnd: readonly number[];
  /** Output spatial sizes. */
  readonly output: readonly number[];
}

export interface PoolArgs {
  readonly kernel: readonly number[];
  readonly stride: readonly number[] | null;
  readonly padding: readonly number[] | null;
  readonly dilation: readonly number[] | null;
  readonly ceil_mode: boolean;
  readonly auto_pad: string;
}

function perAxis(op: string, arg: string, v: readonly number[] | null, rank: number, fill: number): number[] {
  if (v === null) return new Array<number>(rank).fill(fill);
  if (v.length !== rank)
    throw new OpError(op, `needs ${rank} values (one per spatial axis), got ${formatShape(v)}`, arg);
  return [...v];
}

/** Resolves a pooling window sweep over `shape` ([N, C, spatial...]); an OpError names the arg that does not fit. */
export function poolGeometry(op: string, shape: readonly number[], a: PoolArgs): PoolGeometry {
  const rank = shape.length - 2;
  if (rank < 1) throw new OpError(op, `needs x of rank 3 or more [N, C, spatial...], got ${formatShape(shape)}`, 'x');
  if (a.kernel.length !== rank)
    throw new OpError(
      op,
      `needs ${rank} values (one per spatial axis of x ${formatShape(shape)}), got ${formatShape(a.kernel)}`,
      'kernel',
    );
  const input = shape.slice(2);
  const stride = perAxis(op, 'stride', a.stride, rank, 1);
  const dilation = perAxis(op, 'dilation', a.dilation, rank, 1);
  let padBegin: number[];
  let padEnd: number[];
  const output: number[] = [];
  const span = (i: number) => dilation[i]! * (a.kernel[i]! - 1) + 1;
  if (a.auto_pad === 'NOTSET') {
    const pads = a.padding ?? new Array<number>(2 * rank).fill(0);
    if (pads.length !== 2 * rank)
      throw new OpError(
        op,
        `needs ${2 * rank} values [begin..., end...] for ${rank} spatial axes, got ${formatShape(pads)}`,
        'padding',
      );
    padBegin = pads.slice(0, rank);
    padEnd = pads.slice(rank);
    for (let i = 0; i < rank; i++) {
      const room = input[i]! + padBegin[i]! + padEnd[i]! - span(i);
      if (room < 0)
        throw new OpError(
          op,
          `kernel ${formatShape(a.kernel)} (dilated) does not fit the padded input ${formatShape(input)} on axis ${i + 2}`,
          'kernel',
        );
      let out = (a.ceil_mode ? Math.ceil(room / stride[i]!) : Math.floor(room / stride[i]!)) + 1;
      // With ceil_mode the last window must start inside the input or its leading pad.
      if (a.ceil_mode && (out - 1) * stride[i]! >= input[i]! + padBegin[i]!) out--;
      output.push(out);
    }
  } else if (a.auto_pad === 'VALID') {
    padBegin = new Array<number>(rank).fill(0);
    padEnd = new Array<number>(rank).fill(0);
    for (let i = 0; i < rank; i++) {
      const room = input[i]! - span(i);
      if (room < 0)
        throw new OpError(
          op,
          `kernel ${formatShape(a.kernel)} (dilated) does not fit the input ${formatShape(input)} on axis ${i + 2}`,
          'kernel',
        );
      output.push((a.ceil_mode ? Math.ceil(room / stride[i]!) : Math.floor(room / stride[i]!)) + 1);
    }
  } else if (a.auto_pad === 'SAME_UPPER' || a.auto_pad === 'SAME_LOWER') {
    padBegin = [];
    padEnd = [];
    for (let i = 0; i < rank; i++) {
      const out = Math.ceil(input[i]! / stride[i]!);
      const total = Math.max(0, (out - 1) * stride[i]! + span(i) - input[i]!);
      const small = Math.floor(total / 2);
      padBegin.push(a.auto_pad === 'SAME_LOWER' ? total - small : small);
      padEnd.push(total - padBegin[i]!);
      output.push(out);
    }
  } else {
    throw new OpError(op, `must be NOTSET, SAME_UPPER, SAME_LOWER or VALID, got '${a.auto_pad}'`, 'auto_pad');
  }
  return { rank, input, kernel: [...a.kernel], stride, dilation, padBegin, padEnd, output };
}

/** Row-major strides of `dims`. */
export function rowStrides(dims: readonly number[]): number[] {
  const s = new Array<number>(dims.length).fill(1);
  for (let i = dims.length - 2; i >= 0; i--) s[i] = s[i + 1]! * dims[i + 1]!;
  return s;
}

/**
 * Calls `visit(outIndex, taps)` for every output position of one [N, C] plane, where `taps` lists, for each kernel tap
 * of the window, the flat in-plane input offset or -1 for a tap in the padding; `inPadded[t]` tells whether tap t lies
 * inside the padded extent ([-padBegin, input + padEnd)), which count_include_pad counts.
 */
export function forEachWindow(
  g: PoolGeometry,
  visit: (o: number, taps: Int32Array, inPadded: Uint8Array, ntaps: number) => void,
): void {
  const { rank, input, kernel, stride, dilation, padBegin, padEnd, output } = g;
  const inStrides = rowStrides(input);
  const nOut = output.reduce((p, d) => p * d, 1);
  const nTaps = kernel.reduce((p, d) => p * d, 1);
  const taps = new Int32Array(nTaps);
  const inPadded = new Uint8Array(nTaps);
  const oc = new Array<number>(rank).fill(0);
  const kc = new Array<number>(rank).fill(0);
  for (let o = 0; o < nOut; o++) {
    let r = o;
    for (let i = rank - 1; i >= 0; i--) {
      oc[i] = r % output[i]!;
      r = Math.floor(r / output[i]!);
    }
    for (let t = 0; t < nTaps; t++) {
      let q = t;
      for (let i = rank - 1; i >= 0; i--) {
        kc[i] = q % kernel[i]!;
        q = Math.floor(q / kernel[i]!);
      }
      let off = 0;
      let inside = true;
      let padded = true;
      for (let i = 0; i < rank; i++) {
        const pos = oc[i]! * stride[i]! - padBegin[i]! + kc[i]! * dilation[i]!;
        if (pos < 0 || pos >= input[i]!) inside = false;
        if (pos < -padBegin[i]! || pos >= input[i]! + padEnd[i]!) padded = false;
        off += pos * inStrides[i]!;
      }
      taps[t] = inside ? off : -1;
      inPadded[t] = padded ? 1 : 0;
    }
    visit(o, taps, inPadded, nTaps);
  }
}
