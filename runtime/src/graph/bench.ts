// Benchmark cases the bench harness calls: the same graph run fused and unfused, with kernel-launch counts.

import * as ops from '../generated/ops.ts';
import { randomUniform, type Tensor } from '../tensor.ts';
import type { DeviceKind } from '../device.ts';
import { moveGraph } from './device.ts';
import { executeCounted } from './executor.ts';
import type { Graph } from './ir.ts';
import { fuseOps } from './passes/fuse.ts';
import { trace } from './trace.ts';

export interface FusionBenchCase {
  readonly name: string;
  readonly elements: number;
  readonly input: Tensor;
  readonly unfused: Graph;
  readonly fused: Graph;
  /** Runs one variant once; returns the output (so callers can check results agree). */
  run(variant: 'fused' | 'unfused'): Tensor;
  /** Kernel launches per run of each variant. */
  launches(): { readonly unfused: number; readonly fused: number };
}

/**
 * A reduction followed by a chain of five elementwise ops on `rows × cols` elements (2^20 by default):
 * `relu(exp((x - sum(x, 1)) * 0.01) - 1)`, where the five calls after `sum` fuse into its kernel.
 */
export function reduceThenElementwiseCase(rows = 1024, cols = 1024): FusionBenchCase {
  const x = randomUniform([rows, cols], { seed: 7 });
  const unfused = trace(
    (x: Tensor) => {
      const s = ops.sum(x, [1], true);
      return ops.relu(ops.subtract(ops.exp(ops.multiply(ops.subtract(x, s), 0.01)), 1));
    },
    [x],
  );
  const fused = fuseOps(unfused);
  const graphs = { fused, unfused };
  return {
    name: `sum + 5 elementwise on ${rows}x${cols}`,
    elements: rows * cols,
    input: x,
    unfused,
    fused,
    run: (variant) => executeCounted(graphs[variant], [x]).outputs[0]!,
    launches: () => ({ unfused: executeCounted(unfused, [x]).launches, fused: executeCounted(fused, [x]).launches }),
  };
}

/** The same case placed on another device (graphs and input moved once); results must be awaited there. */
export async function onDevice(c: FusionBenchCase, kind: DeviceKind): Promise<FusionBenchCase> {
  const [unfused, fused] = [await moveGraph(c.unfused, kind), await moveGraph(c.fused, kind)];
  const x = await c.input.to(kind);
  const graphs = { fused, unfused };
  return {
    ...c,
    name: `${c.name} on ${kind}`,
    input: x,
    unfused,
    fused,
    run: (variant) => executeCounted(graphs[variant], [x]).outputs[0]!,
    launches: () => ({ unfused: executeCounted(unfused, [x]).launches, fused: executeCounted(fused, [x]).launches }),
  };
}

/** Like timeFusion, but waits for each result's data, so device work is inside the measured time. */
export async function timeFusionAsync(
  c: FusionBenchCase,
  reps = 10,
): Promise<{ unfusedMs: number; fusedMs: number; speedup: number }> {
  const time = async (variant: 'fused' | 'unfused') => {
    await c.run(variant).data();
    const ts: number[] = [];
    for (let i = 0; i < reps; i++) {
      const t0 = performance.now();
      await c.run(variant).data();
      ts.push(performance.now() - t0);
    }
    return ts.sort((a, b) => a - b)[Math.floor(reps / 2)]!;
  };
  const unfusedMs = await time('unfused');
  const fusedMs = await time('fused');
  return { unfusedMs, fusedMs, speedup: unfusedMs / fusedMs };
}

/** Median milliseconds per run of each variant and their ratio (unfused / fused). */
export function timeFusion(c: FusionBenchCase, reps = 10): { unfusedMs: number; fusedMs: number; speedup: number } {
  const time = (variant: 'fused' | 'unfused') => {
    c.run(variant);
    const ts: number[] = [];
    for (let i = 0; i < reps; i++) {
      const t0 = performance.now();
      c.run(variant);
      ts.push(performance.now() - t0);
    }
    return ts.sort((a, b) => a - b)[Math.floor(reps / 2)]!;
  };
  const unfusedMs = time('unfused');
  const fusedMs = time('fused');
  return { unfusedMs, fusedMs, speedup: unfusedMs / fusedMs };
}
