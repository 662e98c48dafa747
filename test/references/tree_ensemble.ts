// Hand-written float64 reference of raf.op.tree_ensemble (specs/ml/tree_ensemble.yaml, `tests.reference: true`):
// the trees built as nested objects from the arrays, then each row evaluated by recursion (the kernel walks the
// arrays in a loop), aggregated and transformed as the spec says.

import type { Tensor } from '../../runtime/src/index.ts';

type Tree = { leaf: number } | { node: number; yes: Tree; no: Tree };

export function reference(
  inputs: Readonly<Record<string, Tensor | null>>,
  args: Readonly<Record<string, unknown>>,
): number[] {
  const a = args as Record<string, number[]> & { n_targets: number; aggregate: string; post_transform: string };
  const x = inputs.x!;
  const [N, F] = [x.shape[0]!, x.shape[1]!];
  const xs = Array.from(x.dataSync() as ArrayLike<number>);
  const build = (c: number): Tree =>
    c < 0 ? { leaf: -1 - c } : { node: c, yes: build(a.true_ids[c]!), no: build(a.false_ids[c]!) };
  const trees = a.roots.map(build);
  const members: number[][] = [];
  let cur: number[] = [];
  for (const v of a.membership_values)
    if (Number.isNaN(v)) (members.push(cur), (cur = []));
    else cur.push(v);
  const setOf = (k: number) => members[a.modes.slice(0, k).filter((m) => m === 6).length]!;
  const test = (k: number, v: number): boolean => {
    if (Number.isNaN(v)) return a.missing_tracks_true[k] === 1;
    const s = a.splits[k]!;
    return [v <= s, v < s, v >= s, v > s, v === s, v !== s, a.modes[k] === 6 && setOf(k).includes(v)][a.modes[k]!]!;
  };
  const leafOf = (t: Tree, row: number[]): number =>
    'leaf' in t ? t.leaf : leafOf(test(t.node, row[a.feature_ids[t.node]!]!) ? t.yes : t.no, row);
  const out: number[] = [];
  for (let r = 0; r < N; r++) {
    const row = xs.slice(r * F, r * F + F);
    const lists: number[][] = Array.from({ length: a.n_targets }, () => []);
    for (const t of trees) {
      const l = leafOf(t, row);
      const end = l + 1 < a.leaf_starts.length ? a.leaf_starts[l + 1]! : a.targets.length;
      for (let e = a.leaf_starts[l]!; e < end; e++) lists[a.targets[e]!]!.push(a.weights[e]!);
    }
    const big = x.dtype === 'float32' ? 3.4028234663852886e38 : Number.MAX_VALUE;
    let v = lists.map((w, t) => {
      if (!w.length && args.unreached === 'ZERO') return 0;
      const sum = w.reduce((p, q) => p + q, 0);
      const agg =
        a.aggregate === 'SUM'
          ? sum
          : a.aggregate === 'AVERAGE'
            ? sum / trees.length
            : a.aggregate === 'MIN'
              ? w.length
                ? Math.min(...w)
                : big
              : w.length
                ? Math.max(...w)
                : -big;
      return agg + (a.base_values.length ? a.base_values[t]! : 0);
    });
    if (a.post_transform === 'LOGISTIC') v = v.map((q) => 1 / (1 + Math.exp(-q)));
    if (a.post_transform === 'SOFTMAX' || a.post_transform === 'SOFTMAX_ZERO') {
      const keep = v.map((q) => !(a.post_transform === 'SOFTMAX_ZERO' && q === 0));
      const e = v.map((q, t) => (keep[t] ? Math.exp(q) : 0));
      const s = e.reduce((p, q) => p + q, 0);
      v = e.map((q) => q / s);
    }
    out.push(...v);
  }
  return out;
}
