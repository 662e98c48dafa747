// Greedy decoding with an imported causal language model (GPT-2 as torch's exporter writes it): each step runs the
// whole sequence so far and appends the most likely next token, as `generate(do_sample=False)` does without a cache.

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

/** Inputs generateGreedy knows how to fill, from the token ids so far. */
const FEEDS: Readonly<Record<string, (ids: readonly number[][]) => Tensor>> = {
  input_ids: (ids) => int64(ids, (row) => row),
  attention_mask: (ids) => int64(ids, (row) => row.map(() => 1)),
  position_ids: (ids) => int64(ids, (row) => row.map((_, i) => i)),
  token_type_ids: (ids) => int64(ids, (row) => row.map(() => 0)),
};

function int64(ids: readonly number[][], row: (r: readonly number[]) => readonly number[]): Tensor {
  return tensor(ids.flatMap(row), { dtype: 'int64', shape: [ids.length, ids[0]!.length] });
}

/**
 * Greedy decoding: `prompt` (one list of token ids, or one per batch row, all the same length) extended by `steps`
 * tokens, each the argmax of the last position's logits (the lowest id on a tie, as NumPy's argmax). Returns every row,
 * prompt included. The model's inputs must be among input_ids, attention_mask, position_ids and token_type_ids.
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
  const unknown = session.inputNames.filter((n) => !(n in FEEDS));
  if (unknown.length)
    throw new Error(
      `generateGreedy: the model reads ${unknown.map((n) => `'${n}'`).join(', ')}; it can feed only ${Object.keys(FEEDS).join(', ')} (export the model without a past key/value cache)`,
    );
  const logitsName = opts.logits ?? session.outputNames[0]!;
  if (!session.outputNames.includes(logitsName))
    throw new Error(
      `generateGreedy: the model has no output '${logitsName}' (its outputs: ${session.outputNames.join(', ')})`,
    );
  const ids = rows.map((r) => [...r]);
  const done = ids.map(() => false);
  for (let step = 0; step < opts.steps && done.some((d) => !d); step++) {
    const feeds = Object.fromEntries(session.inputNames.map((n) => [n, FEEDS[n]!(ids)]));
    const logits = session.run(feeds)[logitsName]!;
    if (logits.shape.length !== 3 || logits.shape[0] !== ids.length || logits.shape[1] !== ids[0]!.length)
      throw new Error(
        `generateGreedy: output '${logitsName}' has shape [${logits.shape.join(', ')}], expected [batch ${ids.length}, sequence ${ids[0]!.length}, vocabulary]`,
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
