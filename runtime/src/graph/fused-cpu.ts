// The CPU dialect's fused kernels: a group's anchor runs its own kernel, then every inlinable call after it is one loop over the output built from their compute expressions.

import { allocStorage, roundToFloat16 } from '../dtype.ts';
import { broadcastIndex } from '../dialects/cpu/support.ts';
import { sizeOf } from '../shape.ts';
import { fromStorage } from '../tensor.ts';
import { exprToJs, JS_HELPERS } from './expr.ts';
import { registerFusedCompiler, type FusedKernel } from './executor.ts';
import type { FusedNode } from './ir.ts';
import { directKernel, planFused, slotTensors } from './fused-plan.ts';

export function compileCpuFused(node: FusedNode): FusedKernel | null {
  const plan = planFused(node);
  if (!plan) return null;
  const out = node.out.type;
  const n = sizeOf(out.shape);
  // Broadcast index maps are built once per group (shapes are static in the graph); null means "read at i".
  const maps = plan.slots.map((s) => broadcastIndex(s.kind === 'var' ? s.type.shape : s.value.shape, out.shape));
  const lines = plan.steps.map((st, k) => {
    const names: Record<string, string> = {};
    for (const [v, ref] of Object.entries(st.names)) names[v] = 'slot' in ref ? `v${ref.slot}` : 'step' in ref ? `t${ref.step}` : `(${ref.value})`;
    return `  const t${k} = ${exprToJs(st.expr, names)};`;
  });
  const src = [
    ...plan.slots.map((_, s) => `const d${s} = D[${s}], m${s} = M[${s}];`),
    `for (let i = 0; i < ${n}; i++) {`,
    ...maps.map((m, s) => `  const v${s} = d${s}[${m ? `m${s}[i]` : 'i'}];`),
    ...lines,
    // float16 rounds once, at the store: the fused chain keeps full precision in between.
    `  r[i] = ${out.dtype === 'float16' ? 'R' : ''}(t${plan.steps.length - 1});`,
    '}',
  ].join('\n');
  const loop = new Function('D', 'M', 'r', 'H', 'R', src) as (d: unknown[], m: unknown[], r: unknown, h: unknown, rnd: unknown) => void;
  const anchorRun = plan.anchor ? directKernel(plan.anchor, 'cpu') : null;
  return (inputs) => {
    const data = slotTensors(node, plan, inputs, anchorRun).map((t) => t.dataSync());
    const result = allocStorage(out.dtype, n);
    loop(data, maps, result, JS_HELPERS, roundToFloat16);
    return fromStorage(out.shape, out.dtype, result);
  };
}

registerFusedCompiler('cpu', compileCpuFused);
