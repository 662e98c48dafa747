// Dtype promotion (a spec's `promote:` field): float-only ops compute int32 and bool inputs in a float dtype, as NumPy
// and PyTorch do, or refuse them; never silent integer math. References are computed here in float64.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ops, tensor, withDialect, type Tensor } from '../../runtime/src/index.ts';
import { execute, trace } from '../../runtime/src/graph/index.ts';
import { initWebGpu, releaseGpu, gpuUnavailableReason } from '../../runtime/src/dialects/webgpu/index.ts';
import { REQUIRE_WEBGPU } from '../support/webgpu-cases.ts';

function close(t: Tensor, want: number[], digits = 5): void {
  const got = Array.from(t.dataSync());
  expect(got.length).toBe(want.length);
  got.forEach((v, i) => expect(v).toBeCloseTo(want[i]!, digits));
}

const softmaxRef = (xs: number[]) => {
  const m = Math.max(...xs);
  const e = xs.map((v) => Math.exp(v - m));
  const s = e.reduce((p, q) => p + q, 0);
  return e.map((v) => v / s);
};

describe('float-only ops promote int32 and bool to float32', () => {
  it('softmax of int32 is a float32 softmax, not zeros', () => {
    const y = ops.softmax(tensor([1, 2, 3], { dtype: 'int32' }));
    expect(y.dtype).toBe('float32');
    close(y, softmaxRef([1, 2, 3]));
  });

  it('exp of bool is [e, 1], log of int32 does not truncate, sqrt and sigmoid too', () => {
    const e = ops.exp(tensor([1, 0], { dtype: 'bool' }));
    expect(e.dtype).toBe('float32');
    close(e, [Math.E, 1]);
    close(ops.log(tensor([2, 10], { dtype: 'int32' })), [Math.log(2), Math.log(10)]);
    close(ops.sqrt(tensor([2, 3], { dtype: 'int32' })), [Math.SQRT2, Math.sqrt(3)]);
    close(ops.sigmoid(tensor([-1, 2], { dtype: 'int32' })), [1 / (1 + Math.E), 1 / (1 + Math.exp(-2))]);
  });

  it('divide of two int32 tensors is true division; with a float64 one, float64', () => {
    const q = ops.divide(tensor([7, -7], { dtype: 'int32' }), tensor([2, 2], { dtype: 'int32' }));
    expect(q.dtype).toBe('float32');
    close(q, [3.5, -3.5]);
    const d = ops.divide(tensor([1, 2], { dtype: 'float64' }), tensor([3, 3], { dtype: 'int32' }));
    expect(d.dtype).toBe('float64');
    close(d, [1 / 3, 2 / 3], 14);
  });

  it('mean of int32 is a float mean', () => {
    const m = ops.mean(tensor([1, 2, 4], { dtype: 'int32' }));
    expect(m.dtype).toBe('float32');
    close(m, [7 / 3]);
  });

  it('float inputs are untouched (float64 stays float64)', () => {
    expect(ops.exp(tensor([1], { dtype: 'float64' })).dtype).toBe('float64');
  });

  it('ops that have integer forms keep integer math (add, maximum)', () => {
    const s = ops.add(tensor([1, 2], { dtype: 'int32' }), tensor([3, 4], { dtype: 'int32' }));
    expect(s.dtype).toBe('int32');
    expect(Array.from(s.dataSync())).toEqual([4, 6]);
  });

  it('a traced graph promotes at run time too', () => {
    const g = trace((x: Tensor) => ops.softmax(x), [tensor([1, 2, 3], { dtype: 'int32' })]);
    const [y] = execute(g, [tensor([3, 1, 2], { dtype: 'int32' })]);
    expect(y!.dtype).toBe('float32');
    close(y!, softmaxRef([3, 1, 2]));
  });
});

describe('ops declared `promote: refuse` refuse int32 and bool with an OpError', () => {
  it('layer_norm of int32', () => {
    const x = tensor([[1, 2, 3]], { dtype: 'int32' });
    expect(() => ops.layerNorm(x, tensor([1, 1, 1]), tensor([0, 0, 0]))).toThrow(
      "raf.op.layer_norm (argument 'x'): dtype int32 is not supported",
    );
  });
  it('avg_pool2d of bool', () => {
    const x = tensor(Array(16).fill(1), { dtype: 'bool', shape: [1, 1, 4, 4] });
    expect(() => ops.avgPool2d(x, [2, 2])).toThrow("raf.op.avg_pool2d (argument 'x'): dtype bool is not supported");
  });
});

describe('on WebGPU', () => {
  let available = false;
  beforeAll(async () => {
    available = Boolean(await initWebGpu());
  });
  afterAll(async () => {
    await releaseGpu();
  });
  it('softmax and exp of int32 promote as on the CPU', async (ctx) => {
    if (!available) {
      if (REQUIRE_WEBGPU) throw new Error(`WebGPU required but unavailable: ${gpuUnavailableReason()}`);
      return ctx.skip(`WebGPU unavailable: ${gpuUnavailableReason()}`);
    }
    const x = await tensor([1, 2, 3], { dtype: 'int32' }).to('webgpu');
    const y = withDialect(['webgpu'], () => ops.softmax(x));
    expect(y.dtype).toBe('float32');
    const got = Array.from(await y.data());
    softmaxRef([1, 2, 3]).forEach((v, i) => expect(got[i]!).toBeCloseTo(v, 4));
    const e = Array.from(await withDialect(['webgpu'], () => ops.exp(x)).data());
    [1, 2, 3].forEach((v, i) => expect(e[i]!).toBeCloseTo(Math.exp(v), 3));
  });
});
