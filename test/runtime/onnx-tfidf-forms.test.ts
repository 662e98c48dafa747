// ONNX's TfIdfVectorizer over integer tokens (runtime/src/graph/onnx/forms-text.ts) on one-node models against
// onnxruntime-node: each mode, with and without weights, unigrams to trigrams with skips, int32 and int64 tokens, one
// row and a batch, a row shorter than the longest gram, a pool whose grams fall outside the counted sizes; and the
// refusal of a string pool over integer tokens (string pools over string tokens: the conformance suite's cases).

import { describe, expect, it } from 'vitest';
import { tensor } from '../../runtime/src/index.ts';
import { execute } from '../../runtime/src/graph/index.ts';
import { fromOnnx } from '../../runtime/src/graph/frontends/from-onnx.ts';
import { buildModel } from '../support/onnx-proto.ts';
import { agree } from '../support/onnx-agree.ts';

/** Tokens from a seeded generator over a vocabulary of `vocab` ids, so that grams of the pool recur. */
function tokens(shape: number[], vocab: number, seed: number, dtype: 'int32' | 'int64' = 'int64') {
  let s = seed >>> 0;
  const n = shape.reduce((a, b) => a * b, 1);
  const values = Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return (s >>> 16) % vocab;
  });
  return tensor(values, { dtype, shape });
}

// Unigrams 0…4, bigrams (0 1) (1 2) (2 0) (3 3) (4 1), trigrams (0 1 2) (1 1 1) (2 0 4): 13 grams, each its own column
// (as exporters write them; grams sharing a column are where onnxruntime and ONNX's reference disagree).
const POOL = [0, 1, 2, 3, 4, 0, 1, 1, 2, 2, 0, 3, 3, 4, 1, 0, 1, 2, 1, 1, 1, 2, 0, 4];
const COUNTS = [0, 5, 15];
const INDEXES = [9, 0, 1, 2, 3, 4, 12, 6, 7, 8, 10, 5, 11];
// One per pool n-gram, as long as ngram_indexes.
const WEIGHTS = [0.5, 1.5, 2, 0.25, 3, 1, 0.75, 4, 1.25, 2.5, 6, 0.125, 5];

const node = (attrs: Record<string, unknown>) => ({
  op: 'TfIdfVectorizer',
  inputs: ['x'],
  outputs: ['y'],
  attrs: { pool_int64s: POOL, ngram_counts: COUNTS, ngram_indexes: INDEXES, ...attrs } as never,
});

describe('TfIdfVectorizer against onnxruntime-node', () => {
  it('each mode, with and without weights, grams of 1 to 3 with skips', async () => {
    const x = tokens([3, 40], 5, 7);
    for (const mode of ['TF', 'IDF', 'TFIDF'])
      for (const weights of [undefined, WEIGHTS])
        for (const [min, max, skip] of [
          [1, 1, 0],
          [1, 3, 2],
          [2, 3, 0],
          [2, 2, 4],
          [3, 3, 1],
        ])
          await agree(
            node({
              mode,
              min_gram_length: min,
              max_gram_length: max,
              max_skip_count: skip,
              ...(weights ? { weights: { floats: weights } } : {}),
            }),
            { x },
            [],
            { tol: 0 },
          );
  });

  it('one row of int32 tokens, and a row shorter than its longest gram with skips', async () => {
    const attrs = { mode: 'TF', min_gram_length: 1, max_gram_length: 3, max_skip_count: 3 };
    await agree(node(attrs), { x: tokens([25], 5, 3, 'int32') }, [], { tol: 0 });
    await agree(node(attrs), { x: tokens([2, 4], 5, 11) }, [], { tol: 0 });
  });

  it('counts as a direct loop over starts and skips does (the counts are not all zero)', () => {
    const x = tokens([2, 30], 5, 5);
    const [min, max, skip] = [1, 3, 2];
    const g = fromOnnx(
      buildModel({
        nodes: [node({ mode: 'TF', min_gram_length: min, max_gram_length: max, max_skip_count: skip })],
        inputs: [{ name: 'x', dtype: 'int64', shape: [2, 30] }],
        outputs: [{ name: 'y' }],
        opset: 19,
      }),
    );
    const got = Array.from(execute(g, [x])[0]!.dataSync());
    // The pool's grams by size, each with its column.
    const grams = new Map<string, number>();
    let id = 0;
    COUNTS.forEach((start, k) => {
      const end = COUNTS[k + 1] ?? POOL.length;
      for (let p = start; p < end; p += k + 1) grams.set(POOL.slice(p, p + k + 1).join(','), INDEXES[id++]!);
    });
    const xs = Array.from(x.dataSync());
    const want = new Array<number>(26).fill(0);
    for (let r = 0; r < 2; r++)
      for (let n = min; n <= max; n++)
        for (let d = 1; d <= (n === 1 ? 1 : skip + 1); d++)
          for (let s = 0; s + (n - 1) * d < 30; s++) {
            const key = Array.from({ length: n }, (_, j) => xs[r * 30 + s + j * d]).join(',');
            const column = grams.get(key);
            if (column !== undefined) want[r * 13 + column]!++;
          }
    expect(want.filter((c) => c > 0).length).toBeGreaterThan(10);
    expect(got).toEqual(want);
  });

  it('refuses a string pool over integer tokens, naming the mismatch', () => {
    const bytes = buildModel({
      nodes: [
        {
          op: 'TfIdfVectorizer',
          inputs: ['x'],
          outputs: ['y'],
          attrs: {
            pool_strings: ['a', 'b'],
            ngram_counts: [0],
            ngram_indexes: [0, 1],
            mode: 'TF',
            min_gram_length: 1,
            max_gram_length: 1,
            max_skip_count: 0,
          },
        },
      ],
      inputs: [{ name: 'x', dtype: 'int64', shape: [4] }],
      outputs: [{ name: 'y' }],
      opset: 19,
    });
    expect(() => fromOnnx(bytes)).toThrow(/TfIdfVectorizer's pool is strings, its input X is not/);
  });
});
