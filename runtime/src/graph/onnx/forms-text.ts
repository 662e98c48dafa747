// ONNX's TfIdfVectorizer, composed from raf-op's ops: n-gram counts of a pool, with skips, as term frequencies, IDF
// indicators or TF-IDF, over integer tokens or strings (their ids in raf-op's string table, strings.ts).
//
// The counting follows ONNX's reference implementation: for each skip distance d = 1 … max_skip_count + 1, every
// start position s of a row counts the pool's n-grams (x[s], x[s + d], …, x[s + (n - 1)d]) for n from
// min_gram_length to max_gram_length that fit in the row; unigrams are counted at d = 1 only. Each gram of size n is
// matched as n equal comparisons of strided windows of x against the pool's columns, the matches summed over the
// windows, and the counts scattered to their output columns (ngram_indexes) by a 0/1 matrix. IDF makes each column's
// count an indicator; IDF and TFIDF scale a column by the weight of its n-gram (weights[i] is the i-th pool n-gram's,
// as the spec says and onnxruntime computes).

import { add } from '../../generated/api/add.ts';
import { cast } from '../../generated/api/cast.ts';
import { equal } from '../../generated/api/equal.ts';
import { greater } from '../../generated/api/greater.ts';
import { logicalAnd } from '../../generated/api/logical_and.ts';
import { matmul } from '../../generated/api/matmul.ts';
import { multiply } from '../../generated/api/multiply.ts';
import { reshape } from '../../generated/api/reshape.ts';
import { stridedSlice } from '../../generated/api/strided_slice.ts';
import { sum } from '../../generated/api/sum.ts';
import { tensor, type Tensor } from '../../tensor.ts';
import type { ImportContext } from './forms.ts';
import { internString, isStringTensor } from '../../strings.ts';

type Form = (ctx: ImportContext) => Tensor[] | null;

const int = (ctx: ImportContext, name: string): number => {
  const v = ctx.attr(name);
  if (typeof v !== 'number') throw new Error(`TfIdfVectorizer needs the int attribute ${name}`);
  return v;
};
const list = (ctx: ImportContext, name: string): number[] | undefined => {
  const v = ctx.attr(name);
  return v === undefined ? undefined : typeof v === 'number' ? [v] : (v as number[]);
};

/** The pool's n-grams of each size, with the output column each counts into (a repeated gram: its last column). */
function gramsBySize(
  pool: readonly number[],
  starts: readonly number[],
  indexes: readonly number[],
): Map<number, { grams: number[][]; columns: number[] }> {
  const out = new Map<number, { grams: number[][]; columns: number[] }>();
  let id = 0;
  starts.forEach((start, k) => {
    const n = k + 1;
    const end = k + 1 < starts.length ? starts[k + 1]! : pool.length;
    if (end < start || (end - start) % n !== 0)
      throw new Error(
        `TfIdfVectorizer's ngram_counts give ${end - start} pool items for ${n}-grams, not a multiple of ${n}`,
      );
    const seen = new Map<string, number>();
    const size = { grams: [] as number[][], columns: [] as number[] };
    for (let p = start; p < end; p += n, id++) {
      const column = indexes[id];
      if (column === undefined) throw new Error(`TfIdfVectorizer's ngram_indexes has no entry for pool n-gram ${id}`);
      const gram = pool.slice(p, p + n);
      const key = gram.join(',');
      const at = seen.get(key);
      if (at !== undefined) size.columns[at] = column;
      else {
        seen.set(key, size.grams.length);
        size.grams.push(gram);
        size.columns.push(column);
      }
    }
    if (size.grams.length) out.set(n, size);
  });
  return out;
}

const tfIdfVectorizer: Form = (ctx) => {
  // A pool of strings is a pool of their ids in raf-op's string table, which a string X holds.
  const rawStrings = ctx.attr('pool_strings');
  const pool = typeof rawStrings === 'string' ? rawStrings.split('\u0000').map(internString) : list(ctx, 'pool_int64s');
  if (!pool) throw new Error('TfIdfVectorizer needs pool_int64s or pool_strings');
  const [minN, maxN, maxSkip] = [int(ctx, 'min_gram_length'), int(ctx, 'max_gram_length'), int(ctx, 'max_skip_count')];
  if (minN < 1 || maxN < minN || maxSkip < 0)
    throw new Error(
      `TfIdfVectorizer's min_gram_length ${minN}, max_gram_length ${maxN} and max_skip_count ${maxSkip} are not a valid range`,
    );
  const mode = ctx.attr('mode');
  if (mode !== 'TF' && mode !== 'IDF' && mode !== 'TFIDF')
    throw new Error(`TfIdfVectorizer's mode is ${String(mode)}; ONNX defines TF, IDF and TFIDF`);
  const indexes = list(ctx, 'ngram_indexes') ?? [];
  const columns = indexes.length ? Math.max(...indexes) + 1 : 0;
  const weights = list(ctx, 'weights');
  if (weights && weights.length !== indexes.length)
    throw new Error(`TfIdfVectorizer has ${weights.length} weights for ${indexes.length} n-grams (ngram_indexes)`);

  const x0 = ctx.input(0);
  if (!x0) throw new Error('TfIdfVectorizer needs its input X');
  if (x0.dtype !== 'int32' && x0.dtype !== 'int64')
    throw new Error(`TfIdfVectorizer takes int32, int64 or string tokens, got ${x0.dtype}`);
  if ((typeof rawStrings === 'string') !== isStringTensor(x0))
    throw new Error(
      `TfIdfVectorizer's pool is ${typeof rawStrings === 'string' ? 'strings' : 'integers'}, its input X is not`,
    );
  if (x0.shape.length > 2)
    throw new Error(`TfIdfVectorizer takes X of shape [C] or [B, C], got rank ${x0.shape.length}`);
  const x = x0.shape.length === 2 ? x0 : reshape(x0, [1, x0.shape.length ? x0.shape[0]! : 1]);
  const [rows, length] = [x.shape[0]!, x.shape[1]!];

  const shaped = (y: Tensor) => (x0.shape.length === 2 ? y : reshape(y, [columns]));
  let counts: Tensor = tensor(new Float32Array(rows * columns), { dtype: 'float32', shape: [rows, columns] });
  for (const [n, { grams, columns: cols }] of gramsBySize(pool, list(ctx, 'ngram_counts') ?? [0], indexes)) {
    if (n < minN || n > maxN) continue;
    // Each gram's count in each row, over every skip distance (unigrams count once, longer grams once per distance).
    let found: Tensor | undefined;
    for (let d = 1; d <= (n === 1 ? 1 : maxSkip + 1); d++) {
      const windows = length - d * (n - 1);
      if (windows <= 0) continue;
      let hit: Tensor | undefined;
      for (let j = 0; j < n; j++) {
        const at = stridedSlice(x, [j * d], [j * d + windows], null, [1]);
        const column = tensor(
          grams.map((g) => g[j]!),
          { dtype: x.dtype, shape: [1, 1, grams.length] },
        );
        const eq = equal(reshape(at, [rows, windows, 1]), column);
        hit = hit ? logicalAnd(hit, eq) : eq;
      }
      const counted = sum(cast(hit!, 'float32'), [1], false);
      found = found ? add(found, counted) : counted;
    }
    if (!found) continue;
    // Where each of the size's grams counts: [grams, columns], one 1 per row.
    const scatter = new Float32Array(grams.length * columns);
    cols.forEach((c, g) => (scatter[g * columns + c] = 1));
    counts = add(counts, matmul(found, tensor(scatter, { dtype: 'float32', shape: [grams.length, columns] })));
  }
  if (mode === 'TF') return [shaped(counts)];
  // Each column's weight: its n-gram's. Where several grams share a column (exporters do not write that; onnxruntime and
  // ONNX's reference then disagree) the first one's.
  const w = weights && new Float32Array(columns).fill(NaN);
  if (w) indexes.forEach((c, i) => (w[c] = Number.isNaN(w[c]!) ? weights![i]! : w[c]!));
  const scored = mode === 'IDF' ? cast(greater(counts, 0), 'float32') : counts;
  return [shaped(w ? multiply(scored, tensor(w, { dtype: 'float32', shape: [columns] })) : scored)];
};

export const TEXT_FORMS: Readonly<Record<string, Form>> = { TfIdfVectorizer: tfIdfVectorizer };
