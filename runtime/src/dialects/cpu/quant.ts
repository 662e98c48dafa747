// Numerics the quantization kernels share (specs/quant/): ONNX's rounding, centred integer operands, and the exact
// integer matrix product behind MatMulInteger, QLinearMatMul, ConvInteger and QLinearConv.
//
// The integer product runs on the wasm dialect's float32 SIMD matrix product, and is exact: the operands are centred
// integers (|a - a_zero_point| <= 255, likewise b), so every product and every partial sum is an integer, and float32
// holds every integer up to 2^24 exactly. K is cut into chunks of at most 2^24 / (max|a| * max|b|) columns, so no
// partial sum of a chunk (in whatever order the product adds, fused or not) can leave that range; the chunks' exact
// sums add up in float64 (exact to 2^53) and wrap to int32 at the end, as int32 accumulation does. Without the wasm
// module (a page before initWasm) the same sums run in a JavaScript loop.

import { roundToFloat16 } from '../../dtype.ts';
import { matmulGeometry, matmulParamShape, type ConvGeometry, type MatmulGeometry } from '../../ops/quant.ts';
import { sizeOf, stridesOf, type Shape } from '../../shape.ts';
import { fromStorage, type Tensor, type TensorType } from '../../tensor.ts';
import { broadcastIndex } from './support.ts';
import { wasmMatrixProduct } from '../wasm/matmul.ts';
import {
  allocKeptBlock,
  callArena,
  freeKeptBlock,
  wasm,
  wasmUnavailable,
  type Arena,
  type KeptBlock,
} from '../wasm/module.ts';
import { inPtr, outBlock } from '../wasm/support.ts';

/** Round half to even, as ONNX's rounding (np.rint, std::nearbyint) does. */
export function roundHalfEven(v: number): number {
  const r = Math.round(v);
  return r - v === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** Rounds to a scale's dtype: the arithmetic ONNX does in float32 (or float16) scales. */
export function roundTo(dtype: string): (v: number) => number {
  return dtype === 'float16' ? roundToFloat16 : dtype === 'float32' ? Math.fround : (v: number) => v;
}

/** The largest integer float32 holds exactly, with every one below it. */
const F32_EXACT = 2 ** 24;

/** Whether the wasm module serves the products (loaded, or loadable now). */
function wasmReady(): boolean {
  try {
    return wasmUnavailable() === undefined;
  } catch {
    return false;
  }
}

/** Tests pin the JavaScript loop with this. */
let forceLoop = false;
export function setIntGemmLoop(on: boolean): void {
  forceLoop = on;
}

/**
 * out[i * n + j] += sum_p a[i * k + p] * b[p * n + j], exactly, for centred integer operands whose magnitudes are at
 * most maxA and maxB: a [m, k] and b [k, n] row-major float32 arrays (integers), out a float64 array of m × n sums.
 */
export function intGemm(
  a: Float32Array,
  b: Float32Array,
  m: number,
  k: number,
  n: number,
  maxA: number,
  maxB: number,
  out: Float64Array,
): void {
  if (m === 0 || n === 0 || k === 0) return;
  const bound = Math.max(1, maxA * maxB);
  const chunk = Math.max(1, Math.min(k, Math.floor(F32_EXACT / bound)));
  if (forceLoop || !wasmReady() || m * n * k < 4096) {
    loopGemm(a, b, m, k, n, out);
    return;
  }
  for (let p0 = 0; p0 < k; p0 += chunk) {
    const kc = Math.min(chunk, k - p0);
    let ac = a;
    let bc = b;
    if (kc !== k) {
      ac = new Float32Array(m * kc);
      for (let i = 0; i < m; i++) ac.set(a.subarray(i * k + p0, i * k + p0 + kc), i * kc);
      bc = b.subarray(p0 * n, (p0 + kc) * n);
    }
    const y = wasmMatrixProduct(
      fromStorage([m, kc], 'float32', ac),
      fromStorage([kc, n], 'float32', bc),
      { shape: [m, n], dtype: 'float32' },
      false,
      false,
    ).dataSync();
    for (let i = 0; i < m * n; i++) out[i]! += y[i]!;
  }
}

/** The same sums in JavaScript: i-p-j order over float64 rows (exact to 2^53). */
function loopGemm(a: Float32Array, b: Float32Array, m: number, k: number, n: number, out: Float64Array): void {
  const row = new Float64Array(n);
  for (let i = 0; i < m; i++) {
    row.fill(0);
    for (let p = 0; p < k; p++) {
      const av = a[i * k + p]!;
      if (av === 0) continue;
      const base = p * n;
      for (let j = 0; j < n; j++) row[j]! += av * b[base + j]!;
    }
    const o = i * n;
    for (let j = 0; j < n; j++) out[o + j]! += row[j]!;
  }
}

/** A weight's centred int16 columns in wasm memory (see int8Matmul), refilled when the heap starts over. */
interface PackedB {
  readonly zb: Tensor | null;
  readonly cols: Int16Array;
  readonly block: KeptBlock;
}
const packedB = new WeakMap<Tensor, PackedB>();
const packedFreed = new FinalizationRegistry<KeptBlock>((block) => freeKeptBlock(block));

type Rows = (src: number, m: number, k: number, signed: number, zero: number, dst: number, kp: number) => void;
type Gemm = (
  a: number,
  b: number,
  m: number,
  n: number,
  kp: number,
  y: number,
  ny: number,
  scale: number,
  sStep: number,
  bias: number,
  cStep: number,
) => void;

const isInt8 = (t: Tensor) => t.dtype === 'uint8' || t.dtype === 'int8';

/** An int8 product the wasm module can run: its extents and b's packed columns. */
interface Int8Product {
  readonly m: number;
  readonly n: number;
  readonly k: number;
  /** K padded to a multiple of 8. */
  readonly kp: number;
  readonly packed: PackedB;
}

/**
 * The product's extents and b's centred int16 columns (packed once per weight tensor), when the wasm integer product
 * serves it: 8-bit operands, a 2-D b, a per-tensor a_zero_point (b's per tensor or per column); null otherwise.
 */
function int8Product(op: string, a: Tensor, b: Tensor, za: Tensor | null, zb: Tensor | null): Int8Product | null {
  if (forceLoop || !isInt8(a) || !isInt8(b) || (za && (za.size !== 1 || !isInt8(za))) || (zb && !isInt8(zb)))
    return null;
  const g = matmulGeometry(op, a.shape, b.shape);
  if (g.b.length !== 2 || !wasmReady()) return null;
  const zbShape = zb ? matmulParamShape(op, 'b_zero_point', zb.shape, g, 'b') : [];
  const { k, n } = g;
  const m = n === 0 ? 0 : sizeOf(g.full) / n;
  const kp = Math.max(8, Math.ceil(k / 8) * 8);
  let packed = packedB.get(b);
  if (!packed || packed.zb !== zb) {
    const centredB = centred(b, zb, zbShape, g.b).values;
    const cols = new Int16Array(n * kp);
    for (let p = 0; p < k; p++) for (let j = 0; j < n; j++) cols[j * kp + p] = centredB[p * n + j]!;
    packed = { zb, cols, block: { base: -1, bytes: cols.byteLength } };
    packedB.set(b, packed);
    packedFreed.register(b, packed.block);
  }
  return { m, n, k, kp, packed };
}

/**
 * a's rows centred to int16 in wasm memory for the product, with b's packed columns there too (copied in when the
 * heap has none); the rows' address, or -1 when b's block cannot be allocated. Each step allocates before it takes a
 * view (allocating may grow memory, detaching views).
 */
function int8Operands(arena: Arena, a: Tensor, za: Tensor | null, p: Int8Product): number {
  const { m, k, kp, packed } = p;
  if (packed.block.base < 0) {
    if (!allocKeptBlock(packed.block)) return -1;
    new Int16Array(wasm().memory.buffer, packed.block.base, packed.cols.length).set(packed.cols);
  }
  const pa8 = arena.alloc(m * k);
  new Uint8Array(wasm().memory.buffer, pa8, m * k).set(a.dataSync() as Uint8Array | Int8Array);
  const pa = arena.alloc(m * kp * 2);
  const z = za ? za.dataSync()[0]! : 0;
  const w = wasm();
  (w['int8_rows_i16' as keyof typeof w] as unknown as Rows)(pa8, m, k, a.dtype === 'int8' ? 1 : 0, z, pa, kp);
  return pa;
}

function gemm(): Gemm {
  const w = wasm();
  return w['int8_gemm_i16' as keyof typeof w] as unknown as Gemm;
}

/**
 * MatMulInteger's int32 result on the wasm module's integer product (as/int8.ts), for 8-bit operands, a 2-D b and
 * a per-tensor a_zero_point (b's per tensor or per column), into `into` (g.full's size); false when the case or the
 * module does not allow it (integerMatmul then serves). Operands are centred to int16 rows along K (b once per
 * weight tensor, kept in wasm memory) and multiplied with int32 accumulators that wrap as int32 accumulation does.
 */
export function int8Matmul(
  op: string,
  a: Tensor,
  b: Tensor,
  za: Tensor | null,
  zb: Tensor | null,
  into: Int32Array,
): boolean {
  const p = int8Product(op, a, b, za, zb);
  if (!p) return false;
  const { m, n, kp } = p;
  if (m === 0 || n === 0) return true;
  const ny = Math.ceil(n / 4) * 4;
  const arena = callArena();
  const pa = int8Operands(arena, a, za, p);
  if (pa < 0) return false;
  const py = arena.alloc(m * ny * 4);
  gemm()(pa, p.packed.block.base, m, n, kp, py, ny, 0, 0, 0, 0);
  const y = new Int32Array(wasm().memory.buffer, py, m * ny);
  if (ny === n) into.set(y);
  else for (let i = 0; i < m; i++) into.set(y.subarray(i * ny, i * ny + n), i * n);
  return true;
}

/**
 * A quantized dense layer as one kernel: f32(f32(MatMulInteger(a, b, za, zb)) · scale) + bias, each step rounded to
 * float32 as Cast, Mul and Add round it (the int32 sums are exact, wrapped as int32 accumulation wraps), computed by
 * the integer product as it stores each row (as/int8.ts) into a float32 result that stays in wasm memory. scale and
 * bias are float32, of one value or one per column (n of them); bias may be absent. Null when the wasm product does
 * not serve the case (or n is not a multiple of 4): the caller then runs the ops one by one.
 */
export function int8Dense(
  a: Tensor,
  b: Tensor,
  za: Tensor | null,
  zb: Tensor | null,
  scale: Tensor,
  bias: Tensor | null,
  out: TensorType,
): Tensor | null {
  const p = int8Product('matmul_integer', a, b, za, zb);
  if (!p || p.m === 0 || p.n % 4 !== 0 || out.dtype !== 'float32') return null;
  const per = (t: Tensor) => (t.size === 1 ? 0 : t.size === p.n ? 1 : -1);
  const [sStep, cStep] = [per(scale), bias ? per(bias) : 0];
  if (sStep < 0 || cStep < 0 || scale.dtype !== 'float32' || (bias && bias.dtype !== 'float32')) return null;
  const arena = callArena();
  const pa = int8Operands(arena, a, za, p);
  if (pa < 0) return null;
  const ps = inPtr(arena, 'f32', scale);
  const pc = bias ? inPtr(arena, 'f32', bias) : 0;
  const y = outBlock(arena, 'f32', out);
  gemm()(pa, p.packed.block.base, p.m, p.n, p.kp, y.ptr, p.n, ps, sStep, pc, cStep);
  return y.tensor();
}

/** An int32 result from exact sums: wraps modulo 2^32, as int32 accumulation does. */
export function toInt32(sums: Float64Array, into: Int32Array): void {
  for (let i = 0; i < sums.length; i++) {
    const v = sums[i]!;
    into[i] = Math.abs(v) < 2 ** 31 ? v : Number(BigInt.asIntN(32, BigInt(v)));
  }
}

/** t's values minus its zero point (broadcast from `zpShape` to `shape`, t's shape or its promotion), and max |·|. */
export function centred(
  t: Tensor,
  zp: Tensor | null,
  zpShape: Shape,
  shape: Shape = t.shape,
): { readonly values: Float32Array; readonly max: number } {
  const data = t.dataSync();
  const values = Float32Array.from(data);
  const idx = zp && sizeOf(zpShape) > 1 ? broadcastIndex(zpShape, shape) : null;
  if (idx) {
    const z = zp!.dataSync();
    for (let i = 0; i < values.length; i++) values[i]! -= z[idx[i]!]!;
  } else if (zp) {
    const z0 = zp.dataSync()[0]!;
    if (z0 !== 0) for (let i = 0; i < values.length; i++) values[i]! -= z0;
  }
  let lo = 0;
  let hi = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (v < lo) lo = v;
    else if (v > hi) hi = v;
  }
  return { values, max: Math.max(hi, -lo) };
}

/** For each index of the broadcast batch shape, the element offset of one operand's matrix (size-1 axes repeat). */
function batchOffsets(own: Shape, batch: Shape, matrixSize: number): number[] {
  const ownStrides = stridesOf(own);
  const lead = batch.length - own.length;
  const count = sizeOf(batch);
  const offsets: number[] = [];
  const index = new Array<number>(batch.length).fill(0);
  for (let t = 0; t < count; t++) {
    let off = 0;
    for (let d = 0; d < own.length; d++) if (own[d] !== 1) off += index[d + lead]! * ownStrides[d]!;
    offsets.push(off * matrixSize);
    for (let d = batch.length - 1; d >= 0 && ++index[d]! === batch[d]!; d--) index[d] = 0;
  }
  return offsets;
}

/**
 * The exact sums (a - a_zero_point) @ (b - b_zero_point) over matmul's broadcast batch, shaped g.full ([..., m, n]),
 * with the zero points' layouts checked by the op's rule (matmulParamShape).
 */
export function integerMatmul(
  op: string,
  a: Tensor,
  b: Tensor,
  za: Tensor | null,
  zb: Tensor | null,
): { readonly sums: Float64Array; readonly g: MatmulGeometry } {
  const g = matmulGeometry(op, a.shape, b.shape);
  const A = centred(a, za, za ? matmulParamShape(op, 'a_zero_point', za.shape, g, 'a') : [], g.a);
  const B = centred(b, zb, zb ? matmulParamShape(op, 'b_zero_point', zb.shape, g, 'b') : [], g.b);
  const { m, k, n } = g;
  const sums = new Float64Array(sizeOf(g.full));
  const batch = g.full.slice(0, -2);
  if (g.b.length === 2) {
    // One b for every matrix of a: a's batch folds into its rows, one product.
    intGemm(A.values, B.values, sizeOf(batch) * m, k, n, A.max, B.max, sums);
    return { sums, g };
  }
  const aOff = batchOffsets(g.a.slice(0, -2), batch, m * k);
  const bOff = batchOffsets(g.b.slice(0, -2), batch, k * n);
  for (let t = 0; t < aOff.length; t++)
    intGemm(
      A.values.subarray(aOff[t]!, aOff[t]! + m * k),
      B.values.subarray(bOff[t]!, bOff[t]! + k * n),
      m,
      k,
      n,
      A.max,
      B.max,
      sums.subarray(t * m * n, (t + 1) * m * n),
    );
  return { sums, g };
}

/**
 * The exact sums of the convolution of (x - x_zero_point) with (w - w_zero_point), shaped [N, M, output...]: per
 * batch entry and group, im2col of the centred input (padding reads as zero, the padded x_zero_point centred away)
 * times the group's centred kernels through intGemm.
 */
export function integerConv(x: Tensor, w: Tensor, zx: Tensor | null, zw: Tensor | null, g: ConvGeometry): Float64Array {
  // Every geometry as 3-D: missing leading spatial axes have size 1, kernel 1, stride 1, no padding.
  const lift = (v: readonly number[], fill: number) => [...new Array<number>(3 - g.rank).fill(fill), ...v];
  const [D, H, W] = lift(g.input, 1);
  const [KD, KH, KW] = lift(g.kernel, 1);
  const [SD, SH, SW] = lift(g.stride, 1);
  const [DD, DH, DW] = lift(g.dilation, 1);
  const [PD, PH, PW] = lift(g.padBegin, 0);
  const [OD, OH, OW] = lift(g.output, 1);
  const cg = g.c / g.groups;
  const mg = g.m / g.groups;
  const kk = KD! * KH! * KW!;
  const rows = cg * kk;
  const P = OD! * OH! * OW!;
  const image = D! * H! * W!;
  const X = centred(x, zx, []);
  const Wc = centred(w, zw, zw && sizeOf(zw.shape) > 1 ? [g.m, ...new Array<number>(g.rank + 1).fill(1)] : [], w.shape);
  const sums = new Float64Array(g.n * g.m * P);
  const col = new Float32Array(rows * P);
  for (let b = 0; b < g.n; b++)
    for (let gr = 0; gr < g.groups; gr++) {
      col.fill(0);
      for (let c = 0; c < cg; c++) {
        const src = (b * g.c + gr * cg + c) * image;
        for (let kd = 0; kd < KD!; kd++)
          for (let kh = 0; kh < KH!; kh++)
            for (let kw = 0; kw < KW!; kw++) {
              const r = ((c * KD! + kd) * KH! + kh) * KW! + kw;
              let o = r * P;
              for (let od = 0; od < OD!; od++) {
                const id = od * SD! - PD! + kd * DD!;
                if (id < 0 || id >= D!) {
                  o += OH! * OW!;
                  continue;
                }
                for (let oh = 0; oh < OH!; oh++) {
                  const ih = oh * SH! - PH! + kh * DH!;
                  if (ih < 0 || ih >= H!) {
                    o += OW!;
                    continue;
                  }
                  const line = src + (id * H! + ih) * W!;
                  for (let ow = 0; ow < OW!; ow++, o++) {
                    const iw = ow * SW! - PW! + kw * DW!;
                    if (iw >= 0 && iw < W!) col[o] = X.values[line + iw]!;
                  }
                }
              }
            }
      }
      const wg = Wc.values.subarray(gr * mg * rows, (gr + 1) * mg * rows);
      const out = sums.subarray((b * g.m + gr * mg) * P, (b * g.m + (gr + 1) * mg) * P);
      intGemm(wg, col, mg, rows, P, Wc.max, X.max, out);
    }
  return sums;
}
