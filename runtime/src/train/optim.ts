// Optimizers over named parameters: each step calls the optimizer op (raf.op.sgd, adam, lans; specs/optim/) once per
// parameter. Parameters and state are plain tensors the optimizer owns: `opt.params` and `opt.state` hold the current
// ones, replaced (the old ones disposed) by every step, and a step that fails leaves both as they were.

import { adam as adamUpdate } from '../generated/api/adam.ts';
import { lans as lansUpdate } from '../generated/api/lans.ts';
import { sgd as sgdUpdate } from '../generated/api/sgd.ts';
import { OpError } from '../errors.ts';
import { Tensor, full, placeOn } from '../tensor.ts';
import { TrainError } from './errors.ts';
import { checkLike, checkParams, copyOf, zerosLike, type Params } from './tensors.ts';

export interface SgdOptions {
  /** Learning rate (torch.optim.SGD's default, 0.001, when left out). */
  lr?: number;
  momentum?: number;
  dampening?: number;
  weightDecay?: number;
  nesterov?: boolean;
}

export interface AdamOptions {
  lr?: number;
  beta1?: number;
  beta2?: number;
  eps?: number;
  weightDecay?: number;
  amsgrad?: boolean;
  /** AdamW: decay the parameter by lr * weightDecay instead of adding weightDecay * param to the gradient. */
  decoupledWeightDecay?: boolean;
}

/** RAF's LANS (specs/optim/lans.yaml): defaults lr 0.001, betas 0.9 / 0.999, eps 1e-6, weight decay 0.01. */
export interface LansOptions {
  lr?: number;
  beta1?: number;
  beta2?: number;
  eps?: number;
  weightDecay?: number;
  biasCorrection?: boolean;
  /** Scale the gradient term of the first moment by 1 - beta1 (default true). */
  gradAveraging?: boolean;
  /** RAF's `mode`: true (default) adds weightDecay * param to both update directions; false adds it to the gradient. */
  decoupledWeightDecay?: boolean;
  /** Divide the gradient by its norm (per parameter) first (default true). */
  normalizeGrad?: boolean;
}

/** An optimizer's state: how many steps it took, and its per-parameter buffers by buffer name then parameter name. */
export interface OptimizerState {
  step: number;
  buffers: Record<string, Params>;
}

export type OptimizerKind = 'sgd' | 'adam' | 'adamw' | 'lans';

/** What every optimizer has; `sgd`, `adam` and `adamw` make one. */
export abstract class Optimizer {
  /** The current parameters (the optimizer's own copies): read them, do not keep them past the next step. */
  readonly params: Params;
  readonly state: OptimizerState;
  private disposed = false;

  protected constructor(
    readonly kind: OptimizerKind,
    params: Params,
    readonly bufferNames: readonly string[],
  ) {
    checkParams(kind, params);
    this.params = {};
    for (const [name, p] of Object.entries(params)) this.params[name] = copyOf(p);
    const buffers: Record<string, Params> = {};
    for (const b of bufferNames) {
      buffers[b] = {};
      for (const [name, p] of Object.entries(this.params)) buffers[b]![name] = zerosLike(p);
    }
    this.state = { step: 0, buffers };
  }

  /**
   * The op call for one parameter: its new value and new buffers (in bufferNames' order). compileTrainStep traces it
   * into its step graph, so both paths make the same call with the same arguments.
   */
  abstract update(p: Tensor, g: Tensor, buffers: readonly Tensor[], step: Tensor): readonly Tensor[];
  /** The hyperparameters, as the op takes them (checked again at each step: they may be changed between steps). */
  abstract readonly options: object;
  /** Throws a TrainError naming the first bad hyperparameter. */
  abstract checkOptions(): void;

  /**
   * One update of every parameter from `grads` (one gradient per parameter, of its shape and dtype). All or nothing:
   * when a gradient is missing or wrong, or an op fails, nothing changes and the error names the parameter.
   */
  step(grads: Params): void {
    const where = `${this.kind}.step`;
    if (this.disposed) throw new TrainError(where, 'the optimizer was disposed');
    this.checkOptions();
    checkLike(where, 'gradient', grads, this.params);
    const t = this.state.step + 1;
    const made: Tensor[] = [];
    const next: Record<string, readonly Tensor[]> = {};
    // The step number as a one-element tensor of each parameter's dtype, on its device (WebGPU kernels read float32).
    const stepTensors = new Map<string, Tensor>();
    const stepFor = (p: Tensor): Tensor => {
      const key = `${p.dtype}@${p.device.kind}:${p.device.id}`;
      let s = stepTensors.get(key);
      if (!s) stepTensors.set(key, (s = placeOn(full([], t, p.dtype), p.device)));
      return s;
    };
    try {
      for (const [name, p] of Object.entries(this.params)) {
        const bufs = this.bufferNames.map((b) => this.state.buffers[b]![name]!);
        let outs: readonly Tensor[];
        try {
          outs = this.update(p, grads[name]!, bufs, stepFor(p));
        } catch (e) {
          if (e instanceof OpError) throw new TrainError(`${where}: parameter '${name}'`, e.message);
          throw e;
        }
        made.push(...outs);
        next[name] = outs;
      }
    } catch (e) {
      for (const m of made) m.dispose();
      throw e;
    } finally {
      for (const s of stepTensors.values()) s.dispose();
    }
    // Every update succeeded: swap in the new tensors and free the old ones.
    for (const [name, outs] of Object.entries(next)) {
      this.params[name]!.dispose();
      this.params[name] = outs[0]!;
      this.bufferNames.forEach((b, i) => {
        this.state.buffers[b]![name]!.dispose();
        this.state.buffers[b]![name] = outs[i + 1]!;
      });
    }
    this.state.step = t;
  }

  /**
   * Replaces parameters and state (copies of the given tensors) after checking every tensor against the current
   * parameters: the same names, shapes, dtypes and device. Refused as a whole: on an error nothing changes.
   */
  load(params: Params, state: OptimizerState): void {
    const where = `${this.kind}.load`;
    checkLike(where, 'parameter', params, this.params);
    if (!state || typeof state !== 'object' || !Number.isInteger(state.step) || state.step < 0)
      throw new TrainError(where, `state.step must be an integer >= 0, got ${String(state?.step)}`);
    for (const b of this.bufferNames) {
      if (!state.buffers || !(b in state.buffers))
        throw new TrainError(
          where,
          `state has no '${b}' buffers`,
          `a ${this.kind} state has ${this.bufferNames.join(', ')}`,
        );
      checkLike(where, `state '${b}' of parameter`, state.buffers[b], this.params);
    }
    for (const b of Object.keys(state.buffers ?? {}))
      if (!this.bufferNames.includes(b))
        throw new TrainError(where, `state has a '${b}' buffer, which ${this.kind} does not keep`);
    // Copy everything first (the given tensors may be this optimizer's own), then swap and free the old ones.
    const old: Tensor[] = [];
    const nextParams: Params = {};
    const nextBuffers: Record<string, Params> = {};
    for (const name of Object.keys(this.params)) nextParams[name] = copyOf(params[name]!);
    for (const b of this.bufferNames) {
      nextBuffers[b] = {};
      for (const name of Object.keys(this.params)) nextBuffers[b]![name] = copyOf(state.buffers[b]![name]!);
    }
    for (const name of Object.keys(this.params)) {
      old.push(this.params[name]!);
      this.params[name] = nextParams[name]!;
      for (const b of this.bufferNames) {
        old.push(this.state.buffers[b]![name]!);
        this.state.buffers[b]![name] = nextBuffers[b]![name]!;
      }
    }
    for (const t of old) t.dispose();
    this.state.step = state.step;
  }

  /** Frees the parameters and state this optimizer owns. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const p of Object.values(this.params)) p.dispose();
    for (const b of Object.values(this.state.buffers)) for (const t of Object.values(b)) t.dispose();
  }
}

/** The defaults overridden by the options that are given (an option set to undefined keeps its default). */
function withDefaults<T extends object>(defaults: Required<T>, options: T): Required<T> {
  const out = { ...defaults };
  for (const [k, v] of Object.entries(options)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

function checkNumber(where: string, name: string, v: number, lo: number, hi = Infinity, hiOpen = false): void {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < lo || v > hi || (hiOpen && v === hi))
    throw new TrainError(
      where,
      `${name} must be a finite number in [${lo}, ${hi === Infinity ? '∞' : hi}${hiOpen ? ')' : ']'}, got ${String(v)}`,
    );
}

export class SGD extends Optimizer {
  readonly options: Required<SgdOptions>;
  constructor(params: Params, options: SgdOptions = {}) {
    super('sgd', params, ['momentum_buffer']);
    this.options = withDefaults<SgdOptions>(
      { lr: 1e-3, momentum: 0, dampening: 0, weightDecay: 0, nesterov: false },
      options,
    );
    this.checkOptions();
  }
  checkOptions(): void {
    const o = this.options;
    checkNumber('sgd', 'lr', o.lr, 0);
    checkNumber('sgd', 'momentum', o.momentum, 0);
    checkNumber('sgd', 'dampening', o.dampening, -Infinity);
    checkNumber('sgd', 'weightDecay', o.weightDecay, 0);
    if (o.nesterov && (o.momentum <= 0 || o.dampening !== 0))
      throw new TrainError('sgd', 'nesterov needs momentum > 0 and dampening = 0', 'torch.optim.SGD refuses it too');
  }
  update(p: Tensor, g: Tensor, [buf]: readonly Tensor[], step: Tensor): readonly Tensor[] {
    const o = this.options;
    return sgdUpdate(p, g, buf!, step, o.lr, o.momentum, o.dampening, o.weightDecay, o.nesterov);
  }
}

export class Adam extends Optimizer {
  readonly options: Required<AdamOptions>;
  constructor(params: Params, options: AdamOptions = {}, kind: OptimizerKind = 'adam') {
    super(kind, params, ['exp_avg', 'exp_avg_sq', 'max_exp_avg_sq']);
    const decoupled = kind === 'adamw';
    this.options = withDefaults<AdamOptions>(
      {
        lr: 1e-3,
        beta1: 0.9,
        beta2: 0.999,
        eps: 1e-8,
        weightDecay: decoupled ? 1e-2 : 0,
        amsgrad: false,
        decoupledWeightDecay: decoupled,
      },
      options,
    );
    this.checkOptions();
  }
  checkOptions(): void {
    const o = this.options;
    checkNumber(this.kind, 'lr', o.lr, 0);
    checkNumber(this.kind, 'beta1', o.beta1, 0, 1, true);
    checkNumber(this.kind, 'beta2', o.beta2, 0, 1, true);
    checkNumber(this.kind, 'eps', o.eps, 0);
    checkNumber(this.kind, 'weightDecay', o.weightDecay, 0);
  }
  update(p: Tensor, g: Tensor, [m, v, vmax]: readonly Tensor[], step: Tensor): readonly Tensor[] {
    const o = this.options;
    return adamUpdate(
      p,
      g,
      m!,
      v!,
      vmax!,
      step,
      o.lr,
      o.beta1,
      o.beta2,
      o.eps,
      o.weightDecay,
      o.amsgrad,
      o.decoupledWeightDecay,
    );
  }
}

export class Lans extends Optimizer {
  readonly options: Required<LansOptions>;
  constructor(params: Params, options: LansOptions = {}) {
    super('lans', params, ['exp_avg', 'exp_avg_sq']);
    this.options = withDefaults<LansOptions>(
      {
        lr: 1e-3,
        beta1: 0.9,
        beta2: 0.999,
        eps: 1e-6,
        weightDecay: 0.01,
        biasCorrection: true,
        gradAveraging: true,
        decoupledWeightDecay: true,
        normalizeGrad: true,
      },
      options,
    );
    this.checkOptions();
  }
  checkOptions(): void {
    const o = this.options;
    checkNumber(this.kind, 'lr', o.lr, 0);
    checkNumber(this.kind, 'beta1', o.beta1, 0, 1, true);
    checkNumber(this.kind, 'beta2', o.beta2, 0, 1, true);
    checkNumber(this.kind, 'eps', o.eps, 0);
    checkNumber(this.kind, 'weightDecay', o.weightDecay, 0);
  }
  update(p: Tensor, g: Tensor, [m, v]: readonly Tensor[], step: Tensor): readonly Tensor[] {
    const o = this.options;
    return lansUpdate(
      p,
      g,
      m!,
      v!,
      step,
      o.lr,
      o.beta1,
      o.beta2,
      o.eps,
      o.biasCorrection,
      o.weightDecay,
      o.gradAveraging,
      o.decoupledWeightDecay,
      o.normalizeGrad,
    );
  }
}

/** torch.optim.SGD over named parameters (copied: the optimizer owns its parameters). */
export function sgd(params: Params, options: SgdOptions = {}): SGD {
  return new SGD(params, options);
}

/** torch.optim.Adam over named parameters (copied: the optimizer owns its parameters). */
export function adam(params: Params, options: AdamOptions = {}): Adam {
  return new Adam(params, options);
}

/** torch.optim.AdamW: Adam with decoupled weight decay (default 0.01). */
export function adamw(params: Params, options: Omit<AdamOptions, 'decoupledWeightDecay'> = {}): Adam {
  return new Adam(params, { ...options, decoupledWeightDecay: true }, 'adamw');
}

/** RAF's LANS over named parameters (copied: the optimizer owns its parameters); norms are per parameter. */
export function lans(params: Params, options: LansOptions = {}): Lans {
  return new Lans(params, options);
}
