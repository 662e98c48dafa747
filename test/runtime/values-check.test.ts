// `check: values` at run time (runtime/src/checks.ts argValues): range and constant_of_shape read their inputs' values
// in eager mode, refuse traced ones in graph mode naming op and argument, and refuse values a GPU kernel computed (they
// cannot be read without waiting) while reading small tensors uploaded from the CPU.

import { describe, expect, it } from 'vitest';
import { initWebGpu, ops, tensor } from '../../runtime/src/index.ts';
import { execute, trace } from '../../runtime/src/graph/index.ts';

const gpu = await initWebGpu().catch(() => false);
const scalar = (v: number, dtype: 'float32' | 'int64' = 'float32') => tensor([v], { dtype, shape: [] });

describe("check 'values'", () => {
  it('eager: the values decide the shape, as ONNX Range and ConstantOfShape say', () => {
    expect(Array.from(ops.range(scalar(5, 'int64'), scalar(-4, 'int64'), scalar(-3, 'int64')).dataSync())).toEqual([
      5, 2, -1,
    ]);
    expect(ops.range(scalar(1), scalar(1), scalar(0.5)).shape).toEqual([0]);
    const c = ops.constantOfShape(tensor([2, 0, 3], { dtype: 'int64' }), 7, 'int32');
    expect([c.shape, c.dtype]).toEqual([[2, 0, 3], 'int32']);
    expect(() => ops.range(scalar(0), scalar(1), scalar(0))).toThrow("raf.op.range (argument 'delta'): must not be 0");
  });

  it('graph mode: a traced shape is refused naming the argument; a constant one is traced with the other inputs', () => {
    expect(() => trace((s) => ops.constantOfShape(s, 1), [{ shape: [2], dtype: 'int64' }])).toThrow(
      "raf.op.constant_of_shape (argument 'shape'): decides the output shape by its values, so in a graph it must be a constant",
    );
    const shape = tensor([2, 3], { dtype: 'int64' });
    const g = trace((x) => ops.add(x, ops.constantOfShape(shape, 0.5)), [{ shape: [2, 3], dtype: 'float32' }]);
    const x = tensor([1, 2, 3, 4, 5, 6], { shape: [2, 3] });
    expect(Array.from(execute(g, [x])[0]!.dataSync())).toEqual([1.5, 2.5, 3.5, 4.5, 5.5, 6.5]);
  });

  it.skipIf(!gpu)('WebGPU: uploaded scalars are read; a limit computed on the GPU is refused, naming it', async () => {
    const [a, b, d] = await Promise.all([scalar(0), scalar(2), scalar(0.5)].map((t) => t.to('webgpu')));
    const r = ops.range(a!, b!, d!);
    expect(r.device.kind).toBe('webgpu');
    expect(Array.from(await r.data())).toEqual([0, 0.5, 1, 1.5]);
    expect(() => ops.range(a!, ops.add(b!, b!), d!)).toThrow(
      "raf.op.range (argument 'limit'): decides the output shape by its values, which are on webgpu and cannot be read without waiting",
    );
  });
});
