// Eager autodiff on a tape: nodes keep only what the gradient says it saves.

import { getOp, type AnyOpDef, type GradContext } from './registry.ts';
import { broadcastAxes, formatShape, shapesEqual } from './shape.ts';
import { Tensor, full, type TensorType } from './tensor.ts';
import { isFloat } from './dtype.ts';
import { call } from './dispatch.ts';

/** Where a node's input came from: another node's output, or a leaf that wants `.grad`. */
interface Parent {
  readonly node?: TapeNode;
  readonly leaf?: Tensor;
  readonly type: TensorType;
}

export interface TapeNode {
  readonly op: AnyOpDef;
  readonly parents: Readonly<Record<string, Parent>>;
  /** Exactly the values the gradient declared in `saves`, plus the non-tensor args. */
  readonly saved: Readonly<Record<string, unknown>>;
  readonly out: TensorType;
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

export function recordOnTape(op: AnyOpDef, args: unknown, out: Tensor): void {
  if (!gradEnabled || !op.grad) return;
  const a = args as Record<string, unknown>;
  const parents: Record<string, Parent> = {};
  for (const name of op.grad.inputs) {
    const t = a[name];
    if (!(t instanceof Tensor) || !t.requiresGrad) continue;
    parents[name] = t.node ? { node: t.node, type: typeOf(t) } : { leaf: t, type: typeOf(t) };
  }
  if (Object.keys(parents).length === 0) return;
  const saved: Record<string, unknown> = {};
  for (const f of op.schema.fields) {
    if (!op.tensorArgs.includes(f.name)) saved[f.name] = a[f.name];
  }
  for (const name of op.grad.saves) saved[name] = name === 'y' ? out : a[name];
  out.requiresGrad = true;
  out.node = { op, parents, saved, out: typeOf(out) };
}

function typeOf(t: Tensor): TensorType {
  return { shape: t.shape, dtype: t.dtype };
}

/**
 * Back-propagates from `y` (seeded with `dy`, default ones) and accumulates `.grad` on every
 * leaf tensor that requires it.
 */
export function backward(y: Tensor, dy?: Tensor): void {
  if (!y.node) {
    if (y.requiresGrad) {
      y.grad = dy ?? full(y.shape, 1, y.dtype);
      return;
    }
    throw new Error('backward: the tensor was not computed from tensors that require grad');
  }
  noGrad(() => {
    const order = topoOrder(y.node!);
    const grads = new Map<TapeNode, Tensor>([[y.node!, dy ?? full(y.shape, 1, y.dtype)]]);
    for (const node of order) {
      const g = grads.get(node);
      if (!g) continue;
      grads.delete(node);
      const ctx = { ...node.saved, dy: g } as GradContext;
      const result = node.op.grad!.fn(ctx);
      for (const [name, parent] of Object.entries(node.parents)) {
        const gi = result[name];
        if (!gi) continue;
        const fitted = fitToShape(node.op.name, name, gi, parent.type);
        if (parent.node) grads.set(parent.node, accumulate(grads.get(parent.node), fitted));
        else parent.leaf!.grad = accumulate(parent.leaf!.grad, fitted);
      }
    }
  });
}

function accumulate(prev: Tensor | undefined, g: Tensor): Tensor {
  return prev ? (call('add', [prev, g]) as Tensor) : g;
}

/** Sums a gradient over the axes its input was broadcast along (TVM's collapse_sum_like). */
function fitToShape(op: string, arg: string, g: Tensor, to: TensorType): Tensor {
  if (shapesEqual(g.shape, to.shape)) return g;
  const axes = broadcastAxes(to.shape, g.shape);
  if (g.shape.length < to.shape.length || axes.length === 0) {
    throw new Error(`gradient of raf.op.${op} for '${arg}' has shape ${formatShape(g.shape)}, input has ${formatShape(to.shape)}`);
  }
  const summed = call('sum', [g, axes, true]) as Tensor;
  return call('reshape', [summed, [...to.shape]]) as Tensor;
}

/** Nodes reachable from `root`, each after every node that consumes its output. */
function topoOrder(root: TapeNode): TapeNode[] {
  const order: TapeNode[] = [];
  const seen = new Set<TapeNode>();
  const stack: Array<[TapeNode, boolean]> = [[root, false]];
  while (stack.length) {
    const [n, expanded] = stack.pop()!;
    if (expanded) {
      order.push(n);
      continue;
    }
    if (seen.has(n)) continue;
    seen.add(n);
    stack.push([n, true]);
    for (const p of Object.values(n.parents)) if (p.node && !seen.has(p.node)) stack.push([p.node, false]);
  }
  return order.reverse();
}

/**
 * `grad(f)` returns a function computing df/dx for every tensor argument (or those in
 * `argnums`). A non-scalar output is seeded with ones, i.e. the gradient of its sum.
 */
export function grad(f: (...xs: Tensor[]) => Tensor, argnums?: readonly number[]): (...xs: Tensor[]) => Tensor[] {
  return (...xs) => valueAndGrad(f, argnums)(...xs).grads;
}

export function valueAndGrad(
  f: (...xs: Tensor[]) => Tensor,
  argnums?: readonly number[],
  seed?: Tensor,
): (...xs: Tensor[]) => { value: Tensor; grads: Tensor[] } {
  return (...xs) => {
    const which = argnums ?? xs.map((_, i) => i);
    // Fresh leaves, so the caller's tensors keep their own grad state.
    const leaves = xs.map((x, i) => {
      if (!which.includes(i)) return x;
      if (!isFloat(x.dtype)) throw new Error(`grad: argument ${i} has dtype ${x.dtype}; only float tensors have gradients`);
      return new Tensor(x.shape, x.dtype, x.storage).requireGrad();
    });
    const value = f(...leaves);
    if (value.node || value.requiresGrad) backward(value, seed);
    const grads = which.map((i) => leaves[i]!.grad ?? full(xs[i]!.shape, 0, xs[i]!.dtype));
    return { value, grads };
  };
}

export function gradOp(name: string): AnyOpDef['grad'] {
  return getOp(name).grad;
}
