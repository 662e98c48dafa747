// A training step in graph mode: the loss function traced once into a graph (runtime/src/graph), differentiated by the
// graph AutoDiff pass, the optimizer's update calls appended, and the whole step (forward, backward, update) run as one
// graph by the executor; the new parameters and optimizer state are written into the optimizer's own tensors.

import { WasmStorage } from '../dialects/wasm/storage.ts';
import { wasm } from '../dialects/wasm/module.ts';
import { toWasmMemory } from '../dialects/wasm/support.ts';
import { OpError } from '../errors.ts';
import { autodiff } from '../graph/passes/autodiff.ts';
import { fuseOps } from '../graph/passes/fuse.ts';
import { fuseEpilogues } from '../graph/passes/fuse-epilogues.ts';
import { execute, executeUnplanned } from '../graph/executor.ts';
import { trace } from '../graph/trace.ts';
import type { Graph } from '../graph/ir.ts';
import { CpuStorage, full, placeOn, type Tensor } from '../tensor.ts';
import { TrainError } from './errors.ts';
import type { Optimizer } from './optim.ts';
import { lossAndGrads } from './step.ts';
import { checkParams, type Params } from './tensors.ts';

/** A loss over named parameters and the step's data (a batch: inputs, labels), as tensors in a fixed order. */
export type BatchLossFn = (params: Params, ...batch: Tensor[]) => Tensor;

export interface CompiledLossAndGrads {
  /** The forward graph and the graph returning [loss, d loss / d param...] in the parameters' order. */
  readonly forward: Graph;
  readonly backward: Graph;
  (params: Params, batch: readonly Tensor[]): { loss: Tensor; grads: Params };
}

/**
 * Traces `lossFn` at parameters and a batch of these shapes and dtypes and differentiates the graph once. The
 * function returned runs it on other values of the same types. Checked once in eager mode first, so a parameter that
 * does not reach the loss is the same error as in trainStep.
 */
export function compileLossAndGrads(
  lossFn: BatchLossFn,
  params: Params,
  batch: readonly Tensor[],
): CompiledLossAndGrads {
  const where = 'compileLossAndGrads';
  checkParams(where, params);
  const names = Object.keys(params);
  const eager = lossAndGrads((p) => lossFn(p, ...batch), params, where);
  eager.loss.dispose();
  for (const g of Object.values(eager.grads)) g.dispose();
  const n = names.length;
  const forward = trace(
    (...xs: Tensor[]) => lossFn(Object.fromEntries(names.map((name, i) => [name, xs[i]!])), ...xs.slice(n)),
    [...names.map((name) => params[name]!), ...batch],
    { names: [...names, ...batch.map((_, i) => `batch${i}`)] },
  );
  const backward = autodiff(forward, { seed: 'ones', wrt: names.map((_, i) => i) });
  const run = (p: Params, b: readonly Tensor[]) => {
    if (b.length !== batch.length)
      throw new TrainError(
        where,
        `the step got ${b.length} batch tensors, the function was compiled for ${batch.length}`,
      );
    const missing = names.find((name) => !(p[name] !== undefined));
    if (missing) throw new TrainError(`${where}: parameter '${missing}'`, 'is missing');
    const [loss, ...gs] = execute(backward, [...names.map((name) => p[name]!), ...b]);
    const grads: Params = {};
    names.forEach((name, i) => (grads[name] = gs[i]!));
    return { loss: loss!, grads };
  };
  return Object.assign(run, { forward, backward });
}

/** The graph of one training step and how its inputs and outputs line up with the optimizer's tensors. */
export interface TrainStepGraph {
  /**
   * Inputs: the parameters, the batch, each optimizer buffer of each parameter (buffer by buffer, parameters in
   * order), then the step number once per parameter dtype. Outputs: the loss, the new parameters, the new buffers.
   */
  readonly graph: Graph;
  /** The parameter dtypes, in the order of the step-number inputs. */
  readonly stepDtypes: readonly string[];
}

/**
 * The backward graph (params, batch → loss, grads) with the optimizer's update call for each parameter appended, as
 * `opt.step` makes it (the same op, hyperparameters and step tensor), so one run does forward, backward and update.
 */
export function buildTrainStepGraph(backward: Graph, opt: Optimizer, batchCount: number): TrainStepGraph {
  const names = Object.keys(opt.params);
  const n = names.length;
  const params = names.map((name) => opt.params[name]!);
  const buffers = opt.bufferNames.flatMap((b) => names.map((name) => opt.state.buffers[b]![name]!));
  const stepDtypes = [...new Set(params.map((p) => p.dtype))];
  const stepSpecs = stepDtypes.map((dtype) => {
    const p = params.find((q) => q.dtype === dtype)!;
    return { shape: [], dtype: p.dtype, device: p.device };
  });
  const nb = buffers.length;
  const graph = trace(
    (...xs: Tensor[]) => {
      const [loss, ...grads] = executeUnplanned(backward, xs.slice(0, n + batchCount));
      const bufs = xs.slice(n + batchCount, n + batchCount + nb);
      const steps = xs.slice(n + batchCount + nb);
      const newParams: Tensor[] = [];
      const newBuffers: Tensor[][] = opt.bufferNames.map(() => []);
      names.forEach((name, i) => {
        const p = xs[i]!;
        let outs: readonly Tensor[];
        try {
          outs = opt.update(
            p,
            grads[i]!,
            opt.bufferNames.map((_, k) => bufs[k * n + i]!),
            steps[stepDtypes.indexOf(p.dtype)]!,
          );
        } catch (e) {
          if (e instanceof OpError) throw new TrainError(`${opt.kind}.step: parameter '${name}'`, e.message);
          throw e;
        }
        newParams.push(outs[0]!);
        outs.slice(1).forEach((t, k) => newBuffers[k]!.push(t));
      });
      return [loss!, ...newParams, ...newBuffers.flat()];
    },
    [...backward.params.map((v) => ({ ...v.type, device: v.device })), ...buffers, ...stepSpecs],
    {
      names: [
        ...backward.params.map((v, i) => v.hint ?? `in${i}`),
        ...opt.bufferNames.flatMap((b) => names.map((name) => `${b}.${name}`)),
        ...stepDtypes.map((d) => `step_${d}`),
      ],
    },
  );
  return { graph, stepDtypes };
}

/**
 * Writes `src`'s elements into `dst`'s storage (same type): dst keeps its identity and storage object. A source in
 * wasm memory is read in place (no copy out to a new array); a GPU buffer is copied on the GPU (writeFrom). False
 * when dst's storage cannot be written from here: the caller then swaps the tensors instead.
 */
function writeInto(dst: Tensor, src: Tensor): boolean {
  const d = dst.storage;
  if (d === src.storage) return true;
  // A GPU buffer: copied on the device.
  if (d.writeFrom) return d.writeFrom(src.storage);
  const read = d.readSync?.bind(d);
  if (!read) return false;
  const floats = src.dtype === 'float32' ? Float32Array : src.dtype === 'float64' ? Float64Array : null;
  const out =
    floats && d instanceof WasmStorage && d.ptr !== undefined
      ? new floats(wasm().memory.buffer, d.ptr, dst.size)
      : (read() as Float32Array | Float64Array);
  const s = src.storage;
  if (s instanceof WasmStorage && s.ptr !== undefined && (src.dtype === 'float32' || src.dtype === 'float64')) {
    const Ctor = src.dtype === 'float32' ? Float32Array : Float64Array;
    out.set(new Ctor(wasm().memory.buffer, s.ptr, src.size));
  } else out.set(src.dataSync() as Float32Array | Float64Array);
  return true;
}

/** t in wasm memory (its old tensor disposed), or t itself where it cannot go there. */
function replaced(t: Tensor): Tensor {
  const r = toWasmMemory(t);
  if (r !== t) t.dispose();
  return r;
}

export interface CompileTrainStepOptions {
  /**
   * Fuse the step graph (forward, backward and update together) as the parameters' device runs fused groups best:
   * on WebGPU every elementwise chain becomes one kernel, with the reduction or product feeding it (fuseOps); on the
   * CPU only the groups a wasm kernel runs faster fused, a product or convolution with its bias, activation and
   * residual epilogue (fuseEpilogues), since the CPU's other fused groups are JavaScript loops, slower than the wasm
   * kernels of their calls. Default true. `false` runs every call on its own, which makes the step equal trainStep's
   * bit for bit (a fused loop may round or sum in another order).
   */
  readonly fuse?: boolean;
}

/** A compiled training step: `step(batch)` returns the loss and updates the optimizer. */
export interface CompiledTrainStep {
  (batch: readonly Tensor[]): Tensor;
  /** The step graph as it runs (after fusion), traced again when the optimizer's options change. */
  readonly graph: Graph;
}

/** The step graph fused for the device its calls run on (CompileTrainStepOptions.fuse). */
function fuseStep(g: Graph, fuse: boolean): Graph {
  if (!fuse) return g;
  const kind = g.params[0]?.device.kind ?? 'cpu';
  return kind === 'cpu' ? fuseEpilogues(g) : fuseOps(g, { dialect: kind });
}

/**
 * A training step compiled once for batches like `exampleBatch`: call it with each step's batch; it returns the loss
 * (before the update) and updates `opt` as trainStep does (all or nothing).
 */
export function compileTrainStep(
  lossFn: BatchLossFn,
  opt: Optimizer,
  exampleBatch: readonly Tensor[],
  stepOptions: CompileTrainStepOptions = {},
): CompiledTrainStep {
  const where = `${opt.kind}.step`;
  const compiled = compileLossAndGrads(lossFn, opt.params, exampleBatch);
  const names = Object.keys(opt.params);
  const n = names.length;
  // The optimizer's CPU tensors move into wasm memory (once, and again after opt.load() put plain arrays there), so
  // wasm kernels read them in place every step and the new values are written back there; on the cpu dialect the
  // first read moves them out to JavaScript arrays for good. Values are unchanged.
  const placeResident = (): void => {
    for (const name of names) {
      const p = opt.params[name]!;
      if (p.storage instanceof CpuStorage) opt.params[name] = replaced(p);
      for (const b of opt.bufferNames) {
        const t = opt.state.buffers[b]![name]!;
        if (t.storage instanceof CpuStorage) opt.state.buffers[b]![name] = replaced(t);
      }
    }
  };
  placeResident();
  const transient = new Set(Array.from({ length: n * (1 + opt.bufferNames.length) }, (_, k) => k + 1));
  // The hyperparameters are baked into the graph: a change between steps (as eager mode allows) traces it again.
  let built: (TrainStepGraph & { readonly options: string }) | undefined;
  const graphFor = (): TrainStepGraph => {
    const options = JSON.stringify(opt.options);
    if (built?.options !== options) {
      const step = buildTrainStepGraph(compiled.backward, opt, exampleBatch.length);
      built = { ...step, graph: fuseStep(step.graph, stepOptions.fuse ?? true), options };
    }
    return built;
  };
  // The step numbers, one-element tensors kept across steps and rewritten in place (on a GPU: made again each step).
  const stepTensors = new Map<string, Tensor>();
  const stepFor = (dtype: string, t: number): Tensor => {
    const p = Object.values(opt.params).find((q) => q.dtype === dtype)!;
    let s = stepTensors.get(dtype);
    if (s && !s.isDisposed && s.device === p.device && s.storage.readSync) {
      (s.storage.readSync() as Float32Array)[0] = t;
      return s;
    }
    s?.dispose();
    stepTensors.set(dtype, (s = placeOn(full([], t, p.dtype), p.device)));
    return s;
  };
  const run = (batch: readonly Tensor[]): Tensor => {
    checkParams(where, opt.params);
    opt.checkOptions();
    if (batch.length !== exampleBatch.length)
      throw new TrainError(
        'compileLossAndGrads',
        `the step got ${batch.length} batch tensors, the function was compiled for ${exampleBatch.length}`,
      );
    placeResident();
    const { graph, stepDtypes } = graphFor();
    const t = opt.state.step + 1;
    const params = names.map((name) => opt.params[name]!);
    const buffers = opt.bufferNames.flatMap((b) => names.map((name) => opt.state.buffers[b]![name]!));
    const inputs = [...params, ...batch, ...buffers, ...stepDtypes.map((d) => stepFor(d, t))];
    // A failed run frees what it made and leaves every input as it was: nothing is updated.
    // On the CPU the new values are copied into the old tensors before the next run: they may stay in the plan's
    // memory (transient), so a step takes no heap block for them.
    const [loss, ...outs] = execute(graph, inputs, params[0]!.device.kind === 'cpu' ? { transient } : {});
    const owned = new Set(inputs.map((x) => x.storage));
    const olds = [...params, ...buffers];
    outs.forEach((out, k) => {
      const old = olds[k]!;
      if (writeInto(old, out)) {
        if (!owned.has(out.storage)) out.dispose();
        return;
      }
      // Not writable in place: the new tensor takes the old one's place, as in eager mode.
      if (k < n) opt.params[names[k]!] = out;
      else {
        const b = opt.bufferNames[Math.floor((k - n) / n)]!;
        opt.state.buffers[b]![names[(k - n) % n]!] = out;
      }
      old.dispose();
    });
    opt.state.step = t;
    return loss!;
  };
  return Object.defineProperty(run, 'graph', { get: () => graphFor().graph, enumerable: true }) as CompiledTrainStep;
}
