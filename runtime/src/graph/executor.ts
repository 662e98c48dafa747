// The graph executor (RAF's VM to eager mode's interpreter): runs calls through the dispatcher and fused groups through a dialect's fused-kernel compiler.

import type { DeviceKind } from '../device.ts';
import { dispatchStats, invoke } from '../dispatch.ts';
import { shapesEqual } from '../shape.ts';
import type { Tensor } from '../tensor.ts';
import { bindOut, isAtom, type Atom, type FusedNode, type Graph, type Var } from './ir.ts';
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

/** Runs a graph on concrete tensors; returns its outputs in order. */
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
    if (a.kind === 'const') return a.value;
    const t = env.get(a);
    if (!t) throw new Error('execute: a var is read before it is computed');
    return t;
  };
  const value = (a: unknown): unknown => (isAtom(a) ? atom(a) : Array.isArray(a) && a.some(isAtom) ? a.map(value) : a);
  for (const n of g.nodes) {
    if (n.kind === 'call') bindOut(env, n.out, invoke(n.op, n.args.map(value)) as Tensor | readonly Tensor[]);
    else env.set(n.out, runFused(n, n.inputs.map(atom)));
  }
  return g.outputs.map(atom);
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
