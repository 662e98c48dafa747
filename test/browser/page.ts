// Browser side of the WebGPU browser test: bundled with the built package (@raf-op/runtime resolves to runtime/dist
// through the package's exports), it runs op cases on navigator.gpu and hands back the values.

import {
  call,
  initWasm,
  initWebGpu,
  relaxedSimdSupported,
  tensor,
  valueAndGrad,
  wasmBuild,
  wasmUnavailable,
  withDialect,
  type Tensor,
} from '@raf-op/runtime';
import { currentGpu, gpuUnavailableReason } from '@raf-op/runtime/webgpu';

export interface BrowserCase {
  readonly title: string;
  readonly op: string;
  readonly inputs: Readonly<Record<string, { readonly shape: readonly number[]; readonly data: readonly number[] }>>;
  readonly args: Readonly<Record<string, unknown>>;
  /** Inputs to differentiate, seeded with dy. */
  readonly grad?: readonly string[];
  readonly dy?: readonly number[];
}

export interface BrowserResult {
  readonly title: string;
  readonly device: string;
  readonly shape: readonly number[];
  readonly value: readonly number[];
  readonly grads: readonly (readonly number[])[];
}

export interface BrowserRun {
  readonly adapter: string;
  readonly pipelines: number;
  readonly results: readonly BrowserResult[];
  /**
   * The wasm dialect: why it was unavailable before initWasm, whether the page's engine has relaxed SIMD, whether
   * initWasm loaded the build chosen by that and which build runs, and a softmax and a product run on it.
   */
  readonly wasm: {
    readonly before: string | undefined;
    readonly relaxed: boolean;
    readonly loaded: boolean;
    readonly build: string | undefined;
    readonly softmax: readonly number[];
    readonly matmul: readonly number[];
  };
}

/**
 * Before initWasm the dialect declines (CPU ops still run); after it, float ops run on the served module: the
 * relaxed-SIMD build where the engine has relaxed SIMD, as a page would choose.
 */
async function runWasm(input: readonly number[]): Promise<BrowserRun['wasm']> {
  const x = tensor(input, { dtype: 'float32', shape: [2, 3] });
  const w = tensor([...input].reverse(), { dtype: 'float32', shape: [3, 2] });
  call('softmax', [x, -1]);
  const before = wasmUnavailable();
  const relaxed = relaxedSimdSupported();
  const loaded = await initWasm(relaxed ? '/raf-relaxed.wasm' : '/raf.wasm');
  const y = withDialect(['wasm'], () => call('softmax', [x, -1])) as Tensor;
  const z = withDialect(['wasm'], () => call('matmul', [x, w])) as Tensor;
  return {
    before,
    relaxed,
    loaded,
    build: wasmBuild(),
    softmax: Array.from(y.dataSync()),
    matmul: Array.from(z.dataSync()),
  };
}

async function runCases(cases: readonly BrowserCase[], wasmInput: readonly number[]): Promise<BrowserRun> {
  const gpu = await initWebGpu();
  if (!gpu) throw new Error(`no WebGPU in this page: ${gpuUnavailableReason()}`);
  const results: BrowserResult[] = [];
  for (const c of cases) {
    const onGpu: Record<string, Tensor> = {};
    for (const [name, v] of Object.entries(c.inputs))
      onGpu[name] = await tensor(v.data, { dtype: 'float32', shape: v.shape }).to('webgpu');
    const y = withDialect(['webgpu'], () => call(c.op, [], { ...onGpu, ...c.args })) as Tensor;
    const grads: number[][] = [];
    if (c.grad?.length) {
      const dy = await tensor(c.dy!, { dtype: 'float32', shape: y.shape }).to('webgpu');
      const f = (...xs: Tensor[]) =>
        call(c.op, [], { ...onGpu, ...c.args, ...Object.fromEntries(c.grad!.map((n, k) => [n, xs[k]])) }) as Tensor;
      const g = withDialect(['webgpu'], () => valueAndGrad(f, undefined, dy)(...c.grad!.map((n) => onGpu[n]!)).grads);
      for (const t of g) grads.push(Array.from(await t.data()));
    }
    results.push({
      title: c.title,
      device: y.device.kind,
      shape: [...y.shape],
      value: Array.from(await y.data()),
      grads,
    });
  }
  const info = currentGpu()!.info;
  return {
    adapter: `${info.vendor} ${info.architecture} ${info.device} (${info.backend}, fallback=${info.isFallbackAdapter})`,
    pipelines: gpu.pipelines.compiledPipelineCount(),
    results,
    wasm: await runWasm(wasmInput),
  };
}

(globalThis as { rafRunCases?: typeof runCases }).rafRunCases = runCases;
