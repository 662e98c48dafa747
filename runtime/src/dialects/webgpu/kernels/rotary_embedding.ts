// WebGPU kernel of raf.op.rotary_embedding (specs/nn/rotary_embedding.yaml): an invocation per output element reads
// its pair (the other half, or the adjacent feature when interleaved) and the caches' row for its position, as the
// CPU kernel does; features past rotary_dim are copied. A position outside the caches gives 0 (the CPU refuses it).

import type { RotaryEmbeddingKernel } from '../../../generated/bridge/rotary_embedding.ts';
import { rotaryLayout } from '../../../ops/rotary_embedding.rule.ts';
import { sizeOf } from '../../../shape.ts';
import { requireGpu } from '../dialect.ts';
import {
  allFloat32,
  FLAT_INDEX,
  launch,
  MAIN_1D,
  Params,
  paramsWgsl,
  pipelineKey,
  type WebGpuBuilder,
} from '../kernel.ts';
import { allocGpu, gpuElementType } from '../storage.ts';

// Words: elements, head size, heads, sequence, rot, 4-D (0/1), interleaved (0/1), cache rows (of rot / 2 values).
const WORDS = 8;

const source = (positions: boolean) => `@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> cos_cache: array<f32>;
@group(0) @binding(2) var<storage, read> sin_cache: array<f32>;
${positions ? '@group(0) @binding(3) var<storage, read> position_ids: array<i32>;' : ''}
@group(0) @binding(${positions ? 4 : 3}) var<storage, read_write> out: array<f32>;
${paramsWgsl(positions ? 5 : 4, WORDS)}
${MAIN_1D} {
  ${FLAT_INDEX}
  if (i >= pu(0u)) { return; }
  let size = pu(1u);
  let heads = pu(2u);
  let seq = pu(3u);
  let rot = pu(4u);
  let d = i % size;
  if (d >= rot) { out[i] = x[i]; return; }
  // (batch, heads, seq, size) or (batch, seq, heads · size): the token's batch and sequence position.
  var s: u32;
  var b: u32;
  if (pu(5u) == 1u) { s = (i / size) % seq; b = i / (size * seq * heads); }
  else { s = (i / (size * heads)) % seq; b = i / (size * heads * seq); }
  var row = i32(b * seq + s);
  ${positions ? 'row = position_ids[b * seq + s];' : ''}
  if (row < 0 || u32(row) >= pu(7u)) { out[i] = 0.0; return; }
  let half = rot / 2u;
  let base = i - d;
  var k: u32;
  var first: bool;
  var partner: u32;
  if (pu(6u) == 1u) { k = d / 2u; first = d % 2u == 0u; partner = select(base + d - 1u, base + d + 1u, first); }
  else { k = select(d - half, d, d < half); first = d < half; partner = select(base + d - half, base + d + half, first); }
  let c = cos_cache[u32(row) * half + k];
  let sn = sin_cache[u32(row) * half + k];
  if (first) { out[i] = c * x[i] - sn * x[partner]; } else { out[i] = sn * x[partner] + c * x[i]; }
}`;

export const rotaryEmbeddingWebgpu: WebGpuBuilder<RotaryEmbeddingKernel> = (
  _attrs,
  out,
  { x, cos_cache, sin_cache, position_ids },
) => {
  const gpu = requireGpu();
  if (!allFloat32(out, x, cos_cache, sin_cache)) return null;
  if (position_ids && gpuElementType(position_ids.dtype) !== 'i32') return null;
  const key = (positions: boolean) => pipelineKey('rotary_embedding', positions ? 'ids' : 'rows');
  return ({ x, cos_cache, sin_cache, position_ids }, { interleaved, num_heads, rotary_dim }, kout) => {
    const { heads, seq, headSize, rot } = rotaryLayout(x.shape, num_heads, rotary_dim);
    const positions = Boolean(position_ids);
    const pipeline = gpu.pipelines.getPipelineSync(key(positions), () => source(positions));
    const result = allocGpu(gpu, kout);
    const n = sizeOf(kout.shape);
    const uniforms = new Params()
      .u32(n)
      .u32(headSize)
      .u32(heads)
      .u32(seq)
      .u32(rot)
      .u32(x.shape.length === 4 ? 1 : 0)
      .u32(interleaved ? 1 : 0)
      .u32(cos_cache.size / (rot / 2))
      .data(WORDS);
    const buffers = position_ids ? [x, cos_cache, sin_cache, position_ids, result] : [x, cos_cache, sin_cache, result];
    launch(gpu, pipeline, buffers, uniforms, n, 'rotary_embedding');
    return result;
  };
};
