// Hand-written reference of raf.op.bitcast (specs/tensor/bitcast.yaml, `tests.reference: true`) for its 32-bit test
// cases: the bytes of a typed array of x's dtype viewed through a typed array of the result's dtype (the kernel goes
// element by element through a DataView).

import type { Tensor } from '../../runtime/src/index.ts';

const ARRAYS = { float32: Float32Array, int32: Int32Array, uint32: Uint32Array } as const;

export function reference(
  inputs: Readonly<Record<string, Tensor | null>>,
  args: Readonly<Record<string, unknown>>,
): number[] {
  const x = inputs.x!;
  const from = ARRAYS[x.dtype as keyof typeof ARRAYS];
  const to = ARRAYS[args.dtype as keyof typeof ARRAYS];
  if (!from || !to) throw new Error(`no reference for ${x.dtype} to ${String(args.dtype)}`);
  return Array.from(new to(from.from(x.dataSync() as ArrayLike<number>).buffer));
}
