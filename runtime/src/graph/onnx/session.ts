// OnnxSession: an imported ONNX model run as onnxruntime's InferenceSession is, by input name, at any input shape its
// graph allows: the model is decoded once; its signature-independent part (initializers, and every value computed from
// them and from Constant nodes alone) is converted once; each input signature (shapes, dtypes, and the values of
// integer scalar inputs such as a sample rate, which fold like constants) then records the nodes that read the inputs
// or their shapes into a graph of its own, reused with its execution plan for every later run at that signature.

import { CPU, type Device } from '../../device.ts';
import { enabledDialects } from '../../dialect.ts';
import { ORT_DIALECT } from '../../dialects/ort/policy.ts';
import { cast } from '../../generated/api/cast.ts';
import type { DType } from '../../dtype.ts';
import { shapesEqual, type Shape } from '../../shape.ts';
import { Tensor } from '../../tensor.ts';
import { execute } from '../executor.ts';
import { fromOnnx, type OutputLayout } from '../frontends/from-onnx.ts';
import { OnnxMaps, OnnxOptional, OnnxSequence } from './containers.ts';
import { allNodes, mapBranches } from '../control.ts';
import type { Graph } from '../ir.ts';
import { recognizeAttention } from '../passes/attention.ts';
import { isOrtRegion, ortRegions, releaseOrtRegions, type OrtRegionOptions } from '../passes/ort-regions.ts';
import { fuseQuantDense } from '../passes/quant-dense.ts';
import { OnnxImportCache } from './import-cache.ts';
import { decodeOnnx, type OnnxModel, type OnnxValueInfo } from './proto.ts';
import { carrierOf, memberOf } from '../../formats.ts';
import { isStringTensor, markStrings } from '../../strings.ts';

export interface OnnxSessionOptions {
  readonly device?: Device;
  /** Passes applied to each converted graph before it runs (fuseOps, autoCast...). */
  readonly passes?: readonly ((g: Graph) => Graph)[];
  /**
   * Whether the exporter's attention subgraphs (scaled q·kᵀ, mask, Softmax, ·v) become one `attention` call each, run
   * as one blocked pass (recognizeAttention, docs/graph-mode.md). Off by default; fuseOps and fuseEpilogues also apply it.
   */
  readonly attention?: boolean;
  /**
   * How float16 values compute (FromOnnxOptions.float16): 'float32' (the CPU's default) widens float16 weights at import
   * and computes and fuses as a float32 model, rounding only float16 outputs; 'float16' rounds after every op (for a
   * graph moved to WebGPU, where shader-f16 computes float16 natively).
   */
  readonly float16?: 'float32' | 'float16';
  /**
   * Whether each dynamically quantized dense layer (MatMulInteger by a constant weight, Cast, Mul by the scales, an
   * optional bias Add) runs as one kernel on the CPU (fuseQuantDense, after `passes`): the same float32 results, bit
   * for bit, without the int32 and float32 intermediates. On by default for the CPU; off leaves the ops as imported.
   */
  readonly fuseQuantized?: boolean;
  /**
   * Whether connected parts of the graph that onnxruntime can run become ort regions (ortRegions, before `passes`).
   * By default, on the CPU where onnxruntime-node is installed, a signature's graph gets the pass with its default
   * policy at that signature's second run (at its first once another signature has regions, whose sessions its
   * regions mostly share: region.ts): a region forms where the heavy calls in it (matmuls, convolutions,
   * recurrences) together reach one such call's threshold (policy.ts), a model at small sizes runs on raf-op's kernels
   * as before, and a model run at one signature once never pays for building an onnxruntime session. At most
   * `regionCache.signatures` signatures keep their regions, holding at most `regionCache.bytes` of region models
   * (weights) together; the least recently run leaves first. `true` or an object (the pass's options) forms them when
   * the signature is converted, `false` never. The pass runs after `attention` and before `passes`, so a pass given
   * there (fuseEpilogues, recognizeAttention) sees the calls regions left. Without the ort dialect (a browser, no
   * onnxruntime-node, RAF_OP_ORT=0) nothing changes.
   */
  readonly ortRegions?: boolean | OrtRegionOptions;
  /**
   * Bounds on the signatures that keep ort regions under the default policy (see REGION_SIGNATURES and
   * REGION_BYTES, the defaults): how many, and how many bytes of region models (each holding its own copy of the
   * weights it reads) together. The most recently formed signature keeps its regions whatever its size.
   */
  readonly regionCache?: { readonly signatures?: number; readonly bytes?: number };
}

/**
 * A value of an ONNX model's input or output: a tensor, a sequence of tensors, an optional (a value or none), or (as an
 * output) ZipMap's sequence of maps.
 */
export type OnnxValue = Tensor | OnnxSequence | OnnxOptional | OnnxMaps;

export class OnnxSession {
  readonly model: OnnxModel;
  /** The model's inputs that are not initializers, in order, with their ONNX names. */
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  private readonly graphs = new Map<string, Graph>();
  /** Signatures not yet run twice under the default regions policy: their graph before regions and passes, runs. */
  private readonly awaitingRegions = new Map<string, { readonly pre: Graph; runs: number }>();
  /**
   * Signatures whose graph has ort regions under the default policy, least recently run first, with what they ran
   * before regions formed (restored when they leave: see REGION_SIGNATURES).
   */
  private readonly withRegions = new Map<
    string,
    { readonly pre: Graph; readonly plain: Graph | undefined; readonly bytes: number }
  >();
  private readonly cache: OnnxImportCache;
  /** An input or output that is a sequence or an optional (such models run through runValues), if any. */
  private readonly containerIO: string | undefined;
  /** How each signature's graph outputs make up the model's outputs (models with sequence or optional outputs). */
  private readonly layouts = new Map<string, readonly OutputLayout[]>();
  private timing = { convertMs: 0, firstConvertMs: 0 };

  constructor(
    model: Uint8Array | OnnxModel,
    private readonly opts: OnnxSessionOptions = {},
  ) {
    this.model = model instanceof Uint8Array ? decodeOnnx(model) : model;
    const inits = new Set(this.model.initializers.map((t) => t.name));
    const inputs = this.model.inputs.filter((i) => !inits.has(i.name));
    for (const v of [...inputs, ...this.model.outputs])
      if (v.kind === 'map' || v.kind === 'sparse tensor')
        throw new Error(
          `loadOnnx: ${inputs.includes(v) ? 'input' : 'output'} '${v.name}' is an ONNX ${v.kind}; raf-op imports models whose inputs and outputs are tensors, sequences and optionals`,
        );
    // ZipMap's maps (skl2onnx's classifiers) are an output of sequence kind even where the model leaves its type out.
    const zipmaps = new Set(this.model.nodes.filter((n) => n.opType === 'ZipMap').map((n) => n.outputs[0]));
    this.containerIO = [...inputs, ...this.model.outputs].find((v) => v.kind !== 'tensor' || zipmaps.has(v.name))?.name;
    this.inputNames = inputs.map((i) => i.name);
    this.outputNames = this.model.outputs.map((o) => o.name);
    const device = opts.device ?? CPU;
    this.cache = new OnnxImportCache(device, opts.float16 ?? (device.kind === 'cpu' ? 'float32' : 'float16'));
  }

  /**
   * What converting cost so far: `specializations` graphs built (one per input signature); `reusedNodes`, nodes of
   * those conversions taken from the signature-independent values the first one computed instead of converted again;
   * `firstConvertMs` the first conversion's time and `convertMs` all of them together.
   */
  get stats(): {
    readonly specializations: number;
    readonly reusedNodes: number;
    readonly firstConvertMs: number;
    readonly convertMs: number;
  } {
    return { specializations: this.graphs.size, reusedNodes: this.cache.reused, ...this.timing };
  }

  /** How many graphs have been converted so far (one per input signature). */
  get specializations(): number {
    return this.graphs.size;
  }

  /** The graph for feeds like these, converted on first use (the graph `run` uses now: see `ortRegions`). */
  graphFor(feeds: Readonly<Record<string, Tensor>>): Graph {
    return this.signature(feeds).graph;
  }

  private signature(feeds: Readonly<Record<string, OnnxValue>>): { key: string; graph: Graph } {
    // Most runs repeat the last run's signature: its dtypes and shapes are checked again, without building the key.
    const last = this.last;
    if (last && this.repeats(feeds as Readonly<Record<string, Tensor>>, last)) {
      const graph = this.graphs.get(last.key);
      if (graph) return { key: last.key, graph };
    }
    const missing = this.inputNames.filter((n) => !(n in feeds));
    if (missing.length) throw new Error(`OnnxSession.run: missing input(s) ${missing.map((n) => `'${n}'`).join(', ')}`);
    const extra = Object.keys(feeds).filter((n) => !this.inputNames.includes(n));
    if (extra.length) throw new Error(`OnnxSession.run: unknown input(s) ${extra.map((n) => `'${n}'`).join(', ')}`);
    this.checkShapes(feeds);
    if (this.narrowInputs.length) this.checkFormats(feeds);
    for (const n of this.stringInputs)
      if (!isStringTensor(feeds[n]))
        throw new Error(`OnnxSession.run: input '${n}' is an ONNX string tensor; feed stringTensor([...])`);
    for (;;) {
      const tensorAt = (n: string) => {
        const t = feeds[n];
        return t instanceof Tensor ? t : undefined;
      };
      // Strings are read while converting (strings.ts): a string input's values are part of the signature.
      const folded = this.inputNames.filter((n) => {
        const t = tensorAt(n);
        return t && (this.stringInputs.has(n) || isIntScalar(t) || (this.foldSmall && isSmall(t)));
      });
      const key = this.inputNames
        .map((n) => {
          const t = feeds[n]!;
          const value = folded.includes(n)
            ? `=${Array.from(tensorAt(n)!.dataSync() as ArrayLike<number>).join(',')}`
            : '';
          return `${n}:${describe(t)}${value}`;
        })
        .join(';');
      // A signature that folds values into its key (integer scalars), or holds sequences or optionals, is not a repeat
      // by tensor types alone.
      this.last =
        folded.length || this.containerIO
          ? null
          : {
              key,
              dtypes: this.inputNames.map((n) => tensorAt(n)!.dtype),
              shapes: this.inputNames.map((n) => tensorAt(n)!.shape),
            };
      let g = this.graphs.get(key);
      if (g) return { key, graph: g };
      const start = performance.now();
      try {
        const tensors = this.inputNames.filter((n) => tensorAt(n));
        g = fromOnnx(this.model, {
          device: this.opts.device ?? CPU,
          shapes: Object.fromEntries(tensors.map((n) => [n, tensorAt(n)!.shape])),
          constants: Object.fromEntries(folded.map((n) => [n, tensorAt(n)!])),
          cache: this.cache,
          float16: this.cache.float16,
          ...(this.containerIO
            ? {
                containers: Object.fromEntries(
                  this.inputNames.filter((n) => !tensorAt(n)).map((n) => [n, feeds[n] as OnnxSequence | OnnxOptional]),
                ),
                outputLayout: (layout: readonly OutputLayout[]) => this.layouts.set(key, layout),
              }
            : {}),
        });
      } catch (e) {
        // A shape-carrying input (Reshape's shape, Pad's pads, Resize's sizes, Range's bounds) fed at run time: the
        // session specializes on the values of the small inputs and converts again for each new set of them.
        if (!this.foldSmall && SHAPE_FROM_VALUES.test((e as Error).message)) {
          this.foldSmall = true;
          continue;
        }
        throw e;
      }
      // Attention first when asked for: its matmuls would otherwise be taken into a region and the pattern lost.
      if (this.opts.attention) g = mapBranches(recognizeAttention(g), recognizeAttention);
      const regions = this.opts.ortRegions;
      const cpu = (this.opts.device ?? CPU).kind === 'cpu';
      // A new signature of a session whose regions formed at another one forms them at once: its regions are mostly
      // the same models, whose sessions it shares (region.ts), so they cost no session to open.
      const early = cpu && regions === undefined && this.withRegions.size ? this.formRegions(key, g) : undefined;
      if (early) g = early;
      else {
        if (cpu && regions === undefined && early !== null) this.awaitingRegions.set(key, { pre: g, runs: 0 });
        g = this.finish(
          cpu && regions !== undefined && regions !== false ? ortRegions(g, regions === true ? {} : regions) : g,
        );
      }
      const ms = performance.now() - start;
      if (!this.graphs.size) this.timing.firstConvertMs = ms;
      this.timing.convertMs += ms;
      this.graphs.set(key, g);
      return { key, graph: g };
    }
  }

  /** The last run's signature, when its key depends on dtypes and shapes alone. */
  private last: { readonly key: string; readonly dtypes: readonly DType[]; readonly shapes: readonly Shape[] } | null =
    null;

  /** Whether `feeds` names exactly the model's inputs, with the dtypes and shapes of `last`'s. */
  private repeats(feeds: Readonly<Record<string, Tensor>>, last: NonNullable<OnnxSession['last']>): boolean {
    let n = 0;
    for (const _ in feeds) n++;
    if (n !== this.inputNames.length) return false;
    for (let i = 0; i < this.inputNames.length; i++) {
      const t = feeds[this.inputNames[i]!];
      if (!t || t.dtype !== last.dtypes[i] || !shapesEqual(t.shape, last.shapes[i]!)) return false;
    }
    return true;
  }

  /** The user's passes, then the CPU's quantized dense fusion; the same inside the branches of `if` calls. */
  private finish(g: Graph): Graph {
    const each = (h: Graph) => {
      for (const p of this.opts.passes ?? []) h = p(h);
      if ((this.opts.device ?? CPU).kind === 'cpu' && this.opts.fuseQuantized !== false) h = fuseQuantDense(h);
      return h;
    };
    return mapBranches(each(g), each);
  }

  /**
   * The default regions policy, at each run: from a signature's second run on, its graph again from before the
   * passes with ortRegions, when that forms a region (else the graph stays as it is).
   */
  private regionsWhenRunAgain(key: string): Graph | undefined {
    const waiting = this.awaitingRegions.get(key);
    if (!waiting || ++waiting.runs < 2) return undefined;
    const start = performance.now();
    const g = this.formRegions(key, waiting.pre);
    this.timing.convertMs += performance.now() - start;
    if (!g) return undefined;
    this.graphs.set(key, g);
    return g;
  }

  /**
   * `pre` (a signature's graph before regions and passes) with ort regions, then the passes, when that forms a region
   * and the dialects enabled now include ort; its regions are then held as the default policy's (REGION_SIGNATURES).
   * Null when no region formed, undefined when ort is pinned out (the signature may form them at a later run).
   */
  private formRegions(key: string, pre: Graph): Graph | null | undefined {
    // Under a pin that leaves ort out (['wasm', 'cpu'], as a browser runs) a region's calls would run one by one,
    // without the passes' fusions: the signature waits for a run that may use onnxruntime.
    const pinned = enabledDialects();
    if (pinned && !pinned.includes(ORT_DIALECT)) return undefined;
    this.awaitingRegions.delete(key);
    const r = ortRegions(pre);
    if (!allNodes(r).some(isOrtRegion)) return null;
    const g = this.finish(r);
    const bytes = allNodes(g).reduce((n, node) => n + (isOrtRegion(node) ? node.args[1].runner.modelBytes : 0), 0);
    this.withRegions.set(key, { pre, plain: this.graphs.get(key), bytes });
    // Least recently run first, signatures beyond the bounds go back to raf-op's kernels and may form regions again.
    const most = this.opts.regionCache?.signatures ?? REGION_SIGNATURES;
    const budget = this.opts.regionCache?.bytes ?? REGION_BYTES;
    let held = 0;
    for (const was of this.withRegions.values()) held += was.bytes;
    for (const [old, was] of this.withRegions) {
      if (old === key || (this.withRegions.size <= most && held <= budget)) break;
      held -= was.bytes;
      releaseOrtRegions(this.graphs.get(old)!);
      this.graphs.set(old, was.plain ?? this.finish(was.pre));
      this.withRegions.delete(old);
      this.awaitingRegions.set(old, { pre: was.pre, runs: 0 });
    }
    return g;
  }

  /**
   * Lets go of the onnxruntime sessions the session's ort regions hold (as onnxruntime's InferenceSession.release
   * does), rather than waiting for the garbage collector to find its graphs unreachable. The session still runs: a
   * signature whose regions formed by the default policy runs on raf-op's kernels and forms them again when run twice,
   * one converted with `ortRegions: true` is converted again at its next run. Returns how many regions it released.
   */
  release(): number {
    let n = 0;
    for (const [key, g] of this.graphs) {
      const released = releaseOrtRegions(g);
      if (!released) continue;
      n += released;
      const was = this.withRegions.get(key);
      if (was) {
        this.graphs.set(key, was.plain ?? this.finish(was.pre));
        this.awaitingRegions.set(key, { pre: was.pre, runs: 0 });
      } else this.graphs.delete(key);
    }
    this.withRegions.clear();
    return n;
  }

  /** Signatures whose graph runs ort regions now (the default policy's, at most REGION_SIGNATURES of them). */
  get regionSignatures(): number {
    return this.withRegions.size;
  }

  /** Inputs of ONNX strings: their values are folded into the conversion (strings.ts). */
  private get stringInputs(): ReadonlySet<string> {
    return (this.stringInputsCache ??= new Set(
      this.model.inputs.filter((i) => i.strings && this.inputNames.includes(i.name)).map((i) => i.name),
    ));
  }
  private stringInputsCache: ReadonlySet<string> | undefined;

  /** Outputs of ONNX strings, by index: each run marks them as string tensors (their int32 ids). */
  private get stringOutputs(): readonly number[] {
    return (this.stringOutputsCache ??= this.model.outputs.flatMap((o, i) => (o.strings ? [i] : [])));
  }
  private stringOutputsCache: readonly number[] | undefined;

  /** Whether the model reads small inputs' values to decide shapes, so each new set of them is a new conversion. */
  private foldSmall = false;

  /** Inputs of narrow ONNX types (int4, float8...), which are fed in their carrier dtype (formats.ts). */
  private get narrowInputs(): readonly OnnxValueInfo[] {
    return (this.narrowInputsCache ??= this.model.inputs.filter((i) => i.format && this.inputNames.includes(i.name)));
  }
  private narrowInputsCache: readonly OnnxValueInfo[] | undefined;

  /** Refuses a narrow input's feed that is not in the format's carrier dtype or holds a value the format has not. */
  private checkFormats(feeds: Readonly<Record<string, OnnxValue>>): void {
    for (const input of this.narrowInputs) {
      const t = feeds[input.name];
      const format = input.format!;
      if (!(t instanceof Tensor)) continue;
      const carrier = carrierOf(format);
      if (t.dtype !== carrier)
        throw new Error(
          `OnnxSession.run: input '${input.name}' is ONNX ${format}, which raf-op holds in ${carrier}; it was given ${t.dtype}`,
        );
      if (t.device.kind !== 'cpu') continue;
      const member = memberOf(format);
      const values = t.dataSync() as ArrayLike<number>;
      for (let i = 0; i < values.length; i++)
        if (!member(values[i]!))
          throw new Error(
            `OnnxSession.run: input '${input.name}' is ONNX ${format} (held in ${carrier}): element ${i} is ${values[i]}, not a ${format} value (round it with ops.roundToFormat(x, '${format}'))`,
          );
    }
  }

  /** Refuses feeds whose rank or fixed dimensions contradict what the model declares for that input. */
  private checkShapes(feeds: Readonly<Record<string, OnnxValue>>): void {
    for (const input of this.model.inputs) {
      const t = feeds[input.name];
      const shape = input.shape;
      if (!(t instanceof Tensor) || !shape) continue;
      // The message is built only when it is thrown: this runs at every run.
      const mismatch = (why: string) =>
        new Error(
          `OnnxSession.run: input '${input.name}' has shape [${t.shape.join(', ')}], the model declares [${shape.join(', ')}] (${why})`,
        );
      if (shape.length !== t.shape.length) throw mismatch(`rank ${shape.length}`);
      for (let k = 0; k < shape.length; k++) {
        const d = shape[k];
        if (typeof d === 'number' && d > 0 && d !== t.shape[k]) throw mismatch(`dimension ${k} is fixed at ${d}`);
      }
    }
  }

  /** Runs the model: ONNX input name → tensor in, ONNX output name → tensor out. */
  run(feeds: Readonly<Record<string, Tensor>>): Record<string, Tensor> {
    if (this.containerIO)
      throw new Error(
        `OnnxSession.run: the model's '${this.containerIO}' is an ONNX sequence or optional; run it with runValues`,
      );
    return this.runTensors(feeds, feeds);
  }

  /**
   * Runs a model whose inputs or outputs include ONNX sequences (OnnxSequence, a list of tensors) or optionals
   * (OnnxOptional, a value or none): each signature (the number of tensors a sequence holds, whether an optional holds
   * one, and their shapes) converts once, like shapes do. Tensor-only models run here too.
   */
  runValues(feeds: Readonly<Record<string, OnnxValue>>): Record<string, OnnxValue> {
    const flat: Record<string, Tensor> = {};
    for (const input of this.model.inputs) {
      const v = feeds[input.name];
      if (v === undefined) continue;
      const want = input.kind === 'sequence' ? OnnxSequence : input.kind === 'optional' ? OnnxOptional : Tensor;
      if (!(v instanceof want))
        throw new Error(
          `OnnxSession.runValues: input '${input.name}' is an ONNX ${input.kind}; feed ${input.kind === 'tensor' ? 'a Tensor' : `an ${want.name}`}`,
        );
      if (v instanceof Tensor) flat[input.name] = v;
      else {
        let k = 0;
        const held = v instanceof OnnxOptional ? v.value : v;
        for (const t of held === null ? [] : held instanceof Tensor ? [held] : held.items)
          flat[`${input.name}[${k++}]`] = t;
      }
    }
    const { key, outs } = this.executeKeyed(feeds, flat);
    const layout = this.layouts.get(key);
    if (!layout) return Object.fromEntries(this.outputNames.map((n, i) => [n, outs[i]!]));
    let at = 0;
    const take = (n: number) => outs.slice(at, (at += n));
    const sequence = (l: { sequence: number; dtype: DType | null }) => new OnnxSequence(take(l.sequence), l.dtype);
    return Object.fromEntries(
      this.outputNames.map((n, i) => {
        const l = layout[i]!;
        if (l === 'tensor') {
          const t = take(1)[0]!;
          return [n, this.model.outputs[i]!.strings && t.dtype === 'int32' ? markStrings(t) : t];
        }
        if ('zipmap' in l) return [n, zipMaps(take(1)[0]!, l.zipmap)];
        if ('sequence' in l) return [n, sequence(l)];
        const v = l.optional;
        return [n, new OnnxOptional(v === null ? null : v === 'tensor' ? take(1)[0]! : sequence(v))];
      }),
    );
  }

  private runTensors(feeds: Readonly<Record<string, OnnxValue>>, flat: Readonly<Record<string, Tensor>>) {
    const { outs } = this.executeKeyed(feeds, flat);
    return Object.fromEntries(this.outputNames.map((n, i) => [n, outs[i]!]));
  }

  /** Converts (or finds) the signature's graph and runs it on `flat`, the feeds' tensors by param hint. */
  private executeKeyed(
    feeds: Readonly<Record<string, OnnxValue>>,
    flat: Readonly<Record<string, Tensor>>,
  ): { key: string; outs: Tensor[] } {
    const { key, graph } = this.signature(feeds);
    const g = this.regionsWhenRunAgain(key) ?? graph;
    const regions = this.withRegions.get(key);
    if (regions) {
      // Most recently run last.
      this.withRegions.delete(key);
      this.withRegions.set(key, regions);
    }
    const args = g.params.map((p) => {
      const t = flat[p.hint!]!;
      return t.dtype === p.type.dtype ? t : cast(t, p.type.dtype);
    });
    const outs = execute(g, args);
    if (!this.layouts.has(key))
      for (const i of this.stringOutputs) if (outs[i]?.dtype === 'int32') markStrings(outs[i]!);
    return { key, outs };
  }
}

/**
 * How many signatures of one session keep ort regions under the default policy. Each region session holds its own
 * copy of the weights it reads (written into its model, which is what lets onnxruntime pre-pack them); signatures
 * whose regions differ in constants only share sessions (region.ts), but a model whose regions differ by length in
 * more would otherwise hold a copy per length. Past the bound, the least recently run signature releases its share of
 * its sessions and runs on raf-op's kernels until it is run twice again.
 */
export const REGION_SIGNATURES = 8;

/**
 * How many bytes of region models (their weights, mostly) one session's signatures keep together under the default
 * policy: 1 GiB, so a model of 400 MB keeps regions for two lengths at most.
 */
export const REGION_BYTES = 2 ** 30;

/** The refusals that mean a value decides a shape: FromOnnx needs it at import, so the session folds it. */
const SHAPE_FROM_VALUES = /must be known when the model is imported|decides the output shape by its values/;

/** A value's part of a signature key: dtype and shape, or a container's structure and its tensors'. */
function describe(v: OnnxValue): string {
  if (v instanceof OnnxSequence) return `seq<${v.dtype}>(${v.items.map(describe).join('|')})`;
  if (v instanceof OnnxOptional) return `opt(${v.value === null ? '' : describe(v.value)})`;
  if (v instanceof OnnxMaps) throw new Error('OnnxSession: a sequence of maps is only ever an output');
  return `${v.dtype}[${v.shape.join(',')}]`;
}

/** Inputs small enough to be shape-carrying (pads, scales, sizes, repeats, axes, shapes, Range's bounds). */
function isSmall(t: Tensor): boolean {
  return t.size <= 64;
}

function isIntScalar(t: Tensor): boolean {
  return (t.dtype === 'int32' || t.dtype === 'int64' || t.dtype === 'bool') && t.size <= 1;
}

/** Decodes an ONNX model for `run` by name, as onnxruntime's InferenceSession.create does. */
export function loadOnnx(model: Uint8Array | OnnxModel, opts: OnnxSessionOptions = {}): OnnxSession {
  return new OnnxSession(model, opts);
}

/** ZipMap's maps: row r of probabilities [N, labels] as label → value. */
function zipMaps(t: Tensor, labels: readonly (number | string)[]): OnnxMaps {
  const values = t.dataSync() as ArrayLike<number>;
  const width = labels.length;
  return new OnnxMaps(
    Array.from({ length: t.shape[0]! }, (_, r) => new Map(labels.map((l, k) => [l, values[r * width + k]!] as const))),
  );
}
