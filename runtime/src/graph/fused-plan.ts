// What every dialect's fused-kernel compiler shares: a group read as `[anchor] inlinable*`, its loop inputs, and the anchor's own kernel.

import type { DeviceKind } from '../device.ts';
import { dialectOpsFor, enabledDialects } from '../dialect.ts';
import { COMPUTE } from '../generated/passes/index.ts';
import type { Tensor } from '../tensor.ts';
import type { ComputeExpr } from './expr.ts';
import { isAtom, singleOut, type Atom, type CallNode, type FusedNode, type Var } from './ir.ts';
import { inlinable } from './passes/fuse.ts';

export interface FusedPlan {
  /** The leading call that runs its own kernel (a reduction, matmul, reshape...), or null for a pure chain. */
  readonly anchor: CallNode | null;
  /** Loop inputs, each read at the output index through a broadcast: group params, constants, the anchor's result. */
  readonly slots: readonly Atom[];
  /** Per chain call: its expression and what each variable names (`slot k` or an earlier chain call). */
  readonly steps: readonly { readonly expr: ComputeExpr; readonly names: Readonly<Record<string, { slot: number } | { step: number } | { value: number }>> }[];
}

/** Reads a group the compilers can handle, or null (the executor then runs it call by call). */
export function planFused(node: FusedNode): FusedPlan | null {
  const body = node.fn.nodes;
  if (body.some((n) => n.kind !== 'call')) return null;
  const calls = body as readonly CallNode[];
  const first = inlinable(calls[0]!) ? 0 : 1;
  const chain = calls.slice(first);
  if (!chain.length || !chain.every(inlinable)) return null;
  const anchor = first === 1 ? calls[0]! : null;
  const slots: Atom[] = [];
  const slotOf = (a: Atom): number => {
    const i = slots.findIndex((s) => (s.kind === 'var' ? s === a : a.kind === 'const' && a.value === s.value));
    if (i >= 0) return i;
    slots.push(a);
    return slots.length - 1;
  };
  const stepOf = new Map<Var, number>();
  const steps = chain.map((c, k) => {
    const def = COMPUTE[c.op.name]!;
    const names: Record<string, { slot: number } | { step: number } | { value: number }> = {};
    c.op.schema.fields.forEach((f: { name: string }, i: number) => {
      const a = c.args[i];
      if (def.tensors.includes(f.name)) {
        const atom = a as Atom;
        const s = atom.kind === 'var' ? stepOf.get(atom) : undefined;
        names[f.name] = s !== undefined ? { step: s } : { slot: slotOf(atom) };
      } else if (def.scalars.includes(f.name)) names[f.name] = { value: Number(a) };
    });
    stepOf.set(singleOut(c), k);
    return { expr: def.expr, names };
  });
  if (anchor && !slots.some((s) => s === anchor.out)) return null;
  return { anchor, slots, steps };
}

/** Runs one call through its highest enabled dialect op for `kind` directly: inside a fused launch it is not a separate dispatch. */
export function directKernel(n: CallNode, kind: DeviceKind): (values: readonly unknown[]) => Tensor {
  return (values) => {
    const args = n.op.schema.parse(n.op.name, values);
    const decl = n.op.declare(args);
    if (decl.kind !== 'tensor') throw new Error(`fused: raf.op.${n.op.name} is a ${decl.kind === 'value' ? 'host op' : 'tuple op'}`);
    const pin = enabledDialects();
    for (const d of dialectOpsFor(n.op.name, kind)) {
      if (pin && !pin.includes(d.dialect)) continue;
      const inputs = d.bridge.inputs(decl.args);
      const attrs = d.bridge.attrs(decl.args);
      const kernel = d.build(attrs, decl.out, inputs);
      if (kernel) return kernel(inputs, attrs, decl.out) as Tensor;
    }
    throw new Error(`fused: no ${kind} kernel for raf.op.${n.op.name}`);
  };
}

/** The tensors of a plan's slots for one launch: params from `inputs`, the anchor's result computed first. */
export function slotTensors(node: FusedNode, plan: FusedPlan, inputs: readonly Tensor[], anchorRun: ((values: readonly unknown[]) => Tensor) | null): Tensor[] {
  const env = new Map<Var, Tensor>();
  node.fn.params.forEach((p, i) => env.set(p, inputs[i]!));
  if (plan.anchor && anchorRun) {
    const value = (a: unknown): unknown => (isAtom(a) ? (a.kind === 'var' ? env.get(a) : a.value) : Array.isArray(a) && a.some(isAtom) ? a.map(value) : a);
    env.set(singleOut(plan.anchor), anchorRun(plan.anchor.args.map(value)));
  }
  return plan.slots.map((s) => (s.kind === 'var' ? env.get(s)! : s.value));
}
