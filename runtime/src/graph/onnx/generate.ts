// Greedy decoding with an imported causal language model, as `generate(do_sample=False)` does: without a key/value
// cache (GPT-2 as torch's exporter writes it) each step runs the whole sequence so far; with one (Optimum's with-past
// exports, merged decoders, onnxruntime-genai's models) the prompt runs once and each step runs the last token,
// feeding the previous step's present outputs back as the past.

import { tensor, type Tensor } from '../../tensor.ts';
import type { OnnxSession } from './session.ts';

export interface GreedyOptions {
  /** How many tokens to append. */
  readonly steps: number;
  /** Stop a sequence once it emits this token (it is kept); the others go on until every sequence has stopped. */
  readonly eosTokenId?: number;
  /** The logits output, [batch, sequence, vocabulary]; the model's first output by default. */
  readonly logits?: string;
}

/**
 * Inputs generateGreedy knows how to fill: from the token ids this run reads (`fresh`: every id without a cache, the
 * last one with), the number of tokens before them (`before`), and whether the cache holds them (`cached`).
 */
const FEEDS: Readonly<Record<string, (fresh: readonly number[][], before: number, cached: boolean) => Tensor>> = {
  input_ids: (fresh) => int64(fresh, (row) => row),
  attention_mask: (fresh, before) => int64(fresh, (row) => new Array<number>(before + row.length).fill(1)),
  position_ids: (fresh, before) => int64(fresh, (row) => row.map((_, i) => before + i)),
  token_type_ids: (fresh) => int64(fresh, (row) => row.map(() => 0)),
  use_cache_branch: (_, __, cached) => tensor([cached ? 1 : 0], { dtype: 'bool', shape: [1] }),
};

function int64(rows: readonly number[][], row: (r: readonly number[]) => readonly number[]): Tensor {
  const data = rows.map(row);
  return tensor(data.flat(), { dtype: 'int64', shape: [rows.length, data[0]!.length] });
}

/** A cache input and the output that gives its next value back. */
interface CachePair {
  readonly input: string;
  readonly output: string;
  /** The empty past: the declared shape with the batch at axis 0 and 0 at its length axis. */
  readonly empty: (batch: number) => Tensor;
}

/**
 * The model's key/value cache: each input the FEEDS do not fill whose name, with `past_key_values` or `past` read as
 * `present`, names an output (past_key_values.0.key and present.0.key; past_key_0 and present_key_0). Its length axis
 * is its symbolic dim after the batch (the one whose name mentions the sequence or the past, if several).
 */
function cacheOf(session: OnnxSession): { pairs: CachePair[]; unknown: string[] } {
  const pairs: CachePair[] = [];
  const unknown: string[] = [];
  for (const name of session.inputNames) {
    if (name in FEEDS) continue;
    const output = [name.replace(/^past_key_values/, 'present'), name.replace(/past/, 'present')].find((o) =>
      session.outputNames.includes(o),
    );
    const info = session.model.inputs.find((i) => i.name === name);
    const symbolic = (info?.shape ?? []).map((d, i) => (typeof d === 'number' ? -1 : i)).filter((i) => i > 0);
    const named = symbolic.filter((i) => /seq|past|len/i.test(String(info!.shape![i])));
    const axis = symbolic.length === 1 ? symbolic[0] : named.length === 1 ? named[0] : undefined;
    if (!output || !info?.shape || axis === undefined || !info.dtype || info.dtype === 'int64') {
      unknown.push(name);
      continue;
    }
    const [shape, dtype] = [info.shape, info.dtype];
    pairs.push({
      input: name,
      output,
      empty: (batch) =>
        tensor([], {
          dtype,
          shape: shape.map((d, i) => (i === 0 ? batch : i === axis ? 0 : (d as number))),
        }),
    });
  }
  return { pairs, unknown };
}

/**
 * Greedy decoding: `prompt` (one list of token ids, or one per batch row, all the same length) extended by `steps`
 * tokens, each the argmax of the last position's logits (the lowest id on a tie, as NumPy's argmax). Returns every row,
 * prompt included. The model's inputs must be among input_ids, attention_mask, position_ids, token_type_ids and
 * use_cache_branch, and a key/value cache whose inputs pair with outputs by name (past_key_values.N.key and
 * present.N.key): the first run reads the prompt over an empty cache, each later one the last token over the cache
 * the run before gave.
 */
export function generateGreedy(
  session: OnnxSession,
  prompt: readonly number[] | readonly (readonly number[])[],
  opts: GreedyOptions,
): number[][] {
  const rows = (Array.isArray(prompt[0]) ? prompt : [prompt]) as readonly (readonly number[])[];
  if (!rows.length || !rows[0]!.length) throw new Error('generateGreedy: the prompt needs at least one token');
  if (rows.some((r) => r.length !== rows[0]!.length))
    throw new Error('generateGreedy: every prompt row needs the same length (pad them and mask the padding yourself)');
  const { pairs, unknown } = cacheOf(session);
  if (unknown.length)
    throw new Error(
      `generateGreedy: the model reads ${unknown.map((n) => `'${n}'`).join(', ')}; it can feed only ${Object.keys(FEEDS).join(', ')} and a key/value cache whose inputs name their outputs (past_key_values.0.key and present.0.key)`,
    );
  const logitsName = opts.logits ?? session.outputNames[0]!;
  if (!session.outputNames.includes(logitsName))
    throw new Error(
      `generateGreedy: the model has no output '${logitsName}' (its outputs: ${session.outputNames.join(', ')})`,
    );
  const ids = rows.map((r) => [...r]);
  const done = ids.map(() => false);
  let cache: Record<string, Tensor> | null = null;
  for (let step = 0; step < opts.steps && done.some((d) => !d); step++) {
    // With a cache, the prompt runs once and every later run reads the last token.
    const fresh = cache ? ids.map((row) => row.slice(-1)) : ids;
    const before = ids[0]!.length - fresh[0]!.length;
    const feeds: Record<string, Tensor> = {};
    for (const n of session.inputNames) if (n in FEEDS) feeds[n] = FEEDS[n]!(fresh, before, cache !== null);
    for (const p of pairs) feeds[p.input] = cache ? cache[p.output]! : p.empty(ids.length);
    const outs = session.run(feeds);
    if (pairs.length) cache = outs;
    const logits = outs[logitsName]!;
    if (logits.shape.length !== 3 || logits.shape[0] !== ids.length || logits.shape[1] !== fresh[0]!.length)
      throw new Error(
        `generateGreedy: output '${logitsName}' has shape [${logits.shape.join(', ')}], expected [batch ${ids.length}, sequence ${fresh[0]!.length}, vocabulary]`,
      );
    const [, length, vocab] = logits.shape as [number, number, number];
    const data = logits.dataSync() as ArrayLike<number>;
    ids.forEach((row, b) => {
      if (done[b]) {
        row.push(opts.eosTokenId ?? row[row.length - 1]!);
        return;
      }
      const at = (b * length + length - 1) * vocab;
      let best = 0;
      for (let v = 1; v < vocab; v++) if (data[at + v]! > data[at + best]!) best = v;
      row.push(best);
      if (best === opts.eosTokenId) done[b] = true;
    });
  }
  return ids;
}
