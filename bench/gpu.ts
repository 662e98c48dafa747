// The WebGPU columns: raf-op's webgpu dialect and tfjs-backend-webgpu on the same Dawn adapter, each timed up to a queue sync.

import { gpuSync, initWebGpu, webgpuUnavailable, withDialect, type Tensor } from '../runtime/src/index.ts';
import { currentGpu, type GpuAdapterDescription } from '../runtime/src/dialects/webgpu/device.ts';
import { asFloat32, type Impl } from './case.ts';
import { tf } from './peers.ts';
import { input, readAll, servedBy } from './raf.ts';

/** The adapter each library ended up with; recorded in latest.json so a table can be told apart from another machine's. */
export interface GpuSetup {
  readonly raf: GpuAdapterDescription;
  readonly tfjs: { vendor: string; architecture: string; device: string; description: string };
  /** Dawn create() options both instances were made with ([] in a browser or for Dawn's default backend). */
  readonly dawnOptions: readonly string[];
}

let ready: Promise<GpuSetup | string> | undefined;

/** raf-op's adapter, then tfjs on the same one; resolves to why not when there is no adapter. Memoized. */
export function webgpuReady(): Promise<GpuSetup | string> {
  ready ??= setUp().catch((e: unknown) => `WebGPU setup failed: ${(e as Error).message.split('\n')[0]}`);
  return ready;
}

/** For BenchCase.unavailable. */
export const noWebGpu = async (): Promise<string | undefined> => {
  const s = await webgpuReady();
  return typeof s === 'string' ? s : undefined;
};

/** The adapter descriptions, or undefined when no WebGPU case ran. */
export const gpuSetup = async (): Promise<GpuSetup | string | undefined> => ready;

async function setUp(): Promise<GpuSetup | string> {
  // raf-op first: its device.ts prefers navigator.gpu when present, and it must pick by its own rules (RAF_WEBGPU_BACKEND).
  if (!(await initWebGpu())) return webgpuUnavailable() ?? 'no WebGPU adapter';
  const raf = currentGpu()!.info;
  const nav = (globalThis as { navigator?: { gpu?: GPU } }).navigator;
  let dawnOptions: string[] = [];
  let gpu: GPU;
  if (nav?.gpu) gpu = nav.gpu;
  else {
    // The same create() options device.ts derives from RAF_WEBGPU_BACKEND / _ADAPTER / _DAWN_OPTIONS for the attempt that won.
    const env = (k: string) => process.env[k] || undefined;
    dawnOptions = [
      ...(raf.backend === 'default' ? [] : [`backend=${raf.backend}`]),
      ...(env('RAF_WEBGPU_ADAPTER') ? [`adapter=${env('RAF_WEBGPU_ADAPTER')}`] : []),
      ...(env('RAF_WEBGPU_DAWN_OPTIONS') ?? '').split(/\s+/).filter(Boolean),
    ];
    const { create, globals } = (await import('webgpu')) as { create: (o: string[]) => GPU; globals: object };
    // tfjs reads GPUBufferUsage, GPUMapMode, ... as globals, like a browser page.
    Object.assign(globalThis, globals);
    gpu = create(dawnOptions);
  }
  let adapterInfo: GPUAdapterInfo | undefined;
  // tfjs 4.22 calls requestAdapter({ powerPreference }) only, and Dawn's GL backend offers no adapter at the default
  // (core) level: pass raf-op's feature level through, and keep the adapter's info (tfjs keeps only vendor/architecture).
  const shim = {
    requestAdapter: async (o?: GPURequestAdapterOptions) => {
      const a = await gpu.requestAdapter({ ...o, featureLevel: raf.featureLevel } as GPURequestAdapterOptions);
      adapterInfo = a?.info;
      return a;
    },
    getPreferredCanvasFormat: () => gpu.getPreferredCanvasFormat(),
    get wgslLanguageFeatures() {
      return gpu.wgslLanguageFeatures;
    },
  };
  Object.defineProperty(globalThis, 'navigator', { value: { ...nav, gpu: shim }, configurable: true, writable: true });
  // Imported only now: the package registers its backend at load time, and only when navigator.gpu exists.
  await import('@tensorflow/tfjs-backend-webgpu');
  if (!(await tf.setBackend('webgpu'))) return 'tfjs-backend-webgpu failed to initialize';
  await tf.ready();
  const i = adapterInfo;
  return {
    raf,
    tfjs: {
      vendor: i?.vendor ?? '',
      architecture: i?.architecture ?? '',
      device: i?.device ?? '',
      description: i?.description ?? '',
    },
    dawnOptions,
  };
}

/** One line naming the adapter(s): the same line twice would mean nothing was compared. */
export function describeGpu(s: GpuSetup): string {
  const r = `${s.raf.device || s.raf.vendor} (${s.raf.description}; ${s.raf.backend}, ${s.raf.featureLevel})`;
  const t = `${s.tfjs.device || s.tfjs.vendor} (${s.tfjs.description})`;
  return s.raf.device === s.tfjs.device && s.raf.description === s.tfjs.description
    ? `${r}, both libraries`
    : `raf-op: ${r}; tfjs: ${t}`;
}

/** raf-op on the GPU: `build` gets its inputs already moved there; a run is one call, then a wait for the queue. */
export function rafGpu(
  op: string,
  inputs: readonly { shape: readonly number[]; data: Float32Array }[],
  body: (...xs: Tensor[]) => Tensor,
): Impl {
  return {
    async setup() {
      const xs = await Promise.all(inputs.map((i) => input(i.shape, i.data).to('webgpu')));
      // Pinned, so a kernel missing on the GPU fails here instead of quietly timing the CPU.
      const f = () => withDialect(['webgpu'], () => body(...xs));
      return {
        run: async () => {
          const y = f();
          await gpuSync();
          y.dispose();
        },
        note: servedBy(op, 'webgpu'),
        result: () => readAll(f()),
        dispose: () => xs.forEach((x) => x.dispose()),
      };
    },
  };
}

/** The private parts of tfjs's WebGPUBackend that its own read() uses to flush. */
interface TfjsWebGpuBackend {
  device: GPUDevice;
  ensureCommandEncoderReady(): void;
  endComputePassEncoder(): void;
  submitQueue(): void;
}

/** tfjs-backend-webgpu: a run is one call, a flush of tfjs's pending command encoder, then a wait for the queue. */
export function tfjsGpu(
  inputs: readonly { shape: readonly number[]; data: Float32Array }[],
  body: (...xs: tf.Tensor[]) => tf.Tensor,
): Impl {
  return {
    async setup() {
      if (tf.getBackend() !== 'webgpu' && !(await tf.setBackend('webgpu')))
        throw new Error('tfjs-backend-webgpu is not available');
      const xs = inputs.map((i) => tf.tensor(i.data, [...i.shape]));
      const backend = tf.backend() as unknown as TfjsWebGpuBackend;
      return {
        run: async () => {
          const y = tf.tidy(() => body(...xs));
          // tfjs batches up to WEBGPU_DEFERRED_SUBMIT_BATCH_SIZE dispatches in an unsubmitted encoder, so
          // onSubmittedWorkDone alone could return before the work was even sent: submit it as read() does.
          backend.ensureCommandEncoderReady();
          backend.endComputePassEncoder();
          backend.submitQueue();
          await backend.device.queue.onSubmittedWorkDone();
          y.dispose();
        },
        result: async () => {
          const y = tf.tidy(() => body(...xs));
          const out = await y.data();
          y.dispose();
          return asFloat32([out as Float32Array]);
        },
        activate: async () => {
          if (tf.getBackend() !== 'webgpu') await tf.setBackend('webgpu');
        },
        dispose: () => tf.dispose(xs),
      };
    },
  };
}
