// The element types real models ship beyond float32/int32 (issue: ONNX conformance, item 3): int16, uint16, uint32,
// uint64 and bfloat16, checked against independent references: BigInt.asIntN/asUintN for wrapping integers, a BigInt
// bound for uint64's exact range, a brute-force nearest-value search over every float16 bit pattern, and bfloat16
// rounding worked out on the float32 bits with DataView. Casts are checked between every pair of dtypes.
import { describe, expect, it } from 'vitest';

import {
  call,
  DTYPES,
  loadOnnx,
  OpError,
  stringsOf,
  stringTensor,
  tensor,
  type DType,
  type Tensor,
} from '../../runtime/src/index.ts';
import { ModelProto } from '../support/onnx-proto.ts';

const values = (t: Tensor) => Array.from(t.dataSync() as ArrayLike<number>);

function opError(fn: () => unknown): OpError {
  try {
    fn();
  } catch (e) {
    if (e instanceof OpError) return e;
    throw e;
  }
  throw new Error('expected an OpError, nothing was thrown');
}

/** Bits and signedness of the fixed-width integer dtypes (their stores wrap). */
const FIXED: Readonly<Record<string, readonly [number, boolean]>> = {
  int32: [32, true],
  int16: [16, true],
  int8: [8, true],
  uint32: [32, false],
  uint16: [16, false],
  uint8: [8, false],
};

/** An integer (as a BigInt) wrapped to a fixed-width dtype, as NumPy and ONNX wrap: two's complement modulo 2^bits. */
function wrapRef(dtype: string, v: bigint): number {
  const [bits, signed] = FIXED[dtype]!;
  return Number(signed ? BigInt.asIntN(bits, v) : BigInt.asUintN(bits, v));
}

/** Deterministic integers spread over [lo, hi] (mulberry32). */
function ints(n: number, lo: number, hi: number, seed: number): number[] {
  let a = seed >>> 0;
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    const u = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    out.push(Math.floor(lo + (hi - lo + 1) * u));
  }
  return out;
}

// float16 reference: every finite non-negative float16 value, decoded from its bits here, in increasing order; the value
// after the largest (65504) stands for Infinity (2^16, bits 0x7c00), so overflow rounds like any other tie.
const F16: { value: number; bits: number }[] = [];
for (let bits = 0; bits <= 0x7c00; bits++) {
  const exp = bits >> 10;
  const frac = bits & 0x3ff;
  F16.push({ bits, value: exp === 0 ? frac / 2 ** 24 : (1 + frac / 1024) * 2 ** (exp - 15) });
}

function f16Ref(x: number): number {
  if (Number.isNaN(x)) return NaN;
  const a = Math.abs(x);
  let r: number;
  if (a >= 65536) r = Infinity;
  else {
    // The largest candidate ≤ a, then the nearer of it and the next; a tie goes to the even bit pattern.
    let lo = 0;
    let hi = F16.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (F16[mid]!.value <= a) lo = mid;
      else hi = mid - 1;
    }
    const below = F16[lo]!;
    const above = F16[Math.min(lo + 1, F16.length - 1)]!;
    const [d1, d2] = [a - below.value, above.value - a];
    const pick = d1 < d2 ? below : d2 < d1 ? above : below.bits % 2 === 0 ? below : above;
    r = pick.bits === 0x7c00 ? Infinity : pick.value;
  }
  return x < 0 || Object.is(x, -0) ? -r : r;
}

// bfloat16 reference: x to float32 (DataView), then the nearer of the two bfloat16 neighbours of those bits, a tie to the
// one whose lowest kept bit (bit 16) is 0; the neighbours are exact float32 values, so the distances are exact.
const view = new DataView(new ArrayBuffer(4));
const f32Bits = (x: number) => (view.setFloat32(0, x), view.getUint32(0));
const f32Of = (bits: number) => (view.setUint32(0, bits >>> 0), view.getFloat32(0));

function bf16Ref(x: number): number {
  if (Number.isNaN(x)) return NaN;
  const bits = f32Bits(x);
  const lo = bits & 0xffff0000;
  if (lo >>> 0 === bits) return f32Of(bits);
  const hi = (lo >>> 0) + 0x10000;
  const f = Math.abs(f32Of(bits));
  // Past the largest finite value the next pattern is Infinity, which rounding treats as 2^128.
  const [vl, vh] = [Math.abs(f32Of(lo)), (hi & 0x7fffffff) === 0x7f800000 ? 2 ** 128 : Math.abs(f32Of(hi))];
  const pick = f - vl < vh - f ? lo : vh - f < f - vl ? hi : ((lo >>> 16) & 1) === 0 ? lo : hi;
  return f32Of(pick);
}

/** What raf.op.cast gives for `x` into `dtype`, independently: 'refused' where int64/uint64 cannot hold it exactly. */
function castRef(dtype: DType, x: number): number | 'refused' {
  switch (dtype) {
    case 'bool':
      return x !== 0 ? 1 : 0; // NaN is nonzero: true, as NumPy's astype(bool)
    case 'float64':
      return x;
    case 'float32':
      return f32Of(f32Bits(x));
    case 'float16':
      return f16Ref(x);
    case 'bfloat16':
      return bf16Ref(x);
    case 'int64':
    case 'uint64': {
      if (!Number.isFinite(x)) return 'refused';
      const t = BigInt(Math.trunc(x));
      const low = dtype === 'uint64' ? 0n : -(2n ** 53n - 1n);
      return t < low || t > 2n ** 53n - 1n ? 'refused' : Number(t);
    }
    default:
      // Fixed-width integers: truncate toward zero, then wrap; NaN and ±Infinity (undefined in ONNX) are 0.
      return Number.isFinite(x) ? wrapRef(dtype, BigInt(Math.trunc(x))) : 0;
  }
}

const zeroed = (v: number) => (v === 0 ? 0 : v);

describe('storage of the wide dtypes', () => {
  it('keeps each dtype in its own typed array, and wraps or rounds values on construction', () => {
    const raw = [0, 1, -1, 40000, -40000, 70000, 3e9, -3e9, 2.5, -2.5];
    const arrays: Record<string, unknown> = {
      int16: Int16Array,
      uint16: Uint16Array,
      uint32: Uint32Array,
      bfloat16: Float32Array,
    };
    for (const [dtype, ctor] of Object.entries(arrays)) {
      const t = tensor(raw, { dtype: dtype as DType });
      expect(t.dtype).toBe(dtype);
      expect(t.dataSync()).toBeInstanceOf(ctor);
      expect(values(t).map(zeroed)).toEqual(raw.map((x) => zeroed(castRef(dtype as DType, x) as number)));
    }
    expect(tensor(Int16Array.of(-5, 7)).dtype).toBe('int16');
    expect(tensor(Uint16Array.of(5)).dtype).toBe('uint16');
    expect(tensor(Uint32Array.of(4e9)).dtype).toBe('uint32');
  });

  it('holds uint64 exactly from 0 to 2^53 - 1, from numbers and BigUint64Array, and refuses the rest by op and arg', () => {
    const edge = [0, 1, 2 ** 32 + 7, Number.MAX_SAFE_INTEGER];
    expect(values(tensor(edge, { dtype: 'uint64' })).map(BigInt)).toEqual(edge.map(BigInt));
    const t = tensor(BigUint64Array.of(9007199254740991n, 5n));
    expect(t.dtype).toBe('uint64');
    expect(values(t).map(BigInt)).toEqual([9007199254740991n, 5n]);
    const beyond = opError(() => tensor(BigUint64Array.of(1n, 2n ** 60n)));
    expect([beyond.op, beyond.arg]).toEqual(['tensor', 'values']);
    expect(beyond.message).toMatch(/uint64 value 1152921504606846976 at index 1 is beyond ±2\^53/);
    const negative = opError(() => tensor([3, -1], { dtype: 'uint64' }));
    expect(negative.message).toMatch(/uint64 value -1 at index 1 is negative/);
    expect(opError(() => tensor([2 ** 53], { dtype: 'uint64' }))).toMatchObject({ op: 'tensor', arg: 'values' });
  });
});

describe('integer arithmetic wraps in its own width', () => {
  const cases: [string, number, number][] = [
    ['int16', -(2 ** 15), 2 ** 15 - 1],
    ['uint16', 0, 2 ** 16 - 1],
    ['uint32', 0, 2 ** 32 - 1],
    ['int32', -(2 ** 31), 2 ** 31 - 1],
  ];
  for (const [dtype, lo, hi] of cases)
    it(`${dtype}: add, subtract, multiply wrap as BigInt modulo 2^bits; max, min, compare exactly`, () => {
      const a = [lo, hi, hi, lo, ...ints(200, lo, hi, 1)];
      const b = [1, 1, hi, lo, ...ints(200, lo, hi, 2)];
      const [ta, tb] = [tensor(a, { dtype: dtype as DType }), tensor(b, { dtype: dtype as DType })];
      const ops: [string, (x: bigint, y: bigint) => bigint][] = [
        ['add', (x, y) => x + y],
        ['subtract', (x, y) => x - y],
        ['multiply', (x, y) => x * y],
      ];
      for (const [op, ref] of ops) {
        const r = call(op, [ta, tb]) as Tensor;
        expect(r.dtype).toBe(dtype);
        expect(values(r)).toEqual(a.map((x, i) => wrapRef(dtype, ref(BigInt(x), BigInt(b[i]!)))));
      }
      expect(values(call('maximum', [ta, tb]) as Tensor)).toEqual(a.map((x, i) => Math.max(x, b[i]!)));
      expect(values(call('minimum', [ta, tb]) as Tensor)).toEqual(a.map((x, i) => Math.min(x, b[i]!)));
      expect(values(call('greater', [ta, tb]) as Tensor)).toEqual(a.map((x, i) => Number(x > b[i]!)));
      expect(values(call('equal', [ta, tb]) as Tensor)).toEqual(a.map((x, i) => Number(x === b[i]!)));
    });

  it('sums int16 and uint16 exactly in int64 / uint64 (NumPy’s accumulator); argmax finds the largest', () => {
    for (const [dtype, lo, hi] of [
      ['int16', -(2 ** 15), 2 ** 15 - 1],
      ['uint16', 0, 2 ** 16 - 1],
    ] as const) {
      const x = ints(64, lo, hi, 7);
      const s = call('sum', [tensor(x, { dtype })]) as Tensor;
      expect(s.dtype).toBe(dtype === 'int16' ? 'int64' : 'uint64');
      expect(values(s)).toEqual([Number(x.reduce((p, v) => p + BigInt(v), 0n))]);
      const am = call('argmax', [tensor(x, { dtype })]) as Tensor;
      expect(values(am)).toEqual([x.indexOf(Math.max(...x))]);
    }
  });

  it('prod and cumprod of narrow ints widen to 64 bits, exact within 2^53 and refused past it', () => {
    for (const [dtype, x] of [
      ['int16', [300, -300, 300, 301, 299, -7, 300, 300]],
      ['uint16', [65535, 65533, 65521, 40000, 3, 65535]],
      ['uint32', [4294967295, 4294967291, 65537, 65537, 65537, 123456789]],
      ['int32', [2147483647, -2147483648 + 5, 99991, 99989, 7, -3]],
    ] as const) {
      const t = tensor([...x], { dtype });
      const running = x.map((_, i) => x.slice(0, i + 1).reduce((p, v) => p * BigInt(v), 1n));
      // prod accumulates in int64 / uint64 as NumPy does; every product here is past 2^53, which raf-op's int64
      // storage cannot hold exactly, so it is refused rather than rounded.
      expect(() => call('prod', [t])).toThrow(/raf\.op\.prod.*beyond ±2\^53/);
      const short = tensor([x[0], 2], { dtype });
      const p = call('prod', [short]) as Tensor;
      expect(p.dtype).toBe(dtype.startsWith('u') ? 'uint64' : 'int64');
      expect(values(p)).toEqual([Number(BigInt(x[0]) * 2n)]);
      // cumprod accumulates as prod does (NumPy's cumprod of a narrow int is int64 / uint64): the running products
      // that stay within 2^53 are exact, and a series that passes it is refused like prod.
      expect(() => call('cumprod', [t, 0])).toThrow(/raf\.op\.cumprod.*beyond ±2\^53/);
      const head = running.findIndex((v) => v > 2n ** 53n || v < -(2n ** 53n));
      const c = call('cumprod', [tensor(x.slice(0, head), { dtype }), 0]) as Tensor;
      expect(c.dtype).toBe(dtype.startsWith('u') ? 'uint64' : 'int64');
      expect(values(c)).toEqual(running.slice(0, head).map(Number));
    }
  });

  it('matmul of large int32/uint32 values wraps exactly; int64 partial sums past 2^53 are refused', () => {
    const a = [2147483647, -2147483648, 123456789, 99991, -7, 3];
    const b = [2147483647, 987654321, -5, 1 << 30, 77777, -2147483648];
    for (const dtype of ['int32', 'uint32'] as const) {
      const [ta, tb] = [tensor(a, { dtype, shape: [2, 3] }), tensor(b, { dtype, shape: [3, 2] })];
      const [av, bv] = [values(ta), values(tb)];
      const want = [0, 1].flatMap((i) =>
        [0, 1].map((j) =>
          wrapRef(
            dtype,
            [0, 1, 2].reduce((s, p) => s + BigInt(av[i * 3 + p]!) * BigInt(bv[p * 2 + j]!), 0n),
          ),
        ),
      );
      const y = call('matmul', [ta, tb]) as Tensor;
      expect([y.dtype, values(y)]).toEqual([dtype, want]);
    }
    const big = tensor([2 ** 40, -(2 ** 40)], { dtype: 'int64', shape: [1, 2] });
    const e = opError(() => call('matmul', [big, tensor([2 ** 20, 2 ** 20], { dtype: 'int64', shape: [2, 1] })]));
    expect([e.op, e.arg]).toEqual(['matmul', 'out']);
  });

  it('shifts and complements uint16/uint32 bits as unsigned integers do', () => {
    const x = [1, 0x8001, 0xffff, 12345];
    const s = [1, 3, 15, 4];
    const big = (v: number) => BigInt(v);
    for (const dtype of ['uint16', 'uint32'] as const) {
      const [tx, ts] = [tensor(x, { dtype }), tensor(s, { dtype })];
      expect(values(call('left_shift', [tx, ts]) as Tensor)).toEqual(
        x.map((v, i) => wrapRef(dtype, big(v) << big(s[i]!))),
      );
      expect(values(call('right_shift', [tx, ts]) as Tensor)).toEqual(x.map((v, i) => v >>> s[i]!));
      expect(values(call('bitwise_not', [tx]) as Tensor)).toEqual(x.map((v) => wrapRef(dtype, ~big(v))));
    }
  });
});

describe('uint64 results: exact, or refused by op and argument', () => {
  const u64 = (v: number[]) => tensor(v, { dtype: 'uint64' });

  it('adds, multiplies and divides (trunc_divide) exactly within 2^53, as BigInt does', () => {
    const a = ints(50, 0, 2 ** 26, 3);
    const b = ints(50, 1, 2 ** 26, 4);
    const sum = call('add', [u64(a), u64(b)]) as Tensor;
    expect(sum.dtype).toBe('uint64');
    expect(values(sum).map(BigInt)).toEqual(a.map((v, i) => BigInt(v) + BigInt(b[i]!)));
    expect(values(call('multiply', [u64(a), u64(b)]) as Tensor).map(BigInt)).toEqual(
      a.map((v, i) => BigInt(v) * BigInt(b[i]!)),
    );
    expect(values(call('trunc_divide', [u64(a), u64(b)]) as Tensor).map(BigInt)).toEqual(
      a.map((v, i) => BigInt(v) / BigInt(b[i]!)),
    );
  });

  it('refuses a result that would wrap modulo 2^64 or leave the exact range', () => {
    const under = opError(() => call('subtract', [u64([5, 1]), u64([3, 2])]));
    expect([under.op, under.arg]).toEqual(['subtract', 'out']);
    expect(under.message).toMatch(/uint64 value -1 at index 1 is negative/);
    const over = opError(() => call('multiply', [u64([2 ** 30]), u64([2 ** 30])]));
    expect([over.op, over.arg]).toEqual(['multiply', 'out']);
    const cast = opError(() => call('cast', [tensor([-1], { dtype: 'int64' }), 'uint64']));
    expect([cast.op, cast.arg]).toEqual(['cast', 'x']);
  });
});

describe('bfloat16 rounds half to even on the top 16 bits of the float32', () => {
  it('breaks exact ties toward the even pattern, carries into the exponent, overflows to Infinity', () => {
    // 1 + 2^-8 lies halfway between 1 (0x3f80, even) and 1 + 2^-7 (0x3f81); 1 + 3·2^-8 between 0x3f81 and 0x3f82.
    const x = [1 + 2 ** -8, 1 + 3 * 2 ** -8, -(1 + 2 ** -8), f32Of(0x3f80ffff), f32Of(0x7f7fffff), -0, Infinity, NaN];
    const t = tensor(x, { dtype: 'bfloat16' });
    const want = [1, 1 + 2 ** -6, -1, f32Of(0x3f810000), Infinity, -0, Infinity, NaN];
    expect(values(t)).toEqual(want);
    expect(x.map(bf16Ref)).toEqual(want);
  });

  it('rounds casts and arithmetic results as the reference does', () => {
    const x = Array.from({ length: 500 }, (_, i) => Math.sin(i * 12.9898) * 10 ** ((i % 13) - 6));
    const b = call('cast', [tensor(x, { dtype: 'float64' }), 'bfloat16']) as Tensor;
    expect(b.dtype).toBe('bfloat16');
    expect(values(b)).toEqual(x.map(bf16Ref));
    const sum = call('add', [b, b]) as Tensor;
    expect(sum.dtype).toBe('bfloat16');
    const bv = values(b);
    expect(values(sum)).toEqual(bv.map((v) => bf16Ref(f32Of(f32Bits(v + v)))));
    const prod = call('multiply', [b, tensor(bv.slice().reverse(), { dtype: 'bfloat16' })]) as Tensor;
    expect(values(prod)).toEqual(bv.map((v, i) => bf16Ref(f32Of(f32Bits(v * bv[bv.length - 1 - i]!)))));
    // A float-only function of bfloat16 computes in float32 and rounds once.
    const e = call('exp', [tensor([0.5, -1, 2], { dtype: 'bfloat16' })]) as Tensor;
    expect(e.dtype).toBe('bfloat16');
    expect(values(e)).toEqual([0.5, -1, 2].map((v) => bf16Ref(Math.fround(Math.exp(v)))));
  });
});

describe('cast between every pair of dtypes', () => {
  const SAMPLES = [
    0,
    -0,
    1,
    -1,
    0.5,
    -1.5,
    2.5,
    3.14159,
    1e-8,
    127,
    128,
    -129,
    255,
    256,
    32767,
    32768,
    -32769,
    65504,
    65519,
    65520,
    65535,
    65536,
    2 ** 31 - 1,
    2 ** 31,
    -(2 ** 31) - 1,
    2 ** 32 - 1,
    2 ** 32 + 5,
    1e10,
    -1e10,
    2 ** 53 - 1,
    2 ** 53 + 2,
    1e38,
    -3.4e38,
    NaN,
    Infinity,
    -Infinity,
  ];
  for (const from of DTYPES)
    it(`from ${from}`, () => {
      // The samples a `from` tensor can hold (int64/uint64 refuse the rest at construction), as that dtype has them.
      const ok = SAMPLES.filter((v) => castRef(from, v) !== 'refused');
      const x = tensor(ok, { dtype: from });
      const xs = values(x);
      expect(xs.map(zeroed)).toEqual(ok.map((v) => zeroed(castRef(from, v) as number)));
      for (const to of DTYPES) {
        const want = xs.map((v) => castRef(to, v));
        if (want.includes('refused')) {
          const e = opError(() => call('cast', [x, to]));
          expect([e.op, e.arg]).toEqual(['cast', 'x']);
          const fits = xs.filter((v) => castRef(to, v) !== 'refused');
          const y = call('cast', [tensor(fits, { dtype: from }), to]) as Tensor;
          expect(values(y)).toEqual(fits.map((v) => castRef(to, v)));
          continue;
        }
        const y = call('cast', [x, to]) as Tensor;
        expect(y.dtype).toBe(to);
        const got = values(y);
        // Integer results have no -0; float ones keep the sign of zero.
        if (to.includes('float')) expect(got, `${from} → ${to}`).toEqual(want);
        else expect(got.map(zeroed), `${from} → ${to}`).toEqual((want as number[]).map(zeroed));
      }
    });
});

describe('shape ops keep the wide dtypes and their values', () => {
  for (const dtype of ['int16', 'uint16', 'uint32', 'uint64', 'bfloat16'] as const)
    it(dtype, () => {
      const v = [1, 2, 3, 4, 5, 60000, 7, 8, 9, 10, 11, 12].map((x) => castRef(dtype, x) as number);
      const x = tensor(v, { dtype, shape: [3, 4] });
      const t = call('transpose', [x, [1, 0]]) as Tensor;
      expect(t.dtype).toBe(dtype);
      expect(values(t)).toEqual([0, 1, 2, 3].flatMap((j) => [0, 1, 2].map((i) => v[i * 4 + j]!)));
      const c = call('concatenate', [[x, x], 0]) as Tensor;
      expect([c.dtype, c.shape]).toEqual([dtype, [6, 4]]);
      expect(values(c)).toEqual([...v, ...v]);
      const g = call('take', [x, tensor([2, 0], { dtype: 'int64' }), 1]) as Tensor;
      expect(values(g)).toEqual([0, 1, 2].flatMap((i) => [v[i * 4 + 2]!, v[i * 4]!]));
      const r = call('reshape', [x, [4, 3]]) as Tensor;
      expect([r.dtype, values(r)]).toEqual([dtype, v]);
    });
});

/** A one-node ONNX model: inputs and outputs by name and element type code, initializers as raw little-endian bytes. */
function onnxModel(
  node: { op: string; inputs: string[]; attrs?: { name: string; type: number; i?: number }[] },
  inputs: [string, number, number[]][],
  output: [string, number, number[]],
  inits: { name: string; type: number; dims: number[]; raw: Uint8Array }[] = [],
): Uint8Array {
  const info = ([name, elemType, dims]: [string, number, number[]]) => ({
    name,
    type: { tensorType: { elemType, shape: { dim: dims.map((dimValue) => ({ dimValue })) } } },
  });
  const msg = ModelProto.fromObject({
    irVersion: 9,
    opsetImport: [{ domain: '', version: 21 }],
    graph: {
      name: 'g',
      node: [{ opType: node.op, input: node.inputs, output: [output[0]], attribute: node.attrs ?? [] }],
      input: inputs.map(info),
      output: [info(output)],
      initializer: inits.map((t) => ({ name: t.name, dataType: t.type, dims: t.dims, rawData: t.raw })),
    },
  });
  return ModelProto.encode(msg).finish();
}

describe('ONNX models with the wide element types', () => {
  it('reads int16, uint16, uint32 and uint64 inputs and initializers as those dtypes and computes in them', () => {
    const cases: [number, DType, ArrayBufferView, number[]][] = [
      [5, 'int16', Int16Array.of(32767, -2), [32767, -2]],
      [4, 'uint16', Uint16Array.of(65535, 9), [65535, 9]],
      [12, 'uint32', Uint32Array.of(4294967295, 9), [4294967295, 9]],
      [13, 'uint64', BigUint64Array.of(2n ** 53n - 2n, 9n), [2 ** 53 - 2, 9]],
    ];
    for (const [code, dtype, raw, w] of cases) {
      const bytes = onnxModel(
        { op: 'Add', inputs: ['x', 'w'] },
        [['x', code, [2]]],
        ['y', code, [2]],
        [{ name: 'w', type: code, dims: [2], raw: new Uint8Array(raw.buffer) }],
      );
      const y = loadOnnx(bytes).run({ x: tensor([1, 3], { dtype }) }).y!;
      expect(y.dtype).toBe(dtype);
      const sum = w.map((v, i) => BigInt(v) + BigInt([1, 3][i]!));
      expect(values(y).map(BigInt)).toEqual(dtype === 'uint64' ? sum : sum.map((v) => BigInt(wrapRef(dtype, v))));
    }
  });

  it('casts to bfloat16 (Cast to = 16) with round half to even', () => {
    const bytes = onnxModel(
      { op: 'Cast', inputs: ['x'], attrs: [{ name: 'to', type: 2, i: 16 }] },
      [['x', 1, [3]]],
      ['y', 16, [3]],
    );
    const x = [1 + 2 ** -8, 1 + 3 * 2 ** -8, 3.14159];
    const y = loadOnnx(bytes).run({ x: tensor(x) }).y!;
    expect(y.dtype).toBe('bfloat16');
    expect(values(y)).toEqual(x.map(bf16Ref));
  });

  it('refuses a uint64 initializer beyond 2^53 and element types raf-op has no tensor for, naming value and type; reads strings', () => {
    const big = onnxModel(
      { op: 'Add', inputs: ['x', 'w'] },
      [['x', 13, [1]]],
      ['y', 13, [1]],
      [{ name: 'w', type: 13, dims: [1], raw: new Uint8Array(BigUint64Array.of(2n ** 60n + 1n).buffer) }],
    );
    // Initializers are read when first used: at import or at the first run.
    expect(() => loadOnnx(big).run({ x: tensor([1], { dtype: 'uint64' }) })).toThrow(
      /uint64 tensor 'w' holds .*beyond 2\^53/,
    );
    const complex = onnxModel({ op: 'Identity', inputs: ['x'] }, [['x', 14, [2]]], ['y', 14, [2]]);
    expect(() => loadOnnx(complex)).toThrow(/value 'x' has ONNX element type 14 \(complex64\)/);
    // Strings (type 8) import as string tensors (runtime/src/strings.ts; test/runtime/onnx-strings.test.ts).
    const strings = loadOnnx(onnxModel({ op: 'Identity', inputs: ['x'] }, [['x', 8, [2]]], ['y', 8, [2]]));
    expect(stringsOf(strings.run({ x: stringTensor(['a', 'b']) }).y!)).toEqual(['a', 'b']);
  });

  it('passes narrow types (float8, int4, float4, int2) through in their carrier dtypes, naming the type', () => {
    for (const [code, name, dtype, values] of [
      [17, 'float8e4m3fn', 'float32', [448, -0.015625]],
      [22, 'int4', 'int8', [-8, 7]],
      [23, 'float4e2m1', 'float32', [6, -0.5]],
      [26, 'int2', 'int8', [-2, 1]],
    ] as const) {
      const session = loadOnnx(onnxModel({ op: 'Identity', inputs: ['x'] }, [['x', code, [2]]], ['y', code, [2]]));
      expect(session.model.outputs[0]!.format).toBe(name);
      const y = session.run({ x: tensor([...values], { dtype }) }).y!;
      expect([y.dtype, Array.from(y.dataSync())]).toEqual([dtype, [...values]]);
    }
  });
});
