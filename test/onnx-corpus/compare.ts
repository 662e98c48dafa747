// Runs one corpus model in raf-op (OnnxSession) and in onnxruntime-node on the same random inputs and compares outputs.

import * as ort from 'onnxruntime-node';
import { loadOnnx, randomUniform, tensor, type Tensor } from '../../runtime/src/index.ts';
import { decodeOnnx, isOnnxGraph, type OnnxGraph } from '../../runtime/src/graph/onnx/proto.ts';
import type { CorpusModel } from './fetch.ts';

export interface Comparison {
  readonly ops: string[];
  readonly opset: number;
  /** The first refusal, when the model does not import. */
  readonly error: string | null;
  /** max |ours - theirs| / (1 + |theirs|) over every output element. */
  readonly maxErr: number;
  readonly outputs: number;
}

/** Every op type of a graph and its subgraphs. */
export function opsOf(g: OnnxGraph, into = new Set<string>()): Set<string> {
  for (const n of g.nodes) {
    into.add(n.opType);
    for (const a of n.attrs) {
      if (isOnnxGraph(a.value)) opsOf(a.value, into);
      else if (Array.isArray(a.value)) for (const s of a.value) if (isOnnxGraph(s)) opsOf(s, into);
    }
  }
  return into;
}

/** Random feeds for the model's inputs: float inputs uniform in the model's domain, int inputs from `constants`. */
export function feedsFor(m: CorpusModel, bytes: Uint8Array, seed = 1): Record<string, Tensor> {
  const model = decodeOnnx(bytes);
  const inits = new Set(model.initializers.map((t) => t.name));
  const feeds: Record<string, Tensor> = {};
  model.inputs.forEach((input, i) => {
    if (inits.has(input.name)) return;
    const fixed = m.constants?.[input.name];
    const shape = m.shapes?.[input.name] ?? input.shape;
    if (fixed !== undefined) {
      feeds[input.name] = tensor([fixed], { dtype: 'int32', shape: (shape ?? []) as number[] });
      return;
    }
    if (!shape || shape.some((d) => typeof d !== 'number'))
      throw new Error(`${m.name}: input '${input.name}' needs a shape in models.json`);
    const [low, high] = m.domain ?? [-1, 1];
    feeds[input.name] = randomUniform(shape as number[], { seed: seed + i, low, high });
  });
  return feeds;
}

function toOrt(name: string, t: Tensor, dtype: string | null): ort.Tensor {
  const data = t.dataSync() as ArrayLike<number>;
  if (dtype === 'int64')
    return new ort.Tensor(
      'int64',
      BigInt64Array.from(Array.from(data), (v) => BigInt(v)),
      [...t.shape],
    );
  return new ort.Tensor('float32', Float32Array.from(data), [...t.shape]);
}

export async function ortSession(bytes: Uint8Array, threads = 1): Promise<ort.InferenceSession> {
  return ort.InferenceSession.create(bytes, {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    logSeverityLevel: 3,
  });
}

export function ortFeeds(bytes: Uint8Array, feeds: Record<string, Tensor>): Record<string, ort.Tensor> {
  const model = decodeOnnx(bytes);
  return Object.fromEntries(
    Object.entries(feeds).map(([n, t]) => [n, toOrt(n, t, model.inputs.find((i) => i.name === n)?.dtype ?? null)]),
  );
}

export async function compareModel(m: CorpusModel, bytes: Uint8Array): Promise<Comparison> {
  const model = decodeOnnx(bytes);
  const ops = [...opsOf(model)].sort();
  const feeds = feedsFor(m, bytes);
  let ours: Record<string, Tensor>;
  try {
    // raf-op's own kernels: no ort regions, which would hand whole heavy parts to onnxruntime, the reference here
    // (test/runtime/ort-regions.test.ts compares the corpus with regions).
    ours = loadOnnx(model, { ortRegions: false }).run(feeds);
  } catch (e) {
    return { ops, opset: model.opset, error: (e as Error).message, maxErr: NaN, outputs: 0 };
  }
  const session = await ortSession(bytes);
  const theirs = await session.run(ortFeeds(bytes, feeds));
  let maxErr = 0;
  for (const name of session.outputNames) {
    const a = ours[name];
    const b = theirs[name]!;
    if (!a) throw new Error(`${m.name}: raf-op gave no output '${name}'`);
    if (JSON.stringify([...a.shape]) !== JSON.stringify([...b.dims]))
      throw new Error(`${m.name}: output '${name}' has shape [${a.shape}], onnxruntime's is [${b.dims}]`);
    const x = a.dataSync() as ArrayLike<number>;
    const y = b.data as ArrayLike<number | bigint>;
    for (let i = 0; i < x.length; i++) {
      const r = Number(y[i]!);
      const e = Math.abs(x[i]! - r) / (1 + Math.abs(r));
      if (!(e <= maxErr)) maxErr = Number.isNaN(e) ? Infinity : e;
    }
  }
  return { ops, opset: model.opset, error: null, maxErr, outputs: session.outputNames.length };
}
