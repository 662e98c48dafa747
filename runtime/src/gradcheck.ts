// Numerical gradient checking in float64, with torch.autograd.gradcheck's defaults.

import { valueAndGrad } from './autodiff.ts';
import { fromStorage, randomUniform, Tensor } from './tensor.ts';

export interface GradcheckOptions {
  eps?: number;
  atol?: number;
  rtol?: number;
  /** Which arguments to check (default: all). */
  argnums?: readonly number[];
  seed?: number;
}

/**
 * The mismatches; `skipped` (not enumerable, so a passing check still equals `[]`) counts the elements whose numeric
 * gradient is undefined (NaN or infinite: a pole, a kink at an infinity), which are not compared.
 */
export type GradcheckResult = GradcheckFailure[] & { readonly skipped: number; readonly checked: number };

export interface GradcheckFailure {
  arg: number;
  index: number;
  analytic: number;
  numeric: number;
}

/**
 * Compares the analytic gradient of `sum(f(x) * w)` (w random, fixed) with central differences; for several
 * outputs (a tuple op's), of the sum over outputs with one w each. Inputs must be float64 CPU tensors.
 * Returns the mismatches (empty when the check passes).
 */
export function gradcheck(
  f: (...xs: Tensor[]) => Tensor | readonly Tensor[],
  inputs: Tensor[],
  opts: GradcheckOptions = {},
): GradcheckResult {
  const eps = opts.eps ?? 1e-6;
  const atol = opts.atol ?? 1e-5;
  const rtol = opts.rtol ?? 1e-3;
  const argnums = opts.argnums ?? inputs.map((_, i) => i);
  for (const i of argnums) {
    if (inputs[i]!.dtype !== 'float64')
      throw new Error(`gradcheck: input ${i} must be float64, got ${inputs[i]!.dtype}`);
  }
  const listOf = (y: Tensor | readonly Tensor[]): readonly Tensor[] => (y instanceof Tensor ? [y] : y);
  const probe = f(...inputs);
  const w = listOf(probe).map((y, k) => randomUniform(y.shape, { dtype: 'float64', seed: (opts.seed ?? 7) + k }));
  const scalarOf = (y: Tensor | readonly Tensor[]): number => {
    let s = 0;
    listOf(y).forEach((t, k) => {
      const yv = t.dataSync();
      const wv = w[k]!.dataSync();
      for (let i = 0; i < yv.length; i++) s += yv[i]! * wv[i]!;
    });
    return s;
  };
  // Seeding the backward with w gives d/dx sum(f(x) * w) in one pass.
  const { grads } = valueAndGrad(f, argnums, probe instanceof Tensor ? w[0] : w)(...inputs);
  const failures: GradcheckFailure[] = [];
  let skipped = 0;
  let checked = 0;
  argnums.forEach((argIndex, k) => {
    const x = inputs[argIndex]!;
    const base = Float64Array.from(x.dataSync());
    const analytic = grads[k]!.dataSync();
    for (let j = 0; j < base.length; j++) {
      const plus = Float64Array.from(base);
      const minus = Float64Array.from(base);
      plus[j]! += eps;
      minus[j]! -= eps;
      const withArg = (v: Float64Array) =>
        inputs.map((t, i) => (i === argIndex ? fromStorage(x.shape, 'float64', v) : t));
      const numeric = (scalarOf(f(...withArg(plus))) - scalarOf(f(...withArg(minus)))) / (2 * eps);
      const a = analytic[j]!;
      // Central differences across a pole or next to an infinity give NaN or ±inf: nothing to compare with.
      if (!Number.isFinite(numeric)) {
        skipped++;
        continue;
      }
      checked++;
      if (!(Math.abs(a - numeric) <= atol + rtol * Math.abs(numeric))) {
        failures.push({ arg: argIndex, index: j, analytic: a, numeric });
      }
    }
  });
  Object.defineProperties(failures, { skipped: { value: skipped }, checked: { value: checked } });
  return failures as GradcheckResult;
}
