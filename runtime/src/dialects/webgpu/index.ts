// Public surface of the WebGPU dialect: device, buffer pool, pipeline cache, tensor storage and mover, kernel builders, bench helpers.

import { registerDialect } from '../../dialect.ts';
import { webgpuUnavailable, WEBGPU_DIALECT } from './dialect.ts';
import { widenFloat16 } from './widen.ts';

// Registered here rather than in dialect.ts, which the kernels import: the float16 fallback is built from the cast kernel.
registerDialect({ name: WEBGPU_DIALECT, devices: ['webgpu'], unavailable: webgpuUnavailable, fallback: widenFloat16 });

export {
  acquireGpu,
  currentGpu,
  gpuUnavailableReason,
  releaseGpu,
  type GpuAdapterDescription,
  type GpuContext,
} from './device.ts';
export {
  alignUp,
  BufferPool,
  BufferUsage,
  MapMode,
  MIN_SIZE_CLASS,
  sizeClass,
  TENSOR_USAGE,
  type BufferPoolOptions,
  type BufferPoolStats,
  type BytesLike,
  type TypedArrayConstructor,
} from './buffers.ts';
export { PipelineCache, workgroupGrid, type DispatchOptions, type StorageBinding } from './pipelines.ts';
export { initWebGpu, requireGpu, webgpuUnavailable, WEBGPU_DIALECT } from './dialect.ts';
export {
  allocGpu,
  gpuBuffer,
  gpuByteSize,
  gpuElementType,
  gpuHolds,
  GpuStorage,
  uploadTensor,
  WEBGPU,
} from './storage.ts';
export { elementwise, elementwiseSource, type ElementwiseDef } from './elementwise.ts';
export { MAX_RANK, type WebGpuBuilder } from './kernel.ts';
export { benchWebGpu, gpuSync, type WebGpuTiming } from './bench.ts';
