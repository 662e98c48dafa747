// An ort region: several calls' ONNX nodes as one model, one onnxruntime session, run as one fused call
// (runtime/src/graph/passes/ort-regions.ts forms the regions; docs/runtime.md).

import { toStorage, type DType } from '../../dtype.ts';
import { CpuStorage, Tensor, type TensorType } from '../../tensor.ts';
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
  /** Size of its session's model (ModelProto bytes, with the weights written into it). */
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
 * Sessions by thread count, structure and the constants they take as inputs (see `openRegion`): regions of the same
 * calls share one, whatever their shapes.
 */
const sessions = new Map<string, SessionEntry>();

interface SessionEntry {
  readonly native: OrtNativeSession;
  readonly modelBytes: number;
  runners: number;
}

/**
 * What the regions of one structure (the same nodes, attributes, value names and element types; any shapes and
 * constant values) have seen: each constant's digest at the first of them, and the constants seen to differ since.
 * A session opened after a difference takes those constants as inputs, so the next signature's region reuses it.
 */
interface Family {
  readonly reference: ReadonlyMap<string, string>;
  readonly varying: Set<string>;
  /** Whether onnxruntime refused a session taking the varying constants as inputs. */
  unshared: boolean;
  runners: number;
}
const families = new Map<string, Family>();

/** A runner no graph holds any more releases its share of the session, as dispose() would. */
const unreferenced = new FinalizationRegistry<() => void>((release) => release());

function sha256(...parts: (string | Uint8Array)[]): string {
  // The ort dialect runs in Node only, where node:crypto is a builtin.
  const crypto = (
    globalThis as unknown as { process: { getBuiltinModule(id: string): unknown } }
  ).process.getBuiltinModule('node:crypto') as {
    createHash(algorithm: string): { update(data: string | Uint8Array): unknown; digest(encoding: 'hex'): string };
  };
  const h = crypto.createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest('hex');
}

/** Digests of constant tensors (weights), computed once per tensor: a model's regions at every signature share them. */
const tensorDigests = new WeakMap<Tensor, string>();

function digestOf(c: OrtConst, t?: Tensor): string {
  if (t) {
    let d = tensorDigests.get(t);
    if (d === undefined) {
      const v = t.dataSync();
      d = sha256(`${t.dtype}[${t.shape}]`, new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
      tensorDigests.set(t, d);
    }
    return d;
  }
  const text = `${c.type}[${c.shape}]${c.data.join(',')}`;
  return c.data.length <= 64 ? text : sha256(text);
}

const DTYPE_OF_ONNX = new Map<number, DType>(
  Object.entries(ONNX_DTYPE_ATTR).map(([dtype, code]) => [code!, dtype as DType]),
);

/** Whether a constant can be fed as a graph input: its element type is one regions pass. */
function feedable(c: OrtConst): boolean {
  const dtype = DTYPE_OF_ONNX.get(c.type);
  return dtype !== undefined && ortType(dtype) !== undefined;
}

/** A constant fed as a graph input (see feedable): its tensor, or one made from its values. */
function constTensor(c: OrtConst, t?: Tensor): Tensor {
  if (t) return t;
  const dtype = DTYPE_OF_ONNX.get(c.type)!;
  return new Tensor(c.shape, dtype, new CpuStorage(toStorage(dtype, c.data)));
}

/**
 * A runner's share of its session, let go once. Made outside openRegion so that the closure holds no reference to the
 * runner (a closure of openRegion's would share its scope, and the registry would keep the runner alive).
 */
function releaser(
  key: string,
  entry: SessionEntry,
  family: { readonly key: string; readonly family: Family },
  state: { released: boolean },
): () => void {
  return () => {
    if (state.released) return;
    state.released = true;
    if (--family.family.runners === 0 && families.get(family.key) === family.family) families.delete(family.key);
    if (--entry.runners > 0) return;
    sessions.delete(key);
    entry.native.dispose();
  };
}

/**
 * Builds the region's model (nodes in order; the region's inputs as graph inputs, weights included unless given as
 * `initializers`, which are written into the model; every value used outside as a graph output) and opens its session,
 * or throws onnxruntime's reason. The model's opset is the highest of its nodes' mappings (each mapping follows its
 * op's newest signature).
 *
 * Graph inputs are declared with symbolic dimensions, so a session runs at any shape. Regions of the same structure
 * (a model's graph at another input signature: the same calls, shapes aside) share one session: the first writes
 * every constant into its model; once a region of that structure has a constant of other values (position
 * embeddings sliced to the sequence length, a Reshape's target), the session opened for it takes those constants as
 * inputs, and later regions whose other constants match it reuse it, feeding their own values. Each region's session
 * thus computes exactly its own model.
 */
export function openRegion(
  nodes: readonly RegionNode[],
  inputs: readonly RegionValue[],
  outputs: readonly RegionValue[],
  initializers: ReadonlyMap<string, Tensor> = new Map(),
): OrtRegionRunner {
  const ort = loadOrt();
  const consts = new Map<string, { readonly c: OrtConst; readonly t?: Tensor }>();
  for (const [name, t] of initializers)
    consts.set(name, {
      c: { type: ONNX_DTYPE_ATTR[t.dtype]!, shape: t.shape, data: t.dataSync() as unknown as number[] },
      t,
    });
  const graphNodes = nodes.map((n, j) => {
    for (const [name, c] of Object.entries(n.node.consts)) consts.set(name, { c });
    const outs = Array.from({ length: Math.max(n.node.outputs, n.outputs.length) }, (_, k) =>
      k < n.outputs.length ? n.outputs[k]! : `n${j}_unused${k}`,
    );
    return { opType: n.node.opType, inputs: n.node.nodeInputs, outputs: outs, attrs: n.node.attrs };
  });
  const opset = Math.max(...nodes.map((n) => n.node.opset));
  for (const v of [...inputs, ...outputs])
    if (!ortType(v.type.dtype)) throw new Error(`ort region: ${v.name} is ${v.type.dtype}, which regions do not pass`);
  const names = [...consts.keys()].sort();
  // Sessions run on as many threads as raf-op's kernels did when they were opened: the count is part of the key.
  const structure = sha256(
    JSON.stringify([
      wasmThreads(),
      opset,
      graphNodes,
      inputs.map((i) => [i.name, i.type.dtype, i.type.shape.length]),
      outputs.map((o) => o.name),
      names.map((n) => [n, consts.get(n)!.c.type, consts.get(n)!.c.shape.length]),
    ]),
  );
  const digests = new Map(names.map((n) => [n, digestOf(consts.get(n)!.c, consts.get(n)!.t)]));
  const family = families.get(structure) ?? {
    reference: digests,
    varying: new Set<string>(),
    unshared: false,
    runners: 0,
  };
  for (const [n, d] of digests) if (family.reference.get(n) !== d) family.varying.add(n);
  // A constant of a type regions do not pass (float16) cannot be fed: its structure's models keep every constant.
  for (const n of family.varying) if (consts.has(n) && !feedable(consts.get(n)!.c)) family.unshared = true;
  const open = (fed: readonly string[]): SessionEntry => {
    const symbolic = (name: string, rank: number) => Array.from({ length: rank }, (_, k) => `${name}_${k}`);
    const bytes = encodeGraphModel({
      opset,
      nodes: graphNodes,
      inputs: [
        ...inputs.map((i) => ({
          name: i.name,
          type: ONNX_DTYPE_ATTR[i.type.dtype]!,
          shape: symbolic(i.name, i.type.shape.length),
        })),
        ...fed.map((n) => ({
          name: n,
          type: consts.get(n)!.c.type,
          shape: symbolic(n, consts.get(n)!.c.shape.length),
        })),
      ],
      consts: Object.fromEntries(names.filter((n) => !fed.includes(n)).map((n) => [n, consts.get(n)!.c])),
      outputs: outputs.map((o) => o.name),
    });
    const native = ort.newSession();
    native.loadModel(bytes.buffer, bytes.byteOffset, bytes.byteLength, sessionOptions(true));
    countOrt('session');
    return { native, runners: 0, modelBytes: bytes.length };
  };
  // A structure whose shared session onnxruntime refused keeps every constant in its models: a session per set of
  // constants' values.
  const keyOf = (fed: readonly string[]) =>
    family.unshared ? `${structure}:=${sha256([...digests.values()].join(','))}` : `${structure}:${fed.join(',')}`;
  let fed = family.unshared ? [] : names.filter((n) => family.varying.has(n));
  let key = keyOf(fed);
  let entry = sessions.get(key);
  if (!entry) {
    try {
      entry = open(fed);
    } catch (e) {
      // Some kernel of onnxruntime's wants one of the constants fed as an input as a constant of the model.
      if (!fed.length) throw e;
      family.unshared = true;
      fed = [];
      key = keyOf(fed);
      entry = sessions.get(key) ?? open(fed);
    }
    sessions.set(key, entry);
  }
  families.set(structure, family);
  family.runners++;
  entry.runners++;
  const session = entry.native;
  const feeds = [...inputs.map((v) => v.name), ...fed];
  const fedTensors = fed.map((n) => constTensor(consts.get(n)!.c, consts.get(n)!.t));
  const types = new Map(session.outputMetadata.map((o) => [o.name, o.type]));
  const direct = outputs.map((o) => types.get(o.name) === ONNX_DTYPE_ATTR[o.type.dtype]);
  const state = { released: false };
  const release = releaser(key, entry, { key: structure, family }, state);
  const runner: OrtRegionRunner = {
    modelBytes: entry.modelBytes,
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
      const all = [...values, ...fedTensors];
      return runSession(
        ort,
        session,
        feeds.map((name, i) => ({ name, tensor: all[i]!, shape: all[i]!.shape })),
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
