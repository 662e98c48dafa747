// CPU kernel of raf.op.tree_ensemble (specs/ml/tree_ensemble.yaml): each row walks every tree from its root to a leaf,
// the leaf's (target, weight) entries aggregate per target in float64, then base values and the post transform.

import type { TreeEnsembleKernel } from '../../../generated/bridge/tree_ensemble.ts';
import { allocOut } from '../support.ts';

export const treeEnsembleCpu: TreeEnsembleKernel = ({ x }, a, out) => {
  const [N, F] = [x.shape[0]!, x.shape[1]!];
  const T = a.n_targets;
  const xv = x.dataSync();
  // Each MEMBER node's set, in node order (NaN-separated in membership_values).
  const sets = new Map<number, Set<number>>();
  let at = 0;
  a.modes.forEach((m, k) => {
    if (m !== 6) return;
    const s = new Set<number>();
    while (at < a.membership_values.length && !Number.isNaN(a.membership_values[at]!))
      s.add(a.membership_values[at++]!);
    at++;
    sets.set(k, s);
  });
  const goesTrue = (k: number, v: number): boolean => {
    if (v !== v) return a.missing_tracks_true[k] === 1;
    const s = a.splits[k]!;
    switch (a.modes[k]) {
      case 0:
        return v <= s;
      case 1:
        return v < s;
      case 2:
        return v >= s;
      case 3:
        return v > s;
      case 4:
        return v === s;
      case 5:
        return v !== s;
      default:
        return sets.get(k)!.has(v);
    }
  };
  const leafEnd = (l: number) => (l + 1 < a.leaf_starts.length ? a.leaf_starts[l + 1]! : a.targets.length);
  const y = allocOut(out);
  const yv = y.dataSync();
  const acc = new Float64Array(T);
  const hit = new Uint8Array(T);
  const init = a.aggregate === 'MIN' ? Infinity : a.aggregate === 'MAX' ? -Infinity : 0;
  for (let r = 0; r < N; r++) {
    acc.fill(init);
    hit.fill(0);
    const row = r * F;
    for (const root of a.roots) {
      let node = root;
      // Bounded by the node count: a cycle in the arrays cannot hang the walk.
      for (let steps = 0; node >= 0; steps++) {
        if (steps > a.feature_ids.length) throw new Error(`raf.op.tree_ensemble: the trees from root ${root} loop`);
        node = goesTrue(node, xv[row + a.feature_ids[node]!]!) ? a.true_ids[node]! : a.false_ids[node]!;
      }
      const leaf = -1 - node;
      for (let e = a.leaf_starts[leaf]!; e < leafEnd(leaf); e++) {
        const t = a.targets[e]!;
        const w = a.weights[e]!;
        hit[t] = 1;
        acc[t] =
          a.aggregate === 'MIN' ? Math.min(acc[t]!, w) : a.aggregate === 'MAX' ? Math.max(acc[t]!, w) : acc[t]! + w;
      }
    }
    const limit = x.dtype === 'float32' ? 3.4028234663852886e38 : Number.MAX_VALUE;
    for (let t = 0; t < T; t++) {
      let v = acc[t]!;
      if (a.aggregate === 'AVERAGE') v /= a.roots.length;
      if (!hit[t] && a.unreached === 'ZERO') {
        acc[t] = 0;
        continue;
      }
      if (!hit[t] && a.aggregate === 'MIN') v = limit;
      if (!hit[t] && a.aggregate === 'MAX') v = -limit;
      acc[t] = v + (a.base_values.length ? a.base_values[t]! : 0);
    }
    post(a.post_transform, acc);
    for (let t = 0; t < T; t++) yv[r * T + t] = acc[t]!;
  }
  return y;
};

function post(kind: string, v: Float64Array): void {
  if (kind === 'LOGISTIC') for (let t = 0; t < v.length; t++) v[t] = 1 / (1 + Math.exp(-v[t]!));
  else if (kind === 'SOFTMAX' || kind === 'SOFTMAX_ZERO') {
    const zero = kind === 'SOFTMAX_ZERO';
    let m = -Infinity;
    for (let t = 0; t < v.length; t++) if (!(zero && v[t] === 0)) m = Math.max(m, v[t]!);
    let s = 0;
    for (let t = 0; t < v.length; t++) {
      v[t] = zero && v[t] === 0 ? 0 : Math.exp(v[t]! - m);
      s += v[t]!;
    }
    for (let t = 0; t < v.length; t++) v[t] = v[t]! / s;
  }
}
