// raf.op.bitcast at the widths its generated suite (32-bit) does not reach: 16-bit floats as their patterns, 64-bit
// values whose patterns stay within ±2^53, bytes as bool; and its refusals. Expected patterns come from the IEEE
// layouts written out here, not from the kernel's DataView.

import { describe, expect, it } from 'vitest';
import { ops, tensor } from '../../runtime/src/index.ts';

const values = (t: { dataSync(): ArrayLike<number> }) => Array.from(t.dataSync());

describe('raf.op.bitcast', () => {
  it('float16 and bfloat16 to their 16-bit patterns and back', () => {
    // float16 1 = 0 01111 0000000000, -2 = 1 10000 0000000000, 0.5 = 0 01110 0...; bfloat16 1 = 0x3f80.
    const h = tensor([1, -2, 0.5], { dtype: 'float16' });
    expect(values(ops.bitcast(h, 'uint16'))).toEqual([0x3c00, 0xc000, 0x3800]);
    expect(values(ops.bitcast(h, 'int16'))).toEqual([0x3c00, 0xc000 - 0x10000, 0x3800]);
    expect(values(ops.bitcast(tensor([0x3c00, 0x7c00], { dtype: 'uint16' }), 'float16'))).toEqual([1, Infinity]);
    expect(values(ops.bitcast(tensor([1, -1], { dtype: 'bfloat16' }), 'uint16'))).toEqual([0x3f80, 0xbf80]);
  });

  it('64-bit patterns within ±2^53 both ways', () => {
    // The smallest float64 subnormals are the patterns 1, 2, 3; -0 is the pattern 2^63, beyond ±2^53.
    const sub = tensor([2 ** -1074, 2 * 2 ** -1074, 3 * 2 ** -1074], { dtype: 'float64' });
    expect(values(ops.bitcast(sub, 'int64'))).toEqual([1, 2, 3]);
    expect(values(ops.bitcast(tensor([1, 2 ** 52], { dtype: 'uint64' }), 'float64'))).toEqual([2 ** -1074, 2 ** -1022]);
    expect(() => ops.bitcast(tensor([1], { dtype: 'float64' }), 'int64')).toThrow(
      /raf\.op\.bitcast \(argument 'x'\): .*4607182418800017408, beyond ±2\^53/,
    );
  });

  it('bytes as bool, and int8 as uint8', () => {
    expect(values(ops.bitcast(tensor([0, 1], { dtype: 'uint8' }), 'bool'))).toEqual([0, 1]);
    expect(() => ops.bitcast(tensor([2], { dtype: 'uint8' }), 'bool')).toThrow(/byte read as bool is 2/);
    expect(values(ops.bitcast(tensor([-1, -128, 5], { dtype: 'int8' }), 'uint8'))).toEqual([255, 128, 5]);
  });

  it('refuses widths that differ, naming dtype', () => {
    expect(() => ops.bitcast(tensor([1, 2], { dtype: 'float32' }), 'float64')).toThrow(
      /raf\.op\.bitcast \(argument 'dtype'\): float64 is 64-bit and x \(float32\) is 32-bit/,
    );
  });
});
