// What every dialect's fused-kernel compiler shares: a group read as `[anchor] inlinable*`, its loop inputs, and the anchor's own kernel.

import type { DeviceKind } from '../device.ts';
import {
  buildDialectKernel,
  dialectOpsFor,
  enabledDialects,
  inPinOrder,
  type AnyDialectOp,
  type Kernel,
  type KernelInputs,
} from '../dialect.ts';
import { COMPUTE } from '../generated/passes/index.ts';
import { broadcastStrides, coalesce, shapesEqual, sizeOf, stridesOf } from '../shape.ts';
import type { Tensor, TensorType } from '../tensor.ts';
import { constValue } from './executor.ts';
import type { ComputeExpr } from './expr.ts';
import { isAtom, singleOut, type Atom, type CallNode, type FusedNode, type Var } from './ir.ts';
import { inlinable, PROLOGUE_REDUCTIONS } from './passes/fuse.ts';

/** A chain call's expression and what each of its variables names (`slot k`, an earlier chain call, or a number). */
export interface FusedStep {
  readonly expr: ComputeExpr;
  readonly names: Readonly<Record<string, { slot: number } | { step: number } | { value: number }>>;
}

/** `prologue* reduce`: the elementwise calls feeding a reduction, evaluated per input element in the reduction's loop. */
export interface FusedPrologue {
  /** Read at the reduction input's index through a broadcast. */
  readonly slots: readonly Atom[];
  readonly steps: readonly FusedStep[];
}

export interface FusedPlan {
  /** The call that runs its own kernel (a reduction, matmul, reshape...), or null for a pure chain. */
  readonly anchor: CallNode | null;
  /** Elementwise calls before the anchor, compiled into its loop; only for a reduction anchor. */
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
  const x = argOf(reduce, 'x') as Atom;
  if (x.kind !== 'var' || x !== singleOut(chain[chain.length - 1]!)) return null;
  const slots: Atom[] = [];
  return { slots, steps: chainSteps(chain, slotAllocator(slots)) };
}

/**
 * Runs one call through its highest enabled dialect op for `kind` directly: inside a fused launch it is not a separate
 * dispatch. Shapes and attrs are static in a graph, so the kernel is built once per dialect pin and reused.
 */
export function directKernel(n: CallNode, kind: DeviceKind): (values: readonly unknown[]) => Tensor {
  // Per dialect pin: the kernel, its attrs, and where each kernel input comes from in `values` (by position), when
  // every input is one of the values as given; else parse and declare run on every launch.
  const built = new Map<
    string,
    {
      d: AnyDialectOp;
      kernel: Kernel<unknown, unknown, TensorType>;
      attrs: unknown;
      out: TensorType;
      from: readonly (readonly [string, number | null])[] | null;
    }
  >();
  return (values) => {
    const pin = enabledDialects();
    const key = pin ? pin.join(',') : '*';
    const hit = built.get(key);
    if (hit?.from) {
      const inputs: Record<string, unknown> = {};
      for (const [k, i] of hit.from) inputs[k] = i === null ? null : values[i];
      return hit.kernel(inputs, hit.attrs, hit.out) as Tensor;
    }
    const args = n.op.schema.parse(n.op.name, values);
    const decl = n.op.declare(args);
    if (decl.kind !== 'tensor')
      throw new Error(`fused: raf.op.${n.op.name} is a ${decl.kind === 'value' ? 'host op' : 'tuple op'}`);
    if (hit) return hit.kernel(hit.d.bridge.inputs(decl.args), hit.d.bridge.attrs(decl.args), decl.out) as Tensor;
    for (const d of inPinOrder(dialectOpsFor(n.op.name, kind), pin)) {
      if (pin && !pin.includes(d.dialect)) continue;
      const inputs = d.bridge.inputs(decl.args) as Record<string, unknown>;
      const attrs = d.bridge.attrs(decl.args);
      // As dispatch does: a dialect that decides per call (ort's work threshold) is asked; shapes are static in a
      // graph, so the kernel built here serves every launch of the group.
      if (d.accepts && !pin?.includes(d.dialect) && !d.accepts(inputs as KernelInputs, attrs, decl.out)) continue;
      const kernel = buildDialectKernel(d, attrs, decl.out, inputs) as Kernel<unknown, unknown, TensorType> | null;
      if (kernel) {
        const from: [string, number | null][] | null = [];
        for (const [k, v] of Object.entries(inputs)) {
          const i = v === null ? null : values.indexOf(v);
          // A tensor given at two positions could be told apart by position on later launches: not cached.
          if (i === -1 || Array.isArray(v) || (i !== null && values.lastIndexOf(v) !== i)) {
            built.set(key, { d, kernel, attrs, out: decl.out, from: null });
            return kernel(inputs, attrs, decl.out) as Tensor;
          }
          from.push([k, i]);
        }
        built.set(key, { d, kernel, attrs, out: decl.out, from });
        return kernel(inputs, attrs, decl.out) as Tensor;
      }
    }
    throw new Error(`fused: no ${kind} kernel for raf.op.${n.op.name}`);
  };
}

/**
 * The tensors of a plan's slots for one launch: params from `inputs`, the anchor's result computed first. With a
 * prologue, `anchorRun` is the prologue's reduction loop and takes the group's inputs instead of the anchor's args.
 */
export function slotTensors(
  node: FusedNode,
  plan: FusedPlan,
  inputs: readonly Tensor[],
  anchorRun: ((values: readonly unknown[]) => Tensor) | null,
): Tensor[] {
  // Runs on every launch: no Map and no closure made per call (a fused step per convolution adds up over a model).
  const params = node.fn.params;
  const anchorOut = plan.anchor ? singleOut(plan.anchor) : null;
  let anchorValue: Tensor | undefined;
  if (plan.prologue && anchorRun) anchorValue = anchorRun(inputs);
  else if (plan.anchor && anchorRun) {
    const args = plan.anchor.args;
    const values: unknown[] = new Array(args.length);
    for (let i = 0; i < args.length; i++) values[i] = argValue(args[i], params, inputs);
    anchorValue = anchorRun(values);
  }
  const slots = plan.slots;
  const out: Tensor[] = new Array(slots.length);
  for (let i = 0; i < slots.length; i++) {
    const a = slots[i]!;
    out[i] = a.kind === 'var' ? (a === anchorOut ? anchorValue! : inputs[params.indexOf(a)]!) : a.value;
  }
  return out;
}

/** An anchor's arg for one launch: a group param's tensor, a constant's (placed) value, or the arg as it is. */
function argValue(a: unknown, params: readonly Var[], inputs: readonly Tensor[]): unknown {
  if (isAtom(a)) return a.kind === 'var' ? inputs[params.indexOf(a)] : constValue(a);
  if (Array.isArray(a) && a.some(isAtom)) return a.map((x) => argValue(x, params, inputs));
  return a;
}

/**
 * Disposes a tensor a fused launch made for itself (the anchor's result, which the chain after it read), unless it
 * shares storage with one of the group's inputs or with the group's result: an anchor that is a view hands back its
 * input's storage.
 */
export function releaseIntermediate(t: Tensor, inputs: readonly Tensor[], result: Tensor): void {
  if (t.storage === result.storage || inputs.some((x) => x.storage === t.storage)) return;
  t.dispose();
}

/** The reductions of PROLOGUE_REDUCTIONS; each combine is associative, so partial results merge in any order. */
export type RowReduction = 'sum' | 'mean' | 'prod' | 'max' | 'min';

/**
 * A group anchored on a reduction, read as loops: every output cell of the reduction walks its row of input elements.
 * Shapes are static in a graph, so compilers bake these numbers into their source.
 */
export interface ReductionLayout {
  readonly op: RowReduction;
  /** The reduction's input; with a prologue it is computed per element, not read. */
  readonly x: Atom;
  readonly shape: readonly number[];
  /** Sizes and input strides of the kept axes (a cell's position) and the reduced ones (a row's elements). */
  readonly kept: { readonly sizes: readonly number[]; readonly strides: readonly number[] };
  readonly reduced: { readonly sizes: readonly number[]; readonly strides: readonly number[] };
  readonly cells: number;
  readonly count: number;
  /**
   * Where the epilogue runs: `cell`, once per cell (the group's result has the reduction's size, or there is no
   * epilogue); `row`, over each cell's row (the result has the input's shape and reads the reduction broadcast back,
   * as `x - sum(x, 1, true)` does); `separate`, in a pass of its own (it broadcasts the reduction some other way).
   */
  readonly epilogue: 'cell' | 'row' | 'separate';
}

export const argOf = (n: CallNode, name: string): unknown =>
  n.args[(n.op.schema.fields as readonly { name: string }[]).findIndex((f) => f.name === name)];
export const shapeOf = (a: Atom): readonly number[] => (a.kind === 'var' ? a.type.shape : a.value.shape);
export const dtypeOf = (a: Atom): string => (a.kind === 'var' ? a.type.dtype : a.value.dtype);

/** The group's outside tensors a generated kernel reads, each once, in first-use order, named `<prefix><k>` in its source. */
export class Bindings {
  readonly atoms: Atom[] = [];
  constructor(private readonly prefix: string) {}
  of(a: Atom): string {
    let i = this.atoms.findIndex((b) => b === a || (a.kind === 'const' && b.kind === 'const' && a.value === b.value));
    if (i < 0) i = this.atoms.push(a) - 1;
    return `${this.prefix}${i}`;
  }
  /** The bound tensors for one launch of the group on `inputs`. */
  tensors(node: FusedNode, inputs: readonly Tensor[]): Tensor[] {
    return this.atoms.map((a) => (a.kind === 'const' ? a.value : inputs[node.fn.params.indexOf(a)]!));
  }
}

/** How a row reduction combines two partial results, in either kernel language. */
export function combineText(lang: KernelLang, op: RowReduction, a: string, b: string): string {
  if (op === 'max' || op === 'min') return `${lang === 'js' ? 'Math.' : ''}${op}(${a}, ${b})`;
  return `${a} ${op === 'prod' ? '*' : '+'} ${b}`;
}

/** The layout of a group anchored on sum, mean, prod, max or min over a non-empty input; null otherwise. */
export function reductionLayout(node: FusedNode, plan: FusedPlan): ReductionLayout | null {
  const anchor = plan.anchor;
  if (!anchor || !PROLOGUE_REDUCTIONS.has(anchor.op.name)) return null;
  const x = argOf(anchor, 'x') as Atom;
  const shape = shapeOf(x);
  const axis = argOf(anchor, 'axis') as readonly number[] | number | null;
  // No axes (null or []) reduce everything, as the reduction kernels read them.
  const axes =
    axis === null ? [] : (typeof axis === 'number' ? [axis] : axis).map((a) => (a < 0 ? a + shape.length : a));
  const isReduced = (d: number) => axes.length === 0 || axes.includes(d);
  const strides = stridesOf(shape);
  const pick = (keep: boolean) => {
    const dims = shape.map((_, d) => d).filter((d) => isReduced(d) !== keep);
    return { sizes: dims.map((d) => shape[d]!), strides: dims.map((d) => strides[d]!) };
  };
  const kept = pick(true);
  const reduced = pick(false);
  const cells = sizeOf(kept.sizes);
  const count = sizeOf(reduced.sizes);
  if (cells === 0 || count === 0) return null;
  const out = node.out.type.shape;
  const cellRead = () => {
    // Broadcast back, the reduction must be read at stride 0 along reduced axes and row-major over the kept ones.
    const got = broadcastStrides(singleOut(anchor).type.shape, shape);
    let inner = 1;
    const want = new Array<number>(shape.length).fill(0);
    for (let d = shape.length - 1; d >= 0; d--) {
      if (isReduced(d)) continue;
      want[d] = inner;
      inner *= shape[d]!;
    }
    return shape.every((size, d) => size === 1 || got[d] === want[d]);
  };
  const epilogue =
    !plan.steps.length || sizeOf(out) === cells
      ? 'cell'
      : shapesEqual(out, shape) && singleOut(anchor).type.shape.length <= shape.length && cellRead()
        ? 'row'
        : 'separate';
  return { op: anchor.op.name as RowReduction, x, shape, kept, reduced, cells, count, epilogue };
}

/** The languages fused kernels are written in; they differ here only in integer division and number suffixes. */
export type KernelLang = 'js' | 'wgsl';

/** Index expression of the `flat`-th element of a row-major walk over `sizes`, each dim advancing by its stride. */
export function walkOffset(
  lang: KernelLang,
  flat: string,
  sizes: readonly number[],
  strides: readonly number[],
): string {
  const { shape, strides: st } = coalesce(sizes, [strides]);
  const n = (v: number) => (lang === 'wgsl' ? `${v}u` : `${v}`);
  const terms: string[] = [];
  let inner = 1;
  for (let d = shape.length - 1; d >= 0; d--) {
    const stride = st[0]![d]!;
    if (stride) {
      let c = inner === 1 ? flat : lang === 'wgsl' ? `(${flat} / ${n(inner)})` : `Math.floor(${flat} / ${inner})`;
      if (d > 0) c = `(${c} % ${n(shape[d]!)})`;
      terms.push(stride === 1 ? c : `${c} * ${n(stride)}`);
    }
    inner *= shape[d]!;
  }
  return terms.length ? terms.join(' + ') : n(0);
}

/** Index of the element a tensor of shape `from`, broadcast to `to`, holds at flat index `j` of `to`. */
export function broadcastOffset(lang: KernelLang, from: readonly number[], to: readonly number[], j: string): string {
  return walkOffset(lang, j, to, broadcastStrides(from, to));
}
