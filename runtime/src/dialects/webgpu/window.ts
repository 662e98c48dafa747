// Sliding-window geometry for the conv2d and pooling kernels (NCHW): one uniform block, read through a WGSL struct.

import { padding4, window2d } from '../../ops/window.ts';
import { shapesEqual, sizeOf } from '../../shape.ts';
import type { Tensor, TensorType } from '../../tensor.ts';
import type { GpuContext } from './device.ts';
import { FLAT_INDEX, launch, MAIN_1D, Params, paramsWgsl } from './kernel.ts';
import { allocGpu } from './storage.ts';

const WORDS = 20;

/** WGSL: the window as signed ints (taps left of or above the image have negative coordinates). */
const PRELUDE = `struct Win { n: i32, c: i32, h: i32, w: i32, o: i32, groups: i32, kh: i32, kw: i32, sh: i32, sw: i32,
  dh: i32, dw: i32, pad_top: i32, pad_left: i32, oh: i32, ow: i32, pad_bottom: i32, pad_right: i32, include_pad: i32, total: i32 }
fn win() -> Win {
  return Win(i32(pu(0u)), i32(pu(1u)), i32(pu(2u)), i32(pu(3u)), i32(pu(4u)), i32(pu(5u)), i32(pu(6u)), i32(pu(7u)),
    i32(pu(8u)), i32(pu(9u)), i32(pu(10u)), i32(pu(11u)), i32(pu(12u)), i32(pu(13u)), i32(pu(14u)), i32(pu(15u)),
    i32(pu(16u)), i32(pu(17u)), i32(pu(18u)), i32(pu(19u)));
}
// The output position whose window puts tap k at input coordinate i, or -1 when none does (stride does not divide).
fn source_pos(i: i32, k: i32, pad: i32, stride: i32, dilation: i32, size: i32) -> i32 {
  let t = i + pad - k * dilation;
  if (t < 0 || t % stride != 0 || t / stride >= size) { return -1; }
  return t / stride;
}
// Positions averaged over: taps inside the image, or with count_include_pad the window clipped to the padded image.
fn pool_count(g: Win, oy: i32, ox: i32) -> f32 {
  let y0 = oy * g.sh - g.pad_top;
  let x0 = ox * g.sw - g.pad_left;
  if (g.include_pad != 0) {
    return f32((min(y0 + g.kh, g.h + g.pad_bottom) - y0) * (min(x0 + g.kw, g.w + g.pad_right) - x0));
  }
  return f32((min(y0 + g.kh, g.h) - max(y0, 0)) * (min(x0 + g.kw, g.w) - max(x0, 0)));
}`;

/** A complete window kernel: the named f32 storage buffers (last one written), then a body run per element i < total. */
export function windowSource(buffers: readonly string[], body: string): string {
  const n = buffers.length;
  return [
    ...buffers.map(
      (name, k) => `@group(0) @binding(${k}) var<storage, ${k === n - 1 ? 'read_write' : 'read'}> ${name}: array<f32>;`,
    ),
    paramsWgsl(n, WORDS),
    PRELUDE,
    `${MAIN_1D} {`,
    `  ${FLAT_INDEX}`,
    '  let g = win();',
    '  if (i >= u32(g.total)) { return; }',
    '  let e = i32(i);',
    body,
    '}',
  ].join('\n');
}

export interface WindowAttrs {
  readonly kernel?: readonly number[];
  readonly stride: readonly number[];
  readonly padding: readonly number[];
  readonly dilation?: readonly number[];
  readonly groups?: number;
  readonly count_include_pad?: boolean;
}

/** Runs a window kernel over `total` elements (the output's, or an input's for the backward kernels). */
export function runWindow(
  gpu: GpuContext,
  pipeline: GPUComputePipeline,
  op: string,
  x: TensorType,
  weightShape: readonly number[] | null,
  attrs: WindowAttrs,
  inputs: readonly Tensor[],
  out: TensorType,
  total: number,
): Tensor {
  const result = allocGpu(gpu, out);
  launch(gpu, pipeline, [...inputs, result], windowParams(op, x, weightShape, attrs, total), total, op);
  return result;
}

/**
 * The last uniform block made for each attrs object, with the shapes it was made for: a graph step passes the same
 * attrs, shapes and total on every run, so its block is made once.
 */
const lastParams = new WeakMap<
  WindowAttrs,
  { op: string; x: readonly number[]; w: readonly number[] | null; total: number; data: Uint32Array }
>();

function windowParams(
  op: string,
  x: TensorType,
  weightShape: readonly number[] | null,
  attrs: WindowAttrs,
  total: number,
): Uint32Array {
  const m = lastParams.get(attrs);
  if (
    m &&
    m.op === op &&
    m.total === total &&
    shapesEqual(m.x, x.shape) &&
    (m.w === weightShape || (m.w !== null && weightShape !== null && shapesEqual(m.w, weightShape)))
  )
    return m.data;
  const kernel = weightShape ? weightShape.slice(2) : attrs.kernel!;
  const g = window2d(op, x.shape, kernel, attrs.stride, attrs.padding, attrs.dilation ?? [1, 1]);
  const [, , pb, pr] = padding4(op, attrs.padding);
  const p = new Params();
  for (const v of [...x.shape, weightShape?.[0] ?? x.shape[1]!, attrs.groups ?? 1]) p.u32(v);
  for (const v of [
    g.kh,
    g.kw,
    g.sh,
    g.sw,
    g.dh,
    g.dw,
    g.padTop,
    g.padLeft,
    g.oh,
    g.ow,
    pb,
    pr,
    attrs.count_include_pad ? 1 : 0,
    total,
  ])
    p.u32(v);
  const data = p.data(WORDS);
  lastParams.set(attrs, { op, x: x.shape, w: weightShape, total, data });
  return data;
}

export const sizeOfType = (t: TensorType) => sizeOf(t.shape);
