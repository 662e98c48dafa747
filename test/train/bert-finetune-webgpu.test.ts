// Fine-tuning BERT imported from ONNX on WebGPU: ../shared/onnx-tx/bert-ts.onnx through train.onnxParams with
// `device: webgpu` (parameters, optimizer state and batches on the GPU), the linear head, softmax cross-entropy and
// Adam of bert-finetune.test.ts, compiled once with compileTrainStep; every step's loss against NumPy's float64 run
// (test/fixtures/train/bert-finetune.json) within 1e-4 relative, and the final parameters' sums of squares. Skipped
// without a WebGPU adapter (a failure on CI or with RAF_REQUIRE_WEBGPU=1).

import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { device, ops, tensor, train, type Tensor } from '../../runtime/src/index.ts';
import {
  gpuUnavailableReason,
  initWebGpu,
  releaseGpu,
  type GpuContext,
} from '../../runtime/src/dialects/webgpu/index.ts';
import { REQUIRE_WEBGPU } from '../support/webgpu-cases.ts';

const fixture = JSON.parse(readFileSync(new URL('../fixtures/train/bert-finetune.json', import.meta.url), 'utf8'));
const bytes = new Uint8Array(readFileSync(new URL('../../../shared/onnx-tx/bert-ts.onnx', import.meta.url)));

type Batch = { input_ids: number[][]; attention_mask: number[][]; token_type_ids: number[][]; labels: number[] };

let gpu: GpuContext | null = null;
beforeAll(async () => {
  gpu = await initWebGpu();
});
afterAll(async () => {
  await releaseGpu();
});

describe('fine-tuning BERT imported from ONNX on WebGPU, Adam, against NumPy float64', () => {
  it('float32: every step loss within 1e-4 relative, the parameters on the GPU throughout', async (ctx) => {
    if (!gpu) {
      if (REQUIRE_WEBGPU) throw new Error(`WebGPU required but unavailable: ${gpuUnavailableReason()}`);
      ctx.skip(`WebGPU unavailable: ${gpuUnavailableReason()}`);
      return;
    }
    const model = train.onnxParams(bytes, { freeze: fixture.config.frozen, device: device('webgpu') });
    expect(Object.values(model.params).every((t) => t.device.kind === 'webgpu')).toBe(true);
    const head = {
      'head.weight': await tensor(fixture.head['head.weight'], { dtype: 'float32', shape: [2, 128] }).to('webgpu'),
      'head.bias': await tensor(fixture.head['head.bias'], { dtype: 'float32', shape: [2] }).to('webgpu'),
    };
    const opt = train.adam({ ...model.params, ...head }, { lr: fixture.config.lr });
    const first = await tensor(0, { dtype: 'int32' }).to('webgpu');
    const lossFn: train.BatchLossFn = (p, ids, mask, types, y) => {
      const out = model.forward(p, { input_ids: ids!, attention_mask: mask!, token_type_ids: types! });
      const cls = ops.take(out[model.outputNames[0]!]!, first, 1); // [batch, 128]
      const logp = ops.logSoftmax(ops.dense(cls, p['head.weight']!, p['head.bias']!), -1);
      return ops.negative(ops.mean(ops.sum(ops.multiply(y!, logp), [1])));
    };
    const batches: Tensor[][] = [];
    for (const b of fixture.batches as Batch[]) {
      const ints = (rows: number[][]) => tensor(rows, { dtype: 'int32' }).to('webgpu');
      const onehot = tensor(
        b.labels.map((l) => [l === 0 ? 1 : 0, l === 1 ? 1 : 0]),
        { dtype: 'float32' },
      ).to('webgpu');
      batches.push(await Promise.all([ints(b.input_ids), ints(b.attention_mask), ints(b.token_type_ids), onehot]));
    }
    const step = train.compileTrainStep(lossFn, opt, batches[0]!);
    const ref = fixture.losses as number[];
    for (let k = 0; k < fixture.config.steps; k++) {
      const loss = step(batches[k % batches.length]!);
      expect(loss.device.kind).toBe('webgpu');
      const got = (await loss.data())[0]!;
      expect(Math.abs(got - ref[k]!) / ref[k]!, `step ${k + 1}: ${got} vs ${ref[k]}`).toBeLessThan(1e-4);
      loss.dispose();
    }
    for (const [name, want] of Object.entries(fixture.final as Record<string, { sumsq: number }>)) {
      const p = opt.params[name]!;
      expect(p.device.kind, name).toBe('webgpu');
      let sumsq = 0;
      for (const v of await p.data()) sumsq += v * v;
      expect(Math.abs(sumsq - want.sumsq) / want.sumsq, name).toBeLessThan(1e-4);
    }
    opt.dispose();
    for (const b of batches) for (const t of b) t.dispose();
    first.dispose();
  }, 180_000);
});
