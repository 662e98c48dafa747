// A training step in eager mode: the loss and every parameter's gradient by the tape (autodiff.ts), then one
// optimizer update. Everything the loss function and the backward make is freed but the loss and the gradients.

import { backward } from '../autodiff.ts';
import { isFloat } from '../dtype.ts';
import { formatShape } from '../shape.ts';
import { Tensor, disposeUnkept } from '../tensor.ts';
import { TrainError } from './errors.ts';
import type { Optimizer } from './optim.ts';
import { checkParams, type Params } from './tensors.ts';

/** The loss as a function of the parameters (by name). It must return one float number as a Tensor. */
export type LossFn = (params: Params) => Tensor;

/**
 * The loss at `params` and its gradient with respect to each parameter (same names). A parameter the loss does not
 * depend on is an error naming it, as is a loss that is not one float number; nothing is kept on failure.
 */
export function lossAndGrads(lossFn: LossFn, params: Params, where = 'lossAndGrads'): { loss: Tensor; grads: Params } {
  checkParams(where, params);
  const result = disposeUnkept(
    () => {
      // Fresh leaves around the parameters' storage, so the caller's tensors keep their own grad state.
      const leaves: Params = {};
      for (const [name, p] of Object.entries(params))
        leaves[name] = new Tensor(p.shape, p.dtype, p.storage).requireGrad();
      const loss = lossFn(leaves);
      if (!(loss instanceof Tensor))
        throw new TrainError(where, `the loss function returned ${loss === null ? 'null' : typeof loss}, not a Tensor`);
      if (loss.size !== 1 || !isFloat(loss.dtype))
        throw new TrainError(
          where,
          `the loss must be one float number, got ${loss.dtype}${formatShape(loss.shape)}`,
          'reduce it, e.g. ops.mean(...)',
        );
      if (!loss.node)
        throw new TrainError(
          where,
          'the loss does not depend on any parameter',
          'compute it from the params the function receives (not from tensors captured outside)',
        );
      backward(loss);
      const grads: Params = {};
      for (const [name, leaf] of Object.entries(leaves)) {
        if (!leaf.grad)
          throw new TrainError(
            `${where}: parameter '${name}'`,
            'does not reach the loss',
            'use it in the loss function or leave it out of params; a parameter that reaches the loss only through ' +
              'ops without a gradient (argmax, comparisons, casts to integers) gets none either',
          );
        grads[name] = leaf.grad;
      }
      // The loss comes back detached: its tape has run.
      loss.node = undefined;
      loss.requiresGrad = false;
      return { loss, grads };
    },
    (r) => [r.loss, ...Object.values(r.grads)],
  );
  return result;
}

/**
 * One training step: the loss and gradients at `opt.params`, then `opt.step(grads)`. Returns the loss (a detached
 * scalar tensor computed before the update). When anything fails, the parameters and state are left as they were.
 * Call it outside `tidy()`: the updated parameters are made during the step and must outlive it.
 */
export function trainStep(lossFn: LossFn, opt: Optimizer): Tensor {
  const { loss, grads } = lossAndGrads(lossFn, opt.params, 'trainStep');
  try {
    opt.step(grads);
  } catch (e) {
    loss.dispose();
    throw e;
  } finally {
    for (const g of Object.values(grads)) g.dispose();
  }
  return loss;
}
