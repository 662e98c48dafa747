// ZipMap, the end of skl2onnx's classifiers by default (runtime/src/graph/onnx/forms-ml.ts, zipmap.ts): the
// probabilities as one map per row, label → probability, from OnnxSession.runValues. onnxruntime-node cannot return a
// sequence of maps, so the maps are compared with its probabilities tensor from the same model without the ZipMap.

import { describe, expect, it } from 'vitest';
import * as ort from 'onnxruntime-node';
import { tensor } from '../../runtime/src/index.ts';
import { loadOnnx, OnnxMaps, stringsOf } from '../../runtime/src/onnx.ts';
import { buildModel, type NodeSpec } from '../support/onnx-proto.ts';

const ML = 'ai.onnx.ml';
const opset = [
  { domain: '', version: 17 },
  { domain: ML, version: 3 },
];
const STRING = 8;

async function probabilities(classifier: NodeSpec, x: Float32Array, shape: number[]): Promise<number[][]> {
  const model = buildModel({
    nodes: [classifier],
    inputs: [{ name: 'x', dtype: 'float32', shape }],
    outputs: [{ name: 'label' }, { name: 'prob', dtype: 'float32' }],
    opset,
  });
  const session = await ort.InferenceSession.create(model);
  const out = await session.run({ x: new ort.Tensor('float32', x, shape) });
  const flat = Array.from(out.prob!.data as Float32Array);
  const width = out.prob!.dims[1]!;
  return Array.from({ length: shape[0]! }, (_, r) => flat.slice(r * width, (r + 1) * width));
}

describe('ZipMap', () => {
  it('int64 labels after a LinearClassifier (softmax), and string labels after a tree ensemble', async () => {
    const linear: NodeSpec = {
      op: 'LinearClassifier',
      domain: ML,
      inputs: ['x'],
      outputs: ['label', 'prob'],
      attrs: {
        coefficients: { floats: [1, -1, 0.5, 2, 0, -1] },
        intercepts: { floats: [0.1, -0.2, 0] },
        classlabels_ints: [3, 5, 9],
        post_transform: 'SOFTMAX',
      },
    };
    const trees: NodeSpec = {
      op: 'TreeEnsembleClassifier',
      domain: ML,
      inputs: ['x'],
      outputs: ['label', 'prob'],
      attrs: {
        nodes_treeids: [0, 0, 0],
        nodes_nodeids: [0, 1, 2],
        nodes_featureids: [0, 0, 0],
        nodes_values: { floats: [0.25, 0, 0] },
        nodes_modes: ['BRANCH_LEQ', 'LEAF', 'LEAF'],
        nodes_truenodeids: [1, 0, 0],
        nodes_falsenodeids: [2, 0, 0],
        class_treeids: [0, 0, 0, 0],
        class_nodeids: [1, 1, 2, 2],
        class_ids: [0, 1, 0, 1],
        class_weights: { floats: [0.8, 0.2, 0.3, 0.7] },
        classlabels_strings: ['no', 'yes'],
      },
    };
    const x = Float32Array.from([1, 2, -1, 0.5, 0.2, -3]);
    for (const [classifier, labels] of [
      [linear, [3, 5, 9]],
      [trees, ['no', 'yes']],
    ] as const) {
      const strings = typeof labels[0] === 'string';
      const model = buildModel({
        nodes: [
          classifier,
          {
            op: 'ZipMap',
            domain: ML,
            inputs: ['prob'],
            outputs: ['maps'],
            attrs: strings
              ? { classlabels_strings: [...labels] as string[] }
              : { classlabels_int64s: [...labels] as number[] },
          },
        ],
        inputs: [{ name: 'x', dtype: 'float32', shape: [3, 2] }],
        outputs: [strings ? { name: 'label', elemType: STRING } : { name: 'label', dtype: 'int64' }, { name: 'maps' }],
        opset,
      });
      const session = loadOnnx(model);
      expect(() => session.run({ x: tensor(x, { shape: [3, 2] }) })).toThrow(/runValues/);
      const out = session.runValues({ x: tensor(x, { shape: [3, 2] }) });
      const maps = out.maps;
      expect(maps).toBeInstanceOf(OnnxMaps);
      const want = await probabilities(classifier, x, [3, 2]);
      (maps as OnnxMaps).maps.forEach((m, r) => {
        expect([...m.keys()]).toEqual([...labels]);
        [...m.values()].forEach((v, k) => expect(v).toBeCloseTo(want[r]![k]!, 6));
      });
      if (strings) expect(stringsOf(out.label as never).every((l) => l === 'no' || l === 'yes')).toBe(true);
    }
  });

  it('refuses a ZipMap whose maps another node reads', () => {
    const model = buildModel({
      nodes: [
        { op: 'ZipMap', domain: ML, inputs: ['x'], outputs: ['maps'], attrs: { classlabels_int64s: [0, 1] } },
        { op: 'Identity', inputs: ['maps'], outputs: ['y'] },
      ],
      inputs: [{ name: 'x', dtype: 'float32', shape: [2, 2] }],
      outputs: [{ name: 'y' }],
      opset,
    });
    expect(() => loadOnnx(model).runValues({ x: tensor([1, 2, 3, 4], { shape: [2, 2] }) })).toThrow(
      /ZipMap's output 'maps' is read inside the model/,
    );
  });
});
