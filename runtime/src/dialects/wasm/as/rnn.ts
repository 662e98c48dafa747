// Gate nonlinearities and state updates of the wasm LSTM and GRU kernels (runtime/src/dialects/wasm/kernels/lstm.ts,
// gru.ts) in f32x4: one pass over a batch entry's gate row per step. Pointers are byte addresses of f32 rows.

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
    const cj = f32x4.add(f32x4.mul(vsigmoid_f32(af), v128.load(c + o)), f32x4.mul(vsigmoid_f32(ai), vtanh_f32(ac)));
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
