// Typed entry points of the optimizer kernels in the wasm module (as/optim.ts), shared by kernels/sgd.ts and adam.ts.

import { wasm } from './module.ts';

type Ptr = number;

export interface OptimExports {
  sgd_f32: SgdFn;
  sgd_f64: SgdFn;
  adam_f32: AdamFn;
  adam_f64: AdamFn;
  lans_f32: LansFn;
  lans_f64: LansFn;
}

type SgdFn = (
  p: Ptr,
  g: Ptr,
  buf: Ptr,
  np: Ptr,
  nb: Ptr,
  n: number,
  lr: number,
  momentum: number,
  dampening: number,
  weightDecay: number,
  nesterov: number,
  first: number,
) => void;

type AdamFn = (
  p: Ptr,
  g: Ptr,
  m: Ptr,
  v: Ptr,
  mx: Ptr,
  np: Ptr,
  nm: Ptr,
  nv: Ptr,
  nmx: Ptr,
  n: number,
  beta1: number,
  beta2: number,
  eps: number,
  stepSize: number,
  bc2Sqrt: number,
  decay: number,
  l2: number,
  amsgrad: number,
) => void;

type LansFn = (
  p: Ptr,
  g: Ptr,
  m: Ptr,
  v: Ptr,
  np: Ptr,
  nm: Ptr,
  nv: Ptr,
  u: Ptr,
  q: Ptr,
  n: number,
  lr: number,
  beta1: number,
  beta2: number,
  eps: number,
  weightDecay: number,
  c1: number,
  c2: number,
  flags: number,
) => void;

export function optimKernels(): OptimExports {
  return wasm() as unknown as OptimExports;
}
