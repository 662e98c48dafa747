// cumsum and cumprod of bool and integer tensors on WebGPU (issue 42): NumPy accumulates them in int64, which WebGPU
// holds as int32, so that default is refused, saying what to pass; dtype int32 folds in i32 and wraps as NumPy's int32
// does, dtype float32 folds in f32. Each result against NumPy's definition written out here, the CPU's too.

import { describe, expect, it } from 'vitest';
import { ops, tensor, withDialect, type DType, type Tensor } from '../../runtime/src/index.ts';
import { useWebGpu } from '../support/webgpu-context.ts';

const needGpu = useWebGpu();

type Fold = 'cumsum' | 'cumprod';
const SHAPE = [3, 4];
// Row 0 passes int32's maximum on the way (sums and products wrap); the others stay small.
const INTS = [2147483647, 1, 5, -7, 3, -2, 4, 6, 65536, 65536, 2, -1];
const BOOLS = [1, 0, 1, 1, 1, 1, 0, 1, 0, 0, 1, 1];

/** np.cumsum / np.cumprod of a [3, 4] row-major array along `axis` (null: flattened), `step` in the dtype's arithmetic. */
function numpyScan(
  xs: readonly number[],
  axis: number | null,
  exclusive: boolean,
  step: (a: number, v: number) => number,
  identity: number,
): number[] {
  const lines: number[][] =
    axis === null
      ? [xs.map((_, i) => i)]
      : axis === 0 || axis === -2
        ? [0, 1, 2, 3].map((c) => [0, 1, 2].map((r) => r * 4 + c))
        : [0, 1, 2].map((r) => [0, 1, 2, 3].map((c) => r * 4 + c));
  const out = new Array<number>(xs.length);
  for (const line of lines) {
    let acc = identity;
    for (const i of line) {
      if (exclusive) out[i] = acc;
      acc = step(acc, xs[i]!);
      if (!exclusive) out[i] = acc;
    }
  }
  return out;
}

/** NumPy's arithmetic in the output dtype: int32 wraps (two's complement), float32 rounds each step. */
const STEPS: Record<'int32' | 'float32', Record<Fold, [(a: number, v: number) => number, number]>> = {
  int32: { cumsum: [(a, v) => (a + v) | 0, 0], cumprod: [(a, v) => Math.imul(a, v), 1] },
  float32: {
    cumsum: [(a, v) => Math.fround(a + Math.fround(v)), 0],
    cumprod: [(a, v) => Math.fround(a * Math.fround(v)), 1],
  },
};

const run = (op: Fold, x: Tensor, axis: number | null, dtype: DType | null, exclusive: boolean) =>
  ops[op](x, axis, dtype, exclusive);

describe('webgpu cumsum / cumprod of bool and integer inputs', () => {
  const inputs: [DType, number[]][] = [
    ['int32', INTS],
    ['int64', INTS.map((v, i) => (i === 0 ? 2000000000 : v))], // int64 on the GPU holds int32's range
    ['bool', BOOLS],
  ];
  const cases = inputs.flatMap(([dtype, xs]) =>
    (['cumsum', 'cumprod'] as const).flatMap((op) =>
      (['int32', 'float32'] as const).flatMap((out) =>
        ([null, 0, -1] as const).flatMap((axis) =>
          [false, true].map((exclusive) => ({ dtype, xs, op, out, axis, exclusive })),
        ),
      ),
    ),
  );
  // float32 products of INTS pass 2^24 and round: the CPU and the GPU round each step, as NumPy's float32 does.
  it.for(cases)(
    '$op of $dtype into $out, axis $axis, exclusive $exclusive, equals NumPy on the GPU and the CPU',
    async ({ dtype, xs, op, out, axis, exclusive }, ctx) => {
      needGpu(ctx);
      const [step, identity] = STEPS[out][op];
      const want = numpyScan(xs, axis, exclusive, step, identity);
      const x = tensor(xs, { dtype, shape: SHAPE });
      const cpu = withDialect(['cpu'], () => run(op, x, axis, out, exclusive));
      const g = run(op, await x.to('webgpu'), axis, out, exclusive);
      expect(g.dtype).toBe(out);
      expect(g.device.kind).toBe('webgpu');
      expect(Array.from(cpu.dataSync(), Number)).toEqual(want);
      expect(Array.from(await g.data(), Number)).toEqual(want);
    },
  );
});

describe('what webgpu refuses, saying what to do instead', () => {
  it.for(['int32', 'int64', 'bool'] as const)(
    "cumsum and cumprod of %s into int64 (NumPy's default accumulator), where the CPU gives the exact int64",
    async (dtype, ctx) => {
      needGpu(ctx);
      const xs = dtype === 'bool' ? BOOLS : INTS.map((v, i) => (i === 0 ? 2000000000 : v));
      const x = tensor(xs, { dtype, shape: SHAPE });
      const g = await x.to('webgpu');
      for (const op of ['cumsum', 'cumprod'] as const) {
        for (const dt of [null, 'int64'] as const)
          expect(() => run(op, g, 1, dt, false)).toThrow(
            `raf.op.webgpu.${op} (level 20): ${op} of ${dtype} accumulates in int64 (as NumPy's does), which WebGPU ` +
              "holds as int32, so a result past int32 would come back wrapped; pass dtype: 'int32' (wrapping as " +
              "NumPy's int32 does) or 'float32', or run it on the CPU (await x.to('cpu'))",
          );
        // On the CPU: int64, exact (within 2^53), as NumPy's.
        const [step, identity] =
          op === 'cumsum' ? [(a: number, v: number) => a + v, 0] : [(a: number, v: number) => a * v, 1];
        const cpu = run(op, x, 1, null, false);
        expect(cpu.dtype).toBe('int64');
        expect(Array.from(cpu.dataSync(), Number)).toEqual(numpyScan(xs, 1, false, step, identity));
      }
    },
  );

  it('a float32 input into an integer dtype', async (ctx) => {
    needGpu(ctx);
    const g = await tensor([1.5, 2, -3], { dtype: 'float32', shape: [3] }).to('webgpu');
    expect(() => ops.cumsum(g, 0, 'int32')).toThrow(
      "cumsum of float32 into int32 runs on the CPU only; pass dtype: 'float32', or run it on the CPU (await x.to('cpu'))",
    );
    expect(() => ops.cumprod(g, 0, 'int64')).toThrow(
      "cumprod of float32 into int64, which WebGPU holds as int32, so a result past int32 would come back wrapped; pass dtype: 'float32', or run it on the CPU",
    );
  });

  it.for(['int8', 'int16', 'uint8'] as const)(
    'a %s input cannot move to webgpu at all (the cast is named)',
    async (dtype, ctx) => {
      needGpu(ctx);
      await expect(tensor([1, 2, 3], { dtype, shape: [3] }).to('webgpu')).rejects.toThrow(
        `raf.op.to (argument 'tensor'): cannot move a ${dtype} tensor to webgpu: WGSL has no ${dtype} storage; cast it to int32 first (raf.op.cast)`,
      );
    },
  );
});
