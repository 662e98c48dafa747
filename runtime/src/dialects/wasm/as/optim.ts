// Optimizer updates for the wasm dialect (AssemblyScript): torch.optim's SGD and Adam rules and RAF's LANS, computed
// in f64 and stored in the parameter's width (one body per rule for both widths: rd/wr load and store either). A
// moment is read back after it is stored, so an f32 step uses the f32 moment as torch does, and the results equal
// the CPU dialect's bit for bit.

/**
 * SGD (specs/optim/sgd.yaml) over n elements of `shift` = 2 (f32) or 3 (f64) bytes each. first: 1 on step 1 (the
 * buffer starts as the step's direction).
 */
function sgd_any(
  shift: i32,
  p: usize,
  g: usize,
  buf: usize,
  np: usize,
  nb: usize,
  n: i32,
  lr: f64,
  momentum: f64,
  dampening: f64,
  weightDecay: f64,
  nesterov: i32,
  first: i32,
): void {
  for (let i = 0; i < n; i++) {
    const o = (<usize>i) << shift;
    const pi = rd(p + o, shift);
    let d = rd(g + o, shift) + weightDecay * pi;
    if (momentum != 0) {
      wr(nb + o, shift, first ? d : momentum * rd(buf + o, shift) + (1 - dampening) * d);
      const b = rd(nb + o, shift);
      d = nesterov ? d + momentum * b : b;
    } else {
      wr(nb + o, shift, d);
    }
    wr(np + o, shift, pi - lr * d);
  }
}

export function sgd_f32(
  p: usize,
  g: usize,
  buf: usize,
  np: usize,
  nb: usize,
  n: i32,
  lr: f64,
  momentum: f64,
  dampening: f64,
  weightDecay: f64,
  nesterov: i32,
  first: i32,
): void {
  sgd_any(2, p, g, buf, np, nb, n, lr, momentum, dampening, weightDecay, nesterov, first);
}

export function sgd_f64(
  p: usize,
  g: usize,
  buf: usize,
  np: usize,
  nb: usize,
  n: i32,
  lr: f64,
  momentum: f64,
  dampening: f64,
  weightDecay: f64,
  nesterov: i32,
  first: i32,
): void {
  sgd_any(3, p, g, buf, np, nb, n, lr, momentum, dampening, weightDecay, nesterov, first);
}

/**
 * Adam / AdamW (specs/optim/adam.yaml). stepSize = lr / (1 − beta1^t), bc2Sqrt = sqrt(1 − beta2^t), decay = 1 − lr ·
 * weight_decay for AdamW (else 1), l2 = weight_decay for Adam (else 0): computed once by the caller.
 */
function adam_any(
  shift: i32,
  p: usize,
  g: usize,
  m: usize,
  v: usize,
  mx: usize,
  np: usize,
  nm: usize,
  nv: usize,
  nmx: usize,
  n: i32,
  beta1: f64,
  beta2: f64,
  eps: f64,
  stepSize: f64,
  bc2Sqrt: f64,
  decay: f64,
  l2: f64,
  amsgrad: i32,
): void {
  for (let i = 0; i < n; i++) {
    const o = (<usize>i) << shift;
    const p0 = rd(p + o, shift);
    const gi = rd(g + o, shift) + l2 * p0;
    wr(nm + o, shift, beta1 * rd(m + o, shift) + (1 - beta1) * gi);
    wr(nv + o, shift, beta2 * rd(v + o, shift) + (1 - beta2) * gi * gi);
    const vi = rd(nv + o, shift);
    const mo = rd(mx + o, shift);
    // The running maximum is kept whether or not amsgrad reads it; NaN propagates as in the CPU kernel.
    wr(nmx + o, shift, vi > mo || isNaN(vi) ? vi : mo);
    const denom = Math.sqrt(amsgrad ? rd(nmx + o, shift) : vi) / bc2Sqrt + eps;
    wr(np + o, shift, p0 * decay - stepSize * (rd(nm + o, shift) / denom));
  }
}

export function adam_f32(
  p: usize,
  g: usize,
  m: usize,
  v: usize,
  mx: usize,
  np: usize,
  nm: usize,
  nv: usize,
  nmx: usize,
  n: i32,
  beta1: f64,
  beta2: f64,
  eps: f64,
  stepSize: f64,
  bc2Sqrt: f64,
  decay: f64,
  l2: f64,
  amsgrad: i32,
): void {
  adam_any(2, p, g, m, v, mx, np, nm, nv, nmx, n, beta1, beta2, eps, stepSize, bc2Sqrt, decay, l2, amsgrad);
}

export function adam_f64(
  p: usize,
  g: usize,
  m: usize,
  v: usize,
  mx: usize,
  np: usize,
  nm: usize,
  nv: usize,
  nmx: usize,
  n: i32,
  beta1: f64,
  beta2: f64,
  eps: f64,
  stepSize: f64,
  bc2Sqrt: f64,
  decay: f64,
  l2: f64,
  amsgrad: i32,
): void {
  adam_any(3, p, g, m, v, mx, np, nm, nv, nmx, n, beta1, beta2, eps, stepSize, bc2Sqrt, decay, l2, amsgrad);
}

/**
 * LANS (specs/optim/lans.yaml) over one parameter of n elements of `shift` = 2 (f32) or 3 (f64) bytes each: the
 * whole-tensor norms in f64, the moments stored then read back, the two directions kept in f64 scratch (u, q).
 * flags: 1 bias_correction, 2 grad_averaging, 4 mode (decoupled), 8 normalize_grad. The CPU kernel's order of
 * operations, so results equal it bit for bit.
 */
function lans_any(
  shift: i32,
  p: usize,
  g: usize,
  m: usize,
  v: usize,
  np: usize,
  nm: usize,
  nv: usize,
  u: usize,
  q: usize,
  n: i32,
  lr: f64,
  beta1: f64,
  beta2: f64,
  eps: f64,
  wd: f64,
  c1: f64,
  c2: f64,
  flags: i32,
): void {
  const mode = (flags & 4) != 0;
  const beta3 = (flags & 2) != 0 ? 1 - beta1 : 1;
  let g2: f64 = 0;
  let p2: f64 = 0;
  for (let i = 0; i < n; i++) {
    const o = (<usize>i) << shift;
    const gi = rd(g + o, shift);
    const pi = rd(p + o, shift);
    g2 += gi * gi;
    p2 += pi * pi;
  }
  const gNorm = Math.sqrt(g2);
  const pNorm = Math.sqrt(p2);
  const normalize = (flags & 8) != 0 && gNorm != 0;
  let u2: f64 = 0;
  let q2: f64 = 0;
  for (let i = 0; i < n; i++) {
    const o = (<usize>i) << shift;
    const pi = rd(p + o, shift);
    let s = normalize ? rd(g + o, shift) / (gNorm + eps) : rd(g + o, shift);
    if (!mode) s += wd * pi;
    wr(nm + o, shift, beta1 * rd(m + o, shift) + beta3 * s);
    wr(nv + o, shift, beta2 * rd(v + o, shift) + (1 - beta2) * s * s);
    const d = Math.sqrt(rd(nv + o, shift) / c2) + eps;
    const decay = mode ? wd * pi : 0;
    const ui = rd(nm + o, shift) / c1 / d + decay;
    const qi = s / d + decay;
    store<f64>(u + ((<usize>i) << 3), ui);
    store<f64>(q + ((<usize>i) << 3), qi);
    u2 += ui * ui;
    q2 += qi * qi;
  }
  const uNorm = Math.sqrt(u2);
  const qNorm = Math.sqrt(q2);
  const rm = beta1 * (uNorm != 0 && pNorm != 0 ? lr * (pNorm / uNorm) : lr);
  const rq = beta3 * (qNorm != 0 && pNorm != 0 ? lr * (pNorm / qNorm) : lr);
  for (let i = 0; i < n; i++) {
    const o = (<usize>i) << shift;
    const k = (<usize>i) << 3;
    wr(np + o, shift, rd(p + o, shift) - rm * load<f64>(u + k) - rq * load<f64>(q + k));
  }
}

function rd(a: usize, shift: i32): f64 {
  return shift == 2 ? <f64>load<f32>(a) : load<f64>(a);
}

function wr(a: usize, shift: i32, x: f64): void {
  if (shift == 2) store<f32>(a, <f32>x);
  else store<f64>(a, x);
}

export function lans_f32(
  p: usize,
  g: usize,
  m: usize,
  v: usize,
  np: usize,
  nm: usize,
  nv: usize,
  u: usize,
  q: usize,
  n: i32,
  lr: f64,
  beta1: f64,
  beta2: f64,
  eps: f64,
  wd: f64,
  c1: f64,
  c2: f64,
  flags: i32,
): void {
  lans_any(2, p, g, m, v, np, nm, nv, u, q, n, lr, beta1, beta2, eps, wd, c1, c2, flags);
}

export function lans_f64(
  p: usize,
  g: usize,
  m: usize,
  v: usize,
  np: usize,
  nm: usize,
  nv: usize,
  u: usize,
  q: usize,
  n: i32,
  lr: f64,
  beta1: f64,
  beta2: f64,
  eps: f64,
  wd: f64,
  c1: f64,
  c2: f64,
  flags: i32,
): void {
  lans_any(3, p, g, m, v, np, nm, nv, u, q, n, lr, beta1, beta2, eps, wd, c1, c2, flags);
}
