// Public surface of the WebGPU dialect substrate: device acquisition, buffer pool, pipeline cache and dispatch.
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
export {
  PipelineCache,
  workgroupGrid,
  type DispatchOptions,
  type StorageBinding,
} from './pipelines.ts';
