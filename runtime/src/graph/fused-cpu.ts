// The CPU dialect's fused kernels: a group's anchor runs its own kernel (a sum or mean with its elementwise prologue inlined into its loop), then every inlinable call after it is one loop over the output built from their compute expressions.

import { allocStorage, roundToFloat16 } from '../dtype.ts';
import { broadcastIndex } from '../dialects/cpu/support.ts';
import { sizeOf } from '../shape.ts';
import { fromStorage, type Tensor, type TensorType } from '../tensor.ts';
import { exprToJs, JS_HELPERS } from './expr.ts';
import { registerFusedCompiler, type FusedKernel } from './executor.ts';
import { singleOut, type FusedNode } from './ir.ts';
import { directKernel, planFused, slotTensors, type FusedPlan, type FusedPrologue } from './fused-plan.ts';

export function compileCpuFused(node: FusedNode): FusedKernel | null {
  const plan = planFused(node);
  if (!plan) return null;
  const anchorRun = plan.prologue ? reductionLoop(plan.prologue, singleOut(plan.anchor!).type) : plan.anchor ? directKernel(plan.anchor, 'cpu') : null;
  // A prologue reduction that is the group's result: its loop is the whole kernel.
  if (!plan.steps.length) return (inputs) => anchorRun!(prologueInputs(node, plan, inputs));
  const out = node.out.type;
  const n = sizeOf(out.shape);
  // Broadcast index maps are built once per group (shapes are static in the graph); null means "read at i".
  const maps = plan.slots.map((s) => broadcastIndex(s.kind === 'var' ? s.type.shape : s.value.shape, out.shape));
  const src = [
    ...plan.slots.map((_, s) => `const d${s} = D[${s}], m${s} = M[${s}];`),
    `for (let i = 0; i < ${n}; i++) {`,
    ...maps.map((m, s) => `  const v${s} = d${s}[${m ? `m${s}[i]` : 'i'}];`),
    ...stepLines(plan.steps),
    // float16 rounds once, at the store: the fused chain keeps full precision in between.
    `  r[i] = ${out.dtype === 'float16' ? 'R' : ''}(t${plan.steps.length - 1});`,
    '}',
  ].join('\n');
  const loop = new Function('D', 'M', 'r', 'H', 'R', src) as (d: unknown[], m: unknown[], r: unknown, h: unknown, rnd: unknown) => void;
  return (inputs) => {
    const data = slotTensors(node, plan, inputs, anchorRun).map((t) => t.dataSync());
    const result = allocStorage(out.dtype, n);
    loop(data, maps, result, JS_HELPERS, roundToFloat16);
    return fromStorage(out.shape, out.dtype, result);
  };
}

function stepLines(steps: FusedPlan['steps']): string[] {
  return steps.map((st, k) => {
    const names: Record<string, string> = {};
    for (const [v, ref] of Object.entries(st.names)) names[v] = 'slot' in ref ? `v${ref.slot}` : 'step' in ref ? `t${ref.step}` : `(${ref.value})`;
    return `  const t${k} = ${exprToJs(st.expr, names)};`;
  });
}

/** The prologue's slot tensors, for a group whose result is the reduction itself. */
function prologueInputs(node: FusedNode, plan: FusedPlan, inputs: readonly Tensor[]): Tensor[] {
  return plan.prologue!.slots.map((s) => (s.kind === 'var' ? inputs[node.fn.params.indexOf(s)]! : s.value));
}

/**
 * One loop over the reduction's input: each element is computed from the prologue's expressions and added into its
 * output cell (float64 accumulators, as the reduction kernels keep), so the prologue's values never reach memory.
 */
function reductionLoop(p: FusedPrologue, out: TensorType): (values: readonly unknown[]) => Tensor {
  const shape = p.reduce.input.shape;
  const n = sizeOf(shape);
  const reduced = (d: number) => p.reduce.axes === null || p.reduce.axes.includes(d);
  // Each input element's output cell: the row-major index over the kept dims (size-1 kept dims change nothing).
  const cell = new Int32Array(n);
  const counter = new Array<number>(shape.length).fill(0);
  for (let i = 0; i < n; i++) {
    let o = 0;
    shape.forEach((size, d) => {
      if (!reduced(d)) o = o * size + counter[d]!;
    });
    cell[i] = o;
    for (let d = shape.length - 1; d >= 0; d--) {
      if (++counter[d]! < shape[d]!) break;
      counter[d] = 0;
    }
  }
  const cells = sizeOf(out.shape);
  const count = n / Math.max(cells, 1);
  const maps = p.slots.map((s) => broadcastIndex(s.kind === 'var' ? s.type.shape : s.value.shape, shape));
  const src = [
    ...p.slots.map((_, s) => `const d${s} = D[${s}], m${s} = M[${s}];`),
    `for (let i = 0; i < ${n}; i++) {`,
    ...maps.map((m, s) => `  const v${s} = d${s}[${m ? `m${s}[i]` : 'i'}];`),
    ...stepLines(p.steps),
    `  acc[C[i]] += t${p.steps.length - 1};`,
    '}',
  ].join('\n');
  const loop = new Function('D', 'M', 'C', 'acc', 'H', src) as (d: unknown[], m: unknown[], c: Int32Array, acc: Float64Array, h: unknown) => void;
  return (values) => {
    const acc = new Float64Array(cells);
    loop((values as Tensor[]).map((t) => t.dataSync()), maps, cell, acc, JS_HELPERS);
    const result = allocStorage(out.dtype, cells);
    const scale = p.reduce.op === 'mean' ? 1 / count : 1;
    for (let j = 0; j < cells; j++) result[j] = out.dtype === 'float16' ? roundToFloat16(acc[j]! * scale) : acc[j]! * scale;
    return fromStorage(out.shape, out.dtype, result);
  };
}

registerFusedCompiler('cpu', compileCpuFused);
