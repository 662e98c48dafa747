// What every dialect's fused-kernel compiler shares: a group read as `[anchor] inlinable*`, its loop inputs, and the anchor's own kernel.

import type { DeviceKind } from '../device.ts';
import { dialectOpsFor, enabledDialects } from '../dialect.ts';
import { COMPUTE } from '../generated/passes/index.ts';
import type { Tensor, TensorType } from '../tensor.ts';
import type { ComputeExpr } from './expr.ts';
import { isAtom, singleOut, type Atom, type CallNode, type FusedNode, type Var } from './ir.ts';
import { inlinable, PROLOGUE_REDUCTIONS } from './passes/fuse.ts';

/** A chain call's expression and what each of its variables names (`slot k`, an earlier chain call, or a number). */
export interface FusedStep {
  readonly expr: ComputeExpr;
  readonly names: Readonly<Record<string, { slot: number } | { step: number } | { value: number }>>;
}

/** `prologue* reduce`: the elementwise calls feeding a sum or mean, evaluated per input element in the reduction's loop. */
export interface FusedPrologue {
  /** Read at the reduction input's index through a broadcast. */
  readonly slots: readonly Atom[];
  readonly steps: readonly FusedStep[];
  readonly reduce: { readonly op: 'sum' | 'mean'; readonly input: TensorType; readonly axes: readonly number[] | null };
}

export interface FusedPlan {
  /** The call that runs its own kernel (a reduction, matmul, reshape...), or null for a pure chain. */
  readonly anchor: CallNode | null;
  /** Elementwise calls before the anchor, compiled into its loop; only for a sum or mean anchor. */
  readonly prologue: FusedPrologue | null;
  /** Loop inputs, each read at the output index through a broadcast: group params, constants, the anchor's result. */
  readonly slots: readonly Atom[];
  /** Per chain call after the anchor; empty when the anchor (a prologue reduction) is the group's result. */
  readonly steps: readonly FusedStep[];
}

/** Each call of an inlinable chain as a step over slots (allocated by `slotOf`) and earlier steps. */
function chainSteps(chain: readonly CallNode[], slotOf: (a: Atom) => number): FusedStep[] {
  const stepOf = new Map<Var, number>();
  return chain.map((c, k) => {
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
}

function slotAllocator(slots: Atom[]): (a: Atom) => number {
  return (a) => {
    const i = slots.findIndex((s) => (s.kind === 'var' ? s === a : a.kind === 'const' && a.value === s.value));
    if (i >= 0) return i;
    slots.push(a);
    return slots.length - 1;
  };
}

/** Reads a group the compilers can handle, or null (the executor then runs it call by call). */
export function planFused(node: FusedNode): FusedPlan | null {
  const body = node.fn.nodes;
  if (body.some((n) => n.kind !== 'call')) return null;
  const calls = body as readonly CallNode[];
  const at = calls.findIndex((c) => !inlinable(c));
  const anchor = at >= 0 ? calls[at]! : null;
  const chain = calls.slice(at + 1);
  if (!chain.every(inlinable)) return null;
  const prologue = at > 0 ? planPrologue(calls.slice(0, at), anchor!) : null;
  if (at > 0 && !prologue) return null;
  if (!chain.length && !prologue) return null;
  const slots: Atom[] = [];
  const steps = chainSteps(chain, slotAllocator(slots));
  if (anchor && chain.length && !slots.some((s) => s === anchor.out)) return null;
  // A chain may only read params, constants and the anchor's result: nothing else inside the group is kept.
  if (slots.some((s) => s.kind === 'var' && s !== anchor?.out && !node.fn.params.includes(s))) return null;
  return { anchor, prologue, slots, steps };
}

function planPrologue(chain: readonly CallNode[], reduce: CallNode): FusedPrologue | null {
  if (!PROLOGUE_REDUCTIONS.has(reduce.op.name) || !singleOut(reduce).type.dtype.startsWith('float')) return null;
  const fields = reduce.op.schema.fields as readonly { name: string }[];
  const arg = (name: string) => reduce.args[fields.findIndex((f) => f.name === name)];
  const x = arg('x') as Atom;
  if (x.kind !== 'var' || x !== singleOut(chain[chain.length - 1]!)) return null;
  const slots: Atom[] = [];
  const steps = chainSteps(chain, slotAllocator(slots));
  const axes = arg('axis') as readonly number[] | null;
  return { slots, steps, reduce: { op: reduce.op.name as 'sum' | 'mean', input: x.type, axes: axes && axes.map((a) => (a < 0 ? a + x.type.shape.length : a)) } };
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

/**
 * The tensors of a plan's slots for one launch: params from `inputs`, the anchor's result computed first. With a
 * prologue, `anchorRun` is the prologue's reduction loop and takes the prologue's slot tensors instead of the anchor's args.
 */
export function slotTensors(node: FusedNode, plan: FusedPlan, inputs: readonly Tensor[], anchorRun: ((values: readonly unknown[]) => Tensor) | null): Tensor[] {
  const env = new Map<Var, Tensor>();
  node.fn.params.forEach((p, i) => env.set(p, inputs[i]!));
  if (plan.prologue && anchorRun) {
    env.set(singleOut(plan.anchor!), anchorRun(plan.prologue.slots.map((s) => (s.kind === 'var' ? env.get(s)! : s.value))));
  } else if (plan.anchor && anchorRun) {
    const value = (a: unknown): unknown => (isAtom(a) ? (a.kind === 'var' ? env.get(a) : a.value) : Array.isArray(a) && a.some(isAtom) ? a.map(value) : a);
    env.set(singleOut(plan.anchor), anchorRun(plan.anchor.args.map(value)));
  }
  return plan.slots.map((s) => (s.kind === 'var' ? env.get(s)! : s.value));
}
