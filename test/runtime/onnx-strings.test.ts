// String tensors in ONNX models (runtime/src/strings.ts, graph/onnx/forms-strings.ts): text pipelines as skl2onnx and
// hand-built models write them, run by raf-op's OnnxSession and by onnxruntime-node on the same bytes and the same
// strings, every output compared; the refusals a user meets are checked too.

import { describe, expect, it } from 'vitest';
import * as ort from 'onnxruntime-node';
import { isStringTensor, loadOnnx, stringsOf, stringTensor, tensor, type Tensor } from '../../runtime/src/index.ts';
import { fromOnnx } from '../../runtime/src/graph/frontends/from-onnx.ts';
import { buildModel, type ModelSpec } from '../support/onnx-proto.ts';

const STRING = 8;
const ML = 'ai.onnx.ml';
const opset = [
  { domain: '', version: 20 },
  { domain: ML, version: 3 },
];

/** Runs the model in onnxruntime-node; string outputs come back as string arrays. */
async function theirs(model: Uint8Array, feeds: Record<string, string[] | Tensor>, shapes: Record<string, number[]>) {
  const session = await ort.InferenceSession.create(model);
  const ortFeeds: Record<string, ort.Tensor> = {};
  for (const [n, v] of Object.entries(feeds))
    ortFeeds[n] = Array.isArray(v)
      ? new ort.Tensor('string', v, shapes[n])
      : new ort.Tensor('float32', Float32Array.from(v.dataSync() as ArrayLike<number>), [...v.shape]);
  const out = await session.run(ortFeeds);
  return Object.fromEntries(
    session.outputNames.map((n) => [
      n,
      { data: Array.from(out[n]!.data as ArrayLike<unknown>), dims: [...out[n]!.dims] },
    ]),
  );
}

/** Runs the model in raf-op and compares every output with onnxruntime's, strings as strings. */
async function agree(spec: ModelSpec, feeds: Record<string, string[] | Tensor>, shapes: Record<string, number[]>) {
  const model = buildModel({ ...spec, opset });
  const want = await theirs(model, feeds, shapes);
  const session = loadOnnx(model);
  const got = session.run(
    Object.fromEntries(Object.entries(feeds).map(([n, v]) => [n, Array.isArray(v) ? stringTensor(v, shapes[n]) : v])),
  );
  for (const [n, w] of Object.entries(want)) {
    const t = got[n]!;
    expect([...t.shape], n).toEqual(w.dims);
    if (typeof w.data[0] === 'string' || (isStringTensor(t) && !w.data.length)) expect(stringsOf(t), n).toEqual(w.data);
    else expect(Array.from(t.dataSync() as ArrayLike<number>, Number), n).toEqual(w.data.map(Number));
  }
  return got;
}

describe('string tensors in ONNX models, against onnxruntime-node', () => {
  it('stringTensor and stringsOf round-trip any text, and equal strings share one id', () => {
    const words = ['', 'a', 'ä€😀', 'a', ' spaced  '];
    const t = stringTensor(words, [5]);
    expect(isStringTensor(t)).toBe(true);
    expect(stringsOf(t)).toEqual(words);
    const ids = Array.from(t.dataSync() as ArrayLike<number>);
    expect(ids[1]).toBe(ids[3]);
    expect(ids[0]).not.toBe(ids[1]);
    expect(isStringTensor(tensor([1, 2], { dtype: 'int32' }))).toBe(false);
    expect(() => stringsOf(tensor([1], { dtype: 'int32' }))).toThrow(/holds no strings/);
  });

  it('a text pipeline: StringNormalizer, then LabelEncoder to int64 and back to strings', async () => {
    const spec: ModelSpec = {
      nodes: [
        {
          op: 'StringNormalizer',
          inputs: ['x'],
          outputs: ['norm'],
          attrs: { case_change_action: 'LOWER', stopwords: ['THE', 'a'], is_case_sensitive: 0, locale: 'C' },
        },
        {
          op: 'LabelEncoder',
          domain: ML,
          inputs: ['norm'],
          outputs: ['id'],
          attrs: { keys_strings: ['cat', 'dog', 'bird'], values_int64s: [3, 7, 11], default_int64: -1 },
        },
        {
          op: 'LabelEncoder',
          domain: ML,
          inputs: ['id'],
          outputs: ['back'],
          attrs: { keys_int64s: [3, 7, 11], values_strings: ['Katze', 'Hund', 'Vogel'], default_string: '?' },
        },
      ],
      inputs: [{ name: 'x', elemType: STRING, shape: [6] }],
      outputs: [
        { name: 'norm', elemType: STRING },
        { name: 'id', dtype: 'int64' },
        { name: 'back', elemType: STRING },
      ],
    };
    const got = await agree(spec, { x: ['The', 'Cat', 'a', 'DOG', 'fish', 'bird'] }, { x: [6] });
    expect(stringsOf(got.back!)).toEqual(['Katze', 'Hund', '?', 'Vogel']);
  });

  it('string class labels computed at run time from float features (LinearClassifier)', async () => {
    const spec: ModelSpec = {
      nodes: [
        {
          op: 'LinearClassifier',
          domain: ML,
          inputs: ['x'],
          outputs: ['label', 'scores'],
          attrs: {
            coefficients: { floats: [1, -1, 0.5, 2, 0, -1, -0.5, 1, 1] },
            intercepts: { floats: [0.1, -0.2, 0] },
            classlabels_strings: ['spam', 'ham', 'eggs'],
          },
        },
      ],
      inputs: [{ name: 'x', dtype: 'float32', shape: [4, 3] }],
      outputs: [{ name: 'label', elemType: STRING }, { name: 'scores' }],
    };
    const x = tensor([1, 2, 3, -1, 0, 2, 0.5, 0.5, -3, 2, -2, 1], { dtype: 'float32', shape: [4, 3] });
    const got = await agree(spec, { x }, {});
    expect(new Set(stringsOf(got.label!)).size).toBeGreaterThan(1);
  });

  it('a tree ensemble classifier with string class labels', async () => {
    const spec: ModelSpec = {
      nodes: [
        {
          op: 'TreeEnsembleClassifier',
          domain: ML,
          inputs: ['x'],
          outputs: ['label', 'probabilities'],
          attrs: {
            nodes_treeids: [0, 0, 0, 0, 0],
            nodes_nodeids: [0, 1, 2, 3, 4],
            nodes_featureids: [0, 1, 0, 0, 0],
            nodes_values: { floats: [0.5, -0.25, 0, 0, 0] },
            nodes_modes: ['BRANCH_LEQ', 'BRANCH_LT', 'LEAF', 'LEAF', 'LEAF'],
            nodes_truenodeids: [1, 2, 0, 0, 0],
            nodes_falsenodeids: [4, 3, 0, 0, 0],
            class_treeids: [0, 0, 0, 0, 0],
            class_nodeids: [2, 3, 4, 4, 3],
            class_ids: [0, 1, 2, 0, 2],
            class_weights: { floats: [1, 0.75, 0.9, 0.1, 0.25] },
            classlabels_strings: ['setosa', 'versicolor', 'virginica'],
          },
        },
      ],
      inputs: [{ name: 'x', dtype: 'float32', shape: [5, 2] }],
      outputs: [{ name: 'label', elemType: STRING }, { name: 'probabilities' }],
    };
    const x = tensor([0, -1, 0, 1, 1, 0, 0.4, -0.3, 2, 2], { dtype: 'float32', shape: [5, 2] });
    const got = await agree(spec, { x }, {});
    expect(new Set(stringsOf(got.label!)).size).toBe(3);
  });

  it('CategoryMapper both ways, OneHotEncoder over strings, Equal and StringConcat with broadcasting', async () => {
    const spec: ModelSpec = {
      nodes: [
        {
          op: 'CategoryMapper',
          domain: ML,
          inputs: ['x'],
          outputs: ['code'],
          attrs: { cats_strings: ['red', 'green', 'blue'], cats_int64s: [10, 20, 30], default_int64: 99 },
        },
        {
          op: 'CategoryMapper',
          domain: ML,
          inputs: ['code'],
          outputs: ['name'],
          attrs: { cats_strings: ['red', 'green', 'blue'], cats_int64s: [10, 20, 30], default_string: 'other' },
        },
        {
          op: 'OneHotEncoder',
          domain: ML,
          inputs: ['x'],
          outputs: ['hot'],
          attrs: { cats_strings: ['blue', 'red'], zeros: 1 },
        },
        { op: 'Equal', inputs: ['x', 'name'], outputs: ['same'] },
        { op: 'StringConcat', inputs: ['name', 'suffix'], outputs: ['joined'] },
      ],
      inputs: [
        { name: 'x', elemType: STRING, shape: [2, 3] },
        { name: 'suffix', elemType: STRING, shape: [3] },
      ],
      outputs: [
        { name: 'code', dtype: 'int64' },
        { name: 'name', elemType: STRING },
        { name: 'hot', dtype: 'float32' },
        { name: 'same', dtype: 'bool' },
        { name: 'joined', elemType: STRING },
      ],
    };
    await agree(
      spec,
      { x: ['red', 'pink', 'blue', 'blue', 'green', 'red'], suffix: ['!', '', '-x'] },
      { x: [2, 3], suffix: [3] },
    );
  });

  it('StringSplit (whitespace and a delimiter, with maxsplit) and RegexFullMatch', async () => {
    const spec: ModelSpec = {
      nodes: [
        { op: 'StringSplit', inputs: ['x'], outputs: ['words', 'n'] },
        { op: 'StringSplit', inputs: ['x'], outputs: ['parts', 'm'], attrs: { delimiter: ',', maxsplit: 1 } },
        { op: 'RegexFullMatch', inputs: ['x'], outputs: ['match'], attrs: { pattern: '[a-z ]+(,[a-z]*)*' } },
      ],
      inputs: [{ name: 'x', elemType: STRING, shape: [4] }],
      outputs: [
        { name: 'words', elemType: STRING },
        { name: 'n', dtype: 'int64' },
        { name: 'parts', elemType: STRING },
        { name: 'm', dtype: 'int64' },
        { name: 'match', dtype: 'bool' },
      ],
    };
    await agree(spec, { x: ['  one two  three ', 'a,b,,c', 'solo', 'UP,down'] }, { x: [4] });
    // An empty string split on a delimiter is one empty piece, as ONNX's reference (Python's str.split) gives it;
    // onnxruntime counts none.
    const got = loadOnnx(buildModel({ ...spec, opset })).run({ x: stringTensor(['', 'a', ' ', 'b,']) });
    expect(stringsOf(got.parts!)).toEqual(['', '', 'a', '', ' ', '', 'b', '']);
    expect(Array.from(got.m!.dataSync() as ArrayLike<number>)).toEqual([1, 1, 1, 2]);
    expect(Array.from(got.n!.dataSync() as ArrayLike<number>)).toEqual([0, 1, 0, 1]);
  });

  it('TfIdfVectorizer over string tokens (a pool of strings)', async () => {
    const spec: ModelSpec = {
      nodes: [
        {
          op: 'TfIdfVectorizer',
          inputs: ['x'],
          outputs: ['y'],
          attrs: {
            mode: 'TFIDF',
            min_gram_length: 1,
            max_gram_length: 2,
            max_skip_count: 1,
            ngram_counts: [0, 3],
            ngram_indexes: [0, 1, 2, 3, 4],
            pool_strings: ['the', 'cat', 'sat', 'the', 'cat', 'cat', 'sat'],
            weights: { floats: [0.5, 2, 1, 3, 0.25] },
          },
        },
      ],
      inputs: [{ name: 'x', elemType: STRING, shape: [2, 6] }],
      outputs: [{ name: 'y', dtype: 'float32' }],
    };
    const got = await agree(
      spec,
      { x: ['the', 'cat', 'sat', 'on', 'the', 'cat', 'cat', 'the', 'sat', 'cat', 'sat', 'mat'] },
      { x: [2, 6] },
    );
    expect(Array.from(got.y!.dataSync() as ArrayLike<number>).filter((v) => v > 0).length).toBeGreaterThan(5);
  });

  it('refuses a string input fed as numbers, and fromOnnx without the strings', () => {
    const model = buildModel({
      nodes: [{ op: 'StringConcat', inputs: ['x', 'x'], outputs: ['y'] }],
      inputs: [{ name: 'x', elemType: STRING, shape: [2] }],
      outputs: [{ name: 'y', elemType: STRING }],
      opset,
    });
    expect(() => loadOnnx(model).run({ x: tensor([1, 2], { dtype: 'int32' }) })).toThrow(
      /input 'x' is an ONNX string tensor; feed stringTensor/,
    );
    expect(() => fromOnnx(model)).toThrow(/input 'x' is an ONNX string tensor: raf-op reads strings as values known/);
    expect(stringsOf(loadOnnx(model).run({ x: stringTensor(['ab', 'c']) }).y!)).toEqual(['abab', 'cc']);
  });
});
