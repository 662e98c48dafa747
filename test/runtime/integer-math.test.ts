// Integer and remainder semantics the generated op tests cannot reach with their input domains: negative divisors,
// int64 beyond 32 bits, int8/uint8 wrapping, int32 products beyond 2^53. Integers are checked against BigInt
// arithmetic; ONNX Div/Mod/BitShift/Sum/Mean/Max/Min/CastLike imports against onnxruntime-node on models built here.

import { describe, expect, it } from 'vitest';
import { call, gradcheck, loadOnnx, OpError, tensor, type DType, type Tensor } from '../../runtime/src/index.ts';
import { buildModel, type AttrValue } from '../support/onnx-proto.ts';
import { runOnnxModel, toFloat64, type OracleTensor } from '../support/onnx-oracle.ts';

const BITS: Partial<Record<DType, { bits: number; signed: boolean }>> = {
  int8: { bits: 8, signed: true },
  uint8: { bits: 8, signed: false },
  int32: { bits: 32, signed: true },
};

/** v wrapped to the dtype's width (two's complement), as a BigInt; int64 is not wrapped (raf-op refuses beyond 2^53). */
function wrap(v: bigint, dtype: DType): bigint {
  const w = BITS[dtype];
  return w ? (w.signed ? BigInt.asIntN(w.bits, v) : BigInt.asUintN(w.bits, v)) : v;
}

const values = (t: Tensor): number[] => Array.from(t.dataSync() as ArrayLike<number>, Number);

/** Every pair (a, b) of the two lists, as flat tensors of `dtype`. */
function pairs(as: readonly number[], bs: readonly number[], dtype: DType) {
  const a = as.flatMap((x) => bs.map(() => x));
  const b = as.flatMap(() => bs);
  return { a, b, ta: tensor(a, { dtype }), tb: tensor(b, { dtype }) };
}

const range = (lo: number, hi: number) => Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);

describe('trunc_divide, floor_mod and trunc_mod on integers (vs BigInt)', () => {
  const dividends = range(-20, 20);
  const divisors = range(-7, 7).filter((d) => d !== 0);
  for (const dtype of ['int32', 'int64', 'int8'] as const) {
    it(`${dtype}: every sign of dividend and divisor`, () => {
      const { a, b, ta, tb } = pairs(dividends, divisors, dtype);
      const quotient = a.map((x, i) => Number(BigInt(x) / BigInt(b[i]!))); // BigInt division truncates
      const rem = a.map((x, i) => Number(BigInt(x) % BigInt(b[i]!))); // with the dividend's sign
      const floorRem = rem.map((r, i) => (r !== 0 && r < 0 !== b[i]! < 0 ? r + b[i]! : r));
      const q = call('trunc_divide', [ta, tb]) as Tensor;
      expect(q.dtype).toBe(dtype);
      expect(values(q)).toEqual(quotient);
      expect(values(call('trunc_mod', [ta, tb]) as Tensor)).toEqual(rem.map((r) => r + 0));
      expect(values(call('floor_mod', [ta, tb]) as Tensor)).toEqual(floorRem.map((r) => r + 0));
    });
  }

  it('uint8 keeps its dtype and range', () => {
    const { a, b, ta, tb } = pairs([0, 1, 7, 128, 200, 255], [1, 2, 3, 16, 255], 'uint8');
    expect(values(call('trunc_divide', [ta, tb]) as Tensor)).toEqual(a.map((x, i) => Math.trunc(x / b[i]!)));
    expect(values(call('floor_mod', [ta, tb]) as Tensor)).toEqual(a.map((x, i) => x % b[i]!));
  });

  it('int64 beyond 2^32 stays exact', () => {
    const a = [2 ** 40 + 3, -(2 ** 45) - 7, 2 ** 52 + 1];
    const b = [7, -3, 2 ** 20 + 1];
    const q = call('trunc_divide', [tensor(a, { dtype: 'int64' }), tensor(b, { dtype: 'int64' })]) as Tensor;
    expect(values(q)).toEqual(a.map((x, i) => Number(BigInt(x) / BigInt(b[i]!))));
  });

  it('refuses float inputs to trunc_divide, naming the argument', () => {
    expect(() => call('trunc_divide', [tensor([1.5]), tensor([2], { dtype: 'int32' })])).toThrow(OpError);
    expect(() => call('trunc_divide', [tensor([1.5]), tensor([2], { dtype: 'int32' })])).toThrow(/argument 'a'/);
  });
});

describe('floor_mod and trunc_mod on floats', () => {
  // Dyadic values: fmod and the floored remainder are exact, so NumPy's mod and C's fmod are known exactly.
  const a = [5.5, -5.5, 5.5, -5.5, 0.75, -4, 4, 3];
  const b = [2.25, 2.25, -2.25, -2.25, 0.5, 2, -2, Infinity];
  it('floor_mod takes the divisor sign (NumPy mod), trunc_mod the dividend sign (C fmod)', () => {
    const [ta, tb] = [tensor(a, { dtype: 'float64' }), tensor(b, { dtype: 'float64' })];
    expect(values(call('floor_mod', [ta, tb]) as Tensor)).toEqual([1, 1.25, -1.25, -1, 0.25, 0, -0, 3]);
    expect(values(call('trunc_mod', [ta, tb]) as Tensor)).toEqual([1, -1, 1, -1, 0.25, -0, 0, 3]);
  });
  it('floor_mod of a negative dividend by +Infinity is +Infinity (NumPy)', () => {
    const r = call('floor_mod', [tensor([-1], { dtype: 'float64' }), tensor([Infinity], { dtype: 'float64' })]);
    expect(values(r as Tensor)).toEqual([Infinity]);
  });
  it('gradients match central differences', () => {
    const x = tensor([5.3, -4.1, 2.7, -0.9], { dtype: 'float64' });
    const y = tensor([2.2, 1.7, -1.3, 0.6], { dtype: 'float64' });
    for (const op of ['floor_mod', 'trunc_mod'])
      expect(gradcheck((p: Tensor, q: Tensor) => call(op, [p, q]) as Tensor, [x, y])).toEqual([]);
  });
});

describe('bitwise ops (vs BigInt)', () => {
  const ops = {
    bitwise_and: (x: bigint, y: bigint) => x & y,
    bitwise_or: (x: bigint, y: bigint) => x | y,
    bitwise_xor: (x: bigint, y: bigint) => x ^ y,
  };
  const cases: [DType, number[]][] = [
    ['int8', [-128, -77, -1, 0, 1, 85, 127]],
    ['uint8', [0, 1, 85, 128, 170, 255]],
    ['int32', [-(2 ** 31), -123456789, -1, 0, 1, 0x55aa55aa, 2 ** 31 - 1]],
    // Within [-2^52, 2^52) every and / or / xor / not result stays within raf-op's exact int64 range.
    ['int64', [-(2 ** 52), -(2 ** 40) - 12345, -(2 ** 32), -1, 0, 3, 2 ** 32 + 5, 2 ** 47 + 2 ** 33 + 9, 2 ** 52 - 1]],
  ];
  for (const [dtype, vs] of cases) {
    it(`${dtype}: and, or, xor, not`, () => {
      const { a, b, ta, tb } = pairs(vs, vs, dtype);
      for (const [op, f] of Object.entries(ops)) {
        const r = call(op, [ta, tb]) as Tensor;
        expect(r.dtype).toBe(dtype);
        expect(values(r), op).toEqual(a.map((x, i) => Number(wrap(f(BigInt(x), BigInt(b[i]!)), dtype))));
      }
      const not = call('bitwise_not', [tensor(vs, { dtype })]) as Tensor;
      expect(values(not)).toEqual(vs.map((x) => Number(wrap(~BigInt(x), dtype))));
    });
  }

  it('refuses an int64 result beyond 2^53 rather than rounding it', () => {
    const [x, y] = [tensor([-(2 ** 53) + 1], { dtype: 'int64' }), tensor([-(2 ** 40)], { dtype: 'int64' })];
    expect(() => call('bitwise_and', [x, y])).toThrow(/beyond ±2\^53/);
  });

  it('refuses float inputs, naming the argument', () => {
    expect(() => call('bitwise_and', [tensor([1], { dtype: 'int32' }), tensor([1])])).toThrow(/argument 'b'.*integers/);
    expect(() => call('bitwise_not', [tensor([1], { dtype: 'float64' })])).toThrow(OpError);
  });
});

describe('left_shift and right_shift', () => {
  it('uint8 wraps left shifts and shifts right logically, past the width too', () => {
    const x = tensor([1, 16, 255, 200, 3, 255], { dtype: 'uint8' });
    const s = tensor([1, 4, 1, 7, 8, 9], { dtype: 'uint8' });
    expect(values(call('left_shift', [x, s]) as Tensor)).toEqual([2, 0, 254, 0, 0, 0]);
    expect(values(call('right_shift', [x, s]) as Tensor)).toEqual([0, 1, 127, 1, 0, 0]);
  });
  it('int32 matches BigInt shifts, wrapping left and arithmetic right', () => {
    const vs = [-(2 ** 31), -1000, -1, 0, 1, 12345, 2 ** 31 - 1];
    const shifts = [0, 1, 5, 17, 31];
    const { a, b, ta, tb } = pairs(vs, shifts, 'int32');
    const left = a.map((x, i) => Number(BigInt.asIntN(32, BigInt(x) << BigInt(b[i]!))));
    const right = a.map((x, i) => Number(BigInt(x) >> BigInt(b[i]!)));
    expect(values(call('left_shift', [ta, tb]) as Tensor)).toEqual(left);
    expect(values(call('right_shift', [ta, tb]) as Tensor)).toEqual(right);
  });
  it('int64 left shifts beyond 2^53 are refused, not rounded', () => {
    const x = tensor([3], { dtype: 'int64' });
    expect(values(call('left_shift', [x, tensor([50], { dtype: 'int64' })]) as Tensor)).toEqual([3 * 2 ** 50]);
    expect(() => call('left_shift', [x, tensor([52], { dtype: 'int64' })])).toThrow(/2\^53/);
  });
});

describe('int32 products wrap exactly', () => {
  it('multiply and prelu beyond 2^53 agree with BigInt wrapping', () => {
    const vs = [2 ** 31 - 1, -(2 ** 31), 123456789, -987654321, 65537, 3];
    const { a, b, ta, tb } = pairs(vs, vs, 'int32');
    const expected = a.map((x, i) => Number(BigInt.asIntN(32, BigInt(x) * BigInt(b[i]!))));
    expect(values(call('multiply', [ta, tb]) as Tensor)).toEqual(expected);
    // prelu multiplies the negative entries by the slope.
    const prelu = a.map((x, i) => (x < 0 ? expected[i]! : x));
    expect(values(call('prelu', [ta, tb]) as Tensor)).toEqual(prelu);
  });
});

type Feed = {
  dtype: 'float32' | 'float64' | 'int64' | 'int32' | 'int8' | 'uint8' | 'bool';
  shape: number[];
  data: number[];
};

function oracleFeed(f: Feed): OracleTensor {
  const data =
    f.dtype === 'int64'
      ? BigInt64Array.from(f.data.map(BigInt))
      : f.dtype === 'int32'
        ? Int32Array.from(f.data)
        : f.dtype === 'int8'
          ? Int8Array.from(f.data)
          : f.dtype === 'uint8' || f.dtype === 'bool'
            ? Uint8Array.from(f.data)
            : f.dtype === 'float64'
              ? Float64Array.from(f.data)
              : Float32Array.from(f.data);
  return { dtype: f.dtype, shape: f.shape, data };
}

/** One node through loadOnnx and through onnxruntime-node: same dtype, shape and values (floats within 1e-6). */
async function agree(op: string, opset: number, inputs: Feed[], attrs?: Record<string, AttrValue>): Promise<void> {
  const names = inputs.map((_, i) => `x${i}`);
  const bytes = buildModel({
    nodes: [{ op, inputs: names, outputs: ['y'], attrs }],
    inputs: inputs.map((f, i) => ({ name: names[i]!, dtype: f.dtype, shape: f.shape })),
    outputs: [{ name: 'y' }],
    opset,
  });
  const [theirs] = await runOnnxModel(bytes, Object.fromEntries(inputs.map((f, i) => [names[i]!, oracleFeed(f)])));
  const ours = loadOnnx(bytes).run(
    Object.fromEntries(inputs.map((f, i) => [names[i]!, tensor(f.data, { dtype: f.dtype, shape: f.shape })])),
  ).y!;
  expect(ours.dtype).toBe(theirs!.dtype);
  expect(ours.shape).toEqual(theirs!.shape);
  const want = Array.from(toFloat64(theirs!));
  values(ours).forEach((v, i) => expect(v).toBeCloseTo(want[i]!, 6));
}

describe('FromOnnx imports (vs onnxruntime-node)', () => {
  const ints = (dtype: Feed['dtype'], data: number[], shape = [data.length]): Feed => ({ dtype, shape, data });
  it('Div of integers truncates in their dtype; of floats divides', async () => {
    for (const dtype of ['int32', 'int64', 'int8'] as const)
      await agree('Div', 14, [ints(dtype, [-7, 7, -7, 7, 9, -9], [2, 3]), ints(dtype, [2, -3, 4], [3])]);
    await agree('Div', 14, [ints('uint8', [255, 7, 200]), ints('uint8', [2, 3, 7])]);
    await agree('Div', 14, [ints('float32', [-7, 7, 1]), ints('float32', [2, -2, 3])]);
  });
  it('Mod with fmod 0 and 1, broadcasting', async () => {
    const a = ints('int32', [-7, 7, -8, 8, 0, 5], [2, 3]);
    const b = ints('int32', [3, -3, 5], [3]);
    await agree('Mod', 13, [a, b]);
    await agree('Mod', 13, [a, b], { fmod: 1 });
    await agree('Mod', 13, [ints('float64', [-7.5, 7.5, 2]), ints('float64', [2, -2, 0.75])], { fmod: 1 });
  });
  it('Mod of floats with fmod 0 is refused, naming the node', () => {
    const bytes = buildModel({
      nodes: [{ op: 'Mod', inputs: ['a', 'b'], outputs: ['y'] }],
      inputs: [
        { name: 'a', dtype: 'float32', shape: [2] },
        { name: 'b', dtype: 'float32', shape: [2] },
      ],
      outputs: [{ name: 'y' }],
      opset: 13,
    });
    expect(() => loadOnnx(bytes).run({ a: tensor([1, 2]), b: tensor([3, 4]) })).toThrow(/Mod.*fmod = 1/);
  });
  it('BitShift in both directions', async () => {
    for (const direction of ['LEFT', 'RIGHT'])
      await agree('BitShift', 11, [ints('uint8', [1, 16, 255, 7]), ints('uint8', [1, 4, 1, 2])], { direction });
  });
  it('Sum, Mean, Max and Min of three broadcasting inputs, and of one', async () => {
    const three: Feed[] = [
      ints('float32', [1.5, -2, 3, 0.25, 4, -1], [2, 3]),
      ints('float32', [0.5, 2, -3], [3]),
      ints('float32', [7, -7], [2, 1]),
    ];
    for (const op of ['Sum', 'Mean', 'Max', 'Min']) {
      await agree(op, 13, three);
      await agree(op, 13, three.slice(0, 1));
    }
    for (const op of ['Max', 'Min'])
      // ONNX types Sum and Mean over floats only
      await agree(op, 13, [
        ints('int32', [2 ** 30, -100, 5]),
        ints('int32', [2 ** 30, -100, -5]),
        ints('int32', [1, 1, 1]),
      ]);
  });
  it('CastLike casts to the second input dtype', async () => {
    await agree('CastLike', 15, [ints('float32', [1.7, -2.2, 3]), ints('int32', [0])]);
    await agree('CastLike', 15, [ints('int32', [1, -2, 3]), ints('float64', [0])]);
  });
  it('bitwise and logical ops', async () => {
    for (const op of ['BitwiseAnd', 'BitwiseOr', 'BitwiseXor'])
      await agree(op, 18, [ints('int8', [-128, -1, 85, 127], [2, 2]), ints('int8', [-86, 15], [2])]);
    await agree('BitwiseNot', 18, [ints('uint8', [0, 1, 170, 255])]);
    for (const op of ['And', 'Or', 'Xor'])
      await agree(op, 7, [ints('bool', [0, 1, 0, 1], [2, 2]), ints('bool', [0, 1], [2])]);
  });
  it('IsInf with each detect flag', async () => {
    const x = ints('float32', [Infinity, -Infinity, 0, NaN, 3]);
    for (const [p, n] of [
      [1, 1],
      [1, 0],
      [0, 1],
      [0, 0],
    ])
      await agree('IsInf', 10, [x], { detect_positive: p!, detect_negative: n! });
  });
});
