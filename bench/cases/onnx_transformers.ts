// Cases: the transformer files of ../shared/onnx-tx (torch's exporter; onnxruntime's int8 and float16 post-processing)
// at sequence 128, batch 1 and 8, loadOnnx().run against onnxruntime-node single-threaded on the same inputs. float16
// files compute in float32 on the CPU (FromOnnxOptions.float16); int8 files run MatMulInteger/ConvInteger exactly.

import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-node';
import { loadOnnx, tensor, type Tensor } from '../../runtime/src/index.ts';
import type { OnnxModel } from '../../runtime/src/graph/onnx/proto.ts';
import { fuseEpilogues } from '../../runtime/src/graph/index.ts';
import { asFloat32, defineCase, type BenchCase, type Impl } from '../case.ts';
import { ortThreadCount } from '../peers.ts';
import { readAll } from '../raf.ts';

const DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../../shared/onnx-tx');

interface Feed {
  readonly dtype: 'int64' | 'float32';
  readonly shape: number[];
  readonly values: number[];
}

/** The files' model inputs, read once per file. */
const inputsOf = new Map<string, OnnxModel['inputs']>();

/** Token ids below 1000, a full mask, zero token types; float inputs (pixels, mel features) a smooth signal. */
function feedsFor(file: string, batch: number, seq: number): Record<string, Feed> {
  let inputs = inputsOf.get(file);
  if (!inputs) {
    const session = loadOnnx(readFileSync(`${DIR}/${file}`));
    inputs = session.model.inputs.filter((i) => session.inputNames.includes(i.name));
    inputsOf.set(file, inputs);
  }
  const feeds: Record<string, Feed> = {};
  for (const input of inputs) {
    let symbolic = 0;
    const shape = (input.shape ?? []).map((d) => (typeof d === 'number' ? d : symbolic++ === 0 ? batch : seq));
    const n = shape.reduce((a, b) => a * b, 1);
    feeds[input.name] =
      input.dtype === 'int64'
        ? {
            dtype: 'int64',
            shape,
            values: Array.from({ length: n }, (_, i) =>
              /mask/.test(input.name) ? 1 : /type/.test(input.name) ? 0 : (i * 37 + 11) % 1000,
            ),
          }
        : { dtype: 'float32', shape, values: Array.from({ length: n }, (_, i) => Math.sin(0.37 * i)) };
  }
  return feeds;
}

/** feedsFor's inputs as raf-op tensors. */
const rafFeeds = (file: string, batch: number, seq: number): Record<string, Tensor> =>
  Object.fromEntries(Object.entries(feedsFor(file, batch, seq)).map(([n, f]) => [n, tensor(f.values, f)]));

/** feedsFor's inputs as onnxruntime-node tensors. */
const ortFeeds = (file: string, batch: number, seq: number): Record<string, ort.Tensor> =>
  Object.fromEntries(
    Object.entries(feedsFor(file, batch, seq)).map(([n, f]) => [
      n,
      f.dtype === 'int64'
        ? new ort.Tensor(
            'int64',
            BigInt64Array.from(f.values, (v) => BigInt(v)),
            f.shape,
          )
        : new ort.Tensor('float32', Float32Array.from(f.values), f.shape),
    ]),
  );

/** onnxruntime-node's session of `file`, as the peer columns open it. */
const ortSessionOf = (file: string) =>
  ort.InferenceSession.create(`${DIR}/${file}`, {
    intraOpNumThreads: ortThreadCount(),
    interOpNumThreads: 1,
    logSeverityLevel: 4,
  });

function rafColumn(file: string, batch: number, seq: number): Impl {
  return {
    setup() {
      const session = loadOnnx(readFileSync(`${DIR}/${file}`), { passes: [fuseEpilogues] });
      const feeds = rafFeeds(file, batch, seq);
      const outputs = (): Tensor[] => {
        const out = session.run(feeds);
        return session.outputNames.map((n) => out[n]!);
      };
      return {
        run: () => {
          for (const t of outputs()) t.dataSync();
        },
        // Read after the timed runs: the graph they used (ort regions form at a signature's second run).
        get note() {
          return `${session.graphFor(feeds).nodes.length} nodes`;
        },
        result: () => readAll(outputs()),
        // Its regions' onnxruntime sessions go with it: a fresh session at the same length builds its own.
        dispose: () => void session.release(),
      };
    },
  };
}

function ortColumn(file: string, batch: number, seq: number): Impl {
  return {
    async setup() {
      const session = await ortSessionOf(file);
      const feeds = ortFeeds(file, batch, seq);
      return {
        run: async () => {
          const out = await session.run(feeds);
          for (const t of Object.values(out)) t.dispose();
        },
        result: async () => {
          const out = await session.run(feeds);
          return asFloat32(session.outputNames.map((n) => Array.from(out[n]!.data as ArrayLike<number>, Number)));
        },
        dispose: () => session.release(),
      };
    },
  };
}

function transformerCase(file: string, batch: number, seq: number): BenchCase {
  const tokens = /^(bert|gpt2)/.test(file);
  return defineCase({
    name: `model ${file.replace(/\.onnx$/, '')}${tokens ? ` b${batch} s${seq}` : ''}`,
    what: `${file} (../shared/onnx-tx)${tokens ? `, batch ${batch}, sequence ${seq}` : ''}: loadOnnx().run with fuseEpilogues against onnxruntime, 1 thread`,
    group: 'graph',
    slow: true,
    unavailable: async () => (existsSync(`${DIR}/${file}`) ? undefined : `../shared/onnx-tx/${file} is not there`),
    impls: { 'raf-op': rafColumn(file, batch, seq), onnxruntime: ortColumn(file, batch, seq) },
  });
}

/** A session of `file` at `batch` that runs any sequence length: raf-op's (loadOnnx's defaults) or onnxruntime's. */
interface LengthSession {
  /** Makes the inputs of `seq` (untimed); `run` then runs at that length. */
  prepare(seq: number): void;
  run(): Promise<void>;
  read(seq: number): Promise<Float32Array[]>;
  dispose(): Promise<void>;
}

async function lengthSession(file: string, batch: number, ortPeer: boolean): Promise<LengthSession> {
  if (!ortPeer) {
    const session = loadOnnx(readFileSync(`${DIR}/${file}`), { passes: [fuseEpilogues] });
    const feeds = (seq: number) => rafFeeds(file, batch, seq);
    let prepared: Record<string, Tensor> = {};
    const outputs = (given: Record<string, Tensor>): Tensor[] => {
      const out = session.run(given);
      return session.outputNames.map((n) => out[n]!);
    };
    return {
      prepare: (seq) => void (prepared = feeds(seq)),
      run: async () => {
        for (const t of outputs(prepared)) t.dataSync();
      },
      read: async (seq) => readAll(outputs(feeds(seq))),
      dispose: async () => void session.release(),
    };
  }
  const session = await ortSessionOf(file);
  const feeds = (seq: number) => ortFeeds(file, batch, seq);
  let prepared: Record<string, ort.Tensor> = {};
  return {
    prepare: (seq) => void (prepared = feeds(seq)),
    run: async () => {
      const out = await session.run(prepared);
      for (const t of Object.values(out)) t.dispose();
    },
    read: async (seq) => {
      const out = await session.run(feeds(seq));
      return asFloat32(session.outputNames.map((n) => Array.from(out[n]!.data as ArrayLike<number>, Number)));
    },
    dispose: () => session.release(),
  };
}

/** How many lengths (seq, seq - 1, …) a session meets before a fresh one takes over. */
const NEW_LENGTHS = 32;

/**
 * Runs at sequence lengths the session has not seen: each timed run takes the next of seq, seq - 1, …, seq - 31,
 * then a fresh session takes over. A session is first run (untimed) at half the length, twice, and once at one more,
 * as an application would have run it before: raf-op's has formed its ort regions there and opened the sessions
 * that lengths differing in constants only share (docs/importing-models.md, Dynamic axes); onnxruntime's has met
 * other shapes. `before` untimed runs at the new length come first: 0 times the first run there, 1 the second.
 * Compare with the steady-state row of the same file, batch and length.
 */
function newLengthColumn(file: string, batch: number, seq: number, ortPeer: boolean, before: number): Impl {
  return {
    async setup() {
      let session: LengthSession | undefined;
      let next = NEW_LENGTHS;
      return {
        // activate, not before: the harness awaits it (onnxruntime's session is made asynchronously).
        async activate() {
          if (next === NEW_LENGTHS) {
            await session?.dispose();
            session = await lengthSession(file, batch, ortPeer);
            const half = Math.floor(seq / 2);
            for (const warm of [half, half, half + 1]) {
              session.prepare(warm);
              await session.run();
            }
            next = 0;
          }
          session!.prepare(seq - next++);
          for (let i = 0; i < before; i++) await session!.run();
        },
        run: () => session!.run(),
        note: before ? 'second run at a new length' : 'first run at a new length',
        // The columns are compared at the same length (`seq`), whichever length their last run took.
        result: () => session!.read(seq),
        dispose: () => session?.dispose(),
      };
    },
  };
}

function newLengthCase(file: string, batch: number, seq: number, before = 0): BenchCase {
  return defineCase({
    name: `model ${file.replace(/\.onnx$/, '')} b${batch} s${seq} new length${before ? ', second run' : ''}`,
    what: `${file} (../shared/onnx-tx), batch ${batch}: the ${before ? 'second' : 'first'} run at a sequence length the session has not seen (${seq - NEW_LENGTHS + 1}–${seq}), after runs at ${Math.floor(seq / 2)} and ${Math.floor(seq / 2) + 1}, against onnxruntime, 1 thread`,
    group: 'graph',
    slow: true,
    unavailable: async () => (existsSync(`${DIR}/${file}`) ? undefined : `../shared/onnx-tx/${file} is not there`),
    impls: {
      'raf-op': newLengthColumn(file, batch, seq, false, before),
      onnxruntime: newLengthColumn(file, batch, seq, true, before),
    },
  });
}

const FILES = ['bert-ts', 'gpt2-ts', 'vit-ts', 'whisper-enc-ts'].flatMap((m) => [
  `${m}.onnx`,
  `${m}-int8.onnx`,
  `${m}-fp16.onnx`,
]);

export default [
  ...FILES.flatMap((f) =>
    /^(bert|gpt2)/.test(f) ? [transformerCase(f, 1, 128), transformerCase(f, 8, 128)] : [transformerCase(f, 1, 0)],
  ),
  newLengthCase('bert-ts.onnx', 1, 128),
  newLengthCase('bert-ts.onnx', 1, 128, 1),
  newLengthCase('gpt2-ts.onnx', 1, 128),
  newLengthCase('gpt2-ts.onnx', 1, 128, 1),
];
