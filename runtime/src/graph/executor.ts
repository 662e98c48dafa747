// The graph executor (RAF's VM to eager mode's interpreter): runs calls through the dispatcher and fused groups through a dialect's fused-kernel compiler.

import type { DeviceKind } from '../device.ts';
import { toWasmMemory } from '../dialects/wasm/support.ts';
import { dispatchStats, invoke } from '../dispatch.ts';
import { shapesEqual } from '../shape.ts';
import { keepAlive, type Tensor, type TensorStorage } from '../tensor.ts';
import {
  bindOut,
  definedVars,
  isAtom,
  nodeInputs,
  type Atom,
  type Const,
  type FusedNode,
  type Graph,
  type Var,
} from './ir.ts';
import { formatType } from './printer.ts';

/** One launch of a fused group: its inputs in `node.inputs` order, one output. */
export type FusedKernel = (inputs: readonly Tensor[]) => Tensor;

/** Builds a fused group's kernel for a device kind, or null when this dialect cannot (the group then runs call by call). */
export type FusedCompiler = (node: FusedNode) => FusedKernel | null;

const compilers = new Map<DeviceKind, FusedCompiler>();
const compiled = new WeakMap<FusedNode, FusedKernel | null>();
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
  return dispatchStats().dispatches + fusedLaunches;
}

/**
 * Runs a graph on concrete tensors; returns its outputs in order. Every intermediate is disposed as soon as the last
 * node reading it has run (a value no node reads, right after the node that made it), so a GPU run holds only the
 * buffers still needed. Inputs, constants and outputs are never disposed, nor anything sharing their storage (a
 * reshape view of an input), nor a tensor the autodiff tape recorded (its backward may still read it).
 */
export function execute(g: Graph, inputs: readonly Tensor[]): Tensor[] {
  if (inputs.length !== g.params.length)
    throw new Error(`execute: the graph takes ${g.params.length} inputs, got ${inputs.length}`);
  const env = new Map<Var, Tensor>();
  g.params.forEach((p, i) => {
    const t = inputs[i]!;
    if (t.dtype !== p.type.dtype || !shapesEqual(t.shape, p.type.shape)) {
      throw new Error(
        `execute: input ${i} (%${p.hint ?? i}) is ${t.toString()}, the graph was traced for ${formatType(p.type)}`,
      );
    }
    env.set(p, t);
  });
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

/** Float constants of CPU graphs, copied once into wasm memory: wasm kernels then read weights in place every run. */
const placed = new WeakMap<Const, Tensor>();

/**
 * The tensor a run reads for constant `c`: a float32/float64 CPU constant is copied into wasm memory on first use (a
 * resident tensor, kept alive with the graph), so wasm kernels stop copying weights in on every call; a CPU kernel
 * reading it moves it back out once. Values are unchanged either way.
 */
function constValue(c: Const): Tensor {
  const t = c.value;
  if (t.device.kind !== 'cpu' || (t.dtype !== 'float32' && t.dtype !== 'float64') || t.size < 16) return t;
  let p = placed.get(c);
  if (!p) {
    p = keepAlive(toWasmMemory(t));
    placed.set(c, p);
  }
  return p.isDisposed ? t : p;
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
