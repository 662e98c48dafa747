// ONNX's ai.onnx.ml tree ensembles as scikit-learn exporters write them (TreeEnsembleRegressor and
// TreeEnsembleClassifier, ml opset 3) and in ml opset 5's TreeEnsemble, imported as raf.op.tree_ensemble
// (runtime/src/graph/onnx/forms-ml.ts), on random forests built here, against onnxruntime-node running the same bytes.

import { describe, expect, it } from 'vitest';
import { tensor } from '../../runtime/src/index.ts';
import { loadOnnx } from '../../runtime/src/graph/onnx/session.ts';
import { buildModel, type AttrValue, type ModelSpec } from '../support/onnx-proto.ts';
import { runOnnxModel, toFloat64 } from '../support/onnx-oracle.ts';
import { assertAllClose } from '../support/assert.ts';
import { lcgValues } from '../support/reference.ts';

const ML = 'ai.onnx.ml';
const [F, N] = [4, 12];

interface Node {
  tree: number;
  id: number;
  mode: string;
  feature: number;
  value: number;
  yes: number;
  no: number;
  missing: number;
}

/** Full binary trees of the given depth over F features; leaves carry one or two (target, weight) entries. */
function forest(trees: number, depth: number, targets: number, seed: number) {
  const r = lcgValues(4096, seed);
  let k = 0;
  const next = () => r[k++ % r.length]!;
  const nodes: Node[] = [];
  const entries: { tree: number; node: number; id: number; weight: number }[] = [];
  const modes = ['BRANCH_LEQ', 'BRANCH_LT', 'BRANCH_GTE', 'BRANCH_GT'];
  for (let t = 0; t < trees; t++) {
    const internal = 2 ** depth - 1;
    for (let id = 0; id < 2 ** (depth + 1) - 1; id++) {
      if (id < internal) {
        nodes.push({
          tree: t,
          id,
          mode: modes[Math.floor((next() + 1) * 2)]!,
          feature: Math.floor((next() + 1) * (F / 2)),
          value: Math.fround(next() * 0.6),
          yes: 2 * id + 1,
          no: 2 * id + 2,
          missing: next() > 0 ? 1 : 0,
        });
      } else {
        nodes.push({ tree: t, id, mode: 'LEAF', feature: 0, value: 0, yes: 0, no: 0, missing: 0 });
        const first = Math.floor((next() + 1) * (targets / 2));
        entries.push({ tree: t, node: id, id: first, weight: Math.fround(next() * 2) });
        if (next() > 0.3) entries.push({ tree: t, node: id, id: (first + 1) % targets, weight: Math.fround(next()) });
      }
    }
  }
  return { nodes, entries };
}

function keyedAttrs(f: ReturnType<typeof forest>, prefix: 'target' | 'class'): Record<string, AttrValue> {
  return {
    nodes_treeids: f.nodes.map((n) => n.tree),
    nodes_nodeids: f.nodes.map((n) => n.id),
    nodes_modes: f.nodes.map((n) => n.mode),
    nodes_featureids: f.nodes.map((n) => n.feature),
    nodes_values: { floats: f.nodes.map((n) => n.value) },
    nodes_truenodeids: f.nodes.map((n) => n.yes),
    nodes_falsenodeids: f.nodes.map((n) => n.no),
    nodes_missing_value_tracks_true: f.nodes.map((n) => n.missing),
    [`${prefix}_treeids`]: f.entries.map((e) => e.tree),
    [`${prefix}_nodeids`]: f.entries.map((e) => e.node),
    [`${prefix}_ids`]: f.entries.map((e) => e.id),
    [`${prefix}_weights`]: { floats: f.entries.map((e) => e.weight) },
  };
}

/** Rows with a NaN here and there, so that missing_value_tracks_true is exercised. */
const X = lcgValues(N * F, 77).map((v, i) => (i % 11 === 3 ? NaN : Math.fround(v)));

function model(op: string, attrs: Record<string, AttrValue>, outputs: string[], mlOpset = 3): Uint8Array {
  const spec: ModelSpec = {
    nodes: [{ op, domain: ML, inputs: ['X'], outputs, attrs }],
    inputs: [{ name: 'X', dtype: 'float32', shape: [N, F] }],
    outputs: outputs.map((name) => ({ name })),
    opset: [
      { domain: '', version: 17 },
      { domain: ML, version: mlOpset },
    ],
  };
  return buildModel(spec);
}

async function both(bytes: Uint8Array, outputs: string[]) {
  const got = loadOnnx(bytes).run({ X: tensor(X, { shape: [N, F] }) });
  const want = await runOnnxModel(bytes, { X: { dtype: 'float32', shape: [N, F], data: Float32Array.from(X) } });
  return outputs.map((name, i) => ({ got: got[name]!, want: want[i]! }));
}

describe('ai.onnx.ml tree ensembles against onnxruntime-node', () => {
  const f = forest(3, 3, 2, 5);
  it.each([
    ['SUM', 'NONE', [0.25, -0.5]],
    ['AVERAGE', 'LOGISTIC', []],
    ['MIN', 'NONE', []],
    ['MAX', 'NONE', [1, 2]],
  ] as const)('TreeEnsembleRegressor, %s then %s', async (aggregate, post, base) => {
    const attrs: Record<string, AttrValue> = {
      ...keyedAttrs(f, 'target'),
      n_targets: 2,
      aggregate_function: aggregate,
      post_transform: post,
      ...(base.length ? { base_values: { floats: [...base] } } : {}),
    };
    const [y] = await both(model('TreeEnsembleRegressor', attrs, ['Y']), ['Y']);
    expect(y!.got.shape).toEqual([N, 2]);
    assertAllClose(y!.got.dataSync(), toFloat64(y!.want), { atol: 1e-5, rtol: 1e-5 }, `Regressor ${aggregate}`);
  });

  it.each(['NONE', 'SOFTMAX', 'LOGISTIC'])('TreeEnsembleClassifier, three classes, %s', async (post) => {
    const g = forest(4, 2, 3, 9);
    const attrs: Record<string, AttrValue> = {
      ...keyedAttrs(g, 'class'),
      classlabels_int64s: [10, 20, 30],
      post_transform: post,
    };
    const [label, scores] = await both(model('TreeEnsembleClassifier', attrs, ['Y', 'Z']), ['Y', 'Z']);
    expect(label!.got.dtype).toBe('int64');
    assertAllClose(scores!.got.dataSync(), toFloat64(scores!.want), { atol: 1e-5, rtol: 1e-5 }, `scores ${post}`);
    expect(Array.from(label!.got.dataSync())).toEqual(Array.from(toFloat64(label!.want)));
  });

  it('TreeEnsemble (ml opset 5): the same forest in arrays, with a set-membership node', async () => {
    // One tree: node 0 x[1] in {1, -1} (integers: onnxruntime's sets hold int32; never true on these floats, so the
    // set tests NaN tracking and the false path), node 1 x[0] <= 0.1, leaves 0..2; one more tree, a single leaf.
    const attrs: Record<string, AttrValue> = {
      nodes_featureids: [1, 0, 0],
      nodes_modes: { tensor: { dtype: 'uint8', shape: [3], data: [6, 0, 0] } },
      nodes_splits: { tensor: { dtype: 'float32', shape: [3], data: [0, 0.1, 0] } },
      nodes_truenodeids: [0, 1, 3],
      nodes_trueleafs: [1, 1, 1],
      nodes_falsenodeids: [1, 2, 3],
      nodes_falseleafs: [0, 1, 1],
      nodes_missing_value_tracks_true: [1, 0, 0],
      membership_values: { tensor: { dtype: 'float32', shape: [3], data: [1, -1, NaN] } },
      tree_roots: [0, 2],
      leaf_targetids: [0, 1, 0, 1],
      leaf_weights: { tensor: { dtype: 'float32', shape: [4], data: [1.5, -2, 0.75, 0.5] } },
      n_targets: 2,
      aggregate_function: 1,
    };
    const [y] = await both(model('TreeEnsemble', attrs, ['Y'], 5), ['Y']);
    assertAllClose(y!.got.dataSync(), toFloat64(y!.want), { atol: 1e-6, rtol: 1e-6 }, 'TreeEnsemble');
  });

  it('refuses what it does not import, naming it', () => {
    const attrs = { ...keyedAttrs(f, 'target'), post_transform: 'PROBIT' };
    const run = (bytes: Uint8Array) => () => loadOnnx(bytes).run({ X: tensor(X, { shape: [N, F] }) });
    expect(run(model('TreeEnsembleRegressor', attrs, ['Y']))).toThrow(/TreeEnsembleRegressor's post_transform PROBIT/);
    const g = forest(2, 2, 1, 3);
    const binary = { ...keyedAttrs(g, 'class'), classlabels_int64s: [0, 1] };
    expect(run(model('TreeEnsembleClassifier', binary, ['Y', 'Z']))).toThrow(/weights for one class only/);
  });
});
