// Shared pieces of the wasm LSTM and GRU kernels (kernels/lstm.ts, kernels/gru.ts): the gate products run as the
// module's SIMD matrix product (the input side of every step at once, then h · Rᵀ once per step for the whole batch);
// the gate activations and state updates are a JavaScript loop over views of wasm memory.

import type { Tensor } from '../../tensor.ts';
import { callArena, wasm, type Arena } from './module.ts';
import { allocFor, inPtr, WIDTH_ARRAY, type Width } from './support.ts';

const BYTES = { f32: 4, f64: 8 } as const;
/** Up to this many rows, a product against R runs row by row (see productNt). */
const ROWS_IN_PLACE = 16;

/** One call's wasm memory for an RNN kernel: inputs placed, scratch lent, products by pointer. */
export class RnnArena {
  readonly arena: Arena = callArena();
  private readonly scratch: number;
  readonly bytes: number;

  constructor(readonly width: Width) {
    this.bytes = BYTES[width];
    this.scratch = width === 'f32' ? this.arena.alloc(wasm().matmul_scratch_bytes()) : 0;
  }

  input(t: Tensor): number {
    return inPtr(this.arena, this.width, t);
  }

  alloc(n: number): number {
    return allocFor(this.arena, this.width, n);
  }

  /** Take views only after the last allocation: growing memory detaches them. */
  view(p: number, n: number): Float32Array | Float64Array {
    return this.arena.view(WIDTH_ARRAY[this.width], p, n);
  }

  /** c[m×n] = a[m×k] (rows of k, contiguous) · b[n×k]ᵀ (b's rows contiguous, the layout of ONNX's W and R). */
  productNt(a: number, b: number, c: number, m: number, n: number, k: number): void {
    const w = wasm();
    if (this.width === 'f64') return w.matmul_f64(a, k, 1, b, 1, k, c, m, n, k);
    // A few rows (the batch of one step against R): one in-place product per row, since packing R's 4·H rows on every
    // step would cost more than the product itself.
    if (m <= ROWS_IN_PLACE) {
      for (let i = 0; i < m; i++)
        w.matmul_f32(a + i * k * this.bytes, k, 1, b, 1, k, c + i * n * this.bytes, 1, n, k, this.scratch);
      return;
    }
    w.matmul_f32(a, k, 1, b, 1, k, c, m, n, k, this.scratch);
  }
}

type Ptr = number;
/** The cell exports of as/rnn.ts (f32 only), beside the module's typed exports. */
interface RnnExports {
  lstm_cell_f32(gates: Ptr, xw: Ptr, bias: Ptr, c: Ptr, h: Ptr, y: Ptr, H: number): void;
  rnn_pack_f32(src: Ptr, dst: Ptr, rows: number, cols: number): void;
  rnn_step_f32(h: Ptr, rt: Ptr, out: Ptr, B: number, H: number, G: number): void;
  gru_reset_f32(gates: Ptr, xw: Ptr, bias: Ptr, h: Ptr, rh: Ptr, H: number): void;
  gru_cell_f32(gates: Ptr, xw: Ptr, bias: Ptr, rec: Ptr, h: Ptr, y: Ptr, H: number, linearBeforeReset: boolean): void;
}
export const rnnCells = (): RnnExports => wasm() as unknown as RnnExports;

/** Each batch entry's length from sequence_lens' values (checked by the CPU helper's rule), or T. */
export { sequenceLengths } from '../cpu/rnn.ts';
