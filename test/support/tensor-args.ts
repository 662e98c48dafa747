// Tensor args as the per-op harness's flat views see them: a Tensor[] arg is one parameter per element.

import { Tensor } from '../../runtime/src/index.ts';

/**
 * The tensors of `names` in `inputs` as one flat parameter list (a Tensor[] arg's elements each), their labels
 * (`xs[1]`), and the way back from such a list to keyword args: how graph mode, gradcheck and the WebGPU gradient
 * cases, which take tensors only, see list inputs.
 */
export function flatTensors(
  inputs: Readonly<Record<string, unknown>>,
  names: readonly string[],
): { params: Tensor[]; labels: string[]; rebuild: (xs: readonly Tensor[]) => Record<string, unknown> } {
  const slots: [string, number][] = names.flatMap((k): [string, number][] => {
    const v = inputs[k];
    if (v instanceof Tensor) return [[k, -1]];
    return Array.isArray(v) && v.length > 0 && v.every((t) => t instanceof Tensor)
      ? v.map((_, j): [string, number] => [k, j])
      : [];
  });
  const params = slots.map(([k, j]) => (j < 0 ? inputs[k] : (inputs[k] as Tensor[])[j]) as Tensor);
  const labels = slots.map(([k, j]) => (j < 0 ? k : `${k}[${j}]`));
  const rebuild = (xs: readonly Tensor[]) => {
    const kw: Record<string, unknown> = {};
    slots.forEach(([k, j], n) => {
      if (j < 0) kw[k] = xs[n];
      else ((kw[k] ??= []) as Tensor[])[j] = xs[n]!;
    });
    return kw;
  };
  return { params, labels, rebuild };
}

/** A call's result as a list: one tensor, or a tuple op's tensors. */
export function outputsOf(v: unknown): Tensor[] {
  return v instanceof Tensor ? [v] : [...(v as readonly Tensor[])];
}
