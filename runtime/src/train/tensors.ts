// Small tensor helpers of the training API: copies and zeros on a parameter's device, and named-record checks.

import { formatShape } from '../shape.ts';
import { Tensor, fromStorage, full, placeOn } from '../tensor.ts';
import { call } from '../dispatch.ts';
import { isFloat } from '../dtype.ts';
import { TrainError } from './errors.ts';

/** Named tensors, in insertion order: parameters, gradients, optimizer state. */
export type Params = Record<string, Tensor>;

/** A copy of `t` with storage of its own, on t's device (bit-exact: a CPU copy of the array, else t * 1). */
export function copyOf(t: Tensor): Tensor {
  if (t.storage.readSync) return fromStorage(t.shape, t.dtype, t.dataSync().slice());
  return call('multiply', [t, 1]) as Tensor;
}

/** Zeros of t's shape and dtype on t's device. */
export function zerosLike(t: Tensor): Tensor {
  return placeOn(full(t.shape, 0, t.dtype), t.device);
}

/** Checks a parameter record: at least one entry, each a live float Tensor. */
export function checkParams(where: string, params: unknown): asserts params is Params {
  if (params === null || typeof params !== 'object' || Array.isArray(params) || params instanceof Tensor)
    throw new TrainError(where, 'params must be a record of named tensors', 'pass { w1: tensor(...), b1: ... }');
  const names = Object.keys(params);
  if (names.length === 0) throw new TrainError(where, 'params is empty', 'pass at least one tensor to train');
  for (const name of names) {
    const p = (params as Record<string, unknown>)[name];
    if (!(p instanceof Tensor))
      throw new TrainError(
        `${where}: parameter '${name}'`,
        `is not a Tensor`,
        'every entry of params must be a Tensor',
      );
    if (p.isDisposed) throw new TrainError(`${where}: parameter '${name}'`, 'was disposed');
    if (!isFloat(p.dtype))
      throw new TrainError(`${where}: parameter '${name}'`, `has dtype ${p.dtype}; only float tensors are trained`);
  }
}

/** Checks that `tensors` has exactly the names of `like`, each of the same shape and dtype; `what` names them. */
export function checkLike(where: string, what: string, tensors: unknown, like: Params): asserts tensors is Params {
  if (tensors === null || typeof tensors !== 'object' || Array.isArray(tensors))
    throw new TrainError(where, `${what} must be a record of named tensors, one per parameter`);
  const rec = tensors as Record<string, unknown>;
  for (const name of Object.keys(like)) {
    const t = rec[name];
    if (!(t instanceof Tensor))
      throw new TrainError(
        `${where}: ${what} '${name}'`,
        t === undefined ? 'is missing' : 'is not a Tensor',
        `give one ${what} tensor per parameter`,
      );
    const p = like[name]!;
    if (t.shape.length !== p.shape.length || t.shape.some((d, i) => d !== p.shape[i]))
      throw new TrainError(
        `${where}: ${what} '${name}'`,
        `has shape ${formatShape(t.shape)}, the parameter has ${formatShape(p.shape)}`,
      );
    if (t.dtype !== p.dtype)
      throw new TrainError(`${where}: ${what} '${name}'`, `has dtype ${t.dtype}, the parameter has ${p.dtype}`);
    if (t.device !== p.device)
      throw new TrainError(`${where}: ${what} '${name}'`, `is on another device than its parameter`);
  }
  for (const name of Object.keys(rec))
    if (!(name in like))
      throw new TrainError(
        `${where}: ${what} '${name}'`,
        'names no parameter',
        `parameters: ${Object.keys(like).join(', ')}`,
      );
}
