// A disposed tensor can never be read, on any dialect: the dispatcher refuses it by op and argument, and a pooled
// WebGPU buffer carries a generation checked at every bind and read. The typed API refuses extra arguments as `call` does.
import { describe, expect, it } from 'vitest';

import { call, ops, tensor, Tensor, withDialect } from '../../runtime/src/index.ts';
import { gpuBuffer } from '../../runtime/src/dialects/webgpu/storage.ts';
import { useWebGpu } from '../support/webgpu-context.ts';

const needGpu = useWebGpu();

describe('a disposed tensor cannot be read', () => {
  it("on WebGPU, after its buffer went to another tensor (the issue's repro)", async (ctx) => {
    needGpu(ctx);
    const x = await tensor([1, 2, 3]).to('webgpu');
    x.dispose();
    const y = await tensor([9, 9, 9]).to('webgpu');
    expect(() => ops.exp(x)).toThrow("raf.op.exp (argument 'x'): tensor #" + x.id + ' was disposed');
    await expect(x.data()).rejects.toThrow(/was disposed/);
    // The new owner is untouched.
    expect(Array.from(await y.data())).toEqual([9, 9, 9]);
    y.dispose();
  });

  it('on WebGPU, through a second tensor sharing the disposed storage: the generation check at bind and read', async (ctx) => {
    const gpu = needGpu(ctx);
    const x = await tensor([1, 2, 3, 4]).to('webgpu');
    const view = new Tensor([2, 2], 'float32', x.storage);
    (await ops.exp(view).data()).forEach((v, i) => expect(v).toBeCloseTo(Math.exp(i + 1), 4));
    x.dispose();
    const y = await tensor([7, 7, 7, 7]).to('webgpu');
    expect(gpu.pool.stats().reused).toBeGreaterThan(0);
    expect(() => gpuBuffer(view)).toThrow(/buffer was disposed/);
    expect(() => withDialect(['webgpu'], () => ops.exp(view))).toThrow(/buffer was disposed/);
    await expect(view.data()).rejects.toThrow(/buffer was disposed/);
    expect(Array.from(await y.data())).toEqual([7, 7, 7, 7]);
    y.dispose();
  });

  it('on the CPU and wasm, refused by op and argument', () => {
    const x = tensor([1, 2, 3]);
    const w = tensor([1, 1, 1]);
    x.dispose();
    for (const dialect of ['cpu', 'wasm'] as const) {
      expect(() => withDialect([dialect], () => ops.add(w, x))).toThrow(
        `raf.op.add (argument 'b'): tensor #${x.id} was disposed`,
      );
    }
    expect(() => ops.concatenate([w, x], 0)).toThrow(
      `raf.op.concatenate (argument 'xs'): tensor #${x.id} was disposed`,
    );
    expect(() => x.dataSync()).toThrow(/was disposed/);
  });
});

describe('the typed API refuses extra arguments as call does', () => {
  const loose = <F>(f: F) => f as unknown as (...a: unknown[]) => Tensor;
  it.each([
    ['exp', [tensor([1, 2]), 1]],
    ['softmax', [tensor([1, 2]), -1, 3]],
    ['add', [tensor([1]), tensor([2]), tensor([3])]],
  ] as const)('%s', (name, args) => {
    const viaCall = (() => {
      try {
        call(name, args);
      } catch (e) {
        return (e as Error).message;
      }
      return 'no error';
    })();
    expect(viaCall).toMatch(/takes at most \d arguments/);
    expect(() => loose(ops[name])(...args)).toThrow(viaCall);
  });

  it('still takes every declared argument, defaults included', () => {
    expect(Array.from(loose(ops.softmax)(tensor([0, 0]), -1).dataSync())).toEqual([0.5, 0.5]);
    expect(Array.from(ops.softmax(tensor([0, 0])).dataSync())).toEqual([0.5, 0.5]);
  });
});
