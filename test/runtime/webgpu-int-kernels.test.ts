// WebGPU kernels on int32 and bool tensors (the generated per-op tests compare float32 only): bit-moving gathers, lattices and casts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { call, tensor, Tensor, withDialect } from '../../runtime/src/index.ts';
import {
  gpuUnavailableReason,
  initWebGpu,
  releaseGpu,
  type GpuContext,
} from '../../runtime/src/dialects/webgpu/index.ts';
import { REQUIRE_WEBGPU } from '../support/webgpu-cases.ts';

let gpu: GpuContext | null = null;
beforeAll(async () => {
  gpu = await initWebGpu();
});
afterAll(async () => {
  await releaseGpu();
});

const int = (v: number[] | number[][]) => tensor(v, { dtype: 'int32' });
const bool = (v: number[] | number[][]) => tensor(v, { dtype: 'bool' });

const cases: readonly (readonly [string, Record<string, unknown>])[] = [
  [
    'take',
    {
      x: int([
        [1, 2, 3],
        [4, 5, 6],
      ]),
      indices: int([1, -1, 0, 2]),
      axis: 1,
    },
  ],
  [
    'take',
    {
      x: bool([
        [1, 0],
        [0, 1],
      ]),
      indices: int([[1], [0]]),
      axis: 0,
    },
  ],
  [
    'pad',
    {
      x: int([
        [1, 2],
        [3, 4],
      ]),
      pads: [1, 0, 0, 2],
      value: -2.7,
    },
  ],
  [
    'pad',
    {
      x: bool([
        [1, 0],
        [0, 1],
      ]),
      pads: [0, 1, 1, 0],
      value: 1,
    },
  ],
  [
    'strided_slice',
    {
      x: int([
        [1, 2, 3],
        [4, 5, 6],
      ]),
      begin: [1, 2],
      end: [-3, -4],
      strides: [-1, -1],
    },
  ],
  [
    'strided_slice_dx',
    {
      x: int([
        [1, 2, 3],
        [4, 5, 6],
      ]),
      dy: int([
        [1, 2],
        [3, 4],
      ]),
      begin: [1, 2],
      end: [-3, -4],
      strides: [-1, -2],
    },
  ],
  ['cast', { x: tensor([-2.7, 0, 0.5, 3.9]), dtype: 'int32' }],
  ['cast', { x: tensor([-2.7, 0, 0.5, 3.9]), dtype: 'bool' }],
  ['cast', { x: int([-2, 0, 5]), dtype: 'bool' }],
  ['cast', { x: int([-2, 0, 5]), dtype: 'float32' }],
  ['cast', { x: bool([1, 0, 1]), dtype: 'int32' }],
  ['cast', { x: bool([1, 0, 1]), dtype: 'float32' }],
  ['cast', { x: bool([1, 0, 1]), dtype: 'bool' }],
];

describe('webgpu kernels on int32 and bool', () => {
  it.for(cases.map(([op, args], k) => [`${op} #${k}`, op, args] as const))(
    '%s matches the CPU exactly',
    async ([, op, args], ctx) => {
      if (!gpu) {
        if (REQUIRE_WEBGPU) throw new Error(`WebGPU required but unavailable: ${gpuUnavailableReason()}`);
        return ctx.skip(`WebGPU unavailable: ${gpuUnavailableReason()}`);
      }
      const want = withDialect(['cpu'], () => call(op, [], args)) as Tensor;
      const onGpu: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(args)) onGpu[k] = v instanceof Tensor ? await v.to('webgpu') : v;
      const got = withDialect(['webgpu'], () => call(op, [], onGpu)) as Tensor;
      expect(got.dtype).toBe(want.dtype);
      expect(got.shape).toEqual(want.shape);
      expect(Array.from(await got.data())).toEqual(Array.from(want.dataSync()));
    },
  );
});
