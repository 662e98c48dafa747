// What every WebGPU kernel shares: the builder type, the u32 uniform block sizes travel in, dim coalescing and launch.
/// <reference types="@webgpu/types" />

import type { Tensor, TensorType } from '../../tensor.ts';
import type { GpuContext } from './device.ts';
import { workgroupGrid } from './pipelines.ts';
import { gpuBuffer } from './storage.ts';

/**
 * A WebGPU dialect op's build(): called once per bridge key, it compiles (or finds) its pipeline and returns the
 * kernel, or null when it cannot serve these dtypes so dispatch tries the next dialect. A tuple op's kernel (split)
 * gets one output type per element and returns that many tensors.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type WebGpuBuilder<K extends (inputs: any, attrs: any, out: any) => Tensor | readonly Tensor[]> = (
  attrs: Parameters<K>[1],
  out: Parameters<K>[2],
  inputs: Parameters<K>[0],
) => K | null;

/** Highest rank the strided kernels index; shapes are coalesced first, so only truly strided tensors count. */
export const MAX_RANK = 8;
/** Threads per workgroup of the 1-D kernels. */
export const WORKGROUP = 64;

/** Uniform contents as u32 words; floats are stored as their bits and read back with bitcast. */
export class Params {
  private readonly words: number[] = [];
  private static readonly f32 = new Float32Array(1);
  private static readonly bits = new Uint32Array(Params.f32.buffer);

  u32(v: number): this {
    this.words.push(v >>> 0);
    return this;
  }

  f32(v: number): this {
    Params.f32[0] = v;
    this.words.push(Params.bits[0]!);
    return this;
  }

  /** A list padded to MAX_RANK words, so every later field keeps a fixed offset. */
  dims(values: readonly number[]): this {
    if (values.length > MAX_RANK)
      throw new RangeError(`rank ${values.length} exceeds the WebGPU kernels' maximum of ${MAX_RANK}`);
    for (let k = 0; k < MAX_RANK; k++) this.words.push((values[k] ?? 0) >>> 0);
    return this;
  }

  /** Exactly the block paramsWgsl(words) declares. */
  data(words: number): Uint32Array {
    if (this.words.length > words) throw new Error(`uniform block overflow: ${this.words.length} > ${words} words`);
    const out = new Uint32Array(paddedWords(words));
    out.set(this.words);
    return out;
  }
}

const paddedWords = (words: number) => Math.max(4, Math.ceil(words / 4) * 4);

/** WGSL for a uniform block of `words` u32s at `binding`, with the accessors kernels read it through. */
export function paramsWgsl(binding: number, words: number): string {
  return `struct Params { v: array<vec4<u32>, ${paddedWords(words) / 4}> }
@group(0) @binding(${binding}) var<uniform> params: Params;
// Uniform arrays need a 16-byte element stride, so the u32 words are packed four to a vec4.
fn pu(i: u32) -> u32 { return params.v[i / 4u][i % 4u]; }
fn pf(i: u32) -> f32 { return bitcast<f32>(pu(i)); }`;
}

/** The flat invocation index of a 1-D kernel launched with workgroupGrid (which may spill into y). */
export const FLAT_INDEX = `let i = gid.x + gid.y * nwg.x * ${WORKGROUP}u;`;
export const MAIN_1D = `@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>)`;

// Dim coalescing is shared with graph mode's fused kernels on every device, so it lives with the shape helpers.
export { coalesce } from '../../shape.ts';

export function allFloat32(out: TensorType, ...inputs: (Tensor | null | undefined)[]): boolean {
  return out.dtype === 'float32' && inputs.every((t) => !t || t.dtype === 'float32');
}

/**
 * Binds buffers (tensors or raw) plus the uniform block and submits enough workgroups for `invocations` threads, in
 * workgroups of `workgroupSize` (the pipeline's own @workgroup_size).
 */
export function launch(
  gpu: GpuContext,
  pipeline: GPUComputePipeline,
  buffers: readonly (Tensor | GPUBuffer)[],
  uniforms: Uint32Array,
  invocations: number,
  label?: string,
  workgroupSize = WORKGROUP,
): void {
  if (invocations === 0) return;
  gpu.pipelines.dispatch({
    pipeline,
    buffers: buffers.map((b) => ('storage' in b ? gpuBuffer(b) : b)),
    uniforms,
    workgroups: workgroupGrid(invocations, workgroupSize, gpu.pipelines.maxWorkgroupsPerDimension),
    label,
  });
}

/** Pipeline keys are namespaced so a bench or a report can tell kernels apart from the substrate's own tests. */
export function pipelineKey(...parts: string[]): string {
  return `webgpu:${parts.join('|')}`;
}
