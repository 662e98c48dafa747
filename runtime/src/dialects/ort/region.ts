// An ort region: several calls' ONNX nodes as one model, one onnxruntime session, run as one fused call
// (runtime/src/graph/passes/ort-regions.ts forms the regions; docs/runtime.md).

import type { Tensor, TensorType } from '../../tensor.ts';
import { countOrt, ONNX_DTYPE_ATTR, ortType, runSession, sessionOptions, type OrtNode } from './kernel.ts';
import { wasmThreads } from '../wasm/threads/index.ts';
import { loadOrt, type OrtNativeSession } from './load.ts';
import { encodeGraphModel, type OrtConst } from './proto.ts';

/** One call of a region: its ONNX node (inputs named by value) and the names of the call's outputs, in order. */
export interface RegionNode {
  readonly node: OrtNode;
  readonly outputs: readonly string[];
}

/** A named value of a region: a graph input fed per run, or a value the region returns. */
export interface RegionValue {
  readonly name: string;
  readonly type: TensorType;
}

/** A region's session: `run` takes the inputs in `inputs` order and returns the outputs in `outputs` order. */
export interface OrtRegionRunner {
  run(inputs: readonly Tensor[]): Tensor[];
  /** Size of the model (ModelProto bytes, no weights: every tensor is an input). */
  readonly modelBytes: number;
  readonly opset: number;
  /**
   * Lets the session go: the last runner of a model releases onnxruntime's session (and the weights written into it).
   * A released runner refuses to run.
   */
  dispose(): void;
  /** Whether dispose() ran (its session, or its share of one, is let go). */
  readonly released: boolean;
}

/**
 * Sessions by thread count and model bytes (their SHA-256 and length): regions of the same calls on the same shapes
 * (one graph per input signature) share one. The key is a digest, not the bytes, since a model with its weights
 * written in is as large as they are.
 */
const sessions = new Map<string, { readonly native: OrtNativeSession; runners: number }>();

/** A runner no graph holds any more releases its share of the session, as dispose() would. */
const unreferenced = new FinalizationRegistry<() => void>((release) => release());

function bytesKey(b: Uint8Array): string {
  // The ort dialect runs in Node only, where node:crypto is a builtin.
  const crypto = (
    globalThis as unknown as { process: { getBuiltinModule(id: string): unknown } }
  ).process.getBuiltinModule('node:crypto') as {
    createHash(algorithm: string): { update(data: Uint8Array): { digest(encoding: 'hex'): string } };
  };
  return `${b.length}:${crypto.createHash('sha256').update(b).digest('hex')}`;
}

/**
 * A runner's share of its session, let go once. Made outside openRegion so that the closure holds no reference to the
 * runner (a closure of openRegion's would share its scope, and the registry would keep the runner alive).
 */
function releaser(
  key: string,
  entry: { readonly native: OrtNativeSession; runners: number },
  state: { released: boolean },
): () => void {
  return () => {
    if (state.released) return;
    state.released = true;
    if (--entry.runners > 0) return;
    sessions.delete(key);
    entry.native.dispose();
  };
}

/**
 * Builds the region's model (nodes in order; the region's inputs as graph inputs, weights included unless given as
 * `initializers`, which are written into the model; every value used outside as a graph output) and opens its session, or throws onnxruntime's reason. The model's opset is the highest
 * of its nodes' mappings (each mapping follows its op's newest signature).
 */
export function openRegion(
  nodes: readonly RegionNode[],
  inputs: readonly RegionValue[],
  outputs: readonly RegionValue[],
  initializers: ReadonlyMap<string, Tensor> = new Map(),
): OrtRegionRunner {
  const ort = loadOrt();
  const consts: Record<string, OrtConst> = {};
  for (const [name, t] of initializers)
    consts[name] = { type: ONNX_DTYPE_ATTR[t.dtype]!, shape: t.shape, data: t.dataSync() as unknown as number[] };
  const graphNodes = nodes.map((n, j) => {
    Object.assign(consts, n.node.consts);
    const outs = Array.from({ length: Math.max(n.node.outputs, n.outputs.length) }, (_, k) =>
      k < n.outputs.length ? n.outputs[k]! : `n${j}_unused${k}`,
    );
    return { opType: n.node.opType, inputs: n.node.nodeInputs, outputs: outs, attrs: n.node.attrs };
  });
  const opset = Math.max(...nodes.map((n) => n.node.opset));
  for (const v of [...inputs, ...outputs])
    if (!ortType(v.type.dtype)) throw new Error(`ort region: ${v.name} is ${v.type.dtype}, which regions do not pass`);
  const bytes = encodeGraphModel({
    opset,
    nodes: graphNodes,
    inputs: inputs.map((i) => ({ name: i.name, type: ONNX_DTYPE_ATTR[i.type.dtype]!, shape: i.type.shape })),
    consts,
    outputs: outputs.map((o) => o.name),
  });
  // Sessions run on as many threads as raf-op's kernels did when they were opened: the count is part of the key.
  const key = `${wasmThreads()}:${bytesKey(bytes)}`;
  let entry = sessions.get(key);
  if (!entry) {
    const native = ort.newSession();
    native.loadModel(bytes.buffer, bytes.byteOffset, bytes.byteLength, sessionOptions(true));
    countOrt('session');
    entry = { native, runners: 0 };
    sessions.set(key, entry);
  }
  entry.runners++;
  const session = entry.native;
  const types = new Map(session.outputMetadata.map((o) => [o.name, o.type]));
  const direct = outputs.map((o) => types.get(o.name) === ONNX_DTYPE_ATTR[o.type.dtype]);
  const state = { released: false };
  const release = releaser(key, entry, state);
  const runner: OrtRegionRunner = {
    modelBytes: bytes.length,
    opset,
    get released() {
      return state.released;
    },
    dispose(this: OrtRegionRunner) {
      unreferenced.unregister(this);
      release();
    },
    run(values: readonly Tensor[]): Tensor[] {
      if (state.released)
        throw new Error(
          "ort region: its session was released (the signature left the session's region cache): take the graph from graphFor again",
        );
      return runSession(
        ort,
        session,
        inputs.map((v, i) => ({ name: v.name, tensor: values[i]!, shape: values[i]!.shape })),
        outputs.map((o, i) => ({ name: o.name, type: o.type, direct: direct[i]! })),
        {
          misshapen: (name, dims, o) =>
            new Error(`ort region: onnxruntime returned ${name} as [${dims}], declared [${o.shape}]`),
        },
      );
    },
  };
  unreferenced.register(runner, release, runner);
  return runner;
}
