// Hand-written shape rule of raf.op.deform_conv (specs/nn/deform_conv.yaml): checks every input's shape against x, w
// and the attributes (2-D only) and gives [N, O, oH, oW]; `deformGeometry` is shared with the CPU kernel.

import { OpError } from '../errors.ts';
import { formatShape } from '../shape.ts';
import type { TensorType } from '../tensor.ts';
import type { DeformConvArgs } from '../generated/schema/deform_conv.ts';

const OP = 'deform_conv';

export interface DeformGeometry {
  readonly N: number;
  readonly C: number;
  readonly H: number;
  readonly W: number;
  readonly O: number;
  readonly kH: number;
  readonly kW: number;
  readonly oH: number;
  readonly oW: number;
}

interface Attrs {
  readonly strides: readonly number[];
  readonly pads: readonly number[];
  readonly dilations: readonly number[];
  readonly group: number;
  readonly offset_group: number;
}

/** The sizes of a deformable convolution of x by w, output size included; refuses what does not fit. */
export function deformGeometry(x: readonly number[], w: readonly number[], a: Attrs): DeformGeometry {
  if (x.length !== 4) throw new OpError(OP, `needs x of rank 4 [N, C, H, W] (2-D only), got ${formatShape(x)}`, 'x');
  if (w.length !== 4) throw new OpError(OP, `needs w of rank 4 [O, C / group, kH, kW], got ${formatShape(w)}`, 'w');
  if (a.strides.length !== 2) throw new OpError(OP, `needs 2 strides, got ${formatShape(a.strides)}`, 'strides');
  if (a.dilations.length !== 2)
    throw new OpError(OP, `needs 2 dilations, got ${formatShape(a.dilations)}`, 'dilations');
  if (a.pads.length !== 4)
    throw new OpError(OP, `needs 4 pads [top, left, bottom, right], got ${formatShape(a.pads)}`, 'pads');
  const [N, C, H, W] = x as [number, number, number, number];
  const [O, Cg, kH, kW] = w as [number, number, number, number];
  if (C % a.group || Cg * a.group !== C)
    throw new OpError(OP, `x's ${C} channels are not w's ${Cg} per group times group = ${a.group}`, 'w');
  if (O % a.group) throw new OpError(OP, `w's ${O} output channels do not divide into group = ${a.group}`, 'group');
  if (C % a.offset_group)
    throw new OpError(OP, `x's ${C} channels do not divide into offset_group = ${a.offset_group}`, 'offset_group');
  const out = (len: number, k: number, s: number, d: number, p0: number, p1: number) =>
    Math.floor((len + p0 + p1 - d * (k - 1) - 1) / s) + 1;
  const oH = out(H, kH, a.strides[0]!, a.dilations[0]!, a.pads[0]!, a.pads[2]!);
  const oW = out(W, kW, a.strides[1]!, a.dilations[1]!, a.pads[1]!, a.pads[3]!);
  if (oH < 1 || oW < 1)
    throw new OpError(OP, `the kernel [${kH}, ${kW}] does not fit the padded input ${formatShape([H, W])}`, 'w');
  return { N, C, H, W, O, kH, kW, oH, oW };
}

/** The output type of raf.op.deform_conv: [N, O, oH, oW] of x's dtype. */
export function deformConvRule<T extends TensorType>(args: DeformConvArgs<T>): TensorType {
  const g = deformGeometry(args.x.shape, args.w.shape, args);
  const taps = g.kH * g.kW * args.offset_group;
  const want = (name: 'offset' | 'mask' | 'bias', t: TensorType | null, shape: number[]) => {
    if (!t) return;
    if (t.shape.length !== shape.length || t.shape.some((d, i) => d !== shape[i]))
      throw new OpError(OP, `needs ${name} of shape ${formatShape(shape)}, got ${formatShape(t.shape)}`, name);
    if (t.dtype !== args.x.dtype)
      throw new OpError(OP, `needs ${name} of x's dtype ${args.x.dtype}, got ${t.dtype}`, name);
  };
  if (args.w.dtype !== args.x.dtype)
    throw new OpError(OP, `needs w of x's dtype ${args.x.dtype}, got ${args.w.dtype}`, 'w');
  want('offset', args.offset, [g.N, 2 * taps, g.oH, g.oW]);
  want('mask', args.mask, [g.N, taps, g.oH, g.oW]);
  want('bias', args.bias, [g.O]);
  return { shape: [g.N, g.O, g.oH, g.oW], dtype: args.x.dtype };
}
