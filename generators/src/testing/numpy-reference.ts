// NumPy's semantics of the ONNX ops that get a generated NaN/±inf case, in float64 over one 1-D row: the reference the
// CPU dialect is checked against there (non-finite.ts), and the list gen checks a spec's tests.non_finite_cases
// against (spec/semantic.ts). Pure data and arithmetic: no runtime, no test framework.

export type Value = number | 'NaN' | 'inf' | '-inf';
type Args = Readonly<Record<string, unknown>>;
type Reference = (x: readonly number[], args: Args) => number[][];

const num = (v: Value): number => (v === 'NaN' ? NaN : v === 'inf' ? Infinity : v === '-inf' ? -Infinity : v);

/** A row of the case: its values, or a long row of ordinary numbers with some elements replaced. */
export type Row = readonly Value[] | { readonly length: number; readonly at: readonly (readonly [number, Value])[] };

/** The row's numbers; a long row is sin(i) rounded to an eighth with some elements replaced. */
export function rowOf(values: Row): number[] {
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
/**
 * The ONNX reference implementation's Softmax / LogSoftmax (onnx/reference/ops/op_softmax.py): shifted by the row's
 * np.max, so a NaN anywhere, a +inf (inf - inf) or a row of only -inf (-inf - -inf) makes the whole row NaN, and a -inf
 * among finite numbers gives 0 (log: -inf).
 */
function shifted(x: readonly number[]): number[] {
  const m = extreme(x, true);
  return x.map((v) => v - m);
}

/**
 * PyTorch's max_pool2d over a [1, 1, 1, n] row (kernel [1, kw], stride [1, sw], padding [0, left, 0, right] or [0, w]):
 * each window's maximum, NaN when the window holds a NaN; padding takes no part (it never wins the maximum).
 */
function maxPoolRow(x: readonly number[], a: Readonly<Record<string, unknown>>): number[] {
  const kernel = a.kernel as readonly number[];
  const stride = (a.stride as readonly number[] | undefined) ?? [1, 1];
  const pad = (a.padding as readonly number[] | undefined) ?? [0, 0, 0, 0];
  const [kw, sw] = [kernel[1]!, stride[1]!];
  const [left, right] = pad.length === 4 ? [pad[1]!, pad[3]!] : [pad[1]!, pad[1]!];
  const out: number[] = [];
  for (let start = -left; start + kw <= x.length + right; start += sw)
    out.push(extreme(x.slice(Math.max(0, start), Math.min(x.length, start + kw)), true));
  return out;
}

/** NumPy's (and, for topk's NaN order, PyTorch's) definition of each ONNX op, over one row, in float64. */
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
  // Over the spatial axes, here a [1, 1, 1, n] row's: np.max and np.mean as the ONNX reference implementation's.
  GlobalMaxPool: (x) => [[extreme(x, true)]],
  GlobalAveragePool: (x) => [[sum(x) / x.length]],
  MaxPool: (x, a) => [maxPoolRow(x, a)],
  ArgMax: (x) => [[argExtreme(x, true)]],
  ArgMin: (x) => [[argExtreme(x, false)]],
  TopK: (x, a) => topk(x, a.k as number, a.largest !== false),
  CumSum: (x, a) => [scan(x, (p, v) => p + v, 0, a.exclusive === true)],
  CumProd: (x, a) => [scan(x, (p, v) => p * v, 1, a.exclusive === true)],
  Softmax: (x) => {
    const e = shifted(x).map(Math.exp);
    const s = sum(e);
    return [e.map((v) => v / s)];
  },
  LogSoftmax: (x) => {
    const t = shifted(x);
    const l = Math.log(sum(t.map(Math.exp)));
    return [t.map((v) => v - l)];
  },
};
