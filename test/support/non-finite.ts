// The generated NaN/±inf case of a reduction, selection or scan op: float32 rows holding NaN, +inf and -inf go through
// every dialect, each compared with the CPU dialect (NaN equals NaN, an infinity the same infinity), and the CPU is
// compared with NumPy's semantics of the op's ONNX counterpart, written out below in float64 (np.sum, np.max, np.argmax,
// torch.topk's NaN order, ...), so a case cannot pass by every dialect being wrong the same way.

import { beforeAll, describe, expect, it } from 'vitest';
import { call, initWebGpu, tensor, withDialect, type Tensor } from '../../runtime/src/index.ts';
import { gpuUnavailableReason, type GpuContext } from '../../runtime/src/dialects/webgpu/index.ts';
import { outputsOf } from './tensor-args.ts';
import { REQUIRE_WEBGPU } from './webgpu-cases.ts';

type Value = number | 'NaN' | 'inf' | '-inf';

export interface NonFiniteCases {
  /** The ONNX op whose NumPy semantics the CPU must follow (a key of REFERENCES). */
  readonly reference: string;
  /** The tensor arg the rows are passed as. */
  readonly tensor: string;
  /** Arg sets besides the tensor, one group of cases each. */
  readonly calls: readonly Readonly<Record<string, unknown>>[];
  readonly inputs: readonly {
    readonly title: string;
    readonly values: readonly Value[] | { readonly length: number; readonly at: readonly (readonly [number, Value])[] };
  }[];
}

type Args = Readonly<Record<string, unknown>>;
type Reference = (x: readonly number[], args: Args) => number[][];

const num = (v: Value): number => (v === 'NaN' ? NaN : v === 'inf' ? Infinity : v === '-inf' ? -Infinity : v);

/** The row's numbers; a long row is sin(i) rounded to an eighth with some elements replaced. */
export function rowOf(values: NonFiniteCases['inputs'][number]['values']): number[] {
  if (Array.isArray(values)) return (values as readonly Value[]).map(num);
  const { length, at } = values as { length: number; at: readonly (readonly [number, Value])[] };
  const row = Array.from({ length }, (_, i) => Math.round(Math.sin(i) * 8) / 8);
  for (const [i, v] of at) row[i] = num(v);
  return row;
}

const sum = (x: readonly number[]): number => x.reduce((a, v) => a + v, 0);
const anyNaN = (x: readonly number[]): boolean => x.some((v) => Number.isNaN(v));
/** np.max / np.min: NaN when any element is NaN. */
const extreme = (x: readonly number[], max: boolean): number =>
  anyNaN(x) ? NaN : x.reduce((a, v) => (max ? (v > a ? v : a) : v < a ? v : a), max ? -Infinity : Infinity);
/** np.argmax / np.argmin: the first NaN, else the first index of the extreme. */
function argExtreme(x: readonly number[], max: boolean): number {
  const nan = x.findIndex((v) => Number.isNaN(v));
  if (nan >= 0) return nan;
  const e = extreme(x, max);
  return x.findIndex((v) => v === e);
}
/** np.cumsum / np.cumprod (exclusive: ONNX's shift by one, starting from the identity). */
function scan(x: readonly number[], step: (a: number, v: number) => number, identity: number, exclusive: boolean) {
  const out: number[] = [];
  let acc = identity;
  for (const v of x) {
    if (exclusive) out.push(acc);
    acc = step(acc, v);
    if (!exclusive) out.push(acc);
  }
  return out;
}
/**
 * torch.topk: NaN is larger than every number (first when largest, last when smallest); equal values keep index order
 * (a stable sort).
 */
function topk(x: readonly number[], k: number, largest: boolean): number[][] {
  const key = (v: number) => (Number.isNaN(v) ? Infinity : v);
  const rank = (i: number, j: number): number => {
    const [a, b] = [x[i]!, x[j]!];
    const [na, nb] = [Number.isNaN(a), Number.isNaN(b)];
    if (na !== nb) return (na ? -1 : 1) * (largest ? 1 : -1);
    if (na || key(a) === key(b)) return 0;
    return (key(a) > key(b) ? -1 : 1) * (largest ? 1 : -1);
  };
  const order = x.map((_, i) => i).sort((i, j) => rank(i, j) || i - j);
  const top = order.slice(0, k);
  return [top.map((i) => x[i]!), top];
}

/** NumPy's (and, for topk's NaN order, PyTorch's) definition of each ONNX op, over a 1-D row, in float64. */
export const REFERENCES: Readonly<Record<string, Reference>> = {
  ReduceSum: (x) => [[sum(x)]],
  ReduceMean: (x) => [[sum(x) / x.length]],
  ReduceProd: (x) => [[x.reduce((a, v) => a * v, 1)]],
  ReduceMax: (x) => [[extreme(x, true)]],
  ReduceMin: (x) => [[extreme(x, false)]],
  // log(sum(exp(x))) as written: exp(inf) = inf, exp(-inf) = 0 (the rows' numbers are small, so nothing overflows).
  ReduceLogSumExp: (x) => [[Math.log(sum(x.map(Math.exp)))]],
  ReduceLogSum: (x) => [[Math.log(sum(x))]],
  ReduceL1: (x) => [[sum(x.map(Math.abs))]],
  ReduceL2: (x) => [[Math.sqrt(sum(x.map((v) => v * v)))]],
  ReduceSumSquare: (x) => [[sum(x.map((v) => v * v))]],
  ArgMax: (x) => [[argExtreme(x, true)]],
  ArgMin: (x) => [[argExtreme(x, false)]],
  TopK: (x, a) => topk(x, a.k as number, a.largest !== false),
  CumSum: (x, a) => [scan(x, (p, v) => p + v, 0, a.exclusive === true)],
  CumProd: (x, a) => [scan(x, (p, v) => p * v, 1, a.exclusive === true)],
  Softmax: (x) => {
    const e = x.map(Math.exp);
    const s = sum(e);
    return [e.map((v) => v / s)];
  },
  LogSoftmax: (x) => {
    const l = Math.log(sum(x.map(Math.exp)));
    return [x.map((v) => v - l)];
  },
};

/** Every output's elements as numbers, each rounded to float32 (what a float32 result can hold). */
async function read(r: Tensor | readonly Tensor[]): Promise<number[][]> {
  return Promise.all(outputsOf(r).map(async (t) => Array.from(await t.data(), (v) => Math.fround(Number(v)))));
}

/**
 * `got` equals `want` output by output: NaN where NaN, the same infinity where infinite; finite values within `rtol`
 * (a GPU sums many numbers in another order).
 */
function agree(got: number[][], want: number[][], rtol: number, what: string): void {
  expect(got.length, `${what}: outputs`).toBe(want.length);
  got.forEach((out, k) => {
    expect(out.length, `${what}: output ${k} elements`).toBe(want[k]!.length);
    out.forEach((v, i) => {
      const w = want[k]![i]!;
      const where = `${what}: output ${k} element ${i} is ${v}, expected ${w}`;
      if (Number.isFinite(w) && Number.isFinite(v))
        expect(Math.abs(v - w), where).toBeLessThanOrEqual(rtol * (1 + Math.abs(w)));
      else expect(Object.is(v, w) || (Number.isNaN(v) && Number.isNaN(w)), where).toBe(true);
    });
  });
}

/**
 * The describe block of one op's generated NaN/±inf case. It must be registered before the suite's WebGPU block: it
 * shares that block's device (acquired once, released by the WebGPU block's afterAll), since kernels built on a device
 * are kept by the dispatcher and a device released and acquired again in between would leave them stale.
 */
export function nonFiniteCases(op: string, dialects: readonly string[], s: NonFiniteCases): void {
  describe('non-finite inputs (NaN, ±inf)', () => {
    const reference = REFERENCES[s.reference];
    let gpu: GpuContext | null = null;
    if (dialects.includes('webgpu'))
      beforeAll(async () => {
        gpu = await initWebGpu();
      });
    const needGpu = (ctx: { skip: (why: string) => void }): void => {
      if (gpu) return;
      if (REQUIRE_WEBGPU) throw new Error(`WebGPU required but unavailable: ${gpuUnavailableReason()}`);
      ctx.skip(`WebGPU unavailable: ${gpuUnavailableReason()}`);
    };
    const rows = s.inputs.map((input) => [input.title, rowOf(input.values)] as const);
    for (const args of s.calls) {
      const shown = Object.keys(args).length ? ` ${JSON.stringify(args)}` : '';
      const run = (x: Tensor) => call(op, [], { [s.tensor]: x, ...args }) as Tensor | Tensor[];
      it.for(rows)(`cpu${shown} of %s vs NumPy's ${s.reference}`, async ([, row]) => {
        if (!reference) throw new Error(`no NumPy reference for ONNX ${s.reference} in test/support/non-finite.ts`);
        const x = tensor(row, { dtype: 'float32', shape: [row.length] });
        const got = await read(withDialect(['cpu'], () => run(x)));
        const want = reference(Array.from(x.dataSync(), Number), args).map((o) => o.map((v) => Math.fround(v)));
        agree(got, want, 1e-5, `raf.op.cpu.${op}${shown} vs NumPy ${s.reference}`);
      });
      for (const d of dialects.filter((d) => d !== 'cpu')) {
        it.for(rows)(`${d}${shown} of %s vs cpu`, async ([, row], ctx) => {
          if (d === 'webgpu') needGpu(ctx);
          const x = tensor(row, { dtype: 'float32', shape: [row.length] });
          const want = await read(withDialect(['cpu'], () => run(x)));
          const on = d === 'webgpu' ? await x.to('webgpu') : x;
          const got = await read(withDialect([d], () => run(on)));
          agree(got, want, 1e-4, `raf.op.${d}.${op}${shown} vs raf.op.cpu.${op}`);
        });
      }
    }
  });
}
