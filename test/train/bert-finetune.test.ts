// Fine-tuning a model imported from ONNX: ../shared/onnx-tx/bert-ts.onnx through train.onnxParams (its float
// initializers trainable, the word embeddings and the pooler frozen), a linear head on the first token's last hidden
// state, softmax cross-entropy, Adam, compiled once with compileTrainStep and run on the fixture's batches; every
// step's loss against NumPy's float64 run of the same model, weights, head and batches
// (test/fixtures/train/bert-finetune.json, by scripts/train-reference/bert_finetune.py, which has its own BERT and
// autodiff), and the final parameters' digests.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ops, tensor, train, type Tensor } from '../../runtime/src/index.ts';
import { fromOnnx } from '../../runtime/src/graph/frontends/from-onnx.ts';
import { buildModel } from '../support/onnx-proto.ts';

const fixture = JSON.parse(readFileSync(new URL('../fixtures/train/bert-finetune.json', import.meta.url), 'utf8'));
const bytes = new Uint8Array(readFileSync(new URL('../../../shared/onnx-tx/bert-ts.onnx', import.meta.url)));

type Batch = { input_ids: number[][]; attention_mask: number[][]; token_type_ids: number[][]; labels: number[] };

function batchTensors(b: Batch, dtype: 'float32' | 'float64' = 'float32'): Tensor[] {
  const ints = (rows: number[][]) => tensor(rows, { dtype: 'int32' });
  // Labels one-hot, so the loss is -mean(sum(onehot * log_softmax(logits))).
  const onehot = tensor(
    b.labels.map((l) => [l === 0 ? 1 : 0, l === 1 ? 1 : 0]),
    { dtype },
  );
  return [ints(b.input_ids), ints(b.attention_mask), ints(b.token_type_ids), onehot];
}

/** The largest |a - b| / |b| over two lists. */
function maxRel(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length);
  let worst = 0;
  for (let i = 0; i < b.length; i++)
    worst = Math.max(worst, Math.abs(a[i]! - b[i]!) / Math.max(Math.abs(b[i]!), 1e-12));
  return worst;
}

describe('fine-tuning BERT imported from ONNX (bert-ts.onnx), Adam, against NumPy float64', () => {
  /** Trains the fixture's 50 steps in `dtype`; returns every step's loss and the optimizer (its params trained). */
  function fineTune(dtype: 'float32' | 'float64') {
    const model = train.onnxParams(bytes, { freeze: fixture.config.frozen, dtype });
    expect(model.frozen).toEqual(fixture.config.frozen);
    expect(Object.values(model.params).every((t) => t.dtype === dtype)).toBe(true);
    const head = {
      'head.weight': tensor(fixture.head['head.weight'], { dtype, shape: [2, 128] }),
      'head.bias': tensor(fixture.head['head.bias'], { dtype, shape: [2] }),
    };
    const opt = train.adam({ ...model.params, ...head }, { lr: fixture.config.lr });
    const lossFn: train.BatchLossFn = (p, ids, mask, types, y) => {
      const out = model.forward(p, { input_ids: ids!, attention_mask: mask!, token_type_ids: types! });
      const last = out[model.outputNames[0]!]!; // [batch, seq, 128]
      const first = ops.take(last, tensor(0, { dtype: 'int32' }), 1); // [batch, 128]
      const logp = ops.logSoftmax(ops.dense(first, p['head.weight']!, p['head.bias']!), -1);
      return ops.negative(ops.mean(ops.sum(ops.multiply(y!, logp), [1])));
    };
    const batches = (fixture.batches as Batch[]).map((b) => batchTensors(b, dtype));
    const step = train.compileTrainStep(lossFn, opt, batches[0]!);
    const losses: number[] = [];
    for (let k = 0; k < fixture.config.steps; k++) {
      const loss = step(batches[k % batches.length]!);
      expect(loss.dtype).toBe(dtype);
      losses.push(loss.item());
      loss.dispose();
    }
    for (const b of batches) for (const t of b) t.dispose();
    return { losses, opt };
  }

  /**
   * Every step's loss within `lossTol` relative of NumPy's; each final parameter's first 8 values within `firstTol`
   * and its sum of squares within `lossTol`.
   */
  function checkAgainstNumPy(dtype: 'float32' | 'float64', lossTol: number, firstTol: number): void {
    const { losses, opt } = fineTune(dtype);
    const ref = fixture.losses as number[];
    if (process.env.RAF_PRINT) console.log(`max rel loss (${dtype})`, maxRel(losses, ref));
    for (let k = 0; k < ref.length; k++)
      expect(Math.abs(losses[k]! - ref[k]!) / ref[k]!, `step ${k + 1}: ${losses[k]} vs ${ref[k]}`).toBeLessThan(
        lossTol,
      );
    for (const [name, want] of Object.entries(fixture.final as Record<string, { first: number[]; sumsq: number }>)) {
      const data = opt.params[name]!.dataSync();
      expect(data).toBeInstanceOf(dtype === 'float64' ? Float64Array : Float32Array);
      const got = Float64Array.from(data as ArrayLike<number>);
      expect(maxRel(got.slice(0, 8), want.first), name).toBeLessThan(firstTol);
      let sumsq = 0;
      for (const v of got) sumsq += v * v;
      expect(Math.abs(sumsq - want.sumsq) / want.sumsq, name).toBeLessThan(lossTol);
    }
    opt.dispose();
  }

  it('float32 on the CPU: every step loss within 1e-4 relative, final parameters close', () => {
    // The run trains: the last loss is well below the first.
    const ref = fixture.losses as number[];
    expect(ref[ref.length - 1]!).toBeLessThan(ref[0]! / 3);
    checkAgainstNumPy('float32', 1e-4, 1e-3);
  }, 60_000);

  it('float64 on the CPU (onnxParams dtype float64): every step loss and the final parameters within 1e-9', () => {
    checkAgainstNumPy('float64', 1e-9, 1e-9);
  }, 120_000);

  it('refuses a frozen name that is not an initializer, and a trainable initializer that does not reach the loss', () => {
    expect(() => train.onnxParams(bytes, { dtype: 'float16' as 'float32' })).toThrow(
      /train\.onnxParams: dtype: is 'float16'/,
    );
    expect(() => train.onnxParams(bytes, { freeze: ['m.embeddings.word_embeddings.weight', 'nope'] })).toThrow(
      /train\.onnxParams: freeze: names 'nope', which is not an initializer of the model/,
    );
    // A predicate freezes by name; the pooler's weight is left trainable, and this loss never reads the pooler.
    const model = train.onnxParams(bytes, { freeze: (name) => name.includes('word_embeddings') });
    expect(model.frozen).toEqual(['m.embeddings.word_embeddings.weight']);
    expect(Object.keys(model.params)).toContain('m.pooler.dense.weight');
    const [ids, mask, types] = batchTensors(fixture.batches[0]);
    const lossFn: train.BatchLossFn = (p, i, m, t) => {
      const out = model.forward(p, { input_ids: i!, attention_mask: m!, token_type_ids: t! });
      return ops.mean(out[model.outputNames[0]!]!);
    };
    expect(() => train.compileLossAndGrads(lossFn, model.params, [ids!, mask!, types!])).toThrow(
      /parameter 'm\.pooler\.dense\.weight': does not reach the loss/,
    );
    expect(() => model.forward(model.params, { input_ids: ids!, attention_mask: mask! })).toThrow(
      /train\.onnxParams: forward: missing input\(s\) 'token_type_ids'/,
    );
  });
});

describe('train.onnxParams on a small model', () => {
  // y = (x·W + b)[:, idx] with idx = [1, 0] an int64 initializer; loss = mean(y²).
  const small = buildModel({
    nodes: [
      { op: 'MatMul', inputs: ['x', 'W'], outputs: ['h'] },
      { op: 'Add', inputs: ['h', 'b'], outputs: ['z'] },
      { op: 'Gather', inputs: ['z', 'idx'], outputs: ['y'], attrs: { axis: 1 } },
    ],
    inputs: [{ name: 'x', dtype: 'float32', shape: [2, 3] }],
    outputs: [{ name: 'y' }],
    initializers: [
      { name: 'W', dtype: 'float32', shape: [3, 2], data: [0.5, -1, 0.25, 2, -0.75, 1.5] },
      { name: 'b', dtype: 'float32', shape: [2], data: [0.1, -0.2] },
      { name: 'idx', dtype: 'int64', shape: [2], data: [1, 0] },
    ],
  });
  const xs = [
    [1, 2, -1],
    [0.5, -1.5, 2],
  ];

  it('trains the float initializers (not the int64 one): one SGD step equals the hand-written gradient', () => {
    const m = train.onnxParams(small);
    expect(Object.keys(m.params)).toEqual(['W', 'b']);
    const W = Array.from(m.params.W!.dataSync());
    const b = Array.from(m.params.b!.dataSync());
    const opt = train.sgd(m.params, { lr: 0.1 });
    const x = tensor(xs, { dtype: 'float32' });
    const loss = train.trainStep((p) => {
      const y = m.forward(p, { x }).y!;
      return ops.mean(ops.multiply(y, y));
    }, opt);
    // Reference in float64: z = xW + b, loss = mean(z²) (the gather only permutes columns), dz = 2z/4.
    const z = xs.map((r) => [0, 1].map((j) => r[0]! * W[j]! + r[1]! * W[2 + j]! + r[2]! * W[4 + j]! + b[j]!));
    const want = z.flat().reduce((s, v) => s + v * v, 0) / 4;
    expect(Math.abs(loss.item() - want) / want).toBeLessThan(1e-6);
    const dW = [0, 1, 2].flatMap((i) => [0, 1].map((j) => xs[0]![i]! * z[0]![j]! * 0.5 + xs[1]![i]! * z[1]![j]! * 0.5));
    const db = [0, 1].map((j) => (z[0]![j]! + z[1]![j]!) * 0.5);
    const newW = Array.from(opt.params.W!.dataSync());
    const newB = Array.from(opt.params.b!.dataSync());
    W.forEach((w, k) => expect(newW[k]!).toBeCloseTo(w - 0.1 * dW[k]!, 5));
    b.forEach((v, k) => expect(newB[k]!).toBeCloseTo(v - 0.1 * db[k]!, 5));
    loss.dispose();
    opt.dispose();
  });

  it('freezes by predicate, and refuses non-float or unknown initializers as graph inputs', () => {
    const m = train.onnxParams(small, { freeze: (name) => name === 'b' });
    expect(Object.keys(m.params)).toEqual(['W']);
    expect(m.frozen).toEqual(['b']);
    expect(() => train.onnxParams(small, { freeze: ['W', 'b'] })).toThrow(/every float initializer is frozen/);
    expect(() => fromOnnx(small, { initializersAsInputs: ['idx'] })).toThrow(
      /initializer 'idx' is int64; only float initializers can be graph inputs/,
    );
    expect(() => fromOnnx(small, { initializersAsInputs: ['V'] })).toThrow(/no initializer named 'V'/);
  });
});
