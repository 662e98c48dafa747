// Writes the float initializers of ../shared/onnx-tx/bert-ts.onnx to a safetensors file (default
// /tmp/bert-ts-initializers.safetensors) for bert_finetune.py, which has no ONNX reader: the only raf-op code used is
// the ONNX decoder and the safetensors writer; the NumPy reference computes everything else on its own.
//   npx tsx scripts/train-reference/bert_dump_initializers.ts [out.safetensors]

import { readFileSync, writeFileSync } from 'node:fs';
import { decodeOnnx } from '../../runtime/src/graph/onnx/proto.ts';
import { constTensor } from '../../runtime/src/graph/onnx/values.ts';
import { train, type Tensor } from '../../runtime/src/index.ts';

const out = process.argv[2] ?? '/tmp/bert-ts-initializers.safetensors';
const m = decodeOnnx(new Uint8Array(readFileSync(new URL('../../../shared/onnx-tx/bert-ts.onnx', import.meta.url))));
const tensors: Record<string, Tensor> = {};
for (const t of m.initializers) if (t.dtype === 'float32') tensors[t.name] = constTensor(t);
writeFileSync(out, await train.saveSafetensors(tensors));
console.log(`${Object.keys(tensors).length} initializers -> ${out}`);
