// Wasm kernel of raf.op.gru (specs/nn/gru.yaml): per direction, x · Wᵀ for every step at once and, once per step for
// the whole batch, h · R[z|r]ᵀ (with linear_before_reset h · Rᵀ for all three gates) and otherwise (r ⊙ h) · Rhᵀ, on
// the SIMD matrix product; in float32 the gates (z, r, h) and the state update run in f32x4 (as/rnn.ts gru_cell_f32,
// one call per batch entry and step), in float64 as a loop over views of wasm memory.
// raf-op-ignores: hidden_size (the output type, checked against r by the rule, already carries it)

import type { GruKernel } from '../../../generated/bridge/gru.ts';
import { sigmoid } from '../../cpu/rnn.ts';
import { RnnArena, rnnCells, sequenceLengths } from '../rnn.ts';
import { outBlock, widthOf } from '../support.ts';

export const gruWasm: GruKernel = (
  { x, w, r, b, sequence_lens, initial_h },
  { direction, linear_before_reset },
  outs,
) => {
  const mem = new RnnArena(widthOf(outs[0]!.dtype)!);
  const [T, dirs, B, H] = outs[0]!.shape as [number, number, number, number];
  const I = x.shape[2]!;
  const G = 3 * H;
  // Gates the first per-step product covers: z and r, or all three when the reset gate scales h · Rhᵀ.
  const first = linear_before_reset ? G : 2 * H;
  const lens = sequenceLengths('gru', sequence_lens, T, B);
  const [px, pw, pr] = [mem.input(x), mem.input(w), mem.input(r)];
  const [pxw, pg, ph, prh, pc] = [
    mem.alloc(T * B * G),
    mem.alloc(B * first),
    mem.alloc(B * H),
    mem.alloc(B * H),
    mem.alloc(B * H),
  ];
  // f32 over several steps: R's gate blocks transposed into panels once per direction, each step's products as SIMD
  // row-times-matrix calls (as/rnn.ts) instead of per-row products against R.
  const packed = mem.width === 'f32' && T > 1 && H % 4 === 0;
  const [pta, pth] = packed ? [mem.alloc(H * first), linear_before_reset ? 0 : mem.alloc(H * H)] : [0, 0];
  // float32: the cells read one direction's biases as [Wbz+Rbz | Wbr+Rbr | Wbh | Rbh].
  const cells = mem.width === 'f32';
  const pb = cells ? mem.alloc(4 * H) : 0;
  const cell = rnnCells();
  const y = outBlock(mem.arena, mem.width, outs[0]!);
  const yh = outBlock(mem.arena, mem.width, outs[1]!);
  const bv = b ? b.dataSync() : null;
  const h0 = initial_h ? initial_h.dataSync() : null;
  const [xw, gates, h, rh, cand] = [
    mem.view(pxw, T * B * G),
    mem.view(pg, B * first),
    mem.view(ph, B * H),
    mem.view(prh, B * H),
    mem.view(pc, B * H),
  ];
  const [yv, yhv] = [mem.view(y.ptr, T * dirs * B * H), mem.view(yh.ptr, dirs * B * H)];
  yv.fill(0);
  const cellBias = cells ? mem.view(pb, 4 * H) : null;
  const z = new Float64Array(H);
  const rg = new Float64Array(H);
  for (let d = 0; d < dirs; d++) {
    const reverse = direction === 'reverse' || d === 1;
    // Biases of this direction (zeros without b): w's, and r's.
    const wb = new Float64Array(G);
    const rb = new Float64Array(G);
    if (bv)
      for (let g = 0; g < G; g++) {
        wb[g] = bv[d * 2 * G + g]!;
        rb[g] = bv[d * 2 * G + G + g]!;
      }
    if (cellBias)
      for (let j = 0; j < H; j++) {
        cellBias[j] = wb[j]! + rb[j]!;
        cellBias[H + j] = wb[H + j]! + rb[H + j]!;
        cellBias[2 * H + j] = wb[2 * H + j]!;
        cellBias[3 * H + j] = rb[2 * H + j]!;
      }
    mem.productNt(px, pw + d * G * I * mem.bytes, pxw, T * B, G, I);
    const s0 = d * B * H;
    for (let k = 0; k < B * H; k++) h[k] = h0 ? h0[s0 + k]! : 0;
    const prd = pr + d * G * H * mem.bytes;
    const f = 4; // float32 bytes: the cells run in float32 only
    /** Step s of this direction in float32: the reset products (without linear_before_reset), then each entry's cell. */
    const gruCellsStep = (s: number): void => {
      const at = (n: number) => {
        const L = lens[n]!;
        return s < L ? (reverse ? L - 1 - s : s) : -1;
      };
      if (!linear_before_reset) {
        for (let n = 0; n < B; n++) {
          const t = at(n);
          if (t >= 0)
            cell.gru_reset_f32(
              pg + (n * first + H) * f,
              pxw + ((t * B + n) * G + H) * f,
              pb + H * f,
              ph + n * H * f,
              prh + n * H * f,
              H,
            );
        }
        if (packed) cell.rnn_step_f32(prh, pth, pc, B, H, H);
        else mem.productNt(prh, prd + 2 * H * H * f, pc, B, H, H);
      }
      for (let n = 0; n < B; n++) {
        const t = at(n);
        if (t < 0) continue;
        const rec = linear_before_reset ? pg + (n * first + 2 * H) * f : pc + n * H * f;
        const yo = ((t * dirs + d) * B + n) * H;
        cell.gru_cell_f32(
          pg + n * first * f,
          pxw + (t * B + n) * G * f,
          pb,
          rec,
          ph + n * H * f,
          y.ptr + yo * f,
          H,
          linear_before_reset,
        );
      }
    };
    if (packed) {
      cell.rnn_pack_f32(prd, pta, first, H);
      if (pth) cell.rnn_pack_f32(prd + 2 * H * H * mem.bytes, pth, H, H);
    }
    for (let s = 0; s < T; s++) {
      if (packed) cell.rnn_step_f32(ph, pta, pg, B, H, first);
      else mem.productNt(ph, prd, pg, B, first, H);
      if (cells) {
        gruCellsStep(s);
        continue;
      }
      if (!linear_before_reset) {
        // r ⊙ h first, for every batch entry, then its product with Rh.
        for (let n = 0; n < B; n++) {
          const L = lens[n]!;
          if (s >= L) continue;
          const [go, xo, ho] = [n * first, ((reverse ? L - 1 - s : s) * B + n) * G, n * H];
          for (let j = 0; j < H; j++) {
            const rj = sigmoid(gates[go + H + j]! + xw[xo + H + j]! + wb[H + j]! + rb[H + j]!);
            rh[ho + j] = rj * h[ho + j]!;
          }
        }
        if (packed) cell.rnn_step_f32(prh, pth, pc, B, H, H);
        else mem.productNt(prh, prd + 2 * H * H * mem.bytes, pc, B, H, H);
      }
      for (let n = 0; n < B; n++) {
        const L = lens[n]!;
        if (s >= L) continue;
        const t = reverse ? L - 1 - s : s;
        const [go, xo, ho, yo] = [n * first, (t * B + n) * G, n * H, ((t * dirs + d) * B + n) * H];
        for (let j = 0; j < H; j++) {
          z[j] = sigmoid(gates[go + j]! + xw[xo + j]! + wb[j]! + rb[j]!);
          rg[j] = sigmoid(gates[go + H + j]! + xw[xo + H + j]! + wb[H + j]! + rb[H + j]!);
        }
        for (let j = 0; j < H; j++) {
          const recurrent = linear_before_reset
            ? rg[j]! * (gates[go + 2 * H + j]! + rb[2 * H + j]!)
            : cand[ho + j]! + rb[2 * H + j]!;
          const c = Math.tanh(xw[xo + 2 * H + j]! + wb[2 * H + j]! + recurrent);
          const hj = (1 - z[j]!) * c + z[j]! * h[ho + j]!;
          h[ho + j] = hj;
          yv[yo + j] = hj;
        }
      }
    }
    for (let k = 0; k < B * H; k++) yhv[s0 + k] = h[k]!;
  }
  return [y.tensor(), yh.tensor()];
};
