// AutoCast on WebGPU: the pass casts a GPU graph as it does a CPU one, and the float16 graph runs on the GPU within float16 tolerance of float32.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ops, randomUniform, withDialect, type Tensor } from '../../runtime/src/index.ts';
import { autoCast, execute, fuseOps, precisionReport, printGraph, trace } from '../../runtime/src/graph/index.ts';
import {
  gpuUnavailableReason,
  initWebGpu,
  releaseGpu,
  type GpuContext,
} from '../../runtime/src/dialects/webgpu/index.ts';
import { assertAllClose } from '../support/assert.ts';
import { REQUIRE_WEBGPU } from '../support/webgpu-cases.ts';

let gpu: GpuContext | null = null;
beforeAll(async () => {
  gpu = await initWebGpu();
});
afterAll(async () => {
  await releaseGpu();
});

const needGpu = (ctx: { skip: (note?: string) => void }): GpuContext | undefined => {
  if (gpu) return gpu;
  if (REQUIRE_WEBGPU) throw new Error(`WebGPU required but unavailable: ${gpuUnavailableReason()}`);
  ctx.skip(`WebGPU unavailable: ${gpuUnavailableReason()}`);
  return undefined;
};

const F16_TOL = { atol: 2e-2, rtol: 2e-2 };

// The network of autocast.test.ts: matmul (always float16), add and relu (infer), softmax (never).
const net = (x: Tensor, w1: Tensor, b1: Tensor, w2: Tensor, b2: Tensor) =>
  ops.softmax(ops.add(ops.matmul(ops.relu(ops.add(ops.matmul(x, w1), b1)), w2), b2), -1);
const shapes: Record<string, number[]> = { x: [4, 8], w1: [8, 16], b1: [16], w2: [16, 3], b2: [3] };
const params = (device: 'cpu' | 'webgpu') =>
  Object.entries(shapes).map(([name, shape]) => ({ name, shape, dtype: 'float32' as const, device }));
const inputs = () => Object.values(shapes).map((shape, i) => randomUniform(shape, { seed: 40 + i }));

describe('AutoCast on webgpu', () => {
  it('casts a GPU graph where it casts the CPU one', () => {
    const cpu = autoCast(trace(net, params('cpu')));
    const onGpu = autoCast(trace(net, params('webgpu')));
    expect(printGraph(onGpu)).toBe(printGraph(cpu));
    expect(precisionReport(onGpu)).toEqual(precisionReport(cpu));
    expect(
      precisionReport(onGpu)
        .ops.filter((o) => o.dtype === 'float16')
        .map((o) => o.op),
    ).toEqual(['matmul', 'add', 'relu', 'matmul', 'add']);
    expect(onGpu.nodes.every((n) => n.kind === 'call' && n.out.kind === 'var' && n.out.device.kind === 'webgpu')).toBe(
      true,
    );
  });

  it('runs the float16 graph on the GPU within float16 tolerance of float32, and close to the CPU float16 run', async (ctx) => {
    const g = needGpu(ctx);
    if (!g) return;
    const xs = inputs();
    const xg = await Promise.all(xs.map((t) => t.to('webgpu')));
    const full = execute(trace(net, params('cpu')), xs)[0]!;
    const halfCpu = execute(autoCast(trace(net, params('cpu'))), xs)[0]!;
    // Pinned: every op, float16 ones included, must find a WebGPU kernel, and dispatch checks each result's dtype.
    const amp = autoCast(trace(net, params('webgpu')));
    const [half] = withDialect(['webgpu'], () => execute(amp, xg));
    expect(half!.device.kind).toBe('webgpu');
    expect(half!.dtype).toBe('float32');
    const got = Array.from(await half!.data());
    assertAllClose(got, Array.from(full.dataSync()), F16_TOL, 'AMP on webgpu vs float32');
    assertAllClose(got, Array.from(halfCpu.dataSync()), F16_TOL, 'AMP on webgpu vs AMP on cpu');

    // Without restoring outputs, the first layer's float16 result stays float16 on the GPU, float16-representable.
    const first = (x: Tensor, w1: Tensor, b1: Tensor) => ops.relu(ops.add(ops.matmul(x, w1), b1));
    const p3 = params('webgpu').slice(0, 3);
    const [h16] = withDialect(['webgpu'], () =>
      execute(autoCast(trace(first, p3), { restoreOutputs: false }), xg.slice(0, 3)),
    );
    expect(h16!.dtype).toBe('float16');
    expect(h16!.device.kind).toBe('webgpu');
    const values = Array.from(await h16!.data());
    expect(values.filter((v) => Math.fround(v) !== v)).toEqual([]);
    const [h16Cpu] = execute(
      autoCast(trace(first, params('cpu').slice(0, 3)), { restoreOutputs: false }),
      xs.slice(0, 3),
    );
    assertAllClose(
      values,
      Array.from(h16Cpu!.dataSync()),
      { atol: 1e-2, rtol: 1e-2 },
      'float16 layer on webgpu vs cpu',
    );
    for (const t of [...xg, half!, h16!]) t.dispose();
    expect(g.uncapturedErrors).toEqual([]);
  });

  it('fuses the float16 graph: each add and relu joins its matmul, in fewer GPU passes and the same halves', async (ctx) => {
    const g = needGpu(ctx);
    if (!g) return;
    const xg = await Promise.all(inputs().map((t) => t.to('webgpu')));
    const amp = autoCast(trace(net, params('webgpu')));
    const fused = fuseOps(amp);
    expect(fused.nodes.filter((n) => n.kind === 'fused')).toHaveLength(2);
    const run = (graph: typeof amp) => {
      const before = g.pipelines.dispatches;
      const [y] = withDialect(['webgpu'], () => execute(graph, xg));
      return { y: y!, passes: g.pipelines.dispatches - before };
    };
    const [a, b] = [run(amp), run(fused)];
    expect(b.passes).toBeLessThan(a.passes);
    expect(Array.from(await b.y.data())).toEqual(Array.from(await a.y.data()));
    for (const t of [...xg, a.y, b.y]) t.dispose();
    expect(g.uncapturedErrors).toEqual([]);
  });
});
