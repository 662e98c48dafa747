// Cases: graph mode's fusion pass on a reduction followed by five elementwise ops, fused against unfused, on cpu and webgpu.

import { gpuSync, type DeviceKind } from '../../runtime/src/index.ts';
import { onDevice, reduceThenElementwiseCase, type FusionBenchCase } from '../../runtime/src/graph/bench.ts';
import { defineCase, type BenchCase, type Impl } from '../case.ts';
import { noWebGpu } from '../gpu.ts';
import { readAll } from '../raf.ts';

export function fusionCase(device: DeviceKind, rows = 1024, cols = 1024): BenchCase {
  // Built once per case on first setup, so both columns run the same graphs on the same input.
  let made: Promise<FusionBenchCase> | undefined;
  const get = () =>
    (made ??= (async () => {
      const c = reduceThenElementwiseCase(rows, cols);
      return device === 'cpu' ? c : onDevice(c, device);
    })());
  const variant = (v: 'fused' | 'unfused'): Impl => ({
    async setup() {
      const c = await get();
      const l = c.launches();
      return {
        // CPU results are computed by the time the call returns; a GPU run waits for the queue, as the webgpu cases do.
        run:
          device === 'cpu'
            ? () => c.run(v)
            : async () => {
                const y = c.run(v);
                await gpuSync();
                y.dispose();
              },
        note: `${l[v]} launch${l[v] === 1 ? '' : 'es'}`,
        result: () => readAll(c.run(v)),
      };
    },
  });
  const n = rows * cols;
  return defineCase({
    name: `fusion sum+5 ewise · ${device}`,
    what: `relu(exp((x - sum(x, 1)) * 0.01) - 1) on ${rows}×${cols}${n === 1 << 20 ? ' (2^20)' : ''} float32, graph mode: fuseOps against the traced graph`,
    group: 'graph',
    ...(device === 'webgpu' ? { unavailable: noWebGpu } : {}),
    impls: { 'raf-op': variant('fused'), 'raf-op unfused': variant('unfused') },
  });
}

export default [fusionCase('cpu'), fusionCase('webgpu')];
