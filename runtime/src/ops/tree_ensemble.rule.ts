// Hand-written output rule of raf.op.tree_ensemble (specs/ml/tree_ensemble.yaml): (N, n_targets) in x's float dtype,
// after checking that the arrays describe trees (lengths agree, children and features in range).

import { OpError } from '../errors.ts';
import type { TensorType } from '../tensor.ts';
import type { TreeEnsembleArgs } from '../generated/schema/tree_ensemble.ts';

const OP = 'tree_ensemble';

export function treeEnsembleRule<T extends TensorType>(args: TreeEnsembleArgs<T>): TensorType {
  const { x } = args;
  if (x.dtype !== 'float32' && x.dtype !== 'float64')
    throw new OpError(OP, `dtype ${x.dtype} is not supported; cast x to float32 or float64`, 'x');
  if (x.shape.length !== 2) throw new OpError(OP, `x must be 2-D (rows, features), got rank ${x.shape.length}`, 'x');
  const n = args.feature_ids.length;
  for (const name of ['modes', 'splits', 'true_ids', 'false_ids'] as const)
    if (args[name].length !== n)
      throw new OpError(OP, `has ${args[name].length} entries; feature_ids has ${n} (one per internal node)`, name);
  if (args.missing_tracks_true.length && args.missing_tracks_true.length !== n)
    throw new OpError(
      OP,
      `has ${args.missing_tracks_true.length} entries; expected ${n} or none`,
      'missing_tracks_true',
    );
  if (args.targets.length !== args.weights.length)
    throw new OpError(OP, `has ${args.weights.length} entries; targets has ${args.targets.length}`, 'weights');
  const leaves = args.leaf_starts.length;
  const child = (c: number, what: string) => {
    if (c >= n || c < -leaves)
      throw new OpError(OP, `${c} is neither an internal node (0..${n - 1}) nor a leaf (-1..-${leaves})`, what);
  };
  args.true_ids.forEach((c) => child(c, 'true_ids'));
  args.false_ids.forEach((c) => child(c, 'false_ids'));
  args.roots.forEach((c) => child(c, 'roots'));
  const F = x.shape[1]!;
  args.feature_ids.forEach((f) => {
    if (f < 0 || f >= F) throw new OpError(OP, `feature ${f} is out of range for x with ${F} features`, 'feature_ids');
  });
  args.modes.forEach((m) => {
    if (!Number.isInteger(m) || m < 0 || m > 6) throw new OpError(OP, `mode ${m} is not 0..6`, 'modes');
  });
  args.targets.forEach((t) => {
    if (t < 0 || t >= args.n_targets)
      throw new OpError(OP, `target ${t} is out of range for ${args.n_targets} targets`, 'targets');
  });
  if (args.base_values.length && args.base_values.length !== args.n_targets)
    throw new OpError(OP, `has ${args.base_values.length} values; expected ${args.n_targets} or none`, 'base_values');
  return { shape: [x.shape[0]!, args.n_targets], dtype: x.dtype };
}
