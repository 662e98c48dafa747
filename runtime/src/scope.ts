// tidy(): a scope that disposes the tensors ops made inside it, except those it returns (tfjs's tf.tidy).

import { Tensor } from './tensor.ts';

/** Tensors made by ops in each open scope, innermost last. */
const scopes: Tensor[][] = [];

/** Called by the dispatcher with each op's outputs and its kernel inputs (a kernel may hand an input back). */
export function trackOutputs(result: Tensor | readonly Tensor[], inputs: unknown): void {
  const top = scopes[scopes.length - 1];
  if (!top) return;
  // One output that is no input (the usual case) needs no set of the inputs.
  if (result instanceof Tensor && !holds(inputs, result)) {
    top.push(result);
    return;
  }
  const given = returned(inputs, new Set());
  for (const t of result instanceof Tensor ? [result] : result) if (!given.has(t)) top.push(t);
}

/** Whether `value` (a tensor, or arrays and plain objects holding them, at any depth) holds `t`. */
function holds(value: unknown, t: Tensor): boolean {
  if (value === t) return true;
  if (value instanceof Tensor) return false;
  if (Array.isArray(value)) {
    for (const v of value) if (holds(v, t)) return true;
  } else if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype)
    for (const k in value) if (holds((value as Record<string, unknown>)[k], t)) return true;
  return false;
}

/** The tensors in a value: a tensor, or arrays and plain objects holding them, at any depth. */
export function tensorsIn(value: unknown): Set<Tensor> {
  return returned(value, new Set());
}

/** The tensors in a returned value: a tensor, or arrays and plain objects holding them, at any depth. */
function returned(value: unknown, into: Set<Tensor>): Set<Tensor> {
  if (value instanceof Tensor) into.add(value);
  else if (Array.isArray(value)) for (const v of value) returned(v, into);
  else if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype)
    for (const v of Object.values(value)) returned(v, into);
  return into;
}

/**
 * Runs `fn` and disposes every tensor an op made during it that `fn` does not return (a tensor, or arrays and plain
 * objects of them); returned ones pass to the enclosing scope. Intermediates of the wasm dialect then give their
 * memory back at once instead of waiting to be moved out. Tensors made inside and kept elsewhere (a closure, a
 * cache) are disposed too: return them, or make them outside. Synchronous `fn` only.
 */
export function tidy<R>(fn: () => R): R {
  const mine: Tensor[] = [];
  scopes.push(mine);
  let result: R;
  try {
    result = fn();
  } finally {
    scopes.pop();
  }
  if (result instanceof Promise) throw new Error('tidy: fn must be synchronous (it returned a Promise)');
  const keep = returned(result, new Set());
  for (const t of mine) if (!keep.has(t)) t.dispose();
  const outer = scopes[scopes.length - 1];
  if (outer) outer.push(...keep);
  return result;
}
