// Finding and loading onnxruntime-node without a top-level import: the runtime must still load in a browser and where
// the package is not installed. Sessions run synchronously through the native binding's own `run` (see docs/runtime.md).

/** What the ort dialect uses of onnxruntime-node's native binding. */
export interface OrtNativeSession {
  loadModel(buffer: ArrayBufferLike, offset: number, length: number, options: object): void;
  run(feeds: Record<string, unknown>, fetches: Record<string, unknown>, options: object): Record<string, OrtValue>;
  readonly inputMetadata: readonly { readonly name: string }[];
  readonly outputMetadata: readonly { readonly name: string; readonly type: number }[];
  dispose(): void;
}

export interface OrtValue {
  readonly type: string;
  readonly data: ArrayLike<number | bigint>;
  readonly dims: readonly number[];
}

export interface OrtModule {
  newSession(): OrtNativeSession;
  tensor(type: string, data: ArrayBufferView, dims: readonly number[]): unknown;
}

type Require = (id: string) => unknown;

let requireFn: Require | null | undefined;
let missing: string | undefined | null = null;
let loaded: OrtModule | undefined;

/** Node's `require` for this module, or null outside Node (a browser) or on a Node without getBuiltinModule. */
function nodeRequire(): Require | null {
  if (requireFn !== undefined) return requireFn;
  const proc = (
    globalThis as { process?: { versions?: { node?: string }; getBuiltinModule?: (id: string) => unknown } }
  ).process;
  const mod = proc?.versions?.node
    ? (proc.getBuiltinModule?.('node:module') as { createRequire?: unknown })
    : undefined;
  requireFn =
    typeof mod?.createRequire === 'function' ? (mod.createRequire as (url: string) => Require)(import.meta.url) : null;
  return requireFn;
}

/**
 * Why the ort dialect cannot run here, or undefined when it can: not Node, onnxruntime-node not installed, or
 * RAF_OP_ORT=0 in the environment (which turns the dialect off). Only resolves the package; loading waits for a call.
 */
export function ortMissing(): string | undefined {
  if (missing !== null) return missing;
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  const req = nodeRequire() as (Require & { resolve?: (id: string) => string }) | null;
  if (!req?.resolve) missing = 'the ort dialect runs on Node only (node:module.createRequire is not available here)';
  else if (env?.RAF_OP_ORT === '0') missing = 'turned off by RAF_OP_ORT=0';
  else {
    try {
      req.resolve('onnxruntime-node');
      missing = undefined;
    } catch {
      missing = 'onnxruntime-node is not installed (npm install onnxruntime-node)';
    }
  }
  return missing;
}

/** onnxruntime-node's native binding, loaded on the first ort call; throws why it cannot be. */
export function loadOrt(): OrtModule {
  if (loaded) return loaded;
  const why = ortMissing();
  if (why) throw new Error(`ort dialect unavailable: ${why}`);
  const req = nodeRequire()!;
  const b = req('onnxruntime-node/dist/binding.js') as {
    binding?: { InferenceSession?: new () => OrtNativeSession };
    initOrt?: () => void;
  };
  // onnxruntime-common as onnxruntime-node itself resolves it (it may sit nested under the package).
  const fromOrt = (nodeRequire() as Require & { resolve: (id: string) => string }).resolve('onnxruntime-node');
  const mod = (
    globalThis as unknown as { process: { getBuiltinModule(id: string): unknown } }
  ).process.getBuiltinModule('node:module') as { createRequire(path: string): Require };
  const common = mod.createRequire(fromOrt)('onnxruntime-common') as {
    Tensor?: new (t: string, d: unknown, dims: readonly number[]) => unknown;
  };
  const Session = b.binding?.InferenceSession;
  const Tensor = common.Tensor;
  // The binding is onnxruntime-node's internal layer: refuse clearly if a version changed its shape.
  if (typeof Session !== 'function' || typeof b.initOrt !== 'function' || typeof Tensor !== 'function')
    throw new Error('ort dialect unavailable: this onnxruntime-node has no synchronous native session binding');
  b.initOrt();
  loaded = {
    newSession: () => new Session(),
    tensor: (type, data, dims) => new Tensor(type, data, dims),
  };
  return loaded;
}
