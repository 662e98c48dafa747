// Fine-tuning a model imported from ONNX: its float initializers become named trainable parameters (graph inputs of
// the imported graph instead of folded constants), the rest stay constants, and `forward` runs the imported graph on
// parameters and feeds inside a loss function, so trainStep, compileLossAndGrads and compileTrainStep train it as
// they train a model written with `ops` (eager tape or graph AutoDiff through the imported ops).

import { CPU, type Device } from '../device.ts';
import { isFloat } from '../dtype.ts';
import { cast } from '../generated/api/cast.ts';
import { constValue } from '../graph/executor.ts';
import { fromOnnx } from '../graph/frontends/from-onnx.ts';
import { bindOut, isAtom, type Atom, type Graph, type Var } from '../graph/ir.ts';
import { invoke } from '../dispatch.ts';
import { decodeOnnx, type OnnxModel } from '../graph/onnx/proto.ts';
import { OnnxSession } from '../graph/onnx/session.ts';
import { constTensor, importedDType, withFloatsAs } from '../graph/onnx/values.ts';
import { formatShape } from '../shape.ts';
import { placeOn, Tensor } from '../tensor.ts';
import { TrainError } from './errors.ts';
import { copyOf, type Params } from './tensors.ts';

/** Which initializers stay constants: names, a test on each float initializer's name and shape, or both in a list. */
export type FreezeSpec =
  | readonly (string | ((name: string, shape: readonly number[]) => boolean))[]
  | ((name: string, shape: readonly number[]) => boolean);

export interface OnnxParamsOptions {
  /** Where the parameters live and the graph runs (default: the CPU). */
  readonly device?: Device;
  /**
   * Initializers kept frozen (constants of the imported graph, never trained). A name that is not an initializer of
   * the model is an error; a predicate is asked about each float initializer.
   */
  readonly freeze?: FreezeSpec;
  /**
   * The parameters' dtype and the one the model computes in: 'float32' (the default; float16 models widen to it on the
   * CPU) or 'float64', every float value widened (FromOnnxOptions.float32), for fine-tuning checked against a float64
   * reference.
   */
  readonly dtype?: 'float32' | 'float64';
}

/** An imported model's trainable parameters and its forward function over them. */
export interface OnnxParams {
  /** The trainable float initializers by ONNX name, in the model's order: fresh tensors the caller owns. */
  readonly params: Params;
  /** The float initializers kept constant (frozen), in the model's order. */
  readonly frozen: readonly string[];
  /** The model's inputs (not initializers) and outputs, by ONNX name. */
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  /**
   * Runs the model at these parameters (every trainable name; other entries, such as a head's weights, are ignored)
   * on feeds by input name; returns the outputs by name. Use it inside a loss function: it records on the tape in
   * eager mode and into the graph when traced. The graph is imported once per feed signature (shapes and dtypes).
   */
  forward(params: Params, feeds: Readonly<Record<string, Tensor>>): Record<string, Tensor>;
  /** The imported graph for feeds like these: the model's inputs, then the trainable parameters in `params` order. */
  graphFor(feeds: Readonly<Record<string, Tensor>>): Graph;
}

const WHERE = 'train.onnxParams';

/**
 * The parameters of an ONNX model for fine-tuning: every float initializer is trainable unless `freeze` names it or
 * its predicate says so; integer and boolean initializers (shapes, indices) are always constants.
 */
export function onnxParams(model: Uint8Array | OnnxModel | OnnxSession, opts: OnnxParamsOptions = {}): OnnxParams {
  const m = model instanceof OnnxSession ? model.model : model instanceof Uint8Array ? decodeOnnx(model) : model;
  const device = opts.device ?? CPU;
  // float16 initializers compute as on the device's float16 mode (widened to float32 on the CPU), as fromOnnx does.
  const float16 = device.kind === 'cpu' ? 'float32' : 'float16';
  const wide = opts.dtype === 'float64';
  if (opts.dtype !== undefined && opts.dtype !== 'float32' && !wide)
    throw new TrainError(`${WHERE}: dtype`, `is '${opts.dtype}'`, "give 'float32' or 'float64'");
  const names = new Set(m.initializers.map((t) => t.name));
  const spec = opts.freeze ?? [];
  const tests = typeof spec === 'function' ? [spec] : spec.filter((f) => typeof f === 'function');
  const frozenNames = typeof spec === 'function' ? [] : (spec.filter((f) => typeof f === 'string') as string[]);
  const unknown = frozenNames.filter((n) => !names.has(n));
  if (unknown.length)
    throw new TrainError(
      `${WHERE}: freeze`,
      `names ${unknown.map((n) => `'${n}'`).join(', ')}, which ${unknown.length > 1 ? 'are' : 'is'} not an initializer of the model`,
      `its initializers are ${[...names]
        .slice(0, 8)
        .map((n) => `'${n}'`)
        .join(', ')}${names.size > 8 ? ', ...' : ''}`,
    );
  const params: Params = {};
  const frozen: string[] = [];
  withFloatsAs({ float16: wide ? 'float64' : float16, float32: wide ? 'float64' : 'float32' }, () => {
    for (const t of m.initializers) {
      if (!isFloat(importedDType(t.dtype))) continue;
      if (frozenNames.includes(t.name) || tests.some((f) => f(t.name, t.shape))) {
        frozen.push(t.name);
        continue;
      }
      const c = constTensor(t);
      // A copy of its own on the device, so training never writes into the decoded model's arrays.
      params[t.name] = device.kind === 'cpu' ? copyOf(c) : placeOn(c, device);
    }
  });
  const trainable = Object.keys(params);
  if (!trainable.length)
    throw new TrainError(WHERE, 'every float initializer is frozen: nothing is left to train', 'freeze fewer');
  const inits = new Set(names);
  const inputs = m.inputs.filter((i) => !inits.has(i.name));
  const inputNames = inputs.map((i) => i.name);
  const outputNames = m.outputs.map((o) => o.name);
  const graphs = new Map<string, Graph>();
  const graphFor = (feeds: Readonly<Record<string, Tensor>>): Graph => {
    const missing = inputNames.filter((n) => !(feeds[n] instanceof Tensor));
    if (missing.length)
      throw new TrainError(`${WHERE}: forward`, `missing input(s) ${missing.map((n) => `'${n}'`).join(', ')}`);
    const extra = Object.keys(feeds).filter((n) => !inputNames.includes(n));
    if (extra.length)
      throw new TrainError(`${WHERE}: forward`, `unknown input(s) ${extra.map((n) => `'${n}'`).join(', ')}`);
    const key = inputNames.map((n) => `${n}:${feeds[n]!.dtype}${formatShape(feeds[n]!.shape)}`).join(';');
    let g = graphs.get(key);
    if (!g) {
      g = fromOnnx(m, {
        device,
        float16,
        float32: wide ? 'float64' : 'float32',
        shapes: Object.fromEntries(inputNames.map((n) => [n, feeds[n]!.shape])),
        initializersAsInputs: trainable,
      });
      graphs.set(key, g);
    }
    return g;
  };
  const forward = (p: Params, feeds: Readonly<Record<string, Tensor>>): Record<string, Tensor> => {
    const absent = trainable.filter((n) => !(p[n] instanceof Tensor));
    if (absent.length)
      throw new TrainError(
        `${WHERE}: forward`,
        `params lack ${absent
          .slice(0, 4)
          .map((n) => `'${n}'`)
          .join(', ')}${absent.length > 4 ? ` and ${absent.length - 4} more` : ''}`,
        'pass the record onnxParams returned (or the optimizer params made from it)',
      );
    const g = graphFor(feeds);
    const args = g.params.map((v, i) => {
      if (i >= inputNames.length) {
        const t = p[v.hint!]!;
        if (t.dtype !== v.type.dtype || formatShape(t.shape) !== formatShape(v.type.shape))
          throw new TrainError(
            `${WHERE}: forward: parameter '${v.hint}'`,
            `is ${t.dtype}${formatShape(t.shape)}, the model's initializer is ${v.type.dtype}${formatShape(v.type.shape)}`,
          );
        return t;
      }
      const t = feeds[v.hint!]!;
      return t.dtype === v.type.dtype ? t : cast(t, v.type.dtype);
    });
    const outs = evaluate(g, args);
    return Object.fromEntries(outputNames.map((n, i) => [n, outs[i]!]));
  };
  return { params, frozen, inputNames, outputNames, forward, graphFor };
}

/**
 * Runs an imported graph call by call, freeing nothing: the eager tape keeps what each op's gradient reads (a Where's
 * condition, a mask), and the loss function's caller (lossAndGrads, trace, tidy) frees the intermediates.
 */
function evaluate(g: Graph, inputs: readonly Tensor[]): Tensor[] {
  const env = new Map<Var, Tensor>();
  g.params.forEach((p, i) => env.set(p, inputs[i]!));
  const atom = (a: Atom): Tensor => (a.kind === 'const' ? constValue(a) : env.get(a)!);
  const value = (a: unknown): unknown => (isAtom(a) ? atom(a) : Array.isArray(a) && a.some(isAtom) ? a.map(value) : a);
  for (const n of g.nodes) {
    if (n.kind !== 'call') throw new Error(`${WHERE}: the imported graph has a ${n.kind} node; it runs unfused calls`);
    bindOut(env, n.out, invoke(n.op, n.args.map(value)) as Tensor | readonly Tensor[]);
  }
  return g.outputs.map((a) => atom(a));
}
