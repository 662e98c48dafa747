// Importer forms of ONNX's `ai.onnx.ml` domain (scikit-learn style pipelines, as skl2onnx writes them), keyed
// `ai.onnx.ml.OpType` in CONTRIB_FORMS: Binarizer and ArrayFeatureExtractor composed from raf-op ops, and the tree
// ensembles (TreeEnsembleRegressor, TreeEnsembleClassifier with int64 or string labels, ml opset 5's TreeEnsemble) normalized
// into raf.op.tree_ensemble; the scalers, encoders, linear models and SVMRegressor are in forms-ml-linear.ts. Other
// ops of the domain: ZipMap's maps are a model output (zipmap.ts); DictVectorizer's map input is refused by name.

import { isFloat } from '../../dtype.ts';
import { cast } from '../../generated/api/cast.ts';
import { greater } from '../../generated/api/greater.ts';
import { reshape } from '../../generated/api/reshape.ts';
import { take } from '../../generated/api/take.ts';
import { tensor, type Tensor } from '../../tensor.ts';
import { argmax } from '../../generated/api/argmax.ts';
import { call } from '../../dispatch.ts';
import type { ImportContext } from './forms.ts';
import { ML_LINEAR_FORMS } from './forms-ml-linear.ts';
import { ML_STRING_FORMS } from './forms-strings.ts';
import { markStrings, stringTensor } from '../../strings.ts';
import { zipMapOutput } from './zipmap.ts';

type Form = (ctx: ImportContext) => Tensor[] | null;

function need(ctx: ImportContext, i: number, what: string): Tensor {
  const t = ctx.input(i);
  if (!t) throw new Error(`input ${i} (${what}) is missing`);
  return t;
}

/** Binarizer: 1 where x > threshold, else 0, in x's dtype. */
const binarizer: Form = (ctx) => {
  const x = need(ctx, 0, 'X');
  const threshold = (ctx.attr('threshold') as number | undefined) ?? 0;
  // An integer x is compared with the (float) threshold in float64, as NumPy compares them.
  const xs = isFloat(x.dtype) ? x : cast(x, 'float64');
  const above = greater(xs, tensor([threshold], { dtype: xs.dtype, shape: [] }));
  return [cast(above, x.dtype)];
};

/**
 * ArrayFeatureExtractor: the elements of x's last axis at the given indices (flattened), as onnxruntime selects them:
 * [...x.shape[:-1], count]; a 1-D x gives one row, [1, count].
 */
const arrayFeatureExtractor: Form = (ctx) => {
  const x = need(ctx, 0, 'X');
  const indices = need(ctx, 1, 'Y');
  const count = indices.shape.reduce((a, b) => a * b, 1);
  const flat = indices.shape.length === 1 ? indices : reshape(indices, [count]);
  const picked = take(x, flat, -1);
  return [reshape(picked, x.shape.length === 1 ? [1, count] : [...x.shape.slice(0, -1), count])];
};

// ---- tree ensembles: TreeEnsemble (ml opset 5), TreeEnsembleRegressor and TreeEnsembleClassifier (1 and 3) ----

/** The values of a list attribute: ints, floats, a tensor (`*_as_tensor`, nodes_modes in opset 5), or none. */
function list(ctx: ImportContext, ...names: string[]): number[] | undefined {
  for (const name of names) {
    const v = ctx.attr(name);
    if (v === undefined) continue;
    if (Array.isArray(v)) return v as number[];
    if (typeof v === 'number') return [v];
    if (typeof v === 'object' && v !== null && 'values' in v) return [...(v as { values: number[] }).values];
    throw new Error(`attribute ${name} is not a list of numbers`);
  }
  return undefined;
}

function strings(ctx: ImportContext, name: string): string[] | undefined {
  const v = ctx.attr(name);
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new Error(`attribute ${name} is not a list of strings`);
  return v.length ? v.split('\u0000') : [];
}

function required(ctx: ImportContext, op: string, ...names: string[]): number[] {
  const v = list(ctx, ...names);
  if (!v) throw new Error(`${op} needs attribute ${names[0]}`);
  return v;
}

/** The normalized arrays raf.op.tree_ensemble takes (specs/ml/tree_ensemble.yaml). */
interface Trees {
  feature_ids: number[];
  modes: number[];
  splits: number[];
  true_ids: number[];
  false_ids: number[];
  missing_tracks_true: number[];
  membership_values: number[];
  roots: number[];
  leaf_starts: number[];
  targets: number[];
  weights: number[];
}

const MODES = ['BRANCH_LEQ', 'BRANCH_LT', 'BRANCH_GTE', 'BRANCH_GT', 'BRANCH_EQ', 'BRANCH_NEQ'];

/**
 * The trees of TreeEnsembleRegressor and TreeEnsembleClassifier: nodes named by (tree id, node id) with a mode each
 * (LEAF or a branch); a leaf's entries (target or class, weight) come from the `prefix`_treeids, _nodeids, _ids and
 * _weights attributes, in their order. Each tree's root is its node no other node points to.
 */
function keyedTrees(ctx: ImportContext, op: string, prefix: 'target' | 'class'): Trees {
  const treeIds = required(ctx, op, 'nodes_treeids');
  const nodeIds = required(ctx, op, 'nodes_nodeids');
  const modes = strings(ctx, 'nodes_modes');
  if (!modes) throw new Error(`${op} needs attribute nodes_modes`);
  const features = required(ctx, op, 'nodes_featureids');
  const values = list(ctx, 'nodes_values', 'nodes_values_as_tensor') ?? [];
  const yes = required(ctx, op, 'nodes_truenodeids');
  const no = required(ctx, op, 'nodes_falsenodeids');
  const missing = list(ctx, 'nodes_missing_value_tracks_true') ?? [];
  const n = treeIds.length;
  for (const [name, l] of [
    ['nodes_nodeids', nodeIds],
    ['nodes_modes', modes],
    ['nodes_featureids', features],
    ['nodes_truenodeids', yes],
    ['nodes_falsenodeids', no],
  ] as const)
    if (l.length !== n) throw new Error(`${op}'s ${name} has ${l.length} entries; nodes_treeids has ${n}`);
  const key = (t: number, k: number) => `${t}/${k}`;
  const internal = new Map<string, number>();
  const leaves = new Map<string, number>();
  modes.forEach((m, i) => {
    const k = key(treeIds[i]!, nodeIds[i]!);
    if (m === 'LEAF') leaves.set(k, leaves.size);
    else if (MODES.includes(m)) internal.set(k, internal.size);
    else throw new Error(`${op}'s node mode '${m}' is not imported (${[...MODES, 'LEAF'].join(', ')} are)`);
  });
  const ref = (t: number, k: number): number => {
    const i = internal.get(key(t, k));
    if (i !== undefined) return i;
    const l = leaves.get(key(t, k));
    if (l === undefined) throw new Error(`${op}: tree ${t} has no node ${k}`);
    return -1 - l;
  };
  const trees: Trees = {
    feature_ids: [],
    modes: [],
    splits: [],
    true_ids: [],
    false_ids: [],
    missing_tracks_true: [],
    membership_values: [],
    roots: [],
    leaf_starts: [],
    targets: [],
    weights: [],
  };
  const children = new Set<string>();
  modes.forEach((m, i) => {
    if (m === 'LEAF') return;
    const t = treeIds[i]!;
    trees.feature_ids.push(features[i]!);
    trees.modes.push(MODES.indexOf(m));
    trees.splits.push(values[i] ?? 0);
    trees.true_ids.push(ref(t, yes[i]!));
    trees.false_ids.push(ref(t, no[i]!));
    trees.missing_tracks_true.push(missing[i] ?? 0);
    children.add(key(t, yes[i]!)).add(key(t, no[i]!));
  });
  const seen = new Set<number>();
  treeIds.forEach((t, i) => {
    if (seen.has(t) || children.has(key(t, nodeIds[i]!))) return;
    seen.add(t);
    trees.roots.push(ref(t, nodeIds[i]!));
  });
  // Leaf entries, grouped by leaf in the attributes' order.
  const eTrees = required(ctx, op, `${prefix}_treeids`);
  const eNodes = required(ctx, op, `${prefix}_nodeids`);
  const eIds = required(ctx, op, `${prefix}_ids`);
  const eWeights = required(ctx, op, `${prefix}_weights`, `${prefix}_weights_as_tensor`);
  const byLeaf: [number, number][][] = Array.from({ length: leaves.size }, () => []);
  eTrees.forEach((t, i) => {
    const l = leaves.get(key(t, eNodes[i]!));
    if (l === undefined)
      throw new Error(`${op}: ${prefix} entry ${i} names tree ${t} node ${eNodes[i]}, which is not a leaf`);
    byLeaf[l]!.push([eIds[i]!, eWeights[i]!]);
  });
  for (const entries of byLeaf) {
    trees.leaf_starts.push(trees.targets.length);
    for (const [id, w] of entries) {
      trees.targets.push(id);
      trees.weights.push(w);
    }
  }
  return trees;
}

/** x as the float dtype the trees compare in: integers become float32 (as onnxruntime reads them). */
function treeInput(ctx: ImportContext, op: string): Tensor {
  const x = need(ctx, 0, 'X');
  const x2 = x.shape.length === 1 ? reshape(x, [1, x.shape[0]!]) : x;
  if (x2.shape.length !== 2) throw new Error(`${op} takes X of rank 1 or 2, got rank ${x.shape.length}`);
  return x2.dtype === 'float32' || x2.dtype === 'float64' ? x2 : cast(x2, 'float32');
}

function postTransform(op: string, v: string | undefined): string {
  const p = v ?? 'NONE';
  if (p === 'PROBIT') throw new Error(`${op}'s post_transform PROBIT is not imported`);
  return p;
}

const treeEnsembleRegressor: Form = (ctx) => {
  const op = 'TreeEnsembleRegressor';
  const trees = keyedTrees(ctx, op, 'target');
  const n = (ctx.attr('n_targets') as number | undefined) ?? Math.max(0, ...trees.targets) + 1;
  return [
    treeEnsemble(
      treeInput(ctx, op),
      trees,
      n,
      (ctx.attr('aggregate_function') as string | undefined) ?? 'SUM',
      postTransform(op, ctx.attr('post_transform') as string | undefined),
      list(ctx, 'base_values', 'base_values_as_tensor') ?? [],
    ),
  ];
};

const treeEnsembleClassifier: Form = (ctx) => {
  const op = 'TreeEnsembleClassifier';
  // String labels are their ids in raf-op's string table (strings.ts); the label output is marked as strings.
  const names = strings(ctx, 'classlabels_strings');
  const table = names?.length ? stringTensor(names) : undefined;
  const labels = table ? Array.from(table.dataSync() as ArrayLike<number>) : list(ctx, 'classlabels_int64s');
  if (!labels?.length) throw new Error(`${op} needs classlabels_int64s or classlabels_strings`);
  const trees = keyedTrees(ctx, op, 'class');
  if (labels.length === 2 && new Set(trees.targets).size < 2)
    throw new Error(
      `${op} with two labels and weights for one class only (the binary form onnxruntime expands to two scores) is not imported`,
    );
  const scores = treeEnsemble(
    treeInput(ctx, op),
    trees,
    labels.length,
    'SUM',
    postTransform(op, ctx.attr('post_transform') as string | undefined),
    list(ctx, 'base_values', 'base_values_as_tensor') ?? [],
  );
  const best = argmax(scores, 1, false, false);
  const label = take(table ?? tensor(labels, { dtype: 'int64' }), best, 0);
  return [table ? markStrings(label) : label, scores];
};

/** TreeEnsemble (ml opset 5): nodes and leaves in arrays, children flagged as leaves, enums as integers. */
const treeEnsembleV5: Form = (ctx) => {
  const op = 'TreeEnsemble';
  const features = required(ctx, op, 'nodes_featureids');
  const modes = required(ctx, op, 'nodes_modes');
  const yes = required(ctx, op, 'nodes_truenodeids');
  const no = required(ctx, op, 'nodes_falsenodeids');
  const yesLeaf = required(ctx, op, 'nodes_trueleafs');
  const noLeaf = required(ctx, op, 'nodes_falseleafs');
  const child = (c: number, leaf: number) => (leaf ? -1 - c : c);
  const roots = required(ctx, op, 'tree_roots').map((r) =>
    // A tree that is one leaf: a root whose two children are the same leaf.
    yesLeaf[r] && noLeaf[r] && yes[r] === no[r] ? -1 - yes[r]! : r,
  );
  const targets = required(ctx, op, 'leaf_targetids');
  const aggregates = ['AVERAGE', 'SUM', 'MIN', 'MAX'];
  const posts = ['NONE', 'SOFTMAX', 'LOGISTIC', 'SOFTMAX_ZERO', 'PROBIT'];
  const trees: Trees = {
    feature_ids: features,
    modes,
    splits: required(ctx, op, 'nodes_splits'),
    true_ids: yes.map((c, k) => child(c, yesLeaf[k]!)),
    false_ids: no.map((c, k) => child(c, noLeaf[k]!)),
    missing_tracks_true: list(ctx, 'nodes_missing_value_tracks_true') ?? [],
    membership_values: list(ctx, 'membership_values') ?? [],
    roots,
    leaf_starts: targets.map((_, i) => i),
    targets,
    weights: required(ctx, op, 'leaf_weights'),
  };
  const n = (ctx.attr('n_targets') as number | undefined) ?? Math.max(0, ...targets) + 1;
  const agg = aggregates[(ctx.attr('aggregate_function') as number | undefined) ?? 1];
  const post = postTransform(op, posts[(ctx.attr('post_transform') as number | undefined) ?? 0]);
  if (!agg) throw new Error(`${op}'s aggregate_function ${String(ctx.attr('aggregate_function'))} is not 0..3`);
  return [treeEnsemble(treeInput(ctx, op), trees, n, agg, post, [], 'LIMIT')];
};

/**
 * raf.op.tree_ensemble over the normalized trees. TreeEnsembleRegressor and TreeEnsembleClassifier give a target no
 * leaf reaches 0, as onnxruntime does (`unreached` ZERO); TreeEnsemble follows ONNX's reference (LIMIT).
 */
function treeEnsemble(
  x: Tensor,
  t: Trees,
  n: number,
  aggregate: string,
  post: string,
  base: number[],
  unreached: 'ZERO' | 'LIMIT' = 'ZERO',
): Tensor {
  return call('tree_ensemble', [x], {
    ...t,
    n_targets: n,
    aggregate,
    post_transform: post,
    base_values: base,
    unreached,
  }) as Tensor;
}

/**
 * ZipMap: each row of X [N, C] as a map from the class labels (classlabels_int64s or classlabels_strings) to its values.
 * The graph computes X; the node's output must be a model output, which OnnxSession.runValues gives as OnnxMaps.
 */
const zipMap: Form = (ctx) => {
  const x = need(ctx, 0, 'X');
  const names = strings(ctx, 'classlabels_strings');
  const labels: (number | string)[] = names?.length ? names : (list(ctx, 'classlabels_int64s') ?? []);
  if (!labels.length) throw new Error('ZipMap needs classlabels_int64s or classlabels_strings');
  if (x.shape.length !== 2 || x.shape[1] !== labels.length)
    throw new Error(
      `ZipMap takes X of shape [N, ${labels.length}] (one column per label), got [${x.shape.join(', ')}]`,
    );
  zipMapOutput(ctx.node.outputs[0]!, labels);
  return [x.dtype === 'float32' ? x : cast(x, 'float32')];
};

export const ML_FORMS: Readonly<Record<string, Form>> = {
  ...ML_LINEAR_FORMS,
  ...ML_STRING_FORMS,
  'ai.onnx.ml.TreeEnsembleRegressor': treeEnsembleRegressor,
  'ai.onnx.ml.TreeEnsembleClassifier': treeEnsembleClassifier,
  'ai.onnx.ml.TreeEnsemble': treeEnsembleV5,
  'ai.onnx.ml.Binarizer': binarizer,
  'ai.onnx.ml.ArrayFeatureExtractor': arrayFeatureExtractor,
  'ai.onnx.ml.ZipMap': zipMap,
};
