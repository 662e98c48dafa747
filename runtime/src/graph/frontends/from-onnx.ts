// FromOnnx: converts an ONNX model into a raf-op graph through the generated ONNX mappings (one per spec with `onnx:`).
// Values known at import (initializers, Constant nodes, shapes of typed values) are computed eagerly as they are met,
// so shape subgraphs (Shape → Gather → Concat → Reshape) fold away and only the data path is recorded.

import { CPU, type Device } from '../../device.ts';
import { invoke, setInvokeHook, type InvokeHook } from '../../dispatch.ts';
import { getOp } from '../../registry.ts';
import type { DType } from '../../dtype.ts';
import { keepAlive, placeOn, Tensor } from '../../tensor.ts';
import { ONNX_MAPPINGS } from '../../generated/onnx/index.ts';
import { mkVar, type Graph, type Var } from '../ir.ts';
import { ONNX_CONVERSION_RULES } from '../onnx/convert.ts';
import { isKnownValue, kindOf, OnnxOptional, OnnxSequence, type ImportValue } from '../onnx/containers.ts';
import { IMPORTER_FORMS, type ImportContext } from '../onnx/forms.ts';
import { CONTRIB_FORMS, DEFAULT_DOMAIN_CONTRIB_FORMS } from '../onnx/forms-contrib.ts';
import type { OnnxImportCache } from '../onnx/import-cache.ts';
import { upgradeLegacy } from '../onnx/legacy.ts';
import { constTensor, importedDType, onnxDType, valuesOf, withFloatsAs } from '../onnx/values.ts';
import { FORMAT_PRESERVING, formatOf, markFormat } from '../onnx/narrow.ts';
import { isStringTensor, markStrings } from '../../strings.ts';
import { zipMapScope } from '../onnx/zipmap.ts';
import type { OnnxMapping } from '../onnx/mapping.ts';
import {
  decodeOnnx,
  isOnnxGraph,
  type OnnxAttr,
  type OnnxGraph,
  type OnnxModel,
  type OnnxNode,
  type OnnxTensor,
  type OnnxValueInfo,
} from '../onnx/proto.ts';
import { isSymbolic, Recorder } from '../trace.ts';

export interface FromOnnxOptions {
  readonly device?: Device;
  /** Concrete sizes for symbolic input dims (`batch`), by input name. */
  readonly shapes?: Readonly<Record<string, readonly number[]>>;
  /** Inputs whose values are fixed for this import (a sample rate): they fold like initializers. */
  readonly constants?: Readonly<Record<string, Tensor>>;
  /**
   * How the model's float16 values compute. 'float32' (the default on the CPU, as onnxruntime's CPU provider runs
   * float16 models): float16 weights and values are widened when imported, every op computes and fuses as in a float32
   * model, and outputs the model declares float16 are rounded back to float16 at the end. 'float16' (the default on
   * WebGPU, where shader-f16 computes them natively): every op rounds its result to float16, as ONNX's reference does.
   */
  readonly float16?: 'float32' | 'float16';
  /**
   * How the model's float32 values compute: 'float32' (the default), or 'float64', where every float value (float32
   * and float16 weights, inputs, constants, Casts to them) is widened and the whole model computes in float64, outputs
   * included (checking against a float64 reference, fine-tuning in float64: train.onnxParams' `dtype`).
   */
  readonly float32?: 'float32' | 'float64';
  /**
   * Values an earlier conversion of the same model (same device and float16 mode) computed from initializers and
   * constants alone, reused instead of computed again (OnnxSession converts a model once per input signature).
   */
  readonly cache?: OnnxImportCache;
  /**
   * Initializers that become graph inputs instead of folded constants (fine-tuning, train.onnxParams): each one a
   * param after the model's own inputs, in this order, hinted with its ONNX name, of the initializer's shape and
   * (imported) dtype. Only float initializers may be listed; nothing computed from them folds at import.
   */
  readonly initializersAsInputs?: readonly string[];
  /**
   * The values of the model's sequence and optional inputs at this signature (OnnxSession.runValues): each tensor they
   * hold becomes a graph input of its shape and dtype, in order (hinted `name[k]`), so the graph is specialized to
   * their number as it is to shapes.
   */
  readonly containers?: Readonly<Record<string, OnnxSequence | OnnxOptional>>;
  /**
   * Receives how the model's outputs lie in the graph's: a tensor output is one graph output, a sequence output its
   * tensors in order, an optional one its tensor or sequence or nothing. Without it, a non-tensor output is refused.
   */
  readonly outputLayout?: (layout: readonly OutputLayout[]) => void;
}

export const nodeLabel = (node: OnnxNode, k: number): string =>
  `node ${k} (${node.name ? `'${node.name}', ` : ''}${node.opType})`;

/** How this opset spells a mapping: its inputs, attrs and defaults after the older forms the opset falls under. */
function formOf(m: OnnxMapping, opset: number) {
  let inputs = m.inputs;
  let attrs = m.attrs;
  let defaults: Record<string, unknown> = { ...(m.defaults ?? {}) };
  for (const f of m.before ?? []) {
    if (opset >= f.until) continue;
    inputs = f.inputs ?? inputs;
    attrs = f.attrs ?? attrs;
    defaults = { ...defaults, ...f.defaults };
  }
  return { inputs, attrs, defaults };
}

/** The mappings by ONNX op, in the table's order; built again when a package adds mappings (the table only grows). */
let mappingsByOp: { readonly size: number; readonly byOp: Map<string, OnnxMapping[]> } | null = null;

function mappingIndex(): ReadonlyMap<string, readonly OnnxMapping[]> {
  if (mappingsByOp?.size !== ONNX_MAPPINGS.length) {
    const byOp = new Map<string, OnnxMapping[]>();
    for (const m of ONNX_MAPPINGS) if (m) byOp.set(m.onnxOp, [...(byOp.get(m.onnxOp) ?? []), m as OnnxMapping]);
    mappingsByOp = { size: ONNX_MAPPINGS.length, byOp };
  }
  return mappingsByOp.byOp;
}

/**
 * The mappings that may import a node, best first: consts must match, and the model's opset must be one the
 * mapping covers; several ops may share an ONNX op (MatMul is matmul and batch_matmul), so callers try each.
 */
function mappingsFor(node: OnnxNode, opset: number): OnnxMapping[] {
  const named = mappingIndex().get(node.opType) ?? [];
  if (!named.length)
    throw new Error(`no raf-op spec maps ONNX op '${node.opType}' (add an onnx: mapping to the op's spec)`);
  const all = named.filter((m) =>
    Object.entries(m.consts).every(([k, v]) => node.attrs.find((a) => a.name === k)?.value === v),
  );
  if (!all.length) {
    const wants = named.map((m) => `raf.op.${m.op.name} needs ${JSON.stringify(m.consts)}`).join('; ');
    throw new Error(`this ${node.opType} has attributes no mapping takes (${wants})`);
  }
  const usable = all.filter((m) => m.since <= opset);
  if (!usable.length)
    throw new Error(
      `${node.opType} is mapped from opset ${Math.min(...all.map((m) => m.since))} on, the model imports opset ${opset}`,
    );
  return usable;
}

/** How one model output lies among the graph's outputs (FromOnnxOptions.outputLayout). */
export type OutputLayout =
  | 'tensor'
  | { readonly sequence: number; readonly dtype: DType | null }
  | { readonly optional: null | 'tensor' | { readonly sequence: number; readonly dtype: DType | null } }
  /** ZipMap's sequence of maps: one tensor [N, labels], a map per row. */
  | { readonly zipmap: readonly (number | string)[] };

/** Converts ONNX bytes (or a decoded model) to a graph whose params are the model's non-initializer inputs. */
export function fromOnnx(model: Uint8Array | OnnxModel, opts: FromOnnxOptions = {}): Graph {
  const device = opts.device ?? CPU;
  const wide = opts.float32 === 'float64';
  return withFloatsAs(
    { float16: wide ? 'float64' : float16Mode(opts, device), float32: wide ? 'float64' : 'float32' },
    () => convertModel(model, opts),
  );
}

function convertModel(model: Uint8Array | OnnxModel, opts: FromOnnxOptions): Graph {
  const m = model instanceof Uint8Array ? decodeOnnx(model) : model;
  const device = opts.device ?? CPU;
  const rec = new Recorder();
  const values = new Map<string, ImportValue>();
  const cache = opts.cache;
  const outerCache = importCache;
  // Values cached from initializers alone would be wrong once some initializers are inputs: no cache then.
  importCache =
    cache &&
    !opts.initializersAsInputs?.length &&
    cache.device === device &&
    cache.float16 === float16Mode(opts, device) &&
    opts.float32 !== 'float64'
      ? { cache, top: values }
      : null;
  try {
    return convertWith(m, opts, rec, values);
  } finally {
    importCache = outerCache;
  }
}

/** The cache of the conversion under way, and the value map of the model's main graph (the one it caches). */
let importCache: { readonly cache: OnnxImportCache; readonly top: Map<string, ImportValue> } | null = null;

function float16Mode(opts: FromOnnxOptions, device: Device): 'float32' | 'float16' {
  return opts.float16 ?? (device.kind === 'cpu' ? 'float32' : 'float16');
}

/** An initializer's tensor: the cached one in the main graph of a cached conversion. */
function initializerValue(t: OnnxTensor, values: Map<string, ImportValue>): Tensor {
  const v = importCache?.top === values ? importCache.cache.initializer(t, constTensor) : constTensor(t);
  return markFormat(v, t.format);
}

function convertWith(m: OnnxModel, opts: FromOnnxOptions, rec: Recorder, values: Map<string, ImportValue>): Graph {
  const device = opts.device ?? CPU;
  const asInputs = opts.initializersAsInputs ?? [];
  const inputVars = new Map<string, Var>();
  for (const t of m.initializers) {
    if (!asInputs.includes(t.name)) {
      values.set(t.name, initializerValue(t, values));
      continue;
    }
    const dtype = importedDType(t.dtype);
    if (dtype !== 'float32' && dtype !== 'float64' && dtype !== 'float16')
      throw new Error(`FromOnnx: initializer '${t.name}' is ${t.dtype}; only float initializers can be graph inputs`);
    const v = mkVar({ shape: [...t.shape], dtype }, device, t.name);
    inputVars.set(t.name, v);
    values.set(t.name, rec.tensorOf(v));
  }
  const unknown = asInputs.filter((n) => !inputVars.has(n));
  if (unknown.length)
    throw new Error(`FromOnnx: no initializer named ${unknown.map((n) => `'${n}'`).join(', ')} in the model`);
  const params: Var[] = [];
  for (const input of m.inputs) {
    if (values.has(input.name)) continue;
    const fixed = opts.constants?.[input.name];
    if (input.strings && !(fixed && isStringTensor(fixed)))
      throw new Error(
        `FromOnnx: input '${input.name}' is an ONNX string tensor: raf-op reads strings as values known while converting; pass stringTensor([...]) in opts.constants (OnnxSession does this for each run)`,
      );
    if (fixed) {
      // A constant given in another dtype than the input declares (an int32 sample rate for an int64 input) takes the
      // input's dtype, as a fed value would.
      const want = input.dtype && importedDType(input.dtype);
      values.set(input.name, want && fixed.dtype !== want ? (invoke(getOp('cast'), [fixed, want]) as Tensor) : fixed);
      continue;
    }
    if (input.kind === 'sequence' || input.kind === 'optional') {
      const fed = opts.containers?.[input.name];
      const want = input.kind === 'sequence' ? OnnxSequence : OnnxOptional;
      if (!(fed instanceof want))
        throw new Error(
          `FromOnnx: input '${input.name}' is an ONNX ${input.kind}; pass its value in opts.containers (OnnxSession.runValues)`,
        );
      let k = 0;
      const traced = (t: Tensor) => {
        const v = mkVar({ shape: [...t.shape], dtype: t.dtype }, device, `${input.name}[${k++}]`);
        params.push(v);
        return rec.tensorOf(v);
      };
      const sequence = (q: OnnxSequence) => new OnnxSequence(q.items.map(traced), q.dtype);
      const held = fed instanceof OnnxOptional ? fed.value : null;
      values.set(
        input.name,
        fed instanceof OnnxSequence
          ? sequence(fed)
          : new OnnxOptional(held === null ? null : held instanceof OnnxSequence ? sequence(held) : traced(held)),
      );
      continue;
    }
    const shape = opts.shapes?.[input.name] ?? input.shape;
    if (!shape || shape.some((d) => typeof d !== 'number')) {
      throw new Error(
        `FromOnnx: input '${input.name}' has shape [${input.shape?.join(', ') ?? '?'}]; pass concrete sizes in opts.shapes`,
      );
    }
    if (!input.dtype) throw new Error(`FromOnnx: input '${input.name}' has no tensor element type`);
    const dtype: DType = importedDType(input.dtype);
    const v = mkVar({ shape: shape as number[], dtype }, device, input.name);
    params.push(v);
    values.set(input.name, markFormat(rec.tensorOf(v), input.format));
  }
  for (const n of asInputs) params.push(inputVars.get(n)!);
  const missing = unsupportedOps(m);
  const outer = failedValues;
  const outerInputs = initializerInputs;
  failedValues = new Map();
  initializerInputs = { graph: m, names: new Set(asInputs) };
  try {
    const results = zipMapScope((zipmaps) =>
      runPlacing(rec, () => {
        // Every node converts even after one fails, so that one refusal names every problem of the model.
        const problems: NodeProblem[] = [];
        convertGraph(m, m.opset, values, problems);
        if (missing.size || problems.length) throw new Error(refusal(missing, problems));
        const layout: OutputLayout[] = [];
        const flat: Tensor[] = [];
        const emit = (t: Tensor, declared: OnnxValueInfo['dtype']) => {
          // A float16 output computed in float32 is rounded to what the model declares (recorded like any node).
          const out =
            declared === 'float16' && t.dtype === 'float32' ? (invoke(getOp('cast'), [t, 'float16']) as Tensor) : t;
          flat.push(isSymbolic(out) ? out : placed(out, device));
        };
        const sequence = (q: OnnxSequence) => {
          q.items.forEach((t) => emit(t, null));
          return { sequence: q.items.length, dtype: q.dtype };
        };
        for (const o of m.outputs) {
          const t = values.get(o.name);
          if (!t) throw unreadable(o.name, 'graph output');
          const labels = zipmaps.get(o.name);
          if (labels && t instanceof Tensor) {
            if (!opts.outputLayout)
              throw new Error(
                `graph output '${o.name}' is ZipMap's sequence of maps; run the model with OnnxSession.runValues`,
              );
            emit(t, null);
            layout.push({ zipmap: labels });
          } else if (t instanceof Tensor) {
            emit(t, o.dtype);
            layout.push('tensor');
          } else if (!opts.outputLayout)
            throw new Error(`graph output '${o.name}' is ${kindOf(t)}; outputs are tensors`);
          else if (t instanceof OnnxSequence) layout.push(sequence(t));
          else {
            const v = t.value;
            if (v instanceof Tensor) emit(v, null);
            layout.push({ optional: v === null ? null : v instanceof Tensor ? 'tensor' : sequence(v) });
          }
        }
        // A ZipMap read by another node than a model output has no value raf-op computes.
        for (const name of zipmaps.keys())
          if (!m.outputs.some((o) => o.name === name))
            throw new Error(
              `ZipMap's output '${name}' is read inside the model; raf-op gives ZipMap's maps only as a model output`,
            );
        opts.outputLayout?.(layout);
        return flat;
      }),
    );
    return { params, nodes: rec.nodes, outputs: results.map((t) => rec.atomOf(t)) };
  } catch (e) {
    const message = (e as Error).message;
    throw new Error(message.startsWith('FromOnnx') ? message : `FromOnnx ${message}`);
  } finally {
    failedValues = outer;
    initializerInputs = outerInputs;
  }
}

/** The main graph of the conversion under way and its initializers that are graph inputs (initializersAsInputs). */
let initializerInputs: { readonly graph: OnnxGraph; readonly names: ReadonlySet<string> } | null = null;

/**
 * Runs `fn` recording into `rec`, with every known tensor (an initializer, a value folded at import) that a recorded
 * call reads placed on that call's device first. Import-time folding computes on the CPU, where values can be read
 * synchronously; a graph imported for WebGPU reads its weights there (as moveGraph would place them), uploaded once.
 */
function runPlacing<R>(rec: Recorder, fn: () => R): R {
  const hook: InvokeHook = (op, args) => {
    const a = args as Record<string, unknown>;
    let target: Device | undefined;
    for (const n of op.tensorArgs) {
      const v = a[n];
      const sym = isSymbolic(v) ? v : Array.isArray(v) ? v.find(isSymbolic) : undefined;
      if (sym && sym.device.kind !== 'cpu') {
        target = sym.device;
        break;
      }
    }
    if (!target) return rec.hook(op, args);
    const d = target;
    const place = (v: unknown): unknown => (v instanceof Tensor && !isSymbolic(v) ? placed(v, d) : v);
    const changes: Record<string, unknown> = {};
    for (const n of op.tensorArgs) {
      const v = a[n];
      changes[n] = Array.isArray(v) ? v.map(place) : place(v);
    }
    // Generated argument classes copy themselves with `with` (the type functions' own way to replace fields).
    return rec.hook(op, (args as { with(c: Record<string, unknown>): unknown }).with(changes));
  };
  const prev = setInvokeHook(hook);
  try {
    return fn();
  } finally {
    setInvokeHook(prev);
  }
}

/** Known tensors' copies on other devices, so a weight read by many nodes (or conversions) is uploaded once. */
const placedCopies = new WeakMap<Tensor, Map<Device, Tensor>>();

function placed(t: Tensor, d: Device): Tensor {
  if (t.device === d) return t;
  let copies = placedCopies.get(t);
  if (!copies) placedCopies.set(t, (copies = new Map()));
  let c = copies.get(d);
  if (!c) copies.set(d, (c = keepAlive(placeOn(t, d))));
  return c;
}

/** The ONNX ops (or domains) a model uses that raf-op has no import for, with the nodes that use them. */
function unsupportedOps(m: OnnxGraph): Map<string, string[]> {
  const missing = new Map<string, string[]>();
  // Read when the model converts, not at import time: a package's mappings register when it is imported.
  const mapped = mappingIndex();
  const visit = (g: OnnxGraph, where: string) =>
    g.nodes.forEach((n, k) => {
      const label = `${where}${n.name ? `'${n.name}'` : `node ${k}`}`;
      const key = unsupportedOp(n, mapped);
      if (key) missing.set(key, [...(missing.get(key) ?? []), label]);
      for (const sg of subgraphsOf(n)) visit(sg, `${label} > `);
    });
  visit(m, '');
  return missing;
}

/** `OpType` (or `domain.OpType`) when raf-op has no import for the node's op, else undefined. */
function unsupportedOp(n: OnnxNode, mapped: { has(op: string): boolean }): string | undefined {
  const domain = n.domain && n.domain !== 'ai.onnx' ? n.domain : '';
  if (!domain && (n.opType in IMPORTER_FORMS || n.opType in DEFAULT_DOMAIN_CONTRIB_FORMS || mapped.has(n.opType)))
    return undefined;
  if (domain && `${domain}.${n.opType}` in CONTRIB_FORMS) return undefined;
  return domain ? `${domain}.${n.opType}` : n.opType;
}

/** A node of the top-level graph that failed to convert (one whose inputs could all be computed). */
interface NodeProblem {
  readonly node: OnnxNode;
  /** `node 3 ('ln', LayerNormalization)`, for a refusal of this node alone. */
  readonly label: string;
  /** `'ln'` (or `node 3`), in a list of nodes. */
  readonly short: string;
  readonly message: string;
}

/**
 * The one refusal for a model: every ONNX op raf-op does not import with the nodes that use them, then every other
 * node that failed (an attribute setting, a dtype, a shape), grouped by op and reason. A model with one failing node is
 * refused with that node's own error.
 */
function refusal(missing: ReadonlyMap<string, string[]>, problems: readonly NodeProblem[]): string {
  const mapped = mappingIndex();
  const others = problems.filter((p) => !unsupportedOp(p.node, mapped));
  if (!missing.size && others.length === 1) return `FromOnnx ${others[0]!.label}: ${others[0]!.message}`;
  const shown = (nodes: readonly string[]) =>
    `${nodes.length} node${nodes.length > 1 ? 's' : ''}: ${nodes.slice(0, 3).join(', ')}` +
    (nodes.length > 3 ? `, ... ${nodes.length - 3} more` : '');
  const parts: string[] = [];
  if (missing.size) {
    const listed = [...missing].map(([op, nodes]) => `${op} (${shown(nodes)})`);
    parts.push(`${missing.size} ONNX op${missing.size > 1 ? 's' : ''} raf-op does not import: ${listed.join('; ')}`);
  }
  if (others.length) {
    const reasons = new Map<string, string[]>();
    for (const p of others) {
      const key = `${p.node.opType}: ${p.message}`;
      reasons.set(key, [...(reasons.get(key) ?? []), p.short]);
    }
    const listed = [...reasons].map(([reason, nodes]) => `${reason} (${shown(nodes)})`);
    parts.push(
      `${others.length} node${others.length > 1 ? 's' : ''} raf-op cannot import as written: ${listed.join('; ')}`,
    );
  }
  return (
    `FromOnnx: the model uses ${parts.join('; and it has ')}. ` +
    `You can export the model again without them (another opset, or exporter options that avoid these ops and ` +
    `settings), or add what is missing to raf-op: an op spec with an onnx: mapping, scaffolded in your own op package ` +
    `by \`npm run new -- NAME --onnx OpType\` (docs/package.md).`
  );
}

/** Converts every node of `g` in dependency order, reading and writing `values` (a subgraph sees its enclosing graph's values). */
export function convertGraph(
  g: OnnxGraph,
  opset: number,
  values: Map<string, ImportValue>,
  problems?: NodeProblem[],
): void {
  const outer = enclosing;
  enclosing = g;
  try {
    convertNodes(g, opset, values, problems);
  } finally {
    enclosing = outer;
  }
}

/** The graph convertGraph is converting now: a node that names values of its own graph (Gradient) reads it. */
let enclosing: OnnxGraph | null = null;

function convertNodes(g: OnnxGraph, opset: number, values: Map<string, ImportValue>, problems?: NodeProblem[]): void {
  // Values of nodes that failed (or read such a value) while collecting problems: a reader is not a new problem.
  const broken = new Set<string>();
  for (const t of g.initializers)
    if (!(initializerInputs?.graph === g && initializerInputs.names.has(t.name)))
      values.set(t.name, initializerValue(t, values));
  for (const k of topologicalOrder(g)) {
    const node = g.nodes[k]!;
    try {
      convertNode(node, node.opset ?? opset, values);
    } catch (e) {
      // Nested graphs prefix their own nodes: "node 3 ('If_0', If): then_branch: node 1 (Conv): ...".
      const error = new Error(`${nodeLabel(node, k)}: ${(e as Error).message}`);
      // A node computed at import (every input known) whose value no node and no output reads is not an error
      // (an exporter's dead branch: T5's position buckets cast log(0) to int64): the failure is kept and raised only
      // where the value is read.
      if (failedValues && foldsAtImport(node, values)) {
        for (const o of node.outputs) if (o) failedValues.set(o, error);
        continue;
      }
      if (!problems || !failedValues) throw error;
      const reads = new Set(node.inputs.filter(Boolean));
      for (const sg of subgraphsOf(node)) outerNames(sg, reads);
      if (![...reads].some((r) => broken.has(r)))
        problems.push({
          node,
          label: nodeLabel(node, k),
          short: node.name ? `'${node.name}'` : `node ${k}`,
          message: (e as Error).message,
        });
      for (const o of node.outputs) {
        if (!o) continue;
        broken.add(o);
        failedValues.set(o, error);
      }
    }
  }
}

/** Values whose computation at import failed, by name, with the failure (see convertGraph). */
let failedValues: Map<string, Error> | null = null;

/** Whether a node reads only values known at import (so converting it computes a constant, records nothing). */
function foldsAtImport(node: OnnxNode, values: ReadonlyMap<string, ImportValue>): boolean {
  if (subgraphsOf(node).length) return false;
  return node.inputs.every((name) => {
    if (!name) return true;
    const t = values.get(name);
    return t !== undefined && isKnownValue(t);
  });
}

/** The error for reading a value that was never computed: its failed computation, or its absence. */
function unreadable(name: string, what = 'input'): Error {
  const failed = failedValues?.get(name);
  if (failed) return new Error(`${what} '${name}' could not be computed at import (${failed.message})`);
  return new Error(`${what} '${name}' is not computed before it is read`);
}

/**
 * Subgraphs converted into graphs of their own over the values of the enclosing scope they read that are computed at
 * run time (ImportContext.branches): each one recorded by its own Recorder, those values its params.
 */
function branchGraphs(
  graphs: readonly { readonly name: string; readonly graph: OnnxGraph }[],
  opset: number,
  values: ReadonlyMap<string, ImportValue>,
): { inputs: Tensor[]; fns: Graph[] } | null {
  // A model imported for training is differentiated, and an `if` call has no gradient.
  if (initializerInputs?.names.size) return null;
  const reads = new Set<string>();
  for (const { graph } of graphs) outerNames(graph, reads);
  const outer: [string, Tensor][] = [];
  for (const name of reads) {
    const v = values.get(name);
    if (v instanceof Tensor) {
      if (isSymbolic(v)) {
        if (v.device.kind !== 'cpu') return null;
        outer.push([name, v]);
      }
    } else if (v !== undefined && !isKnownValue(v)) return null;
  }
  const fns: Graph[] = [];
  for (const { name: label, graph: g } of graphs) {
    const rec = new Recorder();
    const params = outer.map(([name, t]) => mkVar({ shape: [...t.shape], dtype: t.dtype }, t.device, name));
    const scope = new Map(values);
    outer.forEach(([name], i) => scope.set(name, rec.tensorOf(params[i]!)));
    const outs = runPlacing(rec, () => {
      try {
        convertGraph(g, opset, scope);
      } catch (e) {
        throw new Error(`${label}: ${(e as Error).message}`);
      }
      return g.outputs.map((o) => {
        const t = scope.get(o.name);
        if (!t) throw new Error(`${label}: subgraph output '${o.name}' is never computed`);
        return t;
      });
    });
    if (!outs.every((t): t is Tensor => t instanceof Tensor)) return null;
    fns.push({ params, nodes: rec.nodes, outputs: outs.map((t) => rec.atomOf(t)) });
  }
  return { inputs: outer.map(([, t]) => t), fns };
}

const untyped = (name: string): OnnxValueInfo => ({ name, kind: 'tensor', dtype: null, shape: null });

/**
 * The part of the graph being converted that computes `output` from the values named by `params`, as a graph of its
 * own (ImportContext.functionOf): its params are `params`' values, then the values computed at run time it reads from
 * elsewhere (`outer`, in that order); values known at import stay constants.
 */
function functionOf(
  params: readonly { readonly name: string; readonly value: Tensor }[],
  output: string,
  opset: number,
  values: ReadonlyMap<string, ImportValue>,
): { graph: Graph; outer: Tensor[] } {
  const g = enclosing;
  if (!g) throw new Error('functionOf: no graph is being converted');
  const producer = new Map<string, number>();
  g.nodes.forEach((n, k) => n.outputs.forEach((o) => o && producer.set(o, k)));
  const stop = new Set(params.map((p) => p.name));
  const needed = new Set<number>();
  const pending = [output];
  while (pending.length) {
    const name = pending.pop()!;
    const k = stop.has(name) ? undefined : producer.get(name);
    if (k === undefined || needed.has(k)) continue;
    needed.add(k);
    const node = g.nodes[k]!;
    pending.push(...node.inputs.filter(Boolean));
    for (const sg of subgraphsOf(node)) pending.push(...outerNames(sg));
  }
  const sub: OnnxGraph = {
    nodes: [...needed].sort((a, b) => a - b).map((k) => g.nodes[k]!),
    initializers: [],
    inputs: params.map((p) => untyped(p.name)),
    outputs: [untyped(output)],
  };
  const outer: [string, Tensor][] = [];
  for (const name of outerNames(sub)) {
    const v = values.get(name);
    if (isSymbolic(v)) outer.push([name, v]);
    else if (v !== undefined && !isKnownValue(v))
      throw new Error(
        `value '${name}' is ${kindOf(v)}; only tensors can be read by a differentiated part of the graph`,
      );
  }
  if (!needed.size && !stop.has(output) && !isSymbolic(values.get(output)) && !(values.get(output) instanceof Tensor))
    throw unreadable(output);
  const rec = new Recorder();
  const vars = [...params.map((p) => [p.name, p.value] as const), ...outer].map(([name, t]) =>
    mkVar({ shape: [...t.shape], dtype: t.dtype }, t.device, name),
  );
  const scope = new Map(values);
  [...params.map((p) => p.name), ...outer.map(([name]) => name)].forEach((name, i) =>
    scope.set(name, rec.tensorOf(vars[i]!)),
  );
  const y = runPlacing(rec, () => {
    convertGraph(sub, opset, scope);
    return scope.get(output);
  });
  if (!(y instanceof Tensor)) throw new Error(`value '${output}' is not a tensor`);
  return { graph: { params: vars, nodes: rec.nodes, outputs: [rec.atomOf(y)] }, outer: outer.map(([, t]) => t) };
}

/** The subgraphs a node carries (If's branches, Loop's and Scan's bodies). */
function subgraphsOf(node: OnnxNode): OnnxGraph[] {
  const out: OnnxGraph[] = [];
  for (const a of node.attrs) {
    if (isOnnxGraph(a.value)) out.push(a.value);
    else if (Array.isArray(a.value)) for (const v of a.value) if (isOnnxGraph(v)) out.push(v);
  }
  return out;
}

/** Names a subgraph reads from its enclosing scopes: inputs of its nodes (and theirs) that it does not define itself. */
function outerNames(g: OnnxGraph, into = new Set<string>()): Set<string> {
  const own = new Set([...g.inputs.map((i) => i.name), ...g.initializers.map((t) => t.name)]);
  for (const n of g.nodes) for (const o of n.outputs) own.add(o);
  const reads = new Set<string>();
  for (const n of g.nodes) {
    for (const i of n.inputs) if (i) reads.add(i);
    for (const sg of subgraphsOf(n)) outerNames(sg, reads);
  }
  for (const r of reads) if (!own.has(r)) into.add(r);
  return into;
}

/**
 * The order to convert a graph's nodes in: ONNX requires a topological node list, but exporters and tools write others
 * (a float16 converter appends its input Casts last), and onnxruntime sorts them. The file's order is kept wherever it
 * is already valid. Two nodes writing one value, or a cycle, are refused naming the nodes.
 */
export function topologicalOrder(g: OnnxGraph): number[] {
  // A model converted at several input signatures (OnnxSession) sorts each of its graphs once.
  let order = sortedGraphs.get(g);
  if (!order) sortedGraphs.set(g, (order = sortNodes(g)));
  return [...order];
}

const sortedGraphs = new WeakMap<OnnxGraph, readonly number[]>();

function sortNodes(g: OnnxGraph): number[] {
  const producer = new Map<string, number>();
  const given = new Map<string, string>([
    ...g.inputs.map((i) => [i.name, 'a graph input'] as const),
    ...g.initializers.map((t) => [t.name, 'an initializer'] as const),
  ]);
  g.nodes.forEach((n, k) =>
    n.outputs.forEach((o) => {
      if (!o) return;
      const what = given.get(o);
      if (what)
        throw new Error(
          `value '${o}' is ${what} and is also written by ${nodeLabel(n, k)}; ONNX values have one producer (rename the node's output)`,
        );
      const other = producer.get(o);
      if (other !== undefined)
        throw new Error(
          `value '${o}' is written by two nodes, ${nodeLabel(g.nodes[other]!, other)} and ${nodeLabel(n, k)}; ONNX values have one producer`,
        );
      producer.set(o, k);
    }),
  );
  const deps = g.nodes.map((n) => {
    const names = new Set(n.inputs.filter(Boolean));
    for (const sg of subgraphsOf(n)) outerNames(sg, names);
    return [...names].map((name) => producer.get(name)).filter((d): d is number => d !== undefined);
  });
  const state = new Uint8Array(g.nodes.length); // 0 unvisited, 1 on the stack, 2 done
  const order: number[] = [];
  for (let root = 0; root < g.nodes.length; root++) {
    if (state[root]) continue;
    // Iterative depth-first search (a long chain would overflow the call stack): producers before consumers.
    const stack: [number, number][] = [[root, 0]];
    state[root] = 1;
    while (stack.length) {
      const top = stack[stack.length - 1]!;
      const [k, next] = top;
      if (next < deps[k]!.length) {
        top[1]++;
        const d = deps[k]![next]!;
        if (state[d] === 1) {
          const cycle = stack.slice(stack.findIndex(([j]) => j === d)).map(([j]) => nodeLabel(g.nodes[j]!, j));
          throw new Error(`the graph has a cycle: ${[...cycle, cycle[0]].join(' -> ')}`);
        }
        if (state[d] === 0) {
          state[d] = 1;
          stack.push([d, 0]);
        }
        continue;
      }
      state[k] = 2;
      order.push(k);
      stack.pop();
    }
  }
  return order;
}

function convertNode(node: OnnxNode, opset: number, values: Map<string, ImportValue>): void {
  const cached = importCache?.top === values ? importCache.cache : null;
  if (cached?.reuse(node, values)) return;
  const contrib = node.domain && node.domain !== 'ai.onnx' ? CONTRIB_FORMS[`${node.domain}.${node.opType}`] : undefined;
  if (node.domain && node.domain !== 'ai.onnx' && !contrib)
    throw new Error(`ONNX op '${node.domain}.${node.opType}' is not imported`);
  // Opset 1-6 spellings (broadcast/axis attributes, consumed_inputs) become the form the mappings import.
  const legacy = contrib
    ? null
    : upgradeLegacy(node, opset, (name) => {
        const t = values.get(name);
        return t instanceof Tensor ? t : undefined;
      });
  if (legacy) {
    node = legacy.node;
    opset = legacy.opset;
    for (const [name, t] of legacy.values) values.set(name, t);
  }
  const value = (i: number): ImportValue | undefined => {
    const name = node.inputs[i];
    if (!name) return undefined;
    const t = values.get(name);
    if (!t) throw unreadable(name);
    return t;
  };
  // Ops other than the sequence and optional ones take tensors.
  const read = (i: number): Tensor | undefined => {
    const t = value(i);
    if (t === undefined || t instanceof Tensor) return t;
    throw new Error(`input '${node.inputs[i]}' is ${kindOf(t)}; ${node.opType} takes a tensor there`);
  };
  const ctx: ImportContext = {
    node,
    opset,
    input: read,
    value,
    attr: (name) => node.attrs.find((a) => a.name === name)?.value,
    subgraph: (g: OnnxGraph, inputs: readonly ImportValue[] = []): ImportValue[] => {
      const scope = new Map(values);
      // A body's formal inputs (Loop's iteration number, condition and carried values), bound by position.
      g.inputs.forEach((input, i) => inputs[i] && scope.set(input.name, inputs[i]!));
      convertGraph(g, opset, scope);
      return g.outputs.map((o): ImportValue => {
        const t = scope.get(o.name);
        if (!t) throw new Error(`subgraph output '${o.name}' is never computed`);
        return t;
      });
    },
    branches: (graphs) => branchGraphs(graphs, opset, values),
    functionOf: (params, output) => functionOf(params, output, opset, values),
    mapped: (opType, inputs, attrs, at = opset) =>
      mappedCall({ ...node, opType, inputs: inputs.map((_, i) => (inputs[i] ? `#${i}` : '')), attrs }, at, (n) =>
        n ? inputs[Number(n.slice(1))] : undefined,
      ),
  };
  const form = contrib ?? IMPORTER_FORMS[node.opType] ?? DEFAULT_DOMAIN_CONTRIB_FORMS[node.opType];
  const outs = form?.(ctx) ?? mappedCall(node, opset, (name) => (name ? read(node.inputs.indexOf(name)) : undefined));
  if (outs.length < node.outputs.filter(Boolean).length)
    throw new Error(`gives ${outs.length} outputs, the node has ${node.outputs.length}`);
  // An op that only moves elements passes a narrow format (int4, float8...) on to its outputs of the same dtype, and
  // strings (string ids) likewise; Where passes on its branches' strings.
  const first = FORMAT_PRESERVING.has(node.opType) ? value(0) : node.opType === 'Where' ? value(1) : undefined;
  const format = first instanceof Tensor ? formatOf(first) : undefined;
  const strings = isStringTensor(first);
  node.outputs.forEach((o, i) => {
    if (!o || !outs[i]) return;
    const t = outs[i]!;
    if (strings && t instanceof Tensor && t.dtype === 'int32') markStrings(t);
    if (format && t instanceof Tensor && t.dtype === (first as Tensor).dtype) markFormat(t, format);
    values.set(o, t);
  });
  cached?.store(node, values);
}

/** Imports a node through the generated mappings: the first that takes it wins. */
function mappedCall(node: OnnxNode, opset: number, lookup: (name: string) => Tensor | undefined): Tensor[] {
  const errors: string[] = [];
  for (const map of mappingsFor(node, opset)) {
    let kw: Record<string, unknown>;
    try {
      kw = argsFor(node, map, opset, lookup);
    } catch (e) {
      errors.push(`raf.op.${map.op.name}: ${(e as Error).message}`);
      continue;
    }
    try {
      const result = invoke(map.op, [], kw) as Tensor | readonly Tensor[];
      // A tuple op (Split) gives one tensor per node output.
      return result instanceof Tensor ? [result] : [...result];
    } catch (e) {
      errors.push((e as Error).message);
    }
  }
  throw new Error(errors.join('; '));
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Keyword args of the mapped op for one node: inputs by position, constant inputs as lists, attributes renamed. */
function argsFor(
  node: OnnxNode,
  map: OnnxMapping,
  opset: number,
  lookup: (name: string) => Tensor | undefined,
): Record<string, unknown> {
  const { inputs, attrs, defaults } = formOf(map, opset);
  const fields = map.op.schema.fields;
  const kw: Record<string, unknown> = {};
  // A Tensor[] arg takes every ONNX input beyond the other mapped ones (Concat's variadic inputs).
  const listAt = inputs.findIndex((a) => fields.find((f) => f.name === a)?.type === 'Tensor[]');
  const extra = Math.max(0, node.inputs.length - inputs.length);
  const argAt = (i: number) => (listAt < 0 || i < listAt ? i : i <= listAt + extra ? listAt : i - extra);
  const convertValue = (arg: string, value: readonly number[] | null) => {
    const conversion = map.convert?.[arg];
    return conversion ? ONNX_CONVERSION_RULES[conversion].fromOnnx(value, node.outputs.length) : undefined;
  };
  node.inputs.forEach((name, i) => {
    if (!name) return;
    const arg = inputs[argAt(i)];
    if (!arg) throw new Error(`${node.opType} has ${node.inputs.length} inputs, the mapping takes ${inputs.length}`);
    const field = fields.find((f) => f.name === arg)!;
    const t = lookup(name);
    if (!t) throw unreadable(name);
    if (field.type.startsWith('Tensor')) {
      if (field.type === 'Tensor[]') kw[arg] = [...((kw[arg] as Tensor[] | undefined) ?? []), t];
      else kw[arg] = t;
      return;
    }
    // ONNX passes some of our non-tensor args as inputs (ReduceSum's axes, Reshape's shape): they must be known now.
    const v = valuesOf(t, `input '${name}' ('${arg}', a ${field.type})`);
    kw[arg] =
      convertValue(arg, v) ??
      (field.type.startsWith('int[]') || field.type.startsWith('float[]') || field.type === 'int|int[]' ? v : v[0]);
  });
  // An omitted input still has a value of ours (Split without sizes: as many equal sections as outputs).
  for (const arg of Object.keys(map.convert ?? {})) if (!(arg in kw)) kw[arg] = convertValue(arg, null);
  // An omitted input that ONNX gives a default (Clip's min and max).
  for (const arg of inputs) if (!(arg in kw) && arg in defaults) kw[arg] = defaults[arg];
  // An omitted attribute means ONNX's default, not ours (ReduceSum keeps dims unless told otherwise).
  const given = new Set(node.attrs.map((a) => a.name));
  const omitted = Object.entries(defaults)
    .filter(([k]) => !given.has(k) && k in attrs)
    .map(([name, value]) => ({ name, value }) as OnnxAttr);
  for (const a of [...node.attrs, ...omitted]) {
    if (a.name in map.consts) continue;
    const arg = attrs[a.name];
    if (!arg) {
      const accept = map.accept ?? {};
      if (a.name in accept && (accept[a.name] === null || sameValue(accept[a.name], a.value))) continue;
      if (a.name in accept)
        throw new Error(
          `attribute ${a.name} = ${JSON.stringify(a.value)} is not supported (only ${JSON.stringify(accept[a.name])})`,
        );
      throw new Error(
        `attribute '${a.name}' is not one raf-op reads for ${node.opType} (it reads ${Object.keys(attrs).join(', ') || 'no attributes'})`,
      );
    }
    if (isOnnxGraph(a.value) || (Array.isArray(a.value) && isOnnxGraph(a.value[0])))
      throw new Error(`attribute '${a.name}' is a graph`);
    const field = fields.find((f) => f.name === arg)!;
    kw[arg] =
      convertValue(arg, a.value as number[]) ??
      (field.type === 'bool'
        ? Boolean(a.value)
        : field.type.startsWith('dtype') && typeof a.value === 'number'
          ? onnxDType(a.value)
          : a.value);
  }
  return kw;
}
