// The integer dtypes int64, int8 and uint8 (issue 17, issue 13 item 3), checked against independent references:
// BigInt for int64 (exact at any size, so it also tells where storage would have rounded) and plain JS integer math
// (BigInt.asIntN/asUintN for wrapping) for the 8-bit ones. WebGPU holds int64 narrowed to int32 with a range check.
import { describe, expect, it } from 'vitest';

import { call, OpError, tensor, type Tensor } from '../../runtime/src/index.ts';
import { useWebGpu } from '../support/webgpu-context.ts';

const i64 = (v: number[]) => tensor(v, { dtype: 'int64' });
const values = (t: Tensor) => Array.from(t.dataSync() as ArrayLike<number>);
const big = (v: number) => BigInt(v);

function opError(fn: () => unknown): OpError {
  try {
    fn();
  } catch (e) {
    if (e instanceof OpError) return e;
    throw e;
  }
  throw new Error('expected an OpError, nothing was thrown');
}

/** A deterministic spread of integers up to ±2^k (mulberry32), so the checks cover more than a few hand-picked values. */
function ints(n: number, k: number, seed: number): number[] {
  let a = seed >>> 0;
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    const u = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    out.push(Math.trunc((2 * u - 1) * 2 ** k));
  }
  return out;
}

describe('int64 on the CPU', () => {
  it('holds every integer within ±(2^53 - 1) exactly, from numbers and from BigInts', () => {
    const edge = [Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 2 ** 40 + 1, -7, 0];
    expect(values(i64(edge)).map(big)).toEqual(edge.map(big));
    const bigs = BigInt64Array.of(9007199254740991n, -9007199254740991n, 123456789012345n);
    const t = tensor(bigs);
    expect(t.dtype).toBe('int64');
    expect(values(t).map(big)).toEqual(Array.from(bigs));
  });

  it('refuses values beyond ±2^53 (and NaN) naming op and argument, never rounding them', () => {
    const e = opError(() => i64([1, 2 ** 53]));
    expect([e.op, e.arg]).toEqual(['tensor', 'values']);
    expect(e.message).toMatch(/int64 value 9007199254740992 at index 1 is beyond ±2\^53/);
    expect(opError(() => tensor(BigInt64Array.of(-(2n ** 62n))))).toMatchObject({ op: 'tensor', arg: 'values' });
    expect(opError(() => tensor([NaN], { dtype: 'int64' })).message).toMatch(/not a finite integer/);
    const c = opError(() => call('cast', [tensor([1e300], { dtype: 'float64' }), 'int64']));
    expect([c.op, c.arg]).toEqual(['cast', 'x']);
  });

  it('adds, subtracts, multiplies and compares exactly, as BigInt does', () => {
    const a = ints(64, 26, 1);
    const b = ints(64, 26, 2);
    const [ta, tb] = [i64(a), i64(b)];
    const ref = (f: (x: bigint, y: bigint) => bigint) => a.map((x, i) => f(big(x), big(b[i]!)));
    expect(values(call('add', [ta, tb]) as Tensor).map(big)).toEqual(ref((x, y) => x + y));
    expect(values(call('subtract', [ta, tb]) as Tensor).map(big)).toEqual(ref((x, y) => x - y));
    // |a·b| < 2^52: beyond float32's and int32's range, inside int64 storage's exact range.
    expect(values(call('multiply', [ta, tb]) as Tensor).map(big)).toEqual(ref((x, y) => x * y));
    expect(values(call('less', [ta, tb]) as Tensor)).toEqual(a.map((x, i) => (big(x) < big(b[i]!) ? 1 : 0)));
    expect(values(call('equal', [ta, ta]) as Tensor)).toEqual(a.map(() => 1));
    const sum = call('sum', [ta]) as Tensor;
    expect(sum.dtype).toBe('int64');
    expect(big(sum.item())).toBe(a.reduce((s, x) => s + big(x), 0n));
  });

  it('refuses a product that leaves the exact range, naming the op', () => {
    const e = opError(() => call('multiply', [i64([2 ** 30, 3]), i64([2 ** 30, 2 ** 27])]));
    expect([e.op, e.arg]).toEqual(['multiply', 'out']);
    // 2^30 · 2^30 = 2^60 is refused; 3 · 2^27 alone would fit.
    expect(e.message).toMatch(/int64 value 1152921504606846976 at index 0 is beyond ±2\^53/);
  });

  it('casts like BigInt: float → int64 truncates toward zero, int64 → int32 wraps to 32 bits', () => {
    const xs = [2.9, -2.9, 0.5, -0.5, 4e15 + 0.75, -123456.999];
    const t = call('cast', [tensor(xs, { dtype: 'float64' }), 'int64']) as Tensor;
    expect(values(t).map(big)).toEqual(xs.map((x) => big(Math.trunc(x))));
    const wide = [2 ** 40 + 5, -(2 ** 33) - 1, 2 ** 31, 17];
    const n = call('cast', [i64(wide), 'int32']) as Tensor;
    expect(values(n).map(big)).toEqual(wide.map((x) => BigInt.asIntN(32, big(x))));
    expect(values(call('cast', [tensor([-5, 70000], { dtype: 'int32' }), 'int64']) as Tensor)).toEqual([-5, 70000]);
  });

  it('indexes take and nll_loss as int32 does', () => {
    const x = tensor([10, 11, 12, 13, 14, 15], { shape: [2, 3] });
    const idx = [2, 0, -1, 1];
    const got = values(call('take', [x, i64(idx), 1]) as Tensor);
    const rows = [
      [10, 11, 12],
      [13, 14, 15],
    ];
    expect(got).toEqual(rows.flatMap((r) => idx.map((k) => r[(k + 3) % 3]!)));
    const logp = tensor([-0.5, -1.5, -2.5, -0.25], { shape: [2, 2] });
    const want = -(-1.5 + -2.5) / 2;
    expect((call('nll_loss', [logp, i64([1, 0])]) as Tensor).item()).toBeCloseTo(want, 6);
    expect(opError(() => call('take', [x, tensor([0.5]), 1])).arg).toBe('indices');
  });
});

describe('int8 and uint8 on the CPU', () => {
  const xs = [-300.7, -129, -128.5, -1.9, 0, 1.9, 127, 128, 255.5, 256, 1000, NaN];
  const trunc = (x: number) => (Number.isFinite(x) ? big(Math.trunc(x)) : 0n);

  it('cast from floats truncates toward zero, then wraps to 8 bits (two’s complement)', () => {
    const f = tensor(xs, { dtype: 'float64' });
    expect(values(call('cast', [f, 'int8']) as Tensor).map(big)).toEqual(xs.map((x) => BigInt.asIntN(8, trunc(x))));
    expect(values(call('cast', [f, 'uint8']) as Tensor).map(big)).toEqual(xs.map((x) => BigInt.asUintN(8, trunc(x))));
  });

  it('arithmetic wraps modulo 256, and widens exactly to int32', () => {
    const a = [100, -100, 127, -128, 5];
    const b = [100, -100, 1, -1, -7];
    const s = call('add', [tensor(a, { dtype: 'int8' }), tensor(b, { dtype: 'int8' })]) as Tensor;
    expect(s.dtype).toBe('int8');
    expect(values(s).map(big)).toEqual(a.map((x, i) => BigInt.asIntN(8, big(x + b[i]!))));
    const u = call('multiply', [tensor([16, 200, 3], { dtype: 'uint8' }), tensor([16, 2, 5], { dtype: 'uint8' })]);
    expect(values(u as Tensor)).toEqual([0, 144, 15]);
    const w = call('cast', [tensor([-128, 127, -1], { dtype: 'int8' }), 'int32']) as Tensor;
    expect(values(w)).toEqual([-128, 127, -1]);
  });

  it('int8 × uint8 conv with out_dtype int32 is exact: products summed as integers', () => {
    // 1×1×3×3 data and a 1×1×2×2 kernel, cast to int32 as Relay's out_dtype asks; the reference is integer math.
    const data = [250, 3, 7, 128, 0, 255, 9, 200, 1];
    const w = [-128, 127, -1, 64];
    const d32 = call('cast', [tensor(data, { dtype: 'uint8', shape: [1, 1, 3, 3] }), 'int32']);
    const w32 = call('cast', [tensor(w, { dtype: 'int8', shape: [1, 1, 2, 2] }), 'int32']);
    const y = call('conv2d', [d32, w32]) as Tensor;
    const want: number[] = [];
    for (let i = 0; i < 2; i++)
      for (let j = 0; j < 2; j++) {
        let acc = 0n;
        for (let p = 0; p < 2; p++) for (let q = 0; q < 2; q++) acc += big(data[(i + p) * 3 + j + q]! * w[p * 2 + q]!);
        want.push(Number(acc));
      }
    expect(y.dtype).toBe('int32');
    expect(values(y)).toEqual(want);
  });
});

describe('int64 on WebGPU (held as int32)', () => {
  const needGpu = useWebGpu();

  it('round-trips int32-range values and gathers with int64 indices', async (ctx) => {
    needGpu(ctx);
    const v = [2 ** 31 - 1, -(2 ** 31), 0, 12345];
    const g = await i64(v).to('webgpu');
    expect(g.dtype).toBe('int64');
    expect(Array.from(await g.data())).toEqual(v);
    const x = await tensor([1, 2, 3, 4, 5, 6], { shape: [3, 2] }).to('webgpu');
    const idx = await i64([2, 0]).to('webgpu');
    const got = Array.from(await (call('take', [x, idx, 0]) as Tensor).data());
    expect(got).toEqual([5, 6, 1, 2]);
  });

  it('refuses, never wraps, an int64 value int32 cannot hold; int8/uint8 name the cast to use', async (ctx) => {
    needGpu(ctx);
    await expect(i64([1, 2 ** 31]).to('webgpu')).rejects.toThrow(
      /WebGPU holds int64 as int32, and value 2147483648 at index 1 is outside \[-2147483648, 2147483647\]/,
    );
    await expect(i64([-(2 ** 31) - 1]).to('webgpu')).rejects.toThrow(/value -2147483649 at index 0 is outside/);
    await expect(tensor([1], { dtype: 'uint8' }).to('webgpu')).rejects.toThrow(/cast it to int32 first/);
  });
});
