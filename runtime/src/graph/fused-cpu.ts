// The CPU dialect's fused kernels: a group anchored on a reduction is one loop nest over the reduction's cells (prologue, combine, epilogue); any other anchor runs its own kernel, then every inlinable call after it is one loop over the output built from their compute expressions.

import { allocStorage, finishStorage, roundToBFloat16, roundToFloat16, type DType } from '../dtype.ts';
import { broadcastRows } from '../dialects/cpu/support.ts';
import { callArena, wasm, wasmUnavailable } from '../dialects/wasm/module.ts';
import { WasmStorage } from '../dialects/wasm/storage.ts';
import { inPtr, residentOutput, residentView, toWasmMemory } from '../dialects/wasm/support.ts';
import { enabledDialects } from '../dialect.ts';
import { shapesEqual, sizeOf } from '../shape.ts';
import { fromStorage, keepAlive, type Tensor, type TensorType } from '../tensor.ts';
import { exprToJs, JS_HELPERS } from './expr.ts';
import { registerFusedCompiler, type FusedKernel } from './executor.ts';
import { singleOut, type Atom, type CallNode, type FusedNode, type Var } from './ir.ts';
import {
  argOf,
  Bindings,
  broadcastOffset,
  combineText,
  directKernel,
  planFused,
  reductionLayout,
  releaseIntermediate,
  shapeOf,
  slotTensors,
  walkOffset,
  type FusedPlan,
  type FusedStep,
  type ReductionLayout,
} from './fused-plan.ts';

/** Compilers of CPU pattern groups (origin `{ by: 'pattern', pattern }`), by pattern name: asked before the plan. */
const patternCompilers = new Map<string, (node: FusedNode) => FusedKernel | null>();

/**
 * Compiles the CPU groups a pattern pass forms (quant_dense: passes/quant-dense.ts) with the pass's own kernel; other
 * groups are planned here as before.
 */
export function registerCpuPatternCompiler(pattern: string, compile: (node: FusedNode) => FusedKernel | null): void {
  patternCompilers.set(pattern, compile);
}

export function compileCpuFused(node: FusedNode): FusedKernel | null {
  const pattern = node.origin.by === 'pattern' ? node.origin.pattern : undefined;
  const own = pattern === undefined ? undefined : patternCompilers.get(pattern);
  if (own) return own(node);
  const plan = planFused(node);
  if (!plan) return null;
  const layout = reductionLayout(node, plan);
  if (layout && layout.epilogue !== 'separate') return rowLoops(node, plan, layout, true);
  // A prologue needs the reduction's own loop; with no layout (an empty reduction) the group runs call by call.
  if (plan.prologue && !layout) return null;
  const anchorRun =
    layout && plan.prologue
      ? rowLoops(node, plan, layout, false)
      : plan.anchor
        ? directKernel(plan.anchor, 'cpu')
        : null;
  const out = node.out.type;
  const n = sizeOf(out.shape);
  // The broadcast walk is planned once per group (shapes are static in the graph): contiguous runs of the output,
  // each slot read from its run start and stepping 1, or 0 when it is constant along the run.
  const walk = broadcastRows(
    out.shape,
    plan.slots.map((s) => shapeOf(s)),
  );
  const src = [
    ...plan.slots.map((_, s) => `const d${s} = D[${s}], s${s} = S[${s}], k${s} = K[${s}];`),
    `for (let row = 0, i = 0; row < N; row++) {`,
    ...plan.slots.map((_, s) => `  let j${s} = s${s}[row];`),
    `  for (const end = i + M; i < end; i++${plan.slots.map((_, s) => `, j${s} += k${s}`).join('')}) {`,
    ...plan.slots.map((_, s) => `    const v${s} = d${s}[j${s}];`),
    ...stepConsts(plan.steps, (k) => `v${k}`, 't').map((l) => `    ${l}`),
    // float16 rounds once, at the store: the fused chain keeps full precision in between.
    `    r[i] = ${rounds(out.dtype) ? 'R' : ''}(t${plan.steps.length - 1});`,
    '  }',
    '}',
  ].join('\n');
  // The walk's extent is an argument, so groups of one form at other sizes (a model run at a new sequence length, or
  // the same group in every layer) share one compiled loop and the engine's optimized code for it.
  const loop = compiledLoop(['D', 'S', 'K', 'r', 'H', 'R', 'N', 'M'], src) as (
    d: unknown[],
    s: readonly Int32Array[],
    k: readonly number[],
    r: unknown,
    h: unknown,
    rnd: unknown,
    rows: number,
    inner: number,
  ) => void;
  const epilogue = anchorRun && !plan.prologue ? wasmEpilogue(node, plan) : null;
  const anchorSlot = plan.anchor ? plan.slots.indexOf(singleOut(plan.anchor)) : -1;
  return (inputs) => {
    const ts = slotTensors(node, plan, inputs, anchorRun as ((values: readonly unknown[]) => Tensor) | null);
    const done = epilogue ? epilogue(ts[anchorSlot]!, ts) : null;
    if (done) return done;
    const result = runInto(node, out, ts, (data, result) =>
      loop(data, walk.starts, walk.steps, result, JS_HELPERS, rounding(out.dtype), walk.rows, walk.inner),
    );
    // The anchor's result is the group's own intermediate: its memory goes back once the loop has read it.
    if (anchorSlot >= 0) releaseIntermediate(ts[anchorSlot]!, inputs, result);
    return result;
  };
}

/**
 * Runs a fused loop over the slots' elements into a new output. Where the wasm dialect may run, the output is a block
 * of wasm memory and resident inputs are read there in place, so a group between two wasm kernels (a convolution's
 * bias and activation) copies nothing; otherwise both are JavaScript arrays. The loop is the same either way.
 */
function runInto(
  node: FusedNode,
  out: TensorType,
  ts: readonly Tensor[],
  loop: (data: unknown[], result: unknown) => void,
): Tensor {
  const pin = enabledDialects();
  const res = !pin || pin.includes('wasm') ? residentOutput(out) : null;
  if (!res) {
    const result = allocStorage(out.dtype, sizeOf(out.shape));
    loop(
      ts.map((t) => t.dataSync()),
      result,
    );
    // int64/uint64 never live in wasm memory, so only this path checks their range.
    finishStorage(out.dtype, lastOp(node), 'out', result);
    return fromStorage(out.shape, out.dtype, result);
  }
  // Views are taken after the output's allocation, the last one of this call.
  loop(
    ts.map((t) => residentView(res.arena, t) ?? t.dataSync()),
    res.data(),
  );
  return res.tensor();
}

/** Compiled loops by parameter list and text: a group whose text was compiled before reuses that function. */
const loops = new Map<string, unknown>();
const loopCounts = { compiled: 0, reused: 0 };

/** Fused CPU loops compiled so far, and groups that reused one compiled before (what tests read). */
export function fusedLoopStats(): { readonly compiled: number; readonly reused: number } {
  return { ...loopCounts };
}

function compiledLoop(params: readonly string[], src: string): unknown {
  const key = `${params.join(',')}\n${src}`;
  let fn = loops.get(key);
  if (fn) loopCounts.reused++;
  else {
    // Bounded: a long-running process converting many models starts the cache over rather than growing it.
    if (loops.size >= 1024) loops.clear();
    loops.set(key, (fn = new Function(...params, src)));
    loopCounts.compiled++;
  }
  return fn;
}

/** `const` lines computing each step (`<prefix><k>`) from the slots, named by `slot(k)`, and earlier steps. */
function stepConsts(steps: readonly FusedStep[], slot: (k: number) => string, prefix: string): string[] {
  return steps.map((st, k) => {
    const names: Record<string, string> = {};
    for (const [v, ref] of Object.entries(st.names))
      names[v] = 'slot' in ref ? slot(ref.slot) : 'step' in ref ? `${prefix}${ref.step}` : `(${ref.value})`;
    return `const ${prefix}${k} = ${exprToJs(st.expr, names)};`;
  });
}

/**
 * One loop nest for `prologue* reduce epilogue*`: for each output cell, walk its row computing the prologue per
 * element and combining (in float64, as the reduction kernels accumulate), then run the epilogue once for the cell or
 * over the row again (see ReductionLayout). Without `withEpilogue` it returns the reduction's result, for a group
 * whose epilogue needs a loop of its own. The kernel takes the group's inputs.
 */
function rowLoops(node: FusedNode, plan: FusedPlan, layout: ReductionLayout, withEpilogue: boolean): FusedKernel {
  const anchorOut = singleOut(plan.anchor!);
  const out: TensorType = withEpilogue ? node.out.type : anchorOut.type;
  const bind = new Bindings('d');
  const { shape, count } = layout;
  const j = `${walkOffset('js', 'cell', layout.kept.sizes, layout.kept.strides)} + ${walkOffset('js', 'r', layout.reduced.sizes, layout.reduced.strides)}`;
  const p = plan.prologue;
  const element = p
    ? [
        ...p.slots.map((s, k) => `const p_s${k} = ${bind.of(s)}[${broadcastOffset('js', shapeOf(s), shape, 'j')}];`),
        ...stepConsts(p.steps, (k) => `p_s${k}`, 'p'),
        `const v = p${p.steps.length - 1};`,
      ]
    : [`const v = ${bind.of(layout.x)}[j];`];
  const steps = withEpilogue ? plan.steps : [];
  const epilogue = steps.length
    ? [
        ...plan.slots.map(
          (s, k) =>
            `const e_s${k} = ${s === anchorOut ? 'red' : `${bind.of(s)}[${broadcastOffset('js', shapeOf(s), out.shape, 'o')}]`};`,
        ),
        ...stepConsts(steps, (k) => `e_s${k}`, 'e'),
        `const res = e${steps.length - 1};`,
      ]
    : ['const res = red;'];
  const store = [...epilogue, `out[o] = ${rounds(out.dtype) ? 'R(res)' : 'res'};`];
  const indent = (lines: string[], by = '  ') => lines.map((l) => by + l);
  const rows = (from: number, body: string[]) => [
    `for (let r = ${from}; r < ${count}; r++) {`,
    `  const j = ${j};`,
    ...indent(body),
    '}',
  ];
  const src = [
    ...bind.atoms.map((_, k) => `const d${k} = D[${k}];`),
    `for (let cell = 0; cell < C; cell++) {`,
    ...indent([
      'let acc;',
      '{',
      '  const r = 0;',
      `  const j = ${j};`,
      ...indent(element),
      '  acc = v;',
      '}',
      ...rows(1, [...element, `acc = ${combineText('js', layout.op, 'acc', 'v')};`]),
      `const red = acc${layout.op === 'mean' ? ` / ${count}` : ''};`,
      ...(withEpilogue && layout.epilogue === 'row'
        ? rows(0, ['const o = j;', ...store])
        : ['const o = cell;', ...store]),
    ]),
    '}',
  ].join('\n');
  // The cell count is an argument (a norm over the last axis reads the same at every sequence length).
  const loop = compiledLoop(['D', 'out', 'H', 'R', 'C'], src) as (
    d: unknown[],
    out: unknown,
    h: unknown,
    rnd: unknown,
    cells: number,
  ) => void;
  return (inputs) =>
    runInto(node, out, bind.tensors(node, inputs), (data, result) =>
      loop(data, result, JS_HELPERS, rounding(out.dtype), layout.cells),
    );
}

// ---------------------------------------------------------------------------------------------------------------------
// Bias and activation epilogues in wasm

/** Whether the CPU compiler runs `node` as its anchor's wasm kernel plus an in-place wasm epilogue (see wasmEpilogue). */
export function hasWasmEpilogue(node: FusedNode): boolean {
  const plan = planFused(node);
  if (!plan || !plan.anchor || plan.prologue || reductionLayout(node, plan)) return false;
  return wasmEpilogue(node, plan) !== null;
}

/** Activation codes of runtime/src/dialects/wasm/as/epilogue.ts. */
const ACT = {
  none: 0,
  relu: 1,
  leaky_relu: 2,
  clip: 3,
  hard_sigmoid: 4,
  hardswish: 5,
  sigmoid: 6,
  max: 7,
  min: 8,
} as const;

/**
 * For a group `conv2d | matmul | dense` then `add(·, per-channel constant)` and/or one activation (relu, leaky_relu,
 * clip, hard_sigmoid, sigmoid, hardswish, or hardswish spelled out as ONNX exporters write it: x · clip(x + 3, 0, 6) /
 * 6), then optionally · and + scalar constants (an affine), then optionally + a same-shaped input (a residual), and
 * nothing else, float32: a function applying bias and activation in place to the anchor's result with one wasm
 * call, when that result lies in wasm memory (the wasm kernel ran); null when it does not, and the group's JavaScript
 * loop runs instead. Null when the group is not of that form.
 */
function wasmEpilogue(
  node: FusedNode,
  plan: FusedPlan,
): ((y: Tensor, slots: readonly Tensor[]) => Tensor | null) | null {
  const anchor = plan.anchor!;
  const layout =
    anchor.op.name === 'conv2d' ? 'planes' : anchor.op.name === 'matmul' || anchor.op.name === 'dense' ? 'cols' : null;
  const y = singleOut(anchor);
  const shape = y.type.shape;
  if (
    !layout ||
    y.type.dtype !== 'float32' ||
    node.out.type.dtype !== 'float32' ||
    !shapesEqual(shape, node.out.type.shape)
  )
    return null;
  if (layout === 'planes' && shape.length !== 4) return null;
  if (shape.length < 1 || sizeOf(shape) === 0) return null;
  const calls = node.fn.nodes as readonly CallNode[];
  const chain = calls.slice(calls.indexOf(anchor) + 1);
  let cur: Var = y;
  let k = 0;
  let bias: Float32Array | null = null;
  const channels = layout === 'planes' ? shape[1]! : shape[shape.length - 1]!;
  const first = chain[0];
  if (first?.op.name === 'add') {
    const o = otherArg(first, cur);
    if (o?.kind === 'const') bias = channelVector(o.value, shape, layout === 'planes' ? 1 : shape.length - 1);
    if (!bias) return null;
    cur = singleOut(first);
    k = 1;
  }
  const act = matchActivation(chain.slice(k), cur);
  if (act) {
    k += act.calls;
    cur = singleOut(chain[k - 1]!);
  }
  // A second one-call activation with at most one parameter (leaky_relu then maximum with a constant).
  let [code2, a2] = [ACT.none as number, 0];
  const second = act ? matchActivation(chain.slice(k, k + 1), cur) : null;
  if (second && second.code !== ACT.clip && second.code !== ACT.hard_sigmoid) {
    [code2, a2] = [second.code, second.a];
    cur = singleOut(chain[k]!);
    k += 1;
  }
  // A learnable affine (PP-LCNet's after each activation): · a scalar constant, then + a scalar constant, either alone.
  let [scale, shift] = [1, 0];
  const mul = chain[k];
  const factor = mul?.op.name === 'multiply' ? scalarConst(otherArg(mul, cur)) : null;
  if (factor !== null) {
    scale = factor;
    cur = singleOut(mul!);
    k++;
  }
  const plus = chain[k];
  const offset = plus?.op.name === 'add' ? scalarConst(otherArg(plus, cur)) : null;
  if (offset !== null) {
    shift = offset;
    cur = singleOut(plus!);
    k++;
  }
  // A residual: + a same-shaped float32 input of the group, added in place by the wasm add.
  let residual = -1;
  const last = chain[k];
  if (last?.op.name === 'add' && k === chain.length - 1) {
    const r = otherArg(last, cur);
    if (r?.kind === 'var' && r.type.dtype === 'float32' && shapesEqual(r.type.shape, shape) && r !== cur) {
      residual = plan.slots.indexOf(r);
      if (residual >= 0) k++;
    }
  }
  if (k !== chain.length || k === 0) return null;
  const [code, a, b] = act ? [act.code, act.a, act.b] : [ACT.none, 0, 0];
  const rows = layout === 'planes' ? shape[0]! * channels : sizeOf(shape) / channels;
  const inner = layout === 'planes' ? shape[2]! * shape[3]! : channels;
  let biasTensor: Tensor | null = null;
  return (t, slots) => {
    if (wasmUnavailable()) return null;
    if (bias && !biasTensor) biasTensor = keepAlive(toWasmMemory(fromStorage([channels], 'float32', bias)));
    const arena = callArena();
    // After callArena: a heap restart there may have moved t out of wasm memory.
    const s = t.storage;
    if (!(s instanceof WasmStorage) || s.ptr === undefined || t.dtype !== 'float32') return null;
    const pb = biasTensor ? inPtr(arena, 'f32', biasTensor) : 0;
    const pr = residual >= 0 ? inPtr(arena, 'f32', slots[residual]!) : 0;
    const mod = wasm();
    if (bias || code !== ACT.none || scale !== 1 || shift !== 0) {
      if (layout === 'planes')
        (mod['bias_act_planes_f32'] as WasmFn)(s.ptr, pb, rows, channels, inner, code, a, b, code2, a2, scale, shift);
      else (mod['bias_act_cols_f32'] as WasmFn)(s.ptr, pb, rows, inner, code, a, b, code2, a2, scale, shift);
    }
    if (residual >= 0) (mod['add_f32'] as WasmFn)(s.ptr, s.ptr, pr, sizeOf(shape));
    return t;
  };
}

type WasmFn = (...args: number[]) => void;

/** `c`'s other operand when one of its two tensor args (a, b) is `v`. */
function otherArg(c: CallNode, v: Var): Atom | undefined {
  const [a, b] = [argOf(c, 'a') as Atom, argOf(c, 'b') as Atom];
  return a === v ? b : b === v ? a : undefined;
}

/** A float32 constant that varies only along `axis` of `shape` (size 1 there, or that axis' size), as one vector. */
function channelVector(t: Tensor, shape: readonly number[], axis: number): Float32Array | null {
  if (t.dtype !== 'float32' || t.shape.length > shape.length) return null;
  const lead = shape.length - t.shape.length;
  const n = shape[axis]!;
  for (let d = 0; d < t.shape.length; d++) {
    const size = t.shape[d]!;
    if (size !== 1 && !(d + lead === axis && size === n)) return null;
  }
  const data = t.dataSync() as Float32Array;
  return data.length === n ? Float32Array.from(data) : new Float32Array(n).fill(data[0]!);
}

/** A float32 scalar constant's value, or null. */
function scalarConst(a: unknown): number | null {
  if (!isAtomConst(a) || a.value.size !== 1 || !a.value.dtype.startsWith('float')) return null;
  return Number((a.value.dataSync() as Float32Array)[0]);
}
const isAtomConst = (a: unknown): a is Extract<Atom, { kind: 'const' }> =>
  typeof a === 'object' && a !== null && (a as Atom).kind === 'const';

/** The activation the calls start with, applied to `x`: its code, parameters and how many calls spell it. */
function matchActivation(
  calls: readonly CallNode[],
  x: Var,
): { code: number; a: number; b: number; calls: number } | null {
  const c = calls[0];
  if (!c) return null;
  const arg = (n: CallNode, name: string) => argOf(n, name);
  const binary = c.op.name === 'add' || c.op.name === 'maximum' || c.op.name === 'minimum';
  if (!binary && arg(c, 'x') !== x) return null;
  switch (c.op.name) {
    case 'relu':
      return { code: ACT.relu, a: 0, b: 0, calls: 1 };
    case 'sigmoid':
      return { code: ACT.sigmoid, a: 0, b: 0, calls: 1 };
    case 'hardswish':
      return { code: ACT.hardswish, a: 0, b: 0, calls: 1 };
    case 'leaky_relu':
      return { code: ACT.leaky_relu, a: Number(arg(c, 'alpha')), b: 0, calls: 1 };
    case 'clip':
      return { code: ACT.clip, a: Number(arg(c, 'a_min')), b: Number(arg(c, 'a_max')), calls: 1 };
    case 'hard_sigmoid':
      return { code: ACT.hard_sigmoid, a: Number(arg(c, 'alpha')), b: Number(arg(c, 'beta')), calls: 1 };
    case 'maximum':
    case 'minimum': {
      const bound = scalarConst(otherArg(c, x));
      if (bound === null) return null;
      return { code: c.op.name === 'maximum' ? ACT.max : ACT.min, a: bound, b: 0, calls: 1 };
    }
    case 'add': {
      // x · clip(x + 3, 0, 6) / 6
      const [clip, mul, div] = [calls[1], calls[2], calls[3]];
      if (scalarConst(otherArg(c, x)) !== 3 || !clip || !mul || !div) return null;
      if (clip.op.name !== 'clip' || arg(clip, 'x') !== singleOut(c)) return null;
      if (Number(arg(clip, 'a_min')) !== 0 || Number(arg(clip, 'a_max')) !== 6) return null;
      if (mul.op.name !== 'multiply' || otherArg(mul, singleOut(clip)) !== x) return null;
      if (div.op.name !== 'divide' || arg(div, 'a') !== singleOut(mul) || scalarConst(arg(div, 'b')) !== 6) return null;
      return { code: ACT.hardswish, a: 0, b: 0, calls: 4 };
    }
  }
  return null;
}

registerFusedCompiler('cpu', compileCpuFused);

/** The op a fused group's result comes from (its last call), to name in an int64 range error. */
function lastOp(node: FusedNode): string {
  const last = node.fn.nodes[node.fn.nodes.length - 1];
  return last?.kind === 'call' ? last.op.name : 'fused';
}

/** Whether a fused store of `dtype` rounds (the float dtypes stored widened: float16, bfloat16). */
function rounds(dtype: DType): boolean {
  return dtype === 'float16' || dtype === 'bfloat16';
}

/** The rounding a fused store of `dtype` applies (passed to the generated loop as `R`). */
function rounding(dtype: DType): (v: number) => number {
  return dtype === 'bfloat16' ? roundToBFloat16 : roundToFloat16;
}
