// A training step in graph mode: the loss function traced once into a graph (runtime/src/graph), differentiated by the
// graph AutoDiff pass, and run by the graph executor at each step; the update is the optimizer's, as in eager mode.

import { autodiff } from '../graph/passes/autodiff.ts';
import { execute } from '../graph/executor.ts';
import { trace } from '../graph/trace.ts';
import type { Graph } from '../graph/ir.ts';
import type { Tensor } from '../tensor.ts';
import { TrainError } from './errors.ts';
import type { Optimizer } from './optim.ts';
import { lossAndGrads } from './step.ts';
import { checkParams, type Params } from './tensors.ts';

/** A loss over named parameters and the step's data (a batch: inputs, labels), as tensors in a fixed order. */
export type BatchLossFn = (params: Params, ...batch: Tensor[]) => Tensor;

export interface CompiledLossAndGrads {
  /** The forward graph and the graph returning [loss, d loss / d param...] in the parameters' order. */
  readonly forward: Graph;
  readonly backward: Graph;
  (params: Params, batch: readonly Tensor[]): { loss: Tensor; grads: Params };
}

/**
 * Traces `lossFn` at parameters and a batch of these shapes and dtypes and differentiates the graph once. The
 * function returned runs it on other values of the same types. Checked once in eager mode first, so a parameter that
 * does not reach the loss is the same error as in trainStep.
 */
export function compileLossAndGrads(
  lossFn: BatchLossFn,
  params: Params,
  batch: readonly Tensor[],
): CompiledLossAndGrads {
  const where = 'compileLossAndGrads';
  checkParams(where, params);
  const names = Object.keys(params);
  const eager = lossAndGrads((p) => lossFn(p, ...batch), params, where);
  eager.loss.dispose();
  for (const g of Object.values(eager.grads)) g.dispose();
  const n = names.length;
  const forward = trace(
    (...xs: Tensor[]) => lossFn(Object.fromEntries(names.map((name, i) => [name, xs[i]!])), ...xs.slice(n)),
    [...names.map((name) => params[name]!), ...batch],
    { names: [...names, ...batch.map((_, i) => `batch${i}`)] },
  );
  const backward = autodiff(forward, { seed: 'ones', wrt: names.map((_, i) => i) });
  const run = (p: Params, b: readonly Tensor[]) => {
    if (b.length !== batch.length)
      throw new TrainError(
        where,
        `the step got ${b.length} batch tensors, the function was compiled for ${batch.length}`,
      );
    const missing = names.find((name) => !(p[name] !== undefined));
    if (missing) throw new TrainError(`${where}: parameter '${missing}'`, 'is missing');
    const [loss, ...gs] = execute(backward, [...names.map((name) => p[name]!), ...b]);
    const grads: Params = {};
    names.forEach((name, i) => (grads[name] = gs[i]!));
    return { loss: loss!, grads };
  };
  return Object.assign(run, { forward, backward });
}

/**
 * A training step compiled once for batches like `exampleBatch`: call it with each step's batch; it returns the loss
 * (before the update) and updates `opt` as trainStep does (all or nothing).
 */
export function compileTrainStep(
  lossFn: BatchLossFn,
  opt: Optimizer,
  exampleBatch: readonly Tensor[],
): (batch: readonly Tensor[]) => Tensor {
  const compiled = compileLossAndGrads(lossFn, opt.params, exampleBatch);
  return (batch) => {
    const { loss, grads } = compiled(opt.params, batch);
    // A gradient the graph returns as one of its inputs (d sum(w * x) / dw is x) is not ours to free.
    const inputs = new Set([...Object.values(opt.params), ...batch].map((t) => t.storage));
    try {
      opt.step(grads);
    } catch (e) {
      loss.dispose();
      throw e;
    } finally {
      for (const g of Object.values(grads)) if (!inputs.has(g.storage)) g.dispose();
    }
    return loss;
  };
}
