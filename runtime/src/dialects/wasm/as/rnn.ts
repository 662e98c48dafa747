// Gate nonlinearities and state updates of the wasm LSTM and GRU kernels (runtime/src/dialects/wasm/kernels/lstm.ts,
// gru.ts) in f32x4: one pass over a batch entry's gate row per step. Pointers are byte addresses of f32 rows.

import { madd } from './madd';
import { vsigmoid_f32, vtanh_f32 } from './vmath';

@inline
function sigmoid1(x: f32): f32 {
  return f32x4.extract_lane(vsigmoid_f32(f32x4.splat(x)), 0);
}

@inline
function tanh1(x: f32): f32 {
  return f32x4.extract_lane(vtanh_f32(f32x4.splat(x)), 0);
}

/**
 * One LSTM step of one batch entry: pre-activations a = gates + xw + bias for the gates (i, o, f, c), each H wide;
 * c ← σ(f)·c + σ(i)·tanh(c̃), h ← σ(o)·tanh(c), and h also written to y.
 */
export function lstm_cell_f32(gates: usize, xw: usize, bias: usize, c: usize, h: usize, y: usize, H: i32): void {
  const row = <usize>H << 2;
  let j: i32 = 0;
  for (; j + 4 <= H; j += 4) {
    const o = <usize>j << 2;
    const ai = f32x4.add(f32x4.add(v128.load(gates + o), v128.load(xw + o)), v128.load(bias + o));
    const ao = f32x4.add(f32x4.add(v128.load(gates + row + o), v128.load(xw + row + o)), v128.load(bias + row + o));
    const af = f32x4.add(
      f32x4.add(v128.load(gates + 2 * row + o), v128.load(xw + 2 * row + o)),
      v128.load(bias + 2 * row + o),
    );
    const ac = f32x4.add(
      f32x4.add(v128.load(gates + 3 * row + o), v128.load(xw + 3 * row + o)),
      v128.load(bias + 3 * row + o),
    );
    const cj = madd(vsigmoid_f32(ai), vtanh_f32(ac), f32x4.mul(vsigmoid_f32(af), v128.load(c + o)));
    v128.store(c + o, cj);
    const hj = f32x4.mul(vsigmoid_f32(ao), vtanh_f32(cj));
    v128.store(h + o, hj);
    v128.store(y + o, hj);
  }
  for (; j < H; j++) {
    const o = <usize>j << 2;
    const ai = load<f32>(gates + o) + load<f32>(xw + o) + load<f32>(bias + o);
    const ao = load<f32>(gates + row + o) + load<f32>(xw + row + o) + load<f32>(bias + row + o);
    const af = load<f32>(gates + 2 * row + o) + load<f32>(xw + 2 * row + o) + load<f32>(bias + 2 * row + o);
    const ac = load<f32>(gates + 3 * row + o) + load<f32>(xw + 3 * row + o) + load<f32>(bias + 3 * row + o);
    const cj = sigmoid1(af) * load<f32>(c + o) + sigmoid1(ai) * tanh1(ac);
    store<f32>(c + o, cj);
    const hj = sigmoid1(ao) * tanh1(cj);
    store<f32>(h + o, hj);
    store<f32>(y + o, hj);
  }
}

/**
 * R (rows × cols: a block of gate rows, each H = cols wide) to Rᵀ in panels, once per direction outside the step loop:
 * panel b holds columns 8b … 8b + 7 of Rᵀ (rows 8b … of R) for all `cols` of its rows, 8 floats a row, one after
 * another; when rows leaves 4 over, the last panel is 4 wide. rnn_step_f32 then reads each panel front to back.
 * rows is a multiple of 4. 4×4 blocks through registers (four row loads, eight shuffles, four stores); the columns of R
 * past a multiple of 4 one element at a time. (Element by element throughout, R of 512×128 took 0.15 ms, a tenth of
 * an LSTM call at T = 64.)
 */
export function rnn_pack_f32(src: usize, dst: usize, rows: i32, cols: i32): void {
  const sRow = <usize>cols << 2;
  const c4 = cols & ~3;
  for (let i = 0; i < rows; i += 4) {
    // Rows i … i + 3 of R are columns of one panel: its first or second half, or the whole of a last 4-wide panel.
    const wide: usize = (i & ~7) + 8 <= rows ? 8 : 4;
    const step = wide << 2;
    const q = dst + ((<usize>(i & ~7) * <usize>cols + <usize>(i & 7)) << 2);
    const p = src + <usize>i * sRow;
    for (let j = 0; j < c4; j += 4) {
      const a = v128.load(p + (<usize>j << 2));
      const b = v128.load(p + sRow + (<usize>j << 2));
      const c = v128.load(p + 2 * sRow + (<usize>j << 2));
      const e = v128.load(p + 3 * sRow + (<usize>j << 2));
      // Interleave rows pairwise (a0 b0 a1 b1 …), then take halves: each output vector is one column of the block.
      const ab0 = i32x4.shuffle(a, b, 0, 4, 1, 5);
      const ab1 = i32x4.shuffle(a, b, 2, 6, 3, 7);
      const ce0 = i32x4.shuffle(c, e, 0, 4, 1, 5);
      const ce1 = i32x4.shuffle(c, e, 2, 6, 3, 7);
      const o = q + <usize>j * step;
      v128.store(o, i32x4.shuffle(ab0, ce0, 0, 1, 4, 5));
      v128.store(o + step, i32x4.shuffle(ab0, ce0, 2, 3, 6, 7));
      v128.store(o + 2 * step, i32x4.shuffle(ab1, ce1, 0, 1, 4, 5));
      v128.store(o + 3 * step, i32x4.shuffle(ab1, ce1, 2, 3, 6, 7));
    }
    for (let j = c4; j < cols; j++)
      for (let r = 0; r < 4; r++)
        store<f32>(q + <usize>j * step + (<usize>r << 2), load<f32>(p + <usize>r * sRow + (<usize>j << 2)));
  }
}

/**
 * out[B×G] = h[B×H] · Rᵀ[H×G], Rᵀ in rnn_pack_f32's panels (G a multiple of 4). Four batch rows at a time share each
 * load of a panel: 8 columns in a 4×8 register tile (the matrix product's), then a last 4-wide panel; so Rᵀ streams
 * through once per four rows, each panel front to back (a batch of 4 reads it once a step, where a row at a time read
 * it 4 times: 28 µs a step at B = 4, H = 128 before, about half after). Leftover rows go one at a time, four panels
 * (32 columns) in eight accumulators, then a panel at a time. Every element sums over k in order, whichever path
 * computes it. (Rᵀ as plain rows, which the 8-column walk read one row stride apart, took 1.07–1.16× as long per
 * step, 1.16 at H = 256, and needed its rows padded apart at strides that are multiples of 256 bytes.)
 */
export function rnn_step_f32(h: usize, rt: usize, out: usize, B: i32, H: i32, G: i32): void {
  const grow = <usize>G << 2;
  const hrow = <usize>H << 2;
  // Bytes of one 8-wide panel; a panel starting at column g begins g·H floats in.
  const panel = <usize>H << 5;
  const g8 = G & ~7;
  let n = 0;
  for (; n + 4 <= B; n += 4) {
    const h0 = h + <usize>n * hrow;
    const o0 = out + <usize>n * grow;
    let p = rt;
    for (let g: i32 = 0; g < g8; g += 8) {
      let hk = h0;
      const end = p + panel;
      let c00 = f32x4.splat(0), c01 = f32x4.splat(0), c10 = f32x4.splat(0), c11 = f32x4.splat(0);
      let c20 = f32x4.splat(0), c21 = f32x4.splat(0), c30 = f32x4.splat(0), c31 = f32x4.splat(0);
      for (; p < end; p += 32) {
        const b0 = v128.load(p);
        const b1 = v128.load(p, 16);
        let s = v128.load32_splat(hk);
        c00 = madd(s, b0, c00);
        c01 = madd(s, b1, c01);
        s = v128.load32_splat(hk + hrow);
        c10 = madd(s, b0, c10);
        c11 = madd(s, b1, c11);
        s = v128.load32_splat(hk + 2 * hrow);
        c20 = madd(s, b0, c20);
        c21 = madd(s, b1, c21);
        s = v128.load32_splat(hk + 3 * hrow);
        c30 = madd(s, b0, c30);
        c31 = madd(s, b1, c31);
        hk += 4;
      }
      const o = o0 + (<usize>g << 2);
      v128.store(o, c00);
      v128.store(o, c01, 16);
      v128.store(o + grow, c10);
      v128.store(o + grow, c11, 16);
      v128.store(o + 2 * grow, c20);
      v128.store(o + 2 * grow, c21, 16);
      v128.store(o + 3 * grow, c30);
      v128.store(o + 3 * grow, c31, 16);
    }
    if (g8 < G) {
      let hk = h0;
      const end = p + (<usize>H << 4);
      let c0 = f32x4.splat(0), c1 = f32x4.splat(0), c2 = f32x4.splat(0), c3 = f32x4.splat(0);
      for (; p < end; p += 16) {
        const b0 = v128.load(p);
        c0 = madd(v128.load32_splat(hk), b0, c0);
        c1 = madd(v128.load32_splat(hk + hrow), b0, c1);
        c2 = madd(v128.load32_splat(hk + 2 * hrow), b0, c2);
        c3 = madd(v128.load32_splat(hk + 3 * hrow), b0, c3);
        hk += 4;
      }
      const o = o0 + (<usize>g8 << 2);
      v128.store(o, c0);
      v128.store(o + grow, c1);
      v128.store(o + 2 * grow, c2);
      v128.store(o + 3 * grow, c3);
    }
  }
  for (; n < B; n++) {
    const hn = h + <usize>n * hrow;
    const on = out + <usize>n * grow;
    let g: i32 = 0;
    for (; g + 32 <= g8; g += 32) {
      let p = rt + <usize>g * hrow;
      const end = p + panel;
      let hk = hn;
      let a0 = f32x4.splat(0), a1 = f32x4.splat(0), a2 = f32x4.splat(0), a3 = f32x4.splat(0);
      let a4 = f32x4.splat(0), a5 = f32x4.splat(0), a6 = f32x4.splat(0), a7 = f32x4.splat(0);
      for (; p < end; p += 32) {
        const s = v128.load32_splat(hk);
        a0 = madd(s, v128.load(p), a0);
        a1 = madd(s, v128.load(p, 16), a1);
        a2 = madd(s, v128.load(p + panel), a2);
        a3 = madd(s, v128.load(p + panel, 16), a3);
        a4 = madd(s, v128.load(p + 2 * panel), a4);
        a5 = madd(s, v128.load(p + 2 * panel, 16), a5);
        a6 = madd(s, v128.load(p + 3 * panel), a6);
        a7 = madd(s, v128.load(p + 3 * panel, 16), a7);
        hk += 4;
      }
      const o = on + (<usize>g << 2);
      v128.store(o, a0);
      v128.store(o, a1, 16);
      v128.store(o, a2, 32);
      v128.store(o, a3, 48);
      v128.store(o, a4, 64);
      v128.store(o, a5, 80);
      v128.store(o, a6, 96);
      v128.store(o, a7, 112);
    }
    for (; g < G; g += 4) {
      // One 4-column half of an 8-wide panel, or the last 4-wide panel: its rows are 32 or 16 bytes apart.
      const wide: usize = g < g8 ? 32 : 16;
      let p = rt + <usize>(g & ~7) * hrow + (<usize>(g & 7) << 2);
      let a = f32x4.splat(0);
      for (let k = 0; k < H; k++) {
        a = madd(v128.load32_splat(hn + (<usize>k << 2)), v128.load(p), a);
        p += wide;
      }
      v128.store(on + (<usize>g << 2), a);
    }
  }
}

/**
 * The reset gate's product input of one GRU step for one batch entry (linear_before_reset = 0): rh = σ(a)·h with
 * a = gates + xw + bias, all H wide (the r blocks of the gate rows and of the combined bias).
 */
export function gru_reset_f32(gates: usize, xw: usize, bias: usize, h: usize, rh: usize, H: i32): void {
  let j: i32 = 0;
  for (; j + 4 <= H; j += 4) {
    const o = <usize>j << 2;
    const a = f32x4.add(f32x4.add(v128.load(gates + o), v128.load(xw + o)), v128.load(bias + o));
    v128.store(rh + o, f32x4.mul(vsigmoid_f32(a), v128.load(h + o)));
  }
  for (; j < H; j++) {
    const o = <usize>j << 2;
    store<f32>(rh + o, sigmoid1(load<f32>(gates + o) + load<f32>(xw + o) + load<f32>(bias + o)) * load<f32>(h + o));
  }
}

/**
 * One GRU step of one batch entry. gates holds h·R[z|r]ᵀ (and h·Rhᵀ after them with linear_before_reset), xw the
 * input side [z|r|h], bias 4H floats [Wbz+Rbz | Wbr+Rbr | Wbh | Rbh]. rec is h·Rhᵀ (linear_before_reset, scaled here by
 * the reset gate) or (r⊙h)·Rhᵀ. z = σ(·), ĥ = tanh(xw_h + Wbh + recurrent + …), h ← (1 − z)·ĥ + z·h, also written to y.
 */
export function gru_cell_f32(
  gates: usize,
  xw: usize,
  bias: usize,
  rec: usize,
  h: usize,
  y: usize,
  H: i32,
  linearBeforeReset: bool,
): void {
  const row = <usize>H << 2;
  const one = f32x4.splat(1);
  let j: i32 = 0;
  for (; j + 4 <= H; j += 4) {
    const o = <usize>j << 2;
    const z = vsigmoid_f32(f32x4.add(f32x4.add(v128.load(gates + o), v128.load(xw + o)), v128.load(bias + o)));
    let recurrent = f32x4.add(v128.load(rec + o), v128.load(bias + 3 * row + o));
    if (linearBeforeReset) {
      const ar = f32x4.add(f32x4.add(v128.load(gates + row + o), v128.load(xw + row + o)), v128.load(bias + row + o));
      recurrent = f32x4.mul(vsigmoid_f32(ar), recurrent);
    }
    const c = vtanh_f32(f32x4.add(f32x4.add(v128.load(xw + 2 * row + o), v128.load(bias + 2 * row + o)), recurrent));
    const hj = madd(z, v128.load(h + o), f32x4.mul(f32x4.sub(one, z), c));
    v128.store(h + o, hj);
    v128.store(y + o, hj);
  }
  for (; j < H; j++) {
    const o = <usize>j << 2;
    const z = sigmoid1(load<f32>(gates + o) + load<f32>(xw + o) + load<f32>(bias + o));
    let recurrent = load<f32>(rec + o) + load<f32>(bias + 3 * row + o);
    if (linearBeforeReset)
      recurrent *= sigmoid1(load<f32>(gates + row + o) + load<f32>(xw + row + o) + load<f32>(bias + row + o));
    const c = tanh1(load<f32>(xw + 2 * row + o) + load<f32>(bias + 2 * row + o) + recurrent);
    const hj = (<f32>1 - z) * c + z * load<f32>(h + o);
    store<f32>(h + o, hj);
    store<f32>(y + o, hj);
  }
}
