// Importer forms for ONNX's sequence and optional ops and for Scan. Sequences and optionals exist only while a model
// converts (containers.ts): each op moves the tensors they hold at import, so positions, split sizes and the like must
// be known then; the tensors themselves may be computed at run time. Scan is unrolled at import, as Loop is (forms.ts).

import { concatenate } from '../../generated/api/concatenate.ts';
import { expandDims } from '../../generated/api/expand_dims.ts';
import { squeeze } from '../../generated/api/squeeze.ts';
import { stridedSlice } from '../../generated/api/strided_slice.ts';
import { Tensor, tensor, zeros } from '../../tensor.ts';
import { kindOf, OnnxOptional, OnnxSequence, type ImportValue } from './containers.ts';
import type { Form, ImportContext } from './forms.ts';
import { isOnnxGraph, type OnnxGraph } from './proto.ts';
import { onnxDType, valuesOf } from './values.ts';

const num = (ctx: ImportContext, name: string, dflt: number): number => (ctx.attr(name) as number | undefined) ?? dflt;

/** Input i as a tensor (a sequence or optional there is refused by ctx.input). */
function tensorIn(ctx: ImportContext, i: number, what: string): Tensor {
  const t = ctx.input(i);
  if (!t) throw new Error(`${ctx.node.opType}'s ${what} (input ${i}) is required`);
  return t;
}

/** Input i as a sequence. */
function sequenceIn(ctx: ImportContext, i: number): OnnxSequence {
  const v = ctx.value(i);
  if (!v) throw new Error(`${ctx.node.opType}'s input sequence (input ${i}) is required`);
  if (!(v instanceof OnnxSequence))
    throw new Error(`input '${ctx.node.inputs[i]}' is ${kindOf(v)}; ${ctx.node.opType} takes a sequence there`);
  return v;
}

/** A scalar (or one-element) integer input known at import: a position in a sequence, a split size. */
function knownInt(ctx: ImportContext, i: number, what: string): number {
  const t = tensorIn(ctx, i, what);
  if (t.dtype !== 'int32' && t.dtype !== 'int64')
    throw new Error(`${ctx.node.opType}'s ${what} is ${t.dtype}; ONNX takes int32 or int64`);
  if (t.size !== 1) throw new Error(`${ctx.node.opType}'s ${what} has ${t.size} elements; it is a scalar`);
  return valuesOf(t, `${ctx.node.opType}'s ${what} (input '${ctx.node.inputs[i]}')`)[0]!;
}

/** A position in a sequence of n, negative counting from the back, checked against [-n, n - 1] (or n if `end`). */
function position(ctx: ImportContext, p: number, n: number, end: boolean): number {
  const hi = end ? n : n - 1;
  if (p < -n || p > hi)
    throw new Error(`${ctx.node.opType}'s position ${p} is outside [${-n}, ${hi}] for a sequence of ${n} tensors`);
  return p < 0 ? p + n : p;
}

/** An axis of a rank-r value checked against [-r, r - 1]. */
function checkedAxis(ctx: ImportContext, axis: number, rank: number, what = 'axis'): number {
  if (axis < -rank || axis >= rank)
    throw new Error(`${ctx.node.opType}'s ${what} ${axis} is outside [${-rank}, ${rank - 1}] for rank ${rank}`);
  return axis < 0 ? axis + rank : axis;
}

function sameType(ctx: ImportContext, seq: OnnxSequence, t: Tensor): void {
  if (seq.dtype && seq.dtype !== t.dtype)
    throw new Error(`${ctx.node.opType}: the sequence holds ${seq.dtype} tensors, the tensor is ${t.dtype}`);
}

/** The part [begin, end) of x along axis. */
const sliceAxis = (x: Tensor, axis: number, begin: number, end: number): Tensor =>
  stridedSlice(x, [begin], [end], null, [axis]);

const sequenceEmpty: Form = (ctx) => [new OnnxSequence([], onnxDType(num(ctx, 'dtype', 1)))];

const sequenceConstruct: Form = (ctx) => {
  const items = ctx.node.inputs.map((_, i) => tensorIn(ctx, i, `tensor ${i}`));
  if (!items.length) throw new Error('SequenceConstruct takes at least one tensor');
  const dtype = items[0]!.dtype;
  const other = items.find((t) => t.dtype !== dtype);
  if (other) throw new Error(`SequenceConstruct's tensors differ in type (${dtype} and ${other.dtype})`);
  return [new OnnxSequence(items, dtype)];
};

const sequenceInsert: Form = (ctx) => {
  const seq = sequenceIn(ctx, 0);
  const t = tensorIn(ctx, 1, 'tensor');
  sameType(ctx, seq, t);
  const n = seq.items.length;
  const at = ctx.input(2) ? position(ctx, knownInt(ctx, 2, 'position'), n, true) : n;
  return [new OnnxSequence([...seq.items.slice(0, at), t, ...seq.items.slice(at)], seq.dtype ?? t.dtype)];
};

const sequenceErase: Form = (ctx) => {
  const seq = sequenceIn(ctx, 0);
  const n = seq.items.length;
  if (!n) throw new Error('SequenceErase of an empty sequence');
  const at = ctx.input(1) ? position(ctx, knownInt(ctx, 1, 'position'), n, false) : n - 1;
  return [new OnnxSequence([...seq.items.slice(0, at), ...seq.items.slice(at + 1)], seq.dtype)];
};

const sequenceAt: Form = (ctx) => {
  const seq = sequenceIn(ctx, 0);
  const n = seq.items.length;
  return [seq.items[position(ctx, knownInt(ctx, 1, 'position'), n, false)]!];
};

const sequenceLength: Form = (ctx) => [tensor([sequenceIn(ctx, 0).items.length], { dtype: 'int64', shape: [] })];

/** ConcatFromSequence: concatenates along axis, or (new_axis = 1) stacks along a new axis. */
const concatFromSequence: Form = (ctx) => {
  const seq = sequenceIn(ctx, 0);
  const axisAttr = ctx.attr('axis') as number | undefined;
  if (axisAttr === undefined) throw new Error("ConcatFromSequence's axis attribute is required");
  const newAxis = num(ctx, 'new_axis', 0);
  if (newAxis !== 0 && newAxis !== 1) throw new Error(`ConcatFromSequence's new_axis is ${newAxis}; ONNX takes 0 or 1`);
  if (!seq.items.length) throw new Error('ConcatFromSequence of an empty sequence (its result has no shape)');
  const rank = seq.items[0]!.shape.length;
  const axis = checkedAxis(ctx, axisAttr, rank + newAxis);
  if (!newAxis && rank === 0) throw new Error('ConcatFromSequence of scalars needs new_axis = 1');
  const items = newAxis ? seq.items.map((t) => expandDims(t, axis)) : [...seq.items];
  return [items.length === 1 ? items[0]! : concatenate(items, axis)];
};

/**
 * SplitToSequence: a scalar split cuts chunks of that size (the last may be shorter), a 1-D split gives the lengths;
 * without one, chunks of 1, kept as they are (keepdims = 1) or with the axis squeezed away (keepdims = 0).
 */
const splitToSequence: Form = (ctx) => {
  const x = tensorIn(ctx, 0, 'input');
  const axis = checkedAxis(ctx, num(ctx, 'axis', 0), x.shape.length);
  const len = x.shape[axis]!;
  const splitT = ctx.input(1);
  if (!splitT) {
    const keep = num(ctx, 'keepdims', 1);
    return [
      new OnnxSequence(
        Array.from({ length: len }, (_, i) => {
          const part = sliceAxis(x, axis, i, i + 1);
          return keep ? part : squeeze(part, [axis]);
        }),
        x.dtype,
      ),
    ];
  }
  if (splitT.dtype !== 'int32' && splitT.dtype !== 'int64')
    throw new Error(`SplitToSequence's split is ${splitT.dtype}; ONNX takes int32 or int64`);
  const split = valuesOf(splitT, `SplitToSequence's split (input '${ctx.node.inputs[1]}')`);
  let sizes: number[];
  if (splitT.shape.length === 0) {
    const size = split[0]!;
    if (size <= 0) throw new Error(`SplitToSequence's split ${size} is not positive`);
    sizes = Array.from({ length: Math.ceil(len / size) }, (_, i) => Math.min(size, len - i * size));
  } else if (splitT.shape.length === 1) {
    sizes = split;
    const bad = sizes.find((s) => s < 0);
    if (bad !== undefined) throw new Error(`SplitToSequence's split holds ${bad}; lengths are not negative`);
    const total = sizes.reduce((a, b) => a + b, 0);
    if (total !== len)
      throw new Error(`SplitToSequence's split [${sizes.join(', ')}] sums to ${total}, the axis has ${len}`);
  } else {
    throw new Error(`SplitToSequence's split has rank ${splitT.shape.length}; it is a scalar or 1-D`);
  }
  let at = 0;
  const items = sizes.map((s) => {
    const part = sliceAxis(x, axis, at, at + s);
    at += s;
    return part;
  });
  return [new OnnxSequence(items, x.dtype)];
};

/** SequenceMap: the body once per position, fed that position's tensor of each sequence input and every tensor input. */
const sequenceMap: Form = (ctx) => {
  const body = ctx.attr('body');
  if (!isOnnxGraph(body)) throw new Error('SequenceMap without a body graph');
  const first = sequenceIn(ctx, 0);
  const inputs = ctx.node.inputs.map((_, i) => {
    const v = ctx.value(i);
    if (!v) throw new Error(`SequenceMap's input ${i} is required`);
    if (v instanceof OnnxOptional) throw new Error(`SequenceMap's input ${i} is an ONNX optional`);
    return v;
  });
  const n = first.items.length;
  for (const [i, v] of inputs.entries())
    if (v instanceof OnnxSequence && v.items.length !== n)
      throw new Error(`SequenceMap's sequences differ in length (${n} and ${v.items.length} at input ${i})`);
  const outs: Tensor[][] = body.outputs.map(() => []);
  for (let k = 0; k < n; k++) {
    const results = runBody(ctx, body, `body (position ${k})`, [
      ...inputs.map((v) => (v instanceof OnnxSequence ? v.items[k]! : v)),
    ]);
    results.forEach((t, j) => outs[j]!.push(tensorOut(t, `SequenceMap's body output ${j}`)));
  }
  // An empty result sequence takes the type the body declares for that output.
  return outs.map((items, j) => new OnnxSequence(items, items[0]?.dtype ?? body.outputs[j]!.dtype ?? null));
};

function runBody(ctx: ImportContext, body: OnnxGraph, where: string, inputs: ImportValue[]): ImportValue[] {
  try {
    return ctx.subgraph(body, inputs);
  } catch (e) {
    throw new Error(`${where}: ${(e as Error).message}`);
  }
}

function tensorOut(v: ImportValue, what: string): Tensor {
  if (!(v instanceof Tensor)) throw new Error(`${what} is ${kindOf(v)}; a tensor is expected`);
  return v;
}

/** Optional: wraps its input; without one, an empty optional of the type the `type` attribute names. */
const optional: Form = (ctx) => {
  const v = ctx.value(0);
  if (v instanceof OnnxOptional) throw new Error('Optional of an optional is not an ONNX type');
  if (!v && ctx.attr('type') === undefined) throw new Error('Optional without an input needs its type attribute');
  return [new OnnxOptional(v ?? null)];
};

/** OptionalHasElement: whether the optional holds a value; a tensor or sequence (opset 18) holds one, no input none. */
const optionalHasElement: Form = (ctx) => {
  const v = ctx.value(0);
  if (!v && ctx.opset < 18) throw new Error("OptionalHasElement's input is required before opset 18");
  const has = v instanceof OnnxOptional ? v.value !== null : v !== undefined;
  return [tensor([has ? 1 : 0], { dtype: 'bool', shape: [] })];
};

/** OptionalGetElement: the optional's value (a tensor or sequence from opset 18 is its own value); empty is refused. */
const optionalGetElement: Form = (ctx) => {
  const v = ctx.value(0);
  if (!v) throw new Error("OptionalGetElement's input is required");
  if (!(v instanceof OnnxOptional)) return [v];
  if (v.value === null) throw new Error(`OptionalGetElement of '${ctx.node.inputs[0]}', an optional with no value`);
  return [v.value];
};

/** The most iterations Scan is unrolled to at import. */
const MAX_SCAN = 4096;

/**
 * One scan over unbatched inputs (Scan 9 on): the body runs once per position of the scan inputs, each read along its
 * axis in its direction; the state variables carry over; each scan output stacks along its axis, appended or
 * prepended (direction 1).
 */
function scanOnce(
  ctx: ImportContext,
  body: OnnxGraph,
  states: readonly Tensor[],
  scans: readonly Tensor[],
  inAxes: readonly number[],
  inDirs: readonly number[],
  outAxes: readonly number[],
  outDirs: readonly number[],
): Tensor[] {
  const nOut = body.outputs.length - states.length;
  if (nOut < 0)
    throw new Error(`Scan's body has ${body.outputs.length} outputs, fewer than its ${states.length} states`);
  if (body.inputs.length !== states.length + scans.length)
    throw new Error(
      `Scan's body takes ${body.inputs.length} inputs, the node gives ${states.length} states and ${scans.length} scan inputs`,
    );
  const lengths = scans.map((x, k) => x.shape[inAxes[k]!]!);
  const T = lengths[0]!;
  if (lengths.some((l) => l !== T))
    throw new Error(`Scan's inputs have different lengths along their scan axes (${lengths.join(', ')})`);
  if (T > MAX_SCAN) throw new Error(`Scan runs ${T} iterations; only ${MAX_SCAN} or fewer are unrolled at import`);
  let carried: Tensor[] = [...states];
  const outs: Tensor[][] = Array.from({ length: nOut }, () => []);
  for (let t = 0; t < T; t++) {
    const step = scans.map((x, k) => {
      const at = inDirs[k] ? T - 1 - t : t;
      return squeeze(sliceAxis(x, inAxes[k]!, at, at + 1), [inAxes[k]!]);
    });
    const results = runBody(ctx, body, `body (iteration ${t})`, [...carried, ...step]).map((v, j) =>
      tensorOut(v, `Scan's body output ${j}`),
    );
    carried = results.slice(0, states.length);
    results.slice(states.length).forEach((y, j) => outs[j]!.push(y));
  }
  const stacked = outs.map((list, j) => {
    if (!list.length) throw new Error('Scan runs zero iterations; an empty scan output is not imported');
    const axis = checkedAxis(ctx, outAxes[j]!, list[0]!.shape.length + 1, `scan_output_axes[${j}]`);
    const ordered = outDirs[j] ? [...list].reverse() : list;
    const parts = ordered.map((y) => expandDims(y, axis));
    return parts.length === 1 ? parts[0]! : concatenate(parts, axis);
  });
  return [...carried, ...stacked];
}

/** A per-input attribute list (scan_input_axes...), its default 0 for each, checked for length. */
function perInput(ctx: ImportContext, name: string, n: number): number[] {
  const v = ctx.attr(name) as number[] | undefined;
  if (v === undefined) return new Array<number>(n).fill(0);
  if (v.length !== n) throw new Error(`Scan's ${name} has ${v.length} entries, for ${n} values`);
  const bad = name.endsWith('directions') ? v.find((d) => d !== 0 && d !== 1) : undefined;
  if (bad !== undefined) throw new Error(`Scan's ${name} holds ${bad}; directions are 0 or 1`);
  return v;
}

/**
 * Scan, unrolled at import. From opset 9 the inputs are the states then num_scan_inputs scan inputs, with
 * scan_input_axes/directions and scan_output_axes/directions. Opset 8 has a batch axis 0 on every input and output,
 * an optional sequence_lens first (only the full length for every batch entry is imported) and `directions`.
 */
const scan: Form = (ctx) => {
  const body = ctx.attr('body');
  if (!isOnnxGraph(body)) throw new Error('Scan without a body graph');
  const M = ctx.attr('num_scan_inputs') as number | undefined;
  if (M === undefined || M < 1) throw new Error("Scan's num_scan_inputs attribute is required (at least 1)");
  const v8 = ctx.opset < 9;
  const first = v8 ? 1 : 0;
  const all = ctx.node.inputs.slice(first).map((_, i) => tensorIn(ctx, i + first, `input ${i + first}`));
  const N = all.length - M;
  if (N < 0) throw new Error(`Scan has ${all.length} inputs, fewer than num_scan_inputs = ${M}`);
  const [states, scans] = [all.slice(0, N), all.slice(N)];
  const K = body.outputs.length - N;
  if (!v8) {
    const inAxes = perInput(ctx, 'scan_input_axes', M).map((a, k) =>
      checkedAxis(ctx, a, scans[k]!.shape.length, `scan_input_axes[${k}]`),
    );
    return scanOnce(
      ctx,
      body,
      states,
      scans,
      inAxes,
      perInput(ctx, 'scan_input_directions', M),
      perInput(ctx, 'scan_output_axes', K),
      perInput(ctx, 'scan_output_directions', K),
    );
  }
  // Opset 8: one scan per batch entry, the results stacked along axis 0.
  const dirs = perInput(ctx, 'directions', M);
  const B = all[0]!.shape[0]!;
  if (!B) throw new Error('Scan (opset 8) over a batch of 0 is not imported');
  if (all.some((t) => t.shape[0] !== B))
    throw new Error(`Scan's inputs disagree on the batch size (axis 0: ${all.map((t) => t.shape[0]).join(', ')})`);
  const T = scans[0]!.shape[1]!;
  if (scans.some((x) => x.shape[1] !== T))
    throw new Error(`Scan's scan inputs differ in length (axis 1: ${scans.map((x) => x.shape[1]).join(', ')})`);
  // sequence_lens: batch entry b scans its first lens[b] positions (from position lens[b] - 1 back, in reverse); its
  // scan outputs are zero past that, as onnxruntime's Scan 8 leaves them.
  const lensIn = ctx.input(0);
  const lens = lensIn ? valuesOf(lensIn, "Scan's sequence_lens") : new Array<number>(B).fill(T);
  if (lens.length !== B) throw new Error(`Scan's sequence_lens has ${lens.length} entries, the batch ${B}`);
  // A length of 0 is refused, as onnxruntime refuses it.
  const bad = lens.find((l) => l < 1 || l > T);
  if (bad !== undefined) throw new Error(`Scan's sequence_lens holds ${bad}, outside [1, ${T}]`);
  const entry = (x: Tensor, b: number) => squeeze(sliceAxis(x, 0, b, b + 1), [0]);
  const perBatch = lens.map((L, b) =>
    scanOnce(
      ctx,
      body,
      states.map((s) => entry(s, b)),
      scans.map((x) => sliceAxis(entry(x, b), 0, 0, L)),
      new Array<number>(M).fill(0),
      dirs,
      new Array<number>(K).fill(0),
      new Array<number>(K).fill(0),
    ),
  );
  return perBatch[0]!.map((first, j) => {
    const parts = perBatch.map((outs, b) => {
      const y = outs[j]!;
      const L = lens[b]!;
      // A scan output [L, ...] padded with zeros to [T, ...].
      const full = j < N || L === T ? y : concatenate([y, zeros([T - L, ...first.shape.slice(1)], y.dtype)], 0);
      return expandDims(full, 0);
    });
    return parts.length === 1 ? parts[0]! : concatenate(parts, 0);
  });
};

export const SEQUENCE_FORMS: Readonly<Record<string, Form>> = {
  SequenceEmpty: sequenceEmpty,
  SequenceConstruct: sequenceConstruct,
  SequenceInsert: sequenceInsert,
  SequenceErase: sequenceErase,
  SequenceAt: sequenceAt,
  SequenceLength: sequenceLength,
  ConcatFromSequence: concatFromSequence,
  SplitToSequence: splitToSequence,
  SequenceMap: sequenceMap,
  Optional: optional,
  OptionalHasElement: optionalHasElement,
  OptionalGetElement: optionalGetElement,
  Scan: scan,
};
