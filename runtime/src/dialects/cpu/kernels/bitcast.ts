// CPU kernel of raf.op.bitcast (specs/tensor/bitcast.yaml): each element written into a little-endian byte buffer as
// x's dtype stores it (float16 and bfloat16 as their 16-bit patterns, int64 as two's complement) and read back as the
// output's dtype.

import type { BitcastKernel } from '../../../generated/bridge/bitcast.ts';
import { bfloat16Bits, bfloat16FromBits, float16Bits, float16FromBits, type DType } from '../../../dtype.ts';
import { OpError } from '../../../errors.ts';
import { BIT_WIDTH } from '../../../ops/bitcast.rule.ts';
import { allocOut, finish } from '../support.ts';

type Write = (view: DataView, at: number, v: number) => void;
type Read = (view: DataView, at: number) => number;

const WRITE: Readonly<Record<DType, Write>> = {
  float16: (d, at, v) => d.setUint16(at, float16Bits(v), true),
  bfloat16: (d, at, v) => d.setUint16(at, bfloat16Bits(v), true),
  int16: (d, at, v) => d.setInt16(at, v, true),
  uint16: (d, at, v) => d.setUint16(at, v, true),
  float32: (d, at, v) => d.setFloat32(at, v, true),
  int32: (d, at, v) => d.setInt32(at, v, true),
  uint32: (d, at, v) => d.setUint32(at, v, true),
  float64: (d, at, v) => d.setFloat64(at, v, true),
  int64: (d, at, v) => d.setBigInt64(at, BigInt(v), true),
  uint64: (d, at, v) => d.setBigUint64(at, BigInt(v), true),
  int8: (d, at, v) => d.setInt8(at, v),
  uint8: (d, at, v) => d.setUint8(at, v),
  bool: (d, at, v) => d.setUint8(at, v ? 1 : 0),
};

function wide(v: bigint, dtype: string): number {
  if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < -BigInt(Number.MAX_SAFE_INTEGER))
    throw new OpError(
      'bitcast',
      `an element's bits read as ${dtype} are ${v}, beyond ±2^53, which raf-op's ${dtype} holds exactly`,
      'x',
    );
  return Number(v);
}

const READ: Readonly<Record<DType, Read>> = {
  float16: (d, at) => float16FromBits(d.getUint16(at, true)),
  bfloat16: (d, at) => bfloat16FromBits(d.getUint16(at, true)),
  int16: (d, at) => d.getInt16(at, true),
  uint16: (d, at) => d.getUint16(at, true),
  float32: (d, at) => d.getFloat32(at, true),
  int32: (d, at) => d.getInt32(at, true),
  uint32: (d, at) => d.getUint32(at, true),
  float64: (d, at) => d.getFloat64(at, true),
  int64: (d, at) => wide(d.getBigInt64(at, true), 'int64'),
  uint64: (d, at) => wide(d.getBigUint64(at, true), 'uint64'),
  int8: (d, at) => d.getInt8(at),
  uint8: (d, at) => d.getUint8(at),
  bool: (d, at) => {
    const b = d.getUint8(at);
    if (b > 1) throw new OpError('bitcast', `a byte read as bool is ${b}; bool bytes are 0 or 1`, 'x');
    return b;
  },
};

export const bitcastCpu: BitcastKernel = ({ x }, { dtype }, out) => {
  const width = BIT_WIDTH[dtype] / 8;
  const xv = x.dataSync() as ArrayLike<number>;
  const view = new DataView(new ArrayBuffer(xv.length * width));
  const write = WRITE[x.dtype];
  const read = READ[dtype];
  for (let i = 0; i < xv.length; i++) write(view, i * width, xv[i]!);
  const y = allocOut(out);
  const yv = y.dataSync() as { [i: number]: number };
  for (let i = 0; i < xv.length; i++) yv[i] = read(view, i * width);
  return finish(y);
};
