// Dynamic loss scaling for mixed-precision training, as torch.cuda.amp.GradScaler documents it: the loss is multiplied
// by `scale` before the backward, so small float16 gradients do not flush to zero; the gradients are divided by it
// again before the update (the parameters stay the optimizer's float32 master copies). A step whose gradients hold an
// inf or a NaN is skipped (parameters and optimizer state unchanged) and the scale is multiplied by backoffFactor;
// after growthInterval steps in a row without one, the scale is multiplied by growthFactor.

import { abs } from '../generated/api/abs.ts';
import { add } from '../generated/api/add.ts';
import { cast } from '../generated/api/cast.ts';
import { multiply } from '../generated/api/multiply.ts';
import { sum } from '../generated/api/sum.ts';
import type { Tensor } from '../tensor.ts';
import { TrainError } from './errors.ts';
import type { Optimizer } from './optim.ts';
import { lossAndGrads, type LossFn } from './step.ts';
import { checkParams, type Params } from './tensors.ts';

/** torch.cuda.amp.GradScaler's options and defaults. */
export interface GradScalerOptions {
  /** The first scale (default 2^16). */
  initScale?: number;
  /** The scale's factor after growthInterval steps without inf or NaN (default 2). */
  growthFactor?: number;
  /** The scale's factor after a step with an inf or a NaN (default 0.5). */
  backoffFactor?: number;
  /** How many steps in a row without inf or NaN grow the scale (default 2000). */
  growthInterval?: number;
}

/** What a GradScaler keeps between steps (save it with the optimizer's state to resume). */
export interface GradScalerState {
  scale: number;
  growthTracker: number;
}

export class GradScaler {
  readonly growthFactor: number;
  readonly backoffFactor: number;
  readonly growthInterval: number;
  /** The current loss scale. */
  scale: number;
  /** Steps in a row without inf or NaN since the scale last changed. */
  growthTracker = 0;
  /** How many steps were skipped for an inf or a NaN, in all. */
  skipped = 0;

  constructor(options: GradScalerOptions = {}) {
    const where = 'GradScaler';
    const o = {
      initScale: 2 ** 16,
      growthFactor: 2,
      backoffFactor: 0.5,
      growthInterval: 2000,
      ...definedOnly(options),
    };
    if (!(Number.isFinite(o.initScale) && o.initScale > 0))
      throw new TrainError(where, `initScale must be a finite number > 0, got ${String(o.initScale)}`);
    if (!(Number.isFinite(o.growthFactor) && o.growthFactor > 1))
      throw new TrainError(where, `growthFactor must be a finite number > 1, got ${String(o.growthFactor)}`);
    if (!(o.backoffFactor > 0 && o.backoffFactor < 1))
      throw new TrainError(where, `backoffFactor must be in (0, 1), got ${String(o.backoffFactor)}`);
    if (!(Number.isInteger(o.growthInterval) && o.growthInterval >= 1))
      throw new TrainError(where, `growthInterval must be an integer >= 1, got ${String(o.growthInterval)}`);
    this.scale = o.initScale;
    this.growthFactor = o.growthFactor;
    this.backoffFactor = o.backoffFactor;
    this.growthInterval = o.growthInterval;
  }

  /**
   * Divides `scaledGrads` (gradients of the loss times `scale`) by the scale and, when none holds an inf or a NaN,
   * takes `opt.step` with them; then updates the scale. Resolves to true when the step was taken, false when skipped.
   * The caller keeps (and frees) `scaledGrads`.
   */
  async step(opt: Optimizer, scaledGrads: Params): Promise<boolean> {
    const where = 'GradScaler.step';
    checkParams(where, scaledGrads);
    const inv = 1 / this.scale;
    const grads: Params = {};
    let total: Tensor | undefined;
    try {
      for (const [name, g] of Object.entries(scaledGrads)) {
        grads[name] = multiply(g, inv);
        // |g| summed: inf or NaN when any element is (or, for finite gradients, past the dtype's largest number).
        const s = sum(abs(grads[name]!));
        const next = total ? add(total, s) : s;
        if (total) {
          total.dispose();
          s.dispose();
        }
        total = next;
      }
      if (!total) throw new TrainError(where, 'no gradients');
      const finite = Number.isFinite(Number((await total.data())[0]));
      if (finite) opt.step(grads);
      this.update(!finite);
      return finite;
    } finally {
      total?.dispose();
      for (const g of Object.values(grads)) g.dispose();
    }
  }

  /** The scale's update after a step: backoff on an inf or NaN, growth after growthInterval clean steps. */
  update(foundInf: boolean): void {
    if (foundInf) {
      this.scale *= this.backoffFactor;
      this.growthTracker = 0;
      this.skipped++;
      return;
    }
    this.growthTracker++;
    if (this.growthTracker === this.growthInterval) {
      this.scale *= this.growthFactor;
      this.growthTracker = 0;
    }
  }

  state(): GradScalerState {
    return { scale: this.scale, growthTracker: this.growthTracker };
  }

  load(state: GradScalerState): void {
    if (!(Number.isFinite(state?.scale) && state.scale > 0))
      throw new TrainError('GradScaler.load', `scale must be a finite number > 0, got ${String(state?.scale)}`);
    if (!(Number.isInteger(state.growthTracker) && state.growthTracker >= 0))
      throw new TrainError(
        'GradScaler.load',
        `growthTracker must be an integer >= 0, got ${String(state.growthTracker)}`,
      );
    this.scale = state.scale;
    this.growthTracker = state.growthTracker;
  }
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * One mixed-precision training step: the loss times the scaler's scale, its gradients with respect to the
 * optimizer's (float32 master) parameters, then `scaler.step`. The loss function may compute in float16 (cast the
 * parameters it receives); the gradients come back in the parameters' dtype. Resolves to the loss (unscaled, a
 * detached scalar computed before the update) and whether the update was skipped for an inf or a NaN.
 */
export async function ampTrainStep(
  lossFn: LossFn,
  opt: Optimizer,
  scaler: GradScaler,
): Promise<{ loss: Tensor; skipped: boolean }> {
  const scale = scaler.scale;
  // A float16 loss is scaled in float32 (2^16 is past float16's largest number), as torch's float32 scale promotes it.
  const scaled = (p: Params) => {
    const l = lossFn(p);
    return multiply(l.dtype === 'float16' ? cast(l, 'float32') : l, scale);
  };
  const { loss, grads } = lossAndGrads(scaled, opt.params, 'ampTrainStep');
  try {
    const stepped = await scaler.step(opt, grads);
    const unscaled = multiply(loss, 1 / scale);
    return { loss: unscaled, skipped: !stepped };
  } finally {
    loss.dispose();
    for (const g of Object.values(grads)) g.dispose();
  }
}
