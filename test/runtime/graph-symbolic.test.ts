// Models with dynamic axes run at several sizes: an ONNX model with `dim_param` axes through OnnxSession (its
// signature-independent values converted once and reused at every new length, results against onnxruntime-node and a
// float64 formula written here), and Relay programs with `?` dimensions through loadRelay (parsed once, converted per
// set of sizes, results against float64 formulas written here).

import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadOnnx, loadRelay, tensor, type Tensor } from '../../runtime/src/index.ts';
import { nodeInputs, type Graph } from '../../runtime/src/graph/ir.ts';
import { fuseEpilogues } from '../../runtime/src/graph/index.ts';
import { fusedLoopStats } from '../../runtime/src/graph/fused-cpu.ts';
import { buildModel, type ModelSpec } from '../support/onnx-proto.ts';
import { runOnnxModel, toFloat64, type OracleTensor } from '../support/onnx-oracle.ts';
import { assertAllClose } from '../support/assert.ts';

const D = 4;
const MAX_POS = 16;
/** Deterministic smooth values, different per tensor. */
const wave = (n: number, phase: number) => Array.from({ length: n }, (_, i) => Math.sin(0.71 * i + phase));
const W = wave(D * D, 0.3); // [D, D], read transposed by the model
const P = wave(MAX_POS * D, 1.9); // position table [MAX_POS, D]

/**
 * y = reshape(x · Wᵀ + P[0:seq], [batch, seq·D]) with x: [batch, seq, D]: Wᵀ folds at import from an initializer (a
 * signature-independent value); the position rows and the output shape come from Shape → Gather → Unsqueeze → Slice /
 * Mul → Concat → Reshape, shape arithmetic on the input's dynamic axes.
 */
const spec: ModelSpec = {
  inputs: [{ name: 'x', dtype: 'float32', shape: ['batch', 'seq', D] }],
  outputs: [{ name: 'y', dtype: 'float32', shape: ['batch', 'flat'] }],
  initializers: [
    { name: 'W', dtype: 'float32', shape: [D, D], data: W },
    { name: 'P', dtype: 'float32', shape: [MAX_POS, D], data: P },
    { name: 'zero', dtype: 'int64', shape: [1], data: [0] },
    { name: 'dim', dtype: 'int64', shape: [1], data: [D] },
  ],
  nodes: [
    { op: 'Transpose', inputs: ['W'], outputs: ['Wt'], attrs: { perm: [1, 0] } },
    { op: 'MatMul', inputs: ['x', 'Wt'], outputs: ['xw'] },
    { op: 'Shape', inputs: ['x'], outputs: ['shape'] },
    {
      op: 'Constant',
      inputs: [],
      outputs: ['i0'],
      attrs: { value: { tensor: { dtype: 'int64', shape: [], data: [0] } } },
    },
    {
      op: 'Constant',
      inputs: [],
      outputs: ['i1'],
      attrs: { value: { tensor: { dtype: 'int64', shape: [], data: [1] } } },
    },
    { op: 'Gather', inputs: ['shape', 'i0'], outputs: ['batch'], attrs: { axis: 0 } },
    { op: 'Gather', inputs: ['shape', 'i1'], outputs: ['seq'], attrs: { axis: 0 } },
    { op: 'Unsqueeze', inputs: ['seq', 'zero'], outputs: ['seq1'] },
    { op: 'Unsqueeze', inputs: ['batch', 'zero'], outputs: ['batch1'] },
    { op: 'Slice', inputs: ['P', 'zero', 'seq1', 'zero'], outputs: ['pos'] },
    { op: 'Add', inputs: ['xw', 'pos'], outputs: ['h'] },
    { op: 'Mul', inputs: ['seq1', 'dim'], outputs: ['flat'] },
    { op: 'Concat', inputs: ['batch1', 'flat'], outputs: ['to'], attrs: { axis: 0 } },
    { op: 'Reshape', inputs: ['h', 'to'], outputs: ['y'] },
  ],
};

/** The formula above in float64. */
function reference(x: readonly number[], batch: number, seq: number): number[] {
  const out: number[] = [];
  for (let b = 0; b < batch; b++)
    for (let s = 0; s < seq; s++)
      for (let j = 0; j < D; j++) {
        let acc = P[s * D + j]!;
        for (let k = 0; k < D; k++) acc += x[(b * seq + s) * D + k]! * W[j * D + k]!;
        out.push(acc);
      }
  return out;
}

/** The constant tensors a graph reads (by identity), fused groups included. */
function constTensors(g: Graph, into = new Set<Tensor>()): Set<Tensor> {
  for (const n of g.nodes) {
    if (n.kind === 'fused') constTensors(n.fn, into);
    for (const a of nodeInputs(n)) if (a.kind === 'const') into.add(a.value);
  }
  return into;
}

const oracle = (t: Tensor): OracleTensor => ({
  dtype: 'float32',
  shape: [...t.shape],
  data: Float32Array.from(t.dataSync() as Float32Array),
});

describe('ONNX dynamic axes', () => {
  it('runs at three sequence lengths and two batches, converting the signature-independent part once', async () => {
    const bytes = buildModel(spec);
    const session = loadOnnx(bytes);
    const graphs: Graph[] = [];
    let reusedBefore = 0;
    for (const [batch, seq] of [
      [1, 3],
      [2, 5],
      [1, 9],
      [2, 3],
    ] as const) {
      const values = wave(batch * seq * D, batch + seq);
      const x = tensor(values, { dtype: 'float32', shape: [batch, seq, D] });
      const y = session.run({ x }).y!;
      expect([...y.shape]).toEqual([batch, seq * D]);
      const got = Array.from(y.dataSync());
      assertAllClose(got, reference(values, batch, seq), { atol: 1e-5, rtol: 1e-5 }, `[${batch}, ${seq}] vs float64`);
      const [theirs] = await runOnnxModel(bytes, { x: oracle(x) });
      assertAllClose(got, Array.from(toFloat64(theirs!)), { atol: 1e-5, rtol: 1e-5 }, `[${batch}, ${seq}] vs ort`);
      graphs.push(session.graphFor({ x }));
      // Every conversion after the first takes W, P, the Constant nodes and the transposed Wᵀ from the first one.
      const reused = session.stats.reusedNodes - reusedBefore;
      reusedBefore = session.stats.reusedNodes;
      expect(reused).toBe(graphs.length === 1 ? 0 : 3); // Transpose and the two Constant nodes
    }
    expect(session.stats.specializations).toBe(4);
    // The folded Wᵀ is one tensor shared by every graph (so is its wasm copy); the position rows are per length.
    const shared = [...constTensors(graphs[0]!)].filter((t) => graphs.every((g) => constTensors(g).has(t)));
    expect(shared.map((t) => [...t.shape])).toContainEqual([D, D]);
    // A size seen before reuses its graph.
    const again = session.graphFor({ x: tensor(wave(5 * 2 * D, 0), { dtype: 'float32', shape: [2, 5, D] }) });
    expect(again).toBe(graphs[1]);
    expect(session.stats.specializations).toBe(4);
  });

  const bert = resolve(dirname(fileURLToPath(import.meta.url)), '../../../shared/onnx-tx/bert-ts.onnx');
  it.runIf(existsSync(bert))('bert-ts.onnx at three sequence lengths matches onnxruntime', async () => {
    const bytes = readFileSync(bert);
    const session = loadOnnx(bytes);
    for (const seq of [4, 7, 11]) {
      const n = 2 * seq;
      const ids = Array.from({ length: n }, (_, i) => (i * 37 + 11) % 1000);
      const mask = Array.from({ length: n }, (_, i) => (i >= seq && i % seq >= seq - 2 ? 0 : 1));
      const feeds = {
        input_ids: tensor(ids, { dtype: 'int64', shape: [2, seq] }),
        attention_mask: tensor(mask, { dtype: 'int64', shape: [2, seq] }),
        token_type_ids: tensor(new Array(n).fill(0), { dtype: 'int64', shape: [2, seq] }),
      };
      const ours = session.run(feeds);
      const int64 = (t: Tensor): OracleTensor => ({
        dtype: 'int64',
        shape: [...t.shape],
        data: BigInt64Array.from(Array.from(t.dataSync()), BigInt),
      });
      const theirs = await runOnnxModel(
        bytes,
        Object.fromEntries(Object.entries(feeds).map(([k, t]) => [k, int64(t)])),
        session.outputNames as string[],
      );
      session.outputNames.forEach((name, i) => {
        const b = Array.from(toFloat64(theirs[i]!));
        assertAllClose(Array.from(ours[name]!.dataSync()), b, { atol: 1e-4, rtol: 1e-4 }, `${name} at seq ${seq}`);
      });
    }
    expect(session.stats.specializations).toBe(3);
    // The second and third conversions took every weight-only value from the first instead of converting it again.
    expect(session.stats.reusedNodes).toBeGreaterThan(0);
  });
});

describe('first run at a new length', () => {
  const gpt2 = resolve(dirname(fileURLToPath(import.meta.url)), '../../../shared/onnx-tx/gpt2-ts.onnx');
  it.runIf(existsSync(gpt2))(
    'gpt2-ts.onnx with fused epilogues at three lengths matches onnxruntime, compiling its fused loops once',
    async () => {
      const bytes = readFileSync(gpt2);
      const session = loadOnnx(bytes, { passes: [fuseEpilogues] });
      let compiledAfterFirst = -1;
      let reusedBefore = fusedLoopStats().reused;
      for (const seq of [3, 6, 10]) {
        const ids = Array.from({ length: seq }, (_, i) => (i * 53 + 7) % 1000);
        const feeds: Record<string, Tensor> = {};
        for (const name of session.inputNames)
          feeds[name] = tensor(/mask/.test(name) ? new Array(seq).fill(1) : ids, { dtype: 'int64', shape: [1, seq] });
        const ours = session.run(feeds);
        const theirs = await runOnnxModel(
          bytes,
          Object.fromEntries(
            Object.entries(feeds).map(([k, t]) => [
              k,
              { dtype: 'int64', shape: [...t.shape], data: BigInt64Array.from(Array.from(t.dataSync()), BigInt) },
            ]),
          ),
          session.outputNames as string[],
        );
        session.outputNames.forEach((name, i) => {
          const b = Array.from(toFloat64(theirs[i]!));
          assertAllClose(Array.from(ours[name]!.dataSync()), b, { atol: 1e-4, rtol: 1e-4 }, `${name} at seq ${seq}`);
        });
        // The fused groups' loops read their extent as an argument: a new length compiles none, it reuses them.
        const stats = fusedLoopStats();
        if (compiledAfterFirst < 0) compiledAfterFirst = stats.compiled;
        else {
          expect(stats.compiled).toBe(compiledAfterFirst);
          expect(stats.reused).toBeGreaterThan(reusedBefore);
        }
        reusedBefore = stats.reused;
      }
      expect(session.stats.specializations).toBe(3);
    },
  );
});

describe('Relay ? dimensions', () => {
  it('a program with (?, ?) parameters runs at two sizes (held-out style: TVM plan_devices dynamic test)', () => {
    const program = loadRelay(`#[version = "0.0.5"]
def @main(%x0: Tensor[(?, ?), float32], %x1: Tensor[(?, ?), float32]) {
  add(%x0, %x1)
}`);
    for (const [r, c] of [
      [2, 3],
      [5, 1],
    ] as const) {
      const a = wave(r * c, r);
      const b = wave(r * c, c + 0.5);
      const out = program.run(
        tensor(a, { dtype: 'float32', shape: [r, c] }),
        tensor(b, { dtype: 'float32', shape: [r, c] }),
      ) as Tensor;
      expect([...out.shape]).toEqual([r, c]);
      assertAllClose(
        Array.from(out.dataSync()),
        a.map((v, i) => v + b[i]!),
        { atol: 1e-6, rtol: 1e-6 },
        `${r}x${c}`,
      );
    }
    expect(program.specializations).toBe(2);
  });

  it('a dense layer over a ? batch: shapes follow the size given, graphs are reused per size', () => {
    const program = loadRelay(`#[version = "0.0.5"]
def @main(%x: Tensor[(?, 3), float32], %w: Tensor[(2, 3), float32]) {
  %0 = nn.dense(%x, %w);
  %1 = nn.relu(%0);
  sum(%1, axis=[1])
}`);
    const w = wave(6, 0.2);
    const run = (n: number) => {
      const x = wave(n * 3, n);
      const out = program.run(
        tensor(x, { dtype: 'float32', shape: [n, 3] }),
        tensor(w, { dtype: 'float32', shape: [2, 3] }),
      ) as Tensor;
      const want = Array.from({ length: n }, (_, i) => {
        let s = 0;
        for (let u = 0; u < 2; u++) {
          let d = 0;
          for (let k = 0; k < 3; k++) d += x[i * 3 + k]! * w[u * 3 + k]!;
          s += Math.max(0, d);
        }
        return s;
      });
      expect([...out.shape]).toEqual([n]);
      assertAllClose(Array.from(out.dataSync()), want, { atol: 1e-5, rtol: 1e-5 }, `batch ${n}`);
    };
    run(4);
    run(7);
    run(4);
    expect(program.specializations).toBe(2);
    expect(() =>
      program.run(tensor([1, 2], { dtype: 'float32', shape: [1, 2] }), tensor(w, { shape: [2, 3] })),
    ).toThrow(/FromRelay 2:\d+: parameter %x is \(\?, 3\), the tensor given for it is/);
  });
});
