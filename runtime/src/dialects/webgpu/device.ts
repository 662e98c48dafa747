// Acquires the process-wide WebGPU device (browser navigator.gpu, or Dawn via the `webgpu` npm package in Node) and describes its adapter.
/// <reference types="@webgpu/types" />

import { BufferPool } from './buffers.ts';
import { PipelineCache } from './pipelines.ts';

/** What we learned about the adapter, in plain data so it can be logged or snapshotted. */
export interface GpuAdapterDescription {
  vendor: string;
  architecture: string;
  /** Dawn puts the renderer here, e.g. "llvmpipe-llvm-15-0-6-256-bits-". */
  device: string;
  description: string;
  isFallbackAdapter: boolean;
  /**
   * Whether the adapter emulates a GPU on the CPU (Mesa's llvmpipe or lavapipe, SwiftShader, or a fallback adapter):
   * kernels that pick tile sizes per adapter (matrix-product.ts) size them for a few CPU threads there.
   */
  software: boolean;
  /** 'browser' for navigator.gpu; otherwise the Dawn backend option used ('default' = Dawn's own pick). */
  backend: string;
  featureLevel: 'core' | 'compatibility';
  /** Adapter features, sorted. */
  features: string[];
  /** Adapter limits (the maxima the device could be created with). */
  limits: Record<string, number>;
  subgroupMinSize?: number;
  subgroupMaxSize?: number;
}

export interface GpuContext {
  adapter: GPUAdapter;
  device: GPUDevice;
  info: GpuAdapterDescription;
  /** Features actually enabled on the device (a subset of info.features). */
  deviceFeatures: ReadonlySet<string>;
  /** True when WGSL `enable f16;` may be used. */
  hasF16: boolean;
  /** Wall time of instance + adapter + device creation, in ms. */
  acquireMs: number;
  pool: BufferPool;
  pipelines: PipelineCache;
  /** Messages of uncaptured GPU errors (validation/OOM), newest last, capped; tests can assert it is empty. */
  uncapturedErrors: string[];
}

/** Device features worth enabling for compute when the adapter has them; everything else stays off to keep behaviour portable. */
const WANTED_FEATURES = ['shader-f16', 'subgroups', 'timestamp-query'] as const;

/**
 * Limits raised to the adapter's maximum. WebGPU devices start at spec defaults (e.g. maxBufferSize 256 MiB,
 * and compatibility mode caps storage buffers per stage at 4), which is far below what tensors need.
 */
const RAISED_LIMITS = [
  'maxBufferSize',
  'maxStorageBufferBindingSize',
  'maxUniformBufferBindingSize',
  'maxStorageBuffersPerShaderStage',
  'maxUniformBuffersPerShaderStage',
  'maxBindingsPerBindGroup',
  'maxComputeWorkgroupStorageSize',
  'maxComputeInvocationsPerWorkgroup',
  'maxComputeWorkgroupSizeX',
  'maxComputeWorkgroupSizeY',
  'maxComputeWorkgroupSizeZ',
  'maxComputeWorkgroupsPerDimension',
] as const;

/** Dawn backends that only exist at WebGPU's compatibility feature level. */
const COMPAT_BACKENDS = new Set(['opengles', 'opengl', 'd3d11']);

const ADAPTER_TIMEOUT_MS = 30_000;
/** Renderers that emulate a GPU on the CPU, as adapters name them. */
const SOFTWARE_RENDERERS = /llvmpipe|lavapipe|swiftshader|softpipe|software/i;
const MAX_KEPT_ERRORS = 50;

interface Attempt {
  /** Value reported as info.backend. */
  backend: string;
  /** Options passed to Dawn's create(). */
  dawnOptions: string[];
  featureLevel: 'core' | 'compatibility';
}

let pending: Promise<GpuContext | null> | undefined;
let current: GpuContext | undefined;
/** The Dawn GPU object; kept so the instance outlives acquireGpu, dropped by releaseGpu so Node can exit. */
let dawnGpu: GPU | undefined;
let unavailableReason: string | undefined;

/**
 * Returns the shared GPU context, creating it on first call; null when WebGPU is unusable here
 * (see gpuUnavailableReason()). Never throws. A null result is memoized too, so ops do not re-probe
 * on every call; releaseGpu() clears it for a retry.
 */
export function acquireGpu(): Promise<GpuContext | null> {
  pending ??= acquire().catch((err: unknown) => {
    unavailableReason = `unexpected error while acquiring WebGPU: ${errorText(err)}`;
    return null;
  });
  return pending;
}

/** Why the last acquireGpu() returned null; undefined when it succeeded or has not run. */
export function gpuUnavailableReason(): string | undefined {
  return unavailableReason;
}

/** The context if acquireGpu() has already resolved to one; lets hot paths avoid an await. */
export function currentGpu(): GpuContext | undefined {
  return current;
}

/**
 * Destroys the device and its pooled buffers and drops the Dawn instance. A live Dawn instance can keep
 * Node's event loop (and so a test worker) alive, hence tests call this in afterAll. The next
 * acquireGpu() starts from scratch.
 */
export async function releaseGpu(): Promise<void> {
  const ctx = current ?? (pending ? await pending : null);
  pending = undefined;
  current = undefined;
  if (ctx) {
    ctx.pipelines.clear();
    ctx.pool.destroyAll();
    ctx.device.destroy();
  }
  dawnGpu = undefined;
}

async function acquire(): Promise<GpuContext | null> {
  unavailableReason = undefined;
  const started = performance.now();

  const nav = (globalThis as { navigator?: { gpu?: GPU } }).navigator;
  if (nav?.gpu) {
    // Browsers (and Deno) pick the backend themselves; try core first, then compatibility for GL/D3D11-only systems.
    const attempts: Attempt[] = [
      { backend: 'browser', dawnOptions: [], featureLevel: 'core' },
      { backend: 'browser', dawnOptions: [], featureLevel: 'compatibility' },
    ];
    return tryAttempts(() => nav.gpu!, attempts, started, 'navigator.gpu.requestAdapter() returned null');
  }

  if (!isNode()) {
    unavailableReason = 'no WebGPU here: navigator.gpu is missing and this is not Node';
    return null;
  }

  const attempts = nodeAttempts();
  if (attempts === 'disabled') {
    unavailableReason = `WebGPU disabled by RAF_WEBGPU_BACKEND=${envVar('RAF_WEBGPU_BACKEND')}`;
    return null;
  }
  if (typeof attempts === 'string') {
    unavailableReason = attempts;
    return null;
  }

  const envNote = await prepareNodeEnv();

  let create: (options: string[]) => GPU;
  try {
    // Dynamic so a browser page can import this module without a bundler resolving 'webgpu'.
    const mod = (await nodeImport('webgpu')) as { create: (options: string[]) => GPU };
    create = mod.create;
  } catch (err) {
    unavailableReason =
      `cannot load the 'webgpu' npm package (Dawn): ${errorText(err)}. ` +
      `Install it with: npm install -w runtime webgpu`;
    return null;
  }

  const ctx = await tryAttempts(
    (a) => {
      const gpu = create([...a.dawnOptions, ...extraDawnOptions()]);
      dawnGpu = gpu;
      return gpu;
    },
    attempts,
    started,
    'Dawn found no adapter',
  );
  if (!ctx) {
    dawnGpu = undefined;
    const hints = [...(await diagnoseLinuxGl(attempts)), ...(envNote ? [envNote] : [])];
    const linuxHint =
      process.platform === 'linux'
        ? '. Without a GPU, run scripts/install-webgpu-deps.sh (EGL + Mesa llvmpipe for the opengles backend)'
        : '';
    // Read through the getter: TS narrowed the module variable to undefined at the top of this function.
    unavailableReason =
      (gpuUnavailableReason() ?? 'no WebGPU adapter') + linuxHint + (hints.length ? `; ${hints.join('; ')}` : '');
  }
  return ctx;
}

/** Tries each attempt in order and returns the first working context, recording failures in unavailableReason. */
async function tryAttempts(
  getGpu: (a: Attempt) => GPU,
  attempts: Attempt[],
  started: number,
  nullMessage: string,
): Promise<GpuContext | null> {
  const failures: string[] = [];
  for (const attempt of attempts) {
    const label = `${attempt.backend}/${attempt.featureLevel}`;
    try {
      const gpu = getGpu(attempt);
      const adapter = await withTimeout(
        gpu.requestAdapter({ featureLevel: attempt.featureLevel, powerPreference: 'high-performance' }),
        ADAPTER_TIMEOUT_MS,
        'requestAdapter',
      );
      if (!adapter) {
        failures.push(`${label}: ${nullMessage}`);
        continue;
      }
      const ctx = await makeContext(adapter, attempt, started);
      current = ctx;
      return ctx;
    } catch (err) {
      failures.push(`${label}: ${errorText(err)}`);
    }
  }
  unavailableReason = `no WebGPU adapter (${failures.join('; ')})`;
  return null;
}

async function makeContext(adapter: GPUAdapter, attempt: Attempt, started: number): Promise<GpuContext> {
  const adapterLimits = limitsToRecord(adapter.limits);
  const requiredLimits: Record<string, number> = {};
  for (const name of RAISED_LIMITS) {
    const v = adapterLimits[name];
    if (typeof v === 'number') requiredLimits[name] = v;
  }
  const requiredFeatures = WANTED_FEATURES.filter((f) => adapter.features.has(f));

  const device = await adapter.requestDevice({
    label: 'raf-op',
    requiredFeatures,
    requiredLimits,
  });

  const info = adapter.info;
  const description: GpuAdapterDescription = {
    vendor: info.vendor ?? '',
    architecture: info.architecture ?? '',
    device: info.device ?? '',
    description: info.description ?? '',
    isFallbackAdapter: Boolean((info as { isFallbackAdapter?: boolean }).isFallbackAdapter),
    software: false,
    backend: attempt.backend,
    // Adapters report core support through this feature; Dawn's GPUAdapter has no featureLevel attribute.
    featureLevel: adapter.features.has('core-features-and-limits') ? 'core' : 'compatibility',
    features: [...adapter.features].sort(),
    limits: adapterLimits,
  };
  description.software =
    description.isFallbackAdapter ||
    SOFTWARE_RENDERERS.test(
      `${description.vendor} ${description.architecture} ${description.device} ${description.description}`,
    );
  const sub = info as { subgroupMinSize?: number; subgroupMaxSize?: number };
  if (typeof sub.subgroupMinSize === 'number') description.subgroupMinSize = sub.subgroupMinSize;
  if (typeof sub.subgroupMaxSize === 'number') description.subgroupMaxSize = sub.subgroupMaxSize;

  const pool = new BufferPool(device);
  const ctx: GpuContext = {
    adapter,
    device,
    info: description,
    deviceFeatures: new Set(device.features),
    hasF16: device.features.has('shader-f16'),
    acquireMs: performance.now() - started,
    pool,
    pipelines: new PipelineCache(device, pool),
    uncapturedErrors: [],
  };

  // Without a listener, validation errors from sync calls (createBindGroup, writeBuffer) vanish silently.
  device.addEventListener('uncapturederror', (ev) => {
    const msg = (ev as GPUUncapturedErrorEvent).error.message;
    ctx.uncapturedErrors.push(msg);
    if (ctx.uncapturedErrors.length > MAX_KEPT_ERRORS) ctx.uncapturedErrors.shift();
    console.warn(`[raf-op webgpu] uncaptured GPU error: ${msg}`);
  });

  // A lost device (driver reset, or destroy()) must not stay memoized; the next acquireGpu() re-creates it.
  void device.lost.then((lost) => {
    if (current !== ctx) return;
    current = undefined;
    pending = undefined;
    if (lost.reason !== 'destroyed') unavailableReason = `device lost: ${lost.message}`;
  });

  return ctx;
}

/**
 * Backend order for Node. RAF_WEBGPU_BACKEND:
 *   unset | 'auto'  Dawn's default (Vulkan/Metal/D3D12, core) then 'opengles' (compatibility; Mesa llvmpipe when no GPU)
 *   'default'       Dawn's default only
 *   'none' | 'off'  disabled
 *   any other       that Dawn backend only ('vulkan', 'opengles', 'opengl', 'metal', 'd3d12', 'd3d11', ...)
 */
function nodeAttempts(): Attempt[] | 'disabled' | string {
  const raw = (envVar('RAF_WEBGPU_BACKEND') ?? 'auto').trim().toLowerCase();
  const adapterName = envVar('RAF_WEBGPU_ADAPTER');
  const adapterOpt = adapterName ? [`adapter=${adapterName}`] : [];
  const defaultAttempt: Attempt = { backend: 'default', dawnOptions: [...adapterOpt], featureLevel: 'core' };
  const backendAttempt = (b: string): Attempt => ({
    backend: b,
    dawnOptions: [`backend=${b}`, ...adapterOpt],
    featureLevel: COMPAT_BACKENDS.has(b) ? 'compatibility' : 'core',
  });
  switch (raw) {
    case '':
    case 'auto':
      return [defaultAttempt, backendAttempt('opengles')];
    case 'default':
      return [defaultAttempt];
    case 'none':
    case 'off':
    case '0':
      return 'disabled';
    default:
      if (!/^[a-z0-9]+$/.test(raw)) return `invalid RAF_WEBGPU_BACKEND=${JSON.stringify(raw)}`;
      return [backendAttempt(raw)];
  }
}

/** Extra Dawn create() options, whitespace separated, e.g. "enable-dawn-features=dump_shaders". */
function extraDawnOptions(): string[] {
  return (envVar('RAF_WEBGPU_DAWN_OPTIONS') ?? '').split(/\s+/).filter(Boolean);
}

/**
 * Sets EGL_PLATFORM=surfaceless and a private XDG_RUNTIME_DIR when unset: Mesa's EGL otherwise tries X11/Wayland
 * and fails on headless machines. Returns a hint when the settings cannot reach native code.
 */
async function prepareNodeEnv(): Promise<string | undefined> {
  if (process.platform !== 'linux') return undefined;
  let note: string | undefined;
  const eglWasUnset = !envVar('EGL_PLATFORM');
  if (eglWasUnset) process.env.EGL_PLATFORM = 'surfaceless';
  if (!envVar('XDG_RUNTIME_DIR')) {
    try {
      process.env.XDG_RUNTIME_DIR = await privateRuntimeDir();
    } catch (err) {
      note = `could not create a private XDG_RUNTIME_DIR: ${errorText(err)}`;
    }
  }
  if (eglWasUnset) {
    // In worker_threads, process.env is a per-thread copy that never reaches getenv(), so Mesa would not see it.
    const { isMainThread } = (await nodeImport('node:worker_threads')) as typeof import('node:worker_threads');
    if (!isMainThread) {
      const hint =
        'running in a worker thread, where process.env changes do not reach native code: ' +
        'export EGL_PLATFORM=surfaceless before starting Node (or use vitest pool "forks")';
      note = note ? `${note}; ${hint}` : hint;
    }
  }
  return note;
}

/** A 0700 directory owned by us: a stable per-user path when safe (avoids litter), else a fresh mkdtemp. */
async function privateRuntimeDir(): Promise<string> {
  const fs = (await nodeImport('node:fs/promises')) as typeof import('node:fs/promises');
  const os = (await nodeImport('node:os')) as typeof import('node:os');
  const path = (await nodeImport('node:path')) as typeof import('node:path');
  const uid = typeof process.getuid === 'function' ? process.getuid() : -1;
  const stable = path.join(os.tmpdir(), `raf-op-xdg-${uid}`);
  try {
    await fs.mkdir(stable, { mode: 0o700 });
  } catch (err) {
    if ((err as { code?: string }).code !== 'EEXIST') throw err;
  }
  // Another user could have pre-created the shared-tmp path; only trust it if it is ours and private.
  const st = await fs.lstat(stable);
  if (st.isDirectory() && !st.isSymbolicLink() && (uid < 0 || st.uid === uid) && (st.mode & 0o077) === 0) {
    return stable;
  }
  return fs.mkdtemp(path.join(os.tmpdir(), 'raf-op-xdg-'));
}

/**
 * Dawn reports why the GL backend failed only on stderr, so look for the two files it most often misses:
 * the unversioned libEGL.so it dlopen()s (package libegl-dev) and Mesa's software DRI driver (libgl1-mesa-dri).
 */
async function diagnoseLinuxGl(attempts: Attempt[]): Promise<string[]> {
  if (process.platform !== 'linux' || !attempts.some((a) => a.backend === 'opengles' || a.backend === 'opengl')) {
    return [];
  }
  const fs = (await nodeImport('node:fs/promises')) as typeof import('node:fs/promises');
  const path = (await nodeImport('node:path')) as typeof import('node:path');
  const triplet = process.arch === 'arm64' ? 'aarch64-linux-gnu' : process.arch === 'x64' ? 'x86_64-linux-gnu' : '';
  const libDirs = [
    ...(envVar('LD_LIBRARY_PATH') ?? '').split(':').filter(Boolean),
    ...(triplet ? [`/usr/lib/${triplet}`, `/lib/${triplet}`] : []),
    '/usr/lib64',
    '/usr/lib',
    '/lib64',
    '/lib',
  ];
  const exists = async (p: string) =>
    fs.access(p).then(
      () => true,
      () => false,
    );
  const anyExists = async (paths: string[]) => (await Promise.all(paths.map(exists))).some(Boolean);
  const hints: string[] = [];
  if (!(await anyExists(libDirs.map((d) => path.join(d, 'libEGL.so'))))) {
    hints.push('libEGL.so (unversioned; Debian package libegl-dev) not found, and Dawn loads exactly that name');
  }
  const driDirs = [
    ...(envVar('LIBGL_DRIVERS_PATH') ?? '').split(':').filter(Boolean),
    ...libDirs.map((d) => path.join(d, 'dri')),
  ];
  if (!(await anyExists(driDirs.map((d) => path.join(d, 'swrast_dri.so'))))) {
    hints.push("Mesa's swrast_dri.so (llvmpipe; Debian package libgl1-mesa-dri) not found");
  }
  return hints;
}

function limitsToRecord(limits: GPUSupportedLimits): Record<string, number> {
  const out: Record<string, number> = {};
  // Limits are prototype getters; for-in sees them in browsers and Dawn, the prototype walk is a fallback.
  const names = new Set<string>();
  for (const k in limits) names.add(k);
  if (names.size === 0) {
    for (const k of Object.getOwnPropertyNames(Object.getPrototypeOf(limits))) names.add(k);
  }
  for (const k of names) {
    const v = (limits as unknown as Record<string, unknown>)[k];
    if (typeof v === 'number') out[k] = v;
  }
  return out;
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
    // The timer alone must not keep Node alive.
    (timer as { unref?: () => void }).unref?.();
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/**
 * import() through a variable: bundlers (Vite, esbuild) then leave 'webgpu' and node:* out of browser bundles
 * instead of failing to resolve them, and a bundler-free page never evaluates these calls.
 */
function nodeImport(specifier: string): Promise<unknown> {
  return import(/* @vite-ignore */ specifier);
}

function isNode(): boolean {
  const p = (globalThis as { process?: { versions?: { node?: string } } }).process;
  return typeof p?.versions?.node === 'string';
}

function envVar(name: string): string | undefined {
  const v = isNode() ? process.env[name] : undefined;
  return v === '' ? undefined : v;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
