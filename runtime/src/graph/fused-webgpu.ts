// The WebGPU dialect's fused kernels: the anchor runs its own pipeline, then the inlined chain is one WGSL elementwise pipeline.

import { elementwise } from '../dialects/webgpu/elementwise.ts';
import type { Tensor, TensorType } from '../tensor.ts';
import { exprToWgsl } from './expr.ts';
import { execute, registerFusedCompiler, type FusedKernel } from './executor.ts';
import type { FusedNode } from './ir.ts';
import { directKernel, planFused, slotTensors } from './fused-plan.ts';

let nextId = 0;

export function compileWebGpuFused(node: FusedNode): FusedKernel | null {
  const plan = planFused(node);
  // A reduction prologue is CPU-only for now: the group then runs call by call.
  if (!plan || plan.prologue || node.out.type.dtype !== 'float32') return null;
  // One expression: each step is substituted into the next (WGSL's `let`s would need a statement list).
  const texts: string[] = [];
  for (const st of plan.steps) {
    const names: Record<string, string> = {};
    for (const [v, ref] of Object.entries(st.names)) names[v] = 'slot' in ref ? `v_s${ref.slot}` : 'step' in ref ? `(${texts[ref.step]})` : `f32(${ref.value})`;
    const t = exprToWgsl(st.expr, names);
    if (t === null) return null;
    texts.push(t);
  }
  const inputs = plan.slots.map((_, s) => `s${s}`);
  type Kin = Readonly<Record<string, Tensor>>;
  const build = elementwise<(kin: Kin, attrs: Record<string, number>, out: TensorType) => Tensor>({
    // Distinct per group: the pipeline cache is keyed by op name and input dtypes.
    op: `fused_${nextId++}`,
    inputs,
    attrs: [],
    out: 'float',
    expr: texts[texts.length - 1]!,
    helpers: '',
  });
  const anchorRun = plan.anchor ? directKernel(plan.anchor, 'webgpu') : null;
  let kernel: ((kin: Kin, attrs: Record<string, number>, out: TensorType) => Tensor) | null | undefined;
  return (xs) => {
    const ts = slotTensors(node, plan, xs, anchorRun);
    const kin = Object.fromEntries(ts.map((t, s) => [`s${s}`, t]));
    if (kernel === undefined) kernel = build({}, node.out.type, kin);
    // Input dtypes the elementwise builder cannot serve: run the group's calls one by one instead.
    return kernel ? kernel(kin, {}, node.out.type) : execute(node.fn, xs)[0]!;
  };
}

registerFusedCompiler('webgpu', compileWebGpuFused);
