// The graph executor (RAF's VM to eager mode's interpreter): runs calls through the dispatcher and fused groups through a dialect's fused-kernel compiler.

import type { DeviceKind } from '../device.ts';
import {
  buildDialectKernel,
  dialectOpsFor,
  enabledDialects,
  inPinOrder,
  type Kernel,
  type KernelInputs,
  type OutType,
} from '../dialect.ts';
import { WasmStorage } from '../dialects/wasm/storage.ts';
import { residentOutput, residentView, toWasmMemory } from '../dialects/wasm/support.ts';
import { threadStats, wakeWasmThreads } from '../dialects/wasm/threads/index.ts';
import { dispatchStats, inheritChecks, invoke, kernelEpoch, setInvokeHook } from '../dispatch.ts';
import { allocStorage, finishStorage } from '../dtype.ts';
import { OpError } from '../errors.ts';
import { trackOutputs } from '../scope.ts';
import { shapesEqual } from '../shape.ts';
import {
  checkAllocation,
  CpuStorage,
  fromStorage,
  keepAlive,
  Tensor,
  type TensorStorage,
  type TensorType,
} from '../tensor.ts';
import {
  bindOut,
  definedVars,
  isAtom,
  nodeInputs,
  type Atom,
  type CallNode,
  type Const,
  type FusedNode,
  type Graph,
  type Var,
} from './ir.ts';
import { MemoryRecorder, type MemoryLayout, type StepMemory } from './memory-plan.ts';
import { formatType } from './printer.ts';

/** One launch of a fused group: its inputs in `node.inputs` order, one output. */
export type FusedKernel = (inputs: readonly Tensor[]) => Tensor;

/** Builds a fused group's kernel for a device kind, or null when this dialect cannot (the group then runs call by call). */
export type FusedCompiler = (node: FusedNode) => FusedKernel | null;

const compilers = new Map<DeviceKind, FusedCompiler>();
let compiled = new WeakMap<FusedNode, FusedKernel | null>();
let fusedLaunches = 0;

export function registerFusedCompiler(kind: DeviceKind, compile: FusedCompiler): void {
  compilers.set(kind, compile);
}

/** Fused-group launches so far; with `dispatchStats().dispatches` this counts every kernel a graph run started. */
export function fusedStats(): { readonly launches: number } {
  return { launches: fusedLaunches };
}

/** Kernel launches (dispatched calls plus fused groups) so far. */
export function kernelLaunches(): number {
  return dispatchStats().dispatches + fusedLaunches + plannedLaunches;
}

/**
 * Runs a graph on concrete tensors; returns its outputs in order. Every intermediate is disposed as soon as the last
 * node reading it has run (a value no node reads, right after the node that made it), so a GPU run holds only the
 * buffers still needed. Inputs, constants and outputs are never disposed, nor anything sharing their storage (a
 * reshape view of an input), nor a tensor the autodiff tape recorded (its backward may still read it).
 *
 * A graph runs through its execution plan (see ExecutionPlan), on any device: the first run at a dialect pin records,
 * per call, the kernel dispatch chose and its static attrs; later runs call those kernels directly. Graphs whose inputs
 * or constants require grad, or that run while a tracer is installed, go call by call through the dispatcher.
 */
export function execute(g: Graph, inputs: readonly Tensor[], options: ExecuteOptions = {}): Tensor[] {
  checkInputs(g, inputs);
  // With wasm threads on, a graph whose last run split kernels wakes the workers now rather than at its first split;
  // one that split none leaves them asleep (woken, they spin a while, for nothing).
  if (splitLastRun.has(g)) wakeWasmThreads();
  const splitsBefore = threadStats.splitCalls;
  const plan = planFor(g, inputs);
  const outputs = plan ? runPlan(plan, g, inputs, options.transient) : executeUnplanned(g, inputs);
  if (threadStats.splitCalls !== splitsBefore) splitLastRun.add(g);
  else splitLastRun.delete(g);
  return outputs;
}

export interface ExecuteOptions {
  /**
   * Positions of outputs the caller reads (or copies) before g runs again and then disposes: a planned run may keep
   * them in the plan's own memory, like its intermediates, instead of taking a heap block per output per run. A run
   * of g overwrites the previous run's transient outputs. Values are the same either way.
   */
  readonly transient?: ReadonlySet<number>;
}

/** Graphs whose last run split a kernel across wasm threads. */
const splitLastRun = new WeakSet<Graph>();

function checkInputs(g: Graph, inputs: readonly Tensor[]): void {
  if (inputs.length !== g.params.length)
    throw new Error(`execute: the graph takes ${g.params.length} inputs, got ${inputs.length}`);
  g.params.forEach((p, i) => {
    const t = inputs[i]!;
    if (t.dtype !== p.type.dtype || !shapesEqual(t.shape, p.type.shape)) {
      throw new Error(
        `execute: input ${i} (%${p.hint ?? i}) is ${t.toString()}, the graph was traced for ${formatType(p.type)}`,
      );
    }
  });
}

/** `execute` call by call through the dispatcher, with no plan (what a plan's steps must agree with). */
export function executeUnplanned(g: Graph, inputs: readonly Tensor[]): Tensor[] {
  checkInputs(g, inputs);
  const env = new Map<Var, Tensor>();
  g.params.forEach((p, i) => env.set(p, inputs[i]!));
  const atom = (a: Atom): Tensor => {
    if (a.kind === 'const') return constValue(a);
    const t = env.get(a);
    if (!t) throw new Error('execute: a var is read before it is computed');
    return t;
  };
  const value = (a: unknown): unknown => (isAtom(a) ? atom(a) : Array.isArray(a) && a.some(isAtom) ? a.map(value) : a);
  const life = lifetimes(g);
  // Storage the caller owns (inputs, constants), and how many live intermediates hold each other storage.
  const owned = new Set<TensorStorage>(inputs.map((t) => t.storage));
  for (const c of life.consts) owned.add(constValue(c).storage);
  const holders = new Map<TensorStorage, number>();
  const release = (v: Var): void => {
    const t = env.get(v);
    if (!t) return;
    env.delete(v);
    const left = holders.get(t.storage)! - 1;
    if (left > 0) holders.set(t.storage, left);
    else {
      holders.delete(t.storage);
      if (!owned.has(t.storage) && !t.requiresGrad) t.dispose();
    }
  };
  try {
    g.nodes.forEach((n, i) => {
      if (n.kind === 'call') bindOut(env, n.out, invoke(n.op, n.args.map(value)) as Tensor | readonly Tensor[]);
      else env.set(n.out, runFused(n, n.inputs.map(atom)));
      for (const v of definedVars(n)) {
        const t = env.get(v)!;
        holders.set(t.storage, (holders.get(t.storage) ?? 0) + 1);
      }
      for (const v of life.dies[i]!) release(v);
    });
    return g.outputs.map((a) => (a.kind === 'const' ? a.value : atom(a)));
  } catch (e) {
    // A failed run leaves nothing behind either: every intermediate made so far goes.
    for (const v of [...env.keys()]) if (!g.params.includes(v)) release(v);
    throw e;
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// Execution plans

/** Where a planned step reads a kernel input: a var's slot in the run's value table, a constant, or a list of them. */
type Ref = number | Const | null | readonly Ref[];

/** One node of a plan: a kernel with its inputs' refs and static attrs, a fused group's kernel, or a dispatched call. */
type Step =
  | {
      readonly kind: 'kernel';
      readonly kernel: Kernel<unknown, unknown, OutType>;
      readonly refs: readonly (readonly [string, Ref])[];
      readonly attrs: unknown;
      readonly out: OutType;
      readonly int64: string | null;
      readonly outs: readonly number[];
    }
  | {
      readonly kind: 'fused';
      readonly node: FusedNode;
      readonly refs: readonly Ref[];
      readonly outs: readonly number[];
    }
  | { readonly kind: 'invoke'; readonly node: CallNode; readonly outs: readonly number[] }
  | {
      readonly kind: 'view';
      readonly x: Ref;
      readonly out: TensorType;
      /** A value the graph returns gets storage of its own (see recordCall). */
      readonly copy: boolean;
      readonly outs: readonly number[];
    };

/**
 * Ops whose output is their input's elements in the same order under another shape: a plan runs them as a tensor of
 * the new shape over the input's storage (no copy, and a wasm-resident input stays in wasm memory). The run loop
 * counts holders per storage, so the storage is released only after the input and every view of it are dead.
 */
const VIEW_OPS = new Set(['reshape', 'expand_dims', 'squeeze', 'flatten']);

/**
 * A graph's execution plan at one dialect pin: per node the dialect kernel dispatch picked (declare, the type checks
 * and the kernel choice are done once, at the first run), the kernel's static attrs and where its inputs come from;
 * values live in a table indexed by slot instead of a map, and each slot's release point is precomputed. Shapes are
 * static in a graph, so a graph is one input signature: a new signature is a new graph (Model.graph and
 * OnnxSession.graphFor trace or convert one per signature), hence a new plan.
 */
interface ExecutionPlan {
  readonly steps: readonly Step[];
  /** Slots of the graph's params, in order. */
  readonly params: readonly number[];
  readonly slots: number;
  /** For each step, the slots whose last reader it is (or which it made and nobody reads). */
  readonly dies: readonly (readonly number[])[];
  readonly outputs: readonly (number | Const)[];
  readonly consts: readonly Const[];
  /** Each var's slot, for the args of dispatched calls. */
  readonly slotOf: ReadonlyMap<Var, number>;
  /** Where intermediates in wasm memory go (see memory-plan.ts); null when none lives there. */
  readonly memory: MemoryLayout | null;
}

/** Plans by graph, then by dialect pin; `null` marks a graph the plan does not run (non-CPU, or grad). */
let plans = new WeakMap<Graph, Map<string, ExecutionPlan | null>>();
/** The dispatcher's kernel epoch the plans and compiled groups were built in (setWasmThreads swaps the module). */
let builtIn = kernelEpoch();

/** Drops plans and compiled fused kernels built before the dispatcher last forgot its kernels. */
function dropStaleKernels(): void {
  if (builtIn === kernelEpoch()) return;
  builtIn = kernelEpoch();
  plans = new WeakMap();
  compiled = new WeakMap();
  placed = new WeakMap();
}
let plannedLaunches = 0;

/** Graph runs through a plan so far: how tests tell a planned run from a dispatched one. */
export function planStats(): { readonly plans: number; readonly launches: number } {
  return { plans: planCount, launches: plannedLaunches };
}
let planCount = 0;

/** Whether a tracer has a hook on the dispatcher (its calls must reach the hook, so nothing runs planned). */
function dispatchHooked(): boolean {
  const hook = setInvokeHook(null);
  setInvokeHook(hook);
  return hook !== null;
}

function planFor(g: Graph, inputs: readonly Tensor[]): ExecutionPlan | 'record' | null {
  if (dispatchHooked()) return null;
  for (const t of inputs) if (t.requiresGrad) return null;
  const pin = enabledDialects();
  const key = pin ? pin.join(',') : '*';
  dropStaleKernels();
  let byPin = plans.get(g);
  if (!byPin) plans.set(g, (byPin = new Map()));
  const p = byPin.get(key);
  if (p !== undefined) return p;
  if (!plannable(g)) {
    byPin.set(key, null);
    return null;
  }
  return 'record';
}

/** No constant the tape would differentiate. */
function plannable(g: Graph): boolean {
  for (const c of lifetimes(g).consts) if (c.value.requiresGrad) return false;
  return true;
}

function runPlan(
  plan: ExecutionPlan | 'record',
  g: Graph,
  inputs: readonly Tensor[],
  transient: ReadonlySet<number> | undefined,
): Tensor[] {
  if (plan === 'record') return recordPlan(g, inputs, transient);
  const env: (Tensor | undefined)[] = new Array(plan.slots);
  plan.params.forEach((s, i) => (env[s] = inputs[i]!));
  // A plan whose block is gone (the heap started over) lost its constants' wasm copies too: they are placed again.
  if (plan.memory?.lost) replaceConsts(g);
  const memory = plan.memory?.reserve() ? plan.memory : undefined;
  const outputs = runSteps(plan, env, inputs, memory, (step) => {
    if (step.kind === 'kernel') {
      const ins: Record<string, unknown> = {};
      for (const [k, r] of step.refs) ins[k] = resolve(r, env);
      plannedLaunches++;
      const result = step.kernel(ins, step.attrs, step.out);
      finishKernel(step, result, ins);
      return result;
    }
    if (step.kind === 'fused')
      return runFused(
        step.node,
        step.refs.map((r) => resolve(r, env) as Tensor),
      );
    if (step.kind === 'view') return viewOf(resolve(step.x, env) as Tensor, step.out, step.copy);
    return invoke(
      step.node.op,
      step.node.args.map((a) => atomValue(a, env, plan)),
    ) as Tensor | readonly Tensor[];
  });
  // Transient outputs may lie in the plan's block (see ExecuteOptions); any other output found there gives it up.
  memory?.endRun(transient ? outputs.filter((_, k) => !transient.has(k)) : outputs);
  return outputs;
}

/** The memory layout of the plan `g` runs with now (see memory-plan.ts): null before its first run, or when none. */
export function memoryLayoutOf(g: Graph): MemoryLayout | null {
  const p = plans.get(g)?.get(enabledDialects()?.join(',') ?? '*');
  return p ? p.memory : null;
}

function resolve(r: Ref, env: readonly (Tensor | undefined)[]): unknown {
  if (typeof r === 'number') return env[r]!;
  if (r === null) return null;
  if (Array.isArray(r)) return r.map((x: Ref) => resolve(x, env));
  return constValue(r as Const);
}

/** An arg of a dispatched call with its atoms replaced by their values. */
function atomValue(
  a: unknown,
  env: readonly (Tensor | undefined)[],
  plan: { readonly slotOf: ReadonlyMap<Var, number> },
): unknown {
  if (isAtom(a)) return a.kind === 'const' ? constValue(a) : env[plan.slotOf.get(a)!]!;
  return Array.isArray(a) && a.some(isAtom) ? a.map((x) => atomValue(x, env, plan)) : a;
}

/**
 * What dispatch does after a kernel: int64 range checks, checks a GPU result inherits from its inputs (index bounds
 * found after dispatch), and the enclosing disposeUnkept scope takes the outputs.
 */
function finishKernel(step: { readonly int64: string | null }, result: Tensor | readonly Tensor[], ins: unknown): void {
  if (step.int64)
    for (const t of result instanceof Tensor ? [result] : result)
      if (t.storage instanceof CpuStorage) finishStorage(t.dtype, step.int64, 'out', t.storage.array);
  inheritChecks(ins, result);
  trackOutputs(result, ins);
}

let stepTimer: ((step: number, ms: number) => void) | null = null;

/**
 * Times each node of planned runs: `timer(i, ms)` after node i of the graph ran (its kernel, not the releases after
 * it); null stops. What `bench/profile-model.ts` builds its per-op table from.
 */
export function setStepTimer(timer: ((step: number, ms: number) => void) | null): void {
  stepTimer = timer;
}

/**
 * The run loop shared by a plan's runs and its recording: `run` computes step i; outputs land in their slots, and
 * each slot is released after its last reader, disposing its tensor once no live slot shares the storage.
 */
function runSteps<S extends { readonly outs: readonly number[] }>(
  plan: {
    readonly steps: readonly S[];
    readonly dies: readonly (readonly number[])[];
    readonly outputs: readonly (number | Const)[];
    readonly consts: readonly Const[];
    readonly params: readonly number[];
  },
  env: (Tensor | undefined)[],
  inputs: readonly Tensor[],
  memory: StepMemory<unknown> | undefined,
  run: (step: S, i: number) => Tensor | readonly Tensor[],
): Tensor[] {
  const owned = new Set<TensorStorage>();
  for (const t of inputs) owned.add(t.storage);
  for (const c of plan.consts) owned.add(constValue(c).storage);
  const holders = new Map<TensorStorage, number>();
  const release = (s: number, step: number): void => {
    const t = env[s];
    if (!t) return;
    env[s] = undefined;
    const left = holders.get(t.storage)! - 1;
    if (left > 0) holders.set(t.storage, left);
    else {
      holders.delete(t.storage);
      if (!owned.has(t.storage) && !t.requiresGrad) {
        t.dispose();
        memory?.disposed?.(t.storage, step);
      }
    }
  };
  const steps = plan.steps;
  const timer = stepTimer;
  // The memory plan's step under way (-1: none) and what its beginStep returned, to end it should the step throw.
  let step = -1;
  let token: unknown;
  try {
    for (let i = 0; i < steps.length; i++) {
      const outs = steps[i]!.outs;
      const t0 = timer ? performance.now() : 0;
      let r: Tensor | readonly Tensor[];
      if (memory) {
        token = memory.beginStep(i);
        step = i;
        r = run(steps[i]!, i);
        memory.endStep(token, i, r);
        step = -1;
      } else r = run(steps[i]!, i);
      if (timer) timer(i, performance.now() - t0);
      if (r instanceof Tensor) {
        env[outs[0]!] = r;
        holders.set(r.storage, (holders.get(r.storage) ?? 0) + 1);
      } else
        outs.forEach((s, k) => {
          const t = r[k]!;
          env[s] = t;
          holders.set(t.storage, (holders.get(t.storage) ?? 0) + 1);
        });
      for (const s of plan.dies[i]!) release(s, i);
    }
    return plan.outputs.map((o) => (typeof o === 'number' ? env[o]! : o.value));
  } catch (e) {
    if (step >= 0) memory!.endStep(token, step, []);
    const params = new Set(plan.params);
    for (let s = 0; s < env.length; s++) if (!params.has(s)) release(s, -1);
    throw e;
  }
}

/**
 * The first planned run of a graph at a dialect pin: each call goes through the dispatcher's steps (parse, declare,
 * the allocation limit, the first dialect whose kernel builds), and the plan keeps the kernel with its attrs and the
 * slots its inputs come from. A call whose kernel inputs are not the call's own atoms (parse or declare made a
 * tensor), whose declare answers a value, or that no kernel serves stays a dispatched call in the plan (dispatch
 * then raises its own errors). The plan is kept only when the whole run succeeds.
 */
function recordPlan(g: Graph, inputs: readonly Tensor[], transient?: ReadonlySet<number>): Tensor[] {
  const slotOf = new Map<Var, number>();
  const slot = (v: Var): number => {
    let s = slotOf.get(v);
    if (s === undefined) slotOf.set(v, (s = slotOf.size));
    return s;
  };
  const params = g.params.map(slot);
  for (const n of g.nodes) for (const v of definedVars(n)) slot(v);
  const life = lifetimes(g);
  const steps: Step[] = [];
  const plan = {
    steps,
    params,
    slotOf,
    slots: slotOf.size,
    dies: life.dies.map((vs) => vs.map((v) => slotOf.get(v)!)),
    outputs: g.outputs.map((a) => (a.kind === 'const' ? a : slotOf.get(a)!)),
    consts: life.consts,
  };
  const recorder = new MemoryRecorder();
  const env: (Tensor | undefined)[] = new Array(plan.slots);
  params.forEach((s, i) => (env[s] = inputs[i]!));
  const refOf = (a: Atom): Ref => (a.kind === 'const' ? a : slotOf.get(a)!);
  const returned = new Set<Atom>(g.outputs);
  const outsOf = (n: CallNode | FusedNode) => definedVars(n).map((v) => slotOf.get(v)!);
  // Placeholder steps run the recording; each is replaced by what it recorded.
  const placeholders = g.nodes.map((n) => ({ outs: outsOf(n) }));
  const outputs = runSteps({ ...plan, steps: placeholders }, env, inputs, recorder, (_, i) => {
    const n = g.nodes[i]!;
    const outs = outsOf(n);
    if (n.kind === 'fused') {
      steps.push({ kind: 'fused', node: n, refs: n.inputs.map(refOf), outs });
      return runFused(
        n,
        n.inputs.map((a) => resolve(refOf(a), env) as Tensor),
      );
    }
    const args = n.args.map((a) => atomValue(a, env, plan));
    const recorded = recordCall(n, args, env, refOf, outs, returned);
    steps.push(recorded.step);
    return recorded.result;
  });
  // Transient outputs are laid out as values freed by the last step (an output also returned at another position,
  // or that is an input's storage, stays the caller's).
  if (transient)
    outputs.forEach((t, k) => {
      if (transient.has(k) && outputs.every((o, j) => j === k || transient.has(j) || o.storage !== t.storage))
        recorder.disposed(t.storage, steps.length - 1);
    });
  const memory = recorder.layout(steps.length);
  memory?.reserve();
  plans.get(g)!.set(enabledDialects()?.join(',') ?? '*', { ...plan, memory });
  planCount++;
  return outputs;
}

function recordCall(
  n: CallNode,
  args: readonly unknown[],
  env: readonly (Tensor | undefined)[],
  refOf: (a: Atom) => Ref,
  outs: readonly number[],
  returned: ReadonlySet<Atom>,
): { step: Step; result: Tensor | readonly Tensor[] } {
  const op = n.op;
  const dispatched = () => ({
    step: { kind: 'invoke', node: n, outs } as Step,
    result: invoke(op, args) as Tensor | readonly Tensor[],
  });
  const decl = op.declare(op.schema.parse(op.name, args));
  if (decl.kind === 'value') return dispatched();
  const out: OutType = decl.kind === 'tuple' ? decl.outs : decl.out;
  for (const o of decl.kind === 'tuple' ? decl.outs : [decl.out]) checkAllocation(op.name, 'out', o);
  // A view op on a var or constant of the output's dtype; one the graph returns is a copy (a caller disposing an output
  // must not free storage the graph still reads, an input's or a constant's).
  // On other devices the op's own kernel makes the view (WebGPU's shares the buffer, counting its holders).
  const x = n.args[0];
  if (
    VIEW_OPS.has(op.name) &&
    decl.kind === 'tensor' &&
    decl.device.kind === 'cpu' &&
    isAtom(x) &&
    (args[0] as Tensor).dtype === decl.out.dtype
  ) {
    const step: Step = { kind: 'view', x: refOf(x), out: decl.out, copy: returned.has(n.out as Var), outs };
    return { step, result: viewOf(args[0] as Tensor, decl.out, step.copy) };
  }
  const pin = enabledDialects();
  // Each tensor the call was given, by identity, with the atom it came from.
  const given = new Map<Tensor, Ref>();
  n.args.forEach((a, i) => {
    if (isAtom(a)) given.set(args[i] as Tensor, refOf(a));
    else if (Array.isArray(a))
      a.forEach((x, k) => {
        if (isAtom(x)) given.set((args[i] as Tensor[])[k]!, refOf(x));
      });
  });
  for (const d of inPinOrder(dialectOpsFor(op.name, decl.device.kind), pin)) {
    if (pin && !pin.includes(d.dialect)) continue;
    const ins = d.bridge.inputs(decl.args) as Record<string, unknown>;
    const attrs = d.bridge.attrs(decl.args);
    // A dialect that decides per call (ort's work threshold) is asked as dispatch asks it: shapes are static in a
    // graph, so the answer at the recording holds for every run of the plan.
    if (d.accepts && !pin?.includes(d.dialect) && !d.accepts(ins as KernelInputs, attrs, out)) continue;
    let kernel: Kernel<unknown, unknown, OutType> | null;
    try {
      kernel = buildDialectKernel(d, attrs, out, ins);
    } catch {
      kernel = null;
    }
    if (!kernel) continue;
    const refs: [string, Ref][] = [];
    for (const [k, v] of Object.entries(ins)) {
      const r = refFor(v, given);
      if (r === undefined) return dispatched();
      refs.push([k, r]);
    }
    const step: Step = { kind: 'kernel', kernel, refs, attrs, out, int64: op.name, outs };
    const fresh: Record<string, unknown> = {};
    for (const [k, r] of refs) fresh[k] = resolve(r, env);
    plannedLaunches++;
    const result = kernel(fresh, attrs, out);
    checkPlanned(op.name, d.dialect, result, out);
    finishKernel(step, result, fresh);
    return { step, result };
  }
  return dispatched();
}

/**
 * `x`'s elements as a tensor of type `out` (a view op's planned run): sharing x's storage, or with `copy` in storage of
 * its own, in wasm memory when x is resident there (so x is not moved out to JavaScript memory to be copied).
 */
function viewOf(x: Tensor, out: TensorType, copy: boolean): Tensor {
  plannedLaunches++;
  if (!copy) return new Tensor(out.shape, out.dtype, x.storage);
  if (x.storage instanceof WasmStorage && x.storage.ptr !== undefined) {
    const r = residentOutput(out);
    const from = r && residentView(r.arena, x);
    if (r && from) {
      r.data().set(from);
      return r.tensor();
    }
  }
  const data = allocStorage(out.dtype, x.size);
  data.set(x.dataSync() as never);
  return fromStorage(out.shape, out.dtype, data);
}

/** A kernel input's ref: null, a tensor the call was given (by identity), or a list of them; undefined otherwise. */
function refFor(v: unknown, given: ReadonlyMap<Tensor, Ref>): Ref | undefined {
  if (v === null) return null;
  if (v instanceof Tensor) return given.get(v);
  if (Array.isArray(v)) {
    const list: Ref[] = [];
    for (const x of v) {
      const r = refFor(x, given);
      if (r === undefined) return undefined;
      list.push(r);
    }
    return list;
  }
  return undefined;
}

/** As dispatch checks: the kernel returned what declare promised (dtype and rank of each output, a tuple's length). */
function checkPlanned(op: string, dialect: string, result: Tensor | readonly Tensor[], out: OutType): void {
  const outs = Array.isArray(out) ? (out as readonly TensorType[]) : [out as TensorType];
  const got = result instanceof Tensor ? [result] : result;
  const fits =
    Array.isArray(out) === !(result instanceof Tensor) &&
    got.length === outs.length &&
    got.every((t, i) => t.dtype === outs[i]!.dtype && t.shape.length === outs[i]!.shape.length);
  if (!fits)
    throw new OpError(
      op,
      `dialect ${dialect} returned ${got.map((t) => t.toString()).join(', ')}, declared ${outs.map((o) => `${o.dtype} ${JSON.stringify(o.shape)}`).join(', ')}`,
    );
}

/**
 * Float constants of CPU graphs, copied once into wasm memory: wasm kernels then read weights in place every run. Keyed
 * by the constant's tensor, so graphs sharing a weight (an ONNX model converted at several input shapes) share its copy.
 */
let placed = new WeakMap<Tensor, Tensor>();

/**
 * The tensor a run reads for constant `c`: a float32/float64 CPU constant is copied into wasm memory on first use (a
 * resident tensor, kept alive with the graph), so wasm kernels stop copying weights in on every call; a CPU kernel
 * reading it moves it back out once. Values are unchanged either way.
 */
export function constValue(c: Const): Tensor {
  const t = c.value;
  if (t.device.kind !== 'cpu' || (t.dtype !== 'float32' && t.dtype !== 'float64') || t.size < 16) return t;
  dropStaleKernels();
  let p = placed.get(t);
  if (!p) {
    p = keepAlive(toWasmMemory(t));
    placed.set(t, p);
  }
  return p.isDisposed ? t : p;
}

/** Copies the constants of g and of its fused groups into wasm memory again where their copies were moved out. */
function replaceConsts(g: Graph): void {
  for (const n of g.nodes) {
    if (n.kind === 'fused') replaceConsts(n.fn);
    for (const c of nodeInputs(n)) {
      if (c.kind !== 'const') continue;
      const p = placed.get(c.value);
      if (p && p.storage instanceof WasmStorage && p.storage.ptr === undefined) {
        placed.delete(c.value);
        constValue(c);
      }
    }
  }
}

interface Lifetimes {
  /** For each node, the vars whose last reader it is (or which it made and nobody reads); outputs never die. */
  readonly dies: readonly (readonly Var[])[];
  readonly consts: readonly Const[];
}

const lifetimeCache = new WeakMap<Graph, Lifetimes>();

function lifetimes(g: Graph): Lifetimes {
  let life = lifetimeCache.get(g);
  if (life) return life;
  const last = new Map<Var, number>();
  const consts: Const[] = [];
  g.nodes.forEach((n, i) => {
    for (const v of definedVars(n)) last.set(v, i);
    for (const a of nodeInputs(n)) {
      if (a.kind === 'var') last.set(a, i);
      else consts.push(a);
    }
  });
  for (const a of g.outputs) {
    if (a.kind === 'var') last.delete(a);
    else consts.push(a);
  }
  for (const p of g.params) last.delete(p);
  const dies: Var[][] = g.nodes.map(() => []);
  for (const [v, i] of last) dies[i]!.push(v);
  life = { dies, consts };
  lifetimeCache.set(g, life);
  return life;
}

function runFused(n: FusedNode, inputs: Tensor[]): Tensor {
  dropStaleKernels();
  let kernel = compiled.get(n);
  if (kernel === undefined) {
    const compile = compilers.get(n.out.device.kind);
    kernel = compile ? compile(n) : null;
    compiled.set(n, kernel);
  }
  if (!kernel) return execute(n.fn, inputs)[0]!;
  fusedLaunches++;
  return kernel(inputs);
}

/** Runs `g` and reports how many kernels it launched. */
export function executeCounted(g: Graph, inputs: readonly Tensor[]): { outputs: Tensor[]; launches: number } {
  const before = kernelLaunches();
  const outputs = execute(g, inputs);
  return { outputs, launches: kernelLaunches() - before };
}
