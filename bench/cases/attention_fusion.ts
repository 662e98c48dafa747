// Case: scaled dot-product attention as ONNX exporters spell it out (q·kᵀ scaled, a -inf mask from Where added,
// softmax, the IsNaN guard, ·v) at BERT-base's per-head shape, batch 8, 12 heads, sequence 128, head size 64, graph
// mode: the traced graph (each op its own kernel) against recognizeAttention's one attention call (blocked wasm pass).
// And the float32 BERT and GPT-2 files of ../shared/onnx-tx at batch 8, sequence 128 under fuseEpilogues, with
// attention recognized (its default) against `attention: false`, in the same run.

import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadOnnx, ops, tensor, type Tensor } from '../../runtime/src/index.ts';
import { execute, fuseEpilogues, recognizeAttention, trace, type Graph } from '../../runtime/src/graph/index.ts';
import { defineCase, type BenchCase, type Impl } from '../case.ts';
import { data } from '../peers.ts';
import { input, readAll } from '../raf.ts';

const [B, H, S, D] = [8, 12, 128, 64];
const f32 = { dtype: 'float32' as const };
const spelled = (q: Tensor, k: Tensor, v: Tensor, c: Tensor): Tensor[] => {
  const s = ops.multiply(ops.matmul(q, ops.transpose(k, [0, 1, 3, 2])), 1 / Math.sqrt(D));
  const m = ops.where(c, tensor([0], { shape: [1], ...f32 }), tensor([-Infinity], { shape: [1], ...f32 }));
  const p = ops.softmax(ops.add(s, m), -1);
  return [ops.matmul(ops.where(ops.isnan(p), 0, p), v)];
};

let graphs: { fused: Graph; unfused: Graph; inputs: Tensor[] } | undefined;
const get = () => {
  if (graphs) return graphs;
  const shape = [B, H, S, D];
  const unfused = trace(spelled, [
    { name: 'q', shape, ...f32 },
    { name: 'k', shape, ...f32 },
    { name: 'v', shape, ...f32 },
    { name: 'c', shape: [B, 1, 1, S], dtype: 'bool' },
  ]);
  // The last 16 keys of every other batch row are padding.
  const mask = tensor(
    Array.from({ length: B * S }, (_, i) => Math.floor(i / S) % 2 === 0 || i % S < S - 16),
    { shape: [B, 1, 1, S], dtype: 'bool' },
  );
  const n = B * H * S * D;
  const inputs = [input(shape, data(n, 1)), input(shape, data(n, 2)), input(shape, data(n, 3)), mask];
  return (graphs = { fused: recognizeAttention(unfused), unfused, inputs });
};

const variant = (which: 'fused' | 'unfused'): Impl => ({
  setup() {
    const { inputs } = get();
    const g = get()[which];
    return {
      run: () => {
        for (const t of execute(g, inputs)) t.dataSync();
      },
      note: `${g.nodes.length} calls`,
      result: () => readAll(execute(g, inputs)),
    };
  },
});

const DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../../shared/onnx-tx');

function modelColumn(file: string, attention: boolean): Impl {
  return {
    setup() {
      const session = loadOnnx(readFileSync(`${DIR}/${file}`), {
        passes: [(g) => fuseEpilogues(g, { attention })],
        ortRegions: false, // raf-op's kernels on both sides: a region would take the matmuls before the pass sees them
      });
      const feeds: Record<string, Tensor> = {};
      for (const input of session.model.inputs.filter((i) => session.inputNames.includes(i.name))) {
        let symbolic = 0;
        const shape = (input.shape ?? []).map((d) => (typeof d === 'number' ? d : symbolic++ === 0 ? 8 : 128));
        const n = shape.reduce((a, b) => a * b, 1);
        const values = Array.from({ length: n }, (_, i) =>
          /mask/.test(input.name) ? 1 : /type/.test(input.name) ? 0 : (i * 37 + 11) % 1000,
        );
        feeds[input.name] = tensor(values, { dtype: 'int64', shape });
      }
      const outputs = () => {
        const out = session.run(feeds);
        return session.outputNames.map((n) => out[n]!);
      };
      return {
        run: () => {
          for (const t of outputs()) t.dataSync();
        },
        note: `${session.graphFor(feeds).nodes.length} nodes`,
        result: () => readAll(outputs()),
      };
    },
  };
}

const modelCase = (file: string): BenchCase =>
  defineCase({
    name: `attention fusion ${file.replace(/\.onnx$/, '')} b8 s128`,
    what: `${file} (../shared/onnx-tx), batch 8, sequence 128: loadOnnx().run with fuseEpilogues, attention recognized against left spelled out`,
    group: 'graph',
    slow: true,
    unavailable: async () => (existsSync(`${DIR}/${file}`) ? undefined : `../shared/onnx-tx/${file} is not there`),
    impls: { 'raf-op': modelColumn(file, true), 'raf-op unfused': modelColumn(file, false) },
  });

const kernelCase = defineCase({
  name: 'attention fusion · cpu',
  what: `exporter-spelled attention, q/k/v [${B}, ${H}, ${S}, ${D}] float32 with a padding mask: recognizeAttention's attention call against the traced graph`,
  group: 'graph',
  impls: { 'raf-op': variant('fused'), 'raf-op unfused': variant('unfused') },
});

export default [kernelCase, modelCase('bert-ts.onnx'), modelCase('gpt2-ts.onnx')];
