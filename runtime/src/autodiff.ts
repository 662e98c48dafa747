// Eager autodiff on a tape: nodes keep only what the gradient says it saves.

import type { AnyOpDef, GradContext } from './registry.ts';
import { broadcastAxes, formatShape, shapesEqual } from './shape.ts';
import { Tensor, disposeUnkept, full, placeOn, type TensorType } from './tensor.ts';
import { isFloat } from './dtype.ts';
import { call } from './dispatch.ts';
import { OpError } from './errors.ts';

/** Where a node's input came from: an output of another node, or a leaf that wants `.grad`. */
interface Parent {
  readonly node?: TapeNode;
  /** Which output of `node` (tuple ops have several). */
  readonly index: number;
  readonly leaf?: Tensor;
  readonly type: TensorType;
}

export interface TapeNode {
  readonly op: AnyOpDef;
  /** One parent per tensor input; a `Tensor[]` input has one per element (null where it needs no gradient). */
  readonly parents: Readonly<Record<string, Parent | readonly (Parent | null)[]>>;
  /**
   * Exactly the values the gradient declared in `saves`, plus the non-tensor args; emptied once the node's backward
   * has run (the tape lets go of them, so they can be freed), when `released` is set.
   */
  saved: Readonly<Record<string, unknown>>;
  released: boolean;
  /** The output's type, or one type per output of a tuple op. */
  readonly out: TensorType | readonly TensorType[];
}

let gradEnabled = true;

/** Runs `fn` without recording on the tape (used while computing gradients). */
export function noGrad<R>(fn: () => R): R {
  const saved = gradEnabled;
  gradEnabled = false;
  try {
    return fn();
  } finally {
    gradEnabled = saved;
  }
}

function parentOf(t: unknown): Parent | null {
  if (!(t instanceof Tensor) || !t.requiresGrad) return null;
  return t.node ? { node: t.node, index: t.outputIndex, type: typeOf(t) } : { leaf: t, index: 0, type: typeOf(t) };
}

export function recordOnTape(op: AnyOpDef, args: unknown, out: Tensor | readonly Tensor[]): void {
  if (!gradEnabled || !op.grad) return;
  const a = args as Record<string, unknown>;
  const parents: Record<string, Parent | readonly (Parent | null)[]> = {};
  for (const name of op.grad.inputs) {
    const v = a[name];
    if (Array.isArray(v)) {
      const list = v.map(parentOf);
      if (list.some((p) => p)) parents[name] = list;
    } else {
      const p = parentOf(v);
      if (p) parents[name] = p;
    }
  }
  if (Object.keys(parents).length === 0) return;
  const saved: Record<string, unknown> = {};
  for (const f of op.schema.fields) {
    if (!op.tensorArgs.includes(f.name)) saved[f.name] = a[f.name];
  }
  for (const name of op.grad.saves) saved[name] = name === 'y' ? out : a[name];
  const outs = out instanceof Tensor ? [out] : out;
  const node: TapeNode = {
    op,
    parents,
    saved,
    released: false,
    out: out instanceof Tensor ? typeOf(out) : out.map(typeOf),
  };
  outs.forEach((t, i) => {
    t.requiresGrad = true;
    t.node = node;
    t.outputIndex = i;
  });
}

function typeOf(t: Tensor): TensorType {
  return { shape: t.shape, dtype: t.dtype };
}

/** Gradients gathered so far for each output of a node. */
type OutputGrads = (Tensor | undefined)[];

/**
 * Back-propagates from `y` (seeded with `dy`, default ones) and accumulates `.grad` on every leaf tensor that
 * requires it. Several roots (a tuple op's outputs, or any tensors) take one seed each, as torch.autograd.backward does.
 */
export function backward(y: Tensor | readonly Tensor[], dy?: Tensor | readonly Tensor[]): void {
  const roots = y instanceof Tensor ? [y] : [...y];
  const seeds = dy === undefined ? [] : dy instanceof Tensor ? [dy] : [...dy];
  if (seeds.length && seeds.length !== roots.length)
    throw new Error(`backward: ${roots.length} outputs but ${seeds.length} seeds`);
  const grads = new Map<TapeNode, OutputGrads>();
  const leaves = new Set<Tensor>();
  // Every tensor backward makes (seeds, partial and summed gradients) is disposed once it is done, but the leaves' .grad.
  disposeUnkept(
    () =>
      noGrad(() => {
        roots.forEach((r, i) => {
          // Seeds and zero-fills are made on the CPU, then placed on the root's device (a GPU result needs a GPU seed).
          const seed = seeds[i] ?? placeOn(full(r.shape, 1, r.dtype), r.device);
          if (r.node) addGrad(grads, r.node, r.outputIndex, seed);
          else if (r.requiresGrad) {
            r.grad = accumulate(r.grad, seed);
            leaves.add(r);
          } else throw new Error('backward: the tensor was not computed from tensors that require grad');
        });
        for (const node of topoOrder([...grads.keys()])) {
          const g = grads.get(node);
          if (!g) continue;
          grads.delete(node);
          if (node.released)
            throw new Error(
              `backward: raf.op.${node.op.name} was already differentiated and its saved values released; ` +
                'run the forward again to take another gradient',
            );
          const ctx = { ...node.saved, dy: outputGrads(node, g) } as GradContext;
          const result = node.op.grad!.fn(ctx);
          // The tape lets go of what this node saved: nothing later in this backward reads it.
          node.saved = {};
          node.released = true;
          for (const [name, parent] of Object.entries(node.parents)) {
            const gi = result[name];
            if (!gi) continue;
            if (Array.isArray(parent)) {
              if (!Array.isArray(gi) || gi.length !== parent.length)
                throw new Error(`gradient of raf.op.${node.op.name} for '${name}' must be a list of ${parent.length}`);
              parent.forEach((p, k) => p && gi[k] && send(grads, leaves, node.op.name, `${name}[${k}]`, p, gi[k]));
            } else send(grads, leaves, node.op.name, name, parent as Parent, gi as Tensor);
          }
        }
      }),
    () => [...leaves].map((l) => l.grad),
  );
}

/** The dy a node's gradient receives: its one gradient, or a tuple op's list with zeros where no gradient came. */
function outputGrads(node: TapeNode, g: OutputGrads): Tensor | readonly Tensor[] {
  if (!Array.isArray(node.out)) return g[0]!;
  const some = g.find((t) => t)!;
  return (node.out as readonly TensorType[]).map((t, i) => g[i] ?? placeOn(full(t.shape, 0, t.dtype), some.device));
}

function send(
  grads: Map<TapeNode, OutputGrads>,
  leaves: Set<Tensor>,
  op: string,
  arg: string,
  parent: Parent,
  g: Tensor,
): void {
  const fitted = fitToShape(op, arg, g, parent.type);
  if (parent.node) addGrad(grads, parent.node, parent.index, fitted);
  else {
    parent.leaf!.grad = accumulate(parent.leaf!.grad, fitted);
    leaves.add(parent.leaf!);
  }
}

function addGrad(grads: Map<TapeNode, OutputGrads>, node: TapeNode, index: number, g: Tensor): void {
  const list = grads.get(node) ?? [];
  list[index] = accumulate(list[index], g);
  grads.set(node, list);
}

function accumulate(prev: Tensor | undefined, g: Tensor): Tensor {
  return prev ? (call('add', [prev, g]) as Tensor) : g;
}

/** Sums a gradient over the axes its input was broadcast along (TVM's collapse_sum_like). */
function fitToShape(op: string, arg: string, g: Tensor, to: TensorType): Tensor {
  if (shapesEqual(g.shape, to.shape)) return g;
  const axes = broadcastAxes(to.shape, g.shape);
  if (g.shape.length < to.shape.length || axes.length === 0) {
    throw new Error(
      `gradient of raf.op.${op} for '${arg}' has shape ${formatShape(g.shape)}, input has ${formatShape(to.shape)}`,
    );
  }
  const summed = call('sum', [g, axes, true]) as Tensor;
  return call('reshape', [summed, [...to.shape]]) as Tensor;
}

function parentNodes(n: TapeNode): TapeNode[] {
  const out: TapeNode[] = [];
  for (const p of Object.values(n.parents)) {
    for (const q of Array.isArray(p) ? p : [p as Parent]) if (q?.node) out.push(q.node);
  }
  return out;
}

/** Nodes reachable from `roots`, each after every node that consumes one of its outputs. */
function topoOrder(roots: readonly TapeNode[]): TapeNode[] {
  const order: TapeNode[] = [];
  const seen = new Set<TapeNode>();
  const stack: Array<[TapeNode, boolean]> = roots.map((r) => [r, false]);
  while (stack.length) {
    const [n, expanded] = stack.pop()!;
    if (expanded) {
      order.push(n);
      continue;
    }
    if (seen.has(n)) continue;
    seen.add(n);
    stack.push([n, true]);
    for (const p of parentNodes(n)) if (!seen.has(p)) stack.push([p, false]);
  }
  return order.reverse();
}

/**
 * `grad(f)` returns a function computing df/dx for every tensor argument (or those in
 * `argnums`). A non-scalar output is seeded with ones, i.e. the gradient of its sum; several
 * outputs (a list) are each seeded, i.e. the gradient of the sum of their sums.
 */
export function grad(
  f: (...xs: Tensor[]) => Tensor | readonly Tensor[],
  argnums?: readonly number[],
): (...xs: Tensor[]) => Tensor[] {
  return (...xs) => valueAndGrad(f, argnums)(...xs).grads;
}

export function valueAndGrad<Y extends Tensor | readonly Tensor[]>(
  f: (...xs: Tensor[]) => Y,
  argnums?: readonly number[],
  seed?: Tensor | readonly Tensor[],
): (...xs: Tensor[]) => { value: Y; grads: Tensor[] } {
  return (...xs) => {
    const which = argnums ?? xs.map((_, i) => i);
    // Everything f and the backward make is disposed afterwards, but the value and the gradients.
    const result = disposeUnkept(
      () => {
        // Fresh leaves, so the caller's tensors keep their own grad state.
        const leaves = xs.map((x, i) => {
          if (!which.includes(i)) return x;
          if (!isFloat(x.dtype))
            throw new Error(`grad: argument ${i} has dtype ${x.dtype}; only float tensors have gradients`);
          return new Tensor(x.shape, x.dtype, x.storage).requireGrad();
        });
        const value = f(...leaves);
        const outs = value instanceof Tensor ? [value] : Array.isArray(value) ? [...(value as readonly Tensor[])] : [];
        if (!(value instanceof Tensor) && (!Array.isArray(value) || !outs.every((o) => o instanceof Tensor)))
          throw new OpError('grad', `f must return a Tensor or an array of Tensors, got ${describe(value)}`, 'f');
        const seeds = seed === undefined ? undefined : seed instanceof Tensor ? [seed] : [...seed];
        // Outputs that do not depend on a differentiated input contribute nothing (and have no tape to walk).
        const live = outs.map((o, i) => i).filter((i) => outs[i]!.node || outs[i]!.requiresGrad);
        if (live.length)
          backward(
            live.map((i) => outs[i]!),
            seeds && live.map((i) => seeds[i]!),
          );
        const grads = which.map((i) => leaves[i]!.grad ?? placeOn(full(xs[i]!.shape, 0, xs[i]!.dtype), xs[i]!.device));
        // The value comes back detached: its tape has run and released what it saved.
        for (const o of outs) {
          if (!o.node) continue;
          o.node = undefined;
          o.requiresGrad = false;
        }
        return { value, grads, outs };
      },
      (r) => [...r.outs, ...r.grads],
    );
    return { value: result.value, grads: result.grads };
  };
}

/** A short description of a value for error messages. */
function describe(v: unknown): string {
  if (Array.isArray(v)) return 'an array holding a non-Tensor';
  return v === null ? 'null' : typeof v === 'object' ? (v.constructor?.name ?? 'object') : `${typeof v} ${String(v)}`;
}
