// Transformer models as exporters and quantizers ship them (../shared/onnx-tx: BERT, GPT-2, ViT, Whisper encoder from
// torch's exporter, with onnxruntime's int8 and float16 post-processing), loaded as a user would with loadOnnx(bytes)
// and compared with onnxruntime-node on the same inputs: float32 and int8 files within 1e-4 relative; float16 files no
// further from onnxruntime's float16 result than onnxruntime's float16 result is from its float32 one (plus float16
// rounding). Token models run at two sequence lengths with a padded attention mask. Every file of the folder is a case,
// so a file added there is tested too.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { loadOnnx, tensor, type Tensor } from '../../runtime/src/index.ts';
import { isOrtRegion } from '../../runtime/src/graph/index.ts';
import { ortMissing } from '../../runtime/src/dialects/ort/load.ts';
import { ortStats } from '../../runtime/src/dialects/ort/index.ts';
import type { OnnxValueInfo } from '../../runtime/src/graph/onnx/proto.ts';

const DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../../shared/onnx-tx');
const files = existsSync(DIR) ? readdirSync(DIR).filter((f) => f.endsWith('.onnx')) : [];

interface Feed {
  readonly dtype: 'int64' | 'float32';
  readonly shape: number[];
  readonly values: number[];
}

/** Inputs for one run: token ids below 1000, a mask whose second row is padded, zeros for token types, smooth floats. */
function feedsFor(inputs: readonly OnnxValueInfo[], seq: number): Record<string, Feed> {
  const feeds: Record<string, Feed> = {};
  for (const input of inputs) {
    let symbolic = 0;
    const shape = (input.shape ?? []).map((d) => (typeof d === 'number' ? d : symbolic++ === 0 ? 2 : seq));
    const n = shape.reduce((a, b) => a * b, 1);
    const cols = shape[shape.length - 1] ?? 1;
    if (input.dtype === 'int64' || input.dtype === 'int32') {
      const values = Array.from({ length: n }, (_, i) =>
        /mask/.test(input.name)
          ? Math.floor(i / cols) % 2 === 1 && i % cols >= cols - 2
            ? 0
            : 1
          : /type/.test(input.name)
            ? 0
            : (i * 37 + 11) % 1000,
      );
      feeds[input.name] = { dtype: 'int64', shape, values };
    } else {
      feeds[input.name] = { dtype: 'float32', shape, values: Array.from({ length: n }, (_, i) => Math.sin(0.37 * i)) };
    }
  }
  return feeds;
}

async function runOrt(path: string, feeds: Record<string, Feed>): Promise<Record<string, Float64Array>> {
  const session = await ort.InferenceSession.create(path, { logSeverityLevel: 4, intraOpNumThreads: 1 });
  const given: Record<string, ort.Tensor> = {};
  for (const name of session.inputNames) {
    const f = feeds[name]!;
    given[name] =
      f.dtype === 'int64'
        ? new ort.Tensor(
            'int64',
            BigInt64Array.from(f.values, (v) => BigInt(v)),
            f.shape,
          )
        : new ort.Tensor('float32', Float32Array.from(f.values), f.shape);
  }
  const outs = await session.run(given);
  return Object.fromEntries(
    session.outputNames.map((n) => [n, Float64Array.from(outs[n]!.data as ArrayLike<number>, Number)]),
  );
}

/** max |a - b| / (1 + |b|). */
function maxRel(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < b.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!) / (1 + Math.abs(b[i]!)));
  return m;
}

/** Whether a file's graph had an ort region after its second run, by `file seq`. */
const regionsAt = new Map<string, boolean>();

describe.each(files)('%s', (file) => {
  const path = join(DIR, file);
  const session = loadOnnx(readFileSync(path));
  const inputs = session.model.inputs.filter((i) => session.inputNames.includes(i.name));
  const tokens = inputs.some((i) => i.dtype === 'int64');
  const lengths = tokens ? [7, 32] : [0];

  /** Runs `session` at `seq` and compares each run's outputs with onnxruntime-node's; `after` sees each run. */
  async function compareRuns(
    seq: number,
    runs: readonly string[],
    after: (run: string, feeds: Record<string, Tensor>) => void,
  ) {
    const feeds = feedsFor(inputs, seq);
    const rafFeeds: Record<string, Tensor> = {};
    for (const [name, f] of Object.entries(feeds))
      rafFeeds[name] = tensor(f.values, { dtype: f.dtype, shape: f.shape });
    const theirs = await runOrt(path, feeds);
    const half = /fp16/.test(file);
    const base = half ? await runOrt(path.replace('-fp16', ''), feeds) : null;
    for (const run of runs) {
      const ours = session.run(rafFeeds);
      after(run, rafFeeds);
      for (const name of session.outputNames) {
        const got = ours[name]!.dataSync() as ArrayLike<number>;
        const want = theirs[name]!;
        expect(got.length, `${run}, ${name}: element count`).toBe(want.length);
        expect([...want].every(Number.isFinite), `${name}: onnxruntime's reference is finite`).toBe(true);
        // float16: onnxruntime's own float16-vs-float32 distance, plus one float16 rounding step, bounds ours.
        const tol = half ? maxRel(want, base![name]!) + 2 ** -10 : 1e-4;
        expect(maxRel(got, want), `${run}, ${name}: max relative difference`).toBeLessThanOrEqual(tol);
      }
    }
  }

  // The first run computes on raf-op's kernels; from the second, ort regions run where they formed (loadOnnx's
  // default on the CPU): both runs are compared.
  it.each(lengths)('matches onnxruntime-node (sequence length %i)', (seq) =>
    compareRuns(seq, ['first run', 'second run'], (run, feeds) => {
      if (run === 'second run') regionsAt.set(`${file} ${seq}`, session.graphFor(feeds).nodes.some(isOrtRegion));
    }),
  );

  // Once a length has regions, a new length forms its own at its first run. Their models differ from the earlier
  // length's in constants only (position embeddings, masks), so the second new length runs on the sessions the
  // first one opened, feeding its own constants: it opens none.
  if (tokens && /^(bert|gpt2)/.test(file) && !ortMissing())
    it('runs new lengths through ort regions from their first run, the second opening no session', async () => {
      for (const seq of [40, 48]) {
        const opened = ortStats().sessions;
        await compareRuns(seq, ['first run'], (_, feeds) => {
          expect(session.graphFor(feeds).nodes.some(isOrtRegion), `regions at ${seq}`).toBe(true);
          if (seq === 48) expect(ortStats().sessions - opened, 'sessions opened at 48').toBe(0);
        });
      }
    });
});

describe('onnx-tx corpus', () => {
  it('is present beside the project (../shared/onnx-tx)', () => {
    expect(files.length).toBeGreaterThanOrEqual(12);
  });

  it('ran second runs through ort regions: BERT and GPT-2 at sequence 32 in float32, int8 and float16', () => {
    // Set by the cases above (vitest runs a file's tests in order): the region path was compared, not only built.
    for (const model of ['bert-ts', 'gpt2-ts'])
      for (const kind of ['', '-int8', '-fp16'])
        expect(regionsAt.get(`${model}${kind}.onnx 32`), `${model}${kind} at 32`).toBe(!ortMissing());
  });
});
