// FuseQuantDense: a dynamically quantized dense layer as onnxruntime's quantize_dynamic writes it — MatMulInteger of
// the quantized activations by a constant int8 weight, Cast to float32, Mul by the product of the two scales, and
// often an Add of the bias — becomes one fused group the CPU runs as one kernel (int8Dense, dialects/cpu/quant.ts):
// the exact integer product dequantizes each row as it stores it, with no int32 tensor and no float32 intermediates.
// Every step rounds to float32 where the unfused ops round, so the result is the unfused graph's, bit for bit.
//
// The group is `fused` with origin { by: 'pattern', dialect: 'cpu', pattern: 'quant_dense' }; its kernel is registered
// with the CPU's fused-kernel compiler (registerCpuPatternCompiler) once a graph has such a group. Where the kernel
// cannot serve a run (no wasm module, a column count that is not a multiple of 4), the group runs its calls one by one.

import { registerCpuPatternCompiler } from '../fused-cpu.ts';
import { execute, type FusedKernel } from '../executor.ts';
import {
  mkVar,
  substitute,
  useCounts,
  type Atom,
  type CallNode,
  type FusedNode,
  type Graph,
  type Node,
  type Var,
} from '../ir.ts';
import { int8Dense } from '../../dialects/cpu/quant.ts';
import type { Tensor } from '../../tensor.ts';

export const QUANT_DENSE = 'quant_dense';

const isAtom = (a: unknown): a is Atom =>
  typeof a === 'object' && a !== null && ((a as Atom).kind === 'var' || (a as Atom).kind === 'const');

const typeOf = (a: Atom) => (a.kind === 'var' ? a.type : { shape: a.value.shape, dtype: a.value.dtype });

/** A float32 value of one element, or of n along the last axis only (shape [n] or [1, ..., 1, n]). */
function perColumn(a: unknown, n: number, rank: number): a is Atom {
  if (!isAtom(a)) return false;
  const { shape, dtype } = typeOf(a);
  if (dtype !== 'float32' || shape.length > rank) return false;
  const size = shape.reduce((x, y) => x * y, 1);
  if (size === 1) return true;
  return size === n && shape[shape.length - 1] === n;
}

/** The other operand of a binary call whose operand `x` is. */
function other(c: CallNode, x: Var): unknown {
  return c.args[0] === x ? c.args[1] : c.args[1] === x ? c.args[0] : undefined;
}

function shapeEq(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((d, i) => d === b[i]);
}

/** Rewrites every quantized dense chain of `g` (its top level) into one fused group. */
export function fuseQuantDense(g: Graph): Graph {
  const uses = useCounts(g);
  const consumer = new Map<Var, CallNode>();
  for (const n of g.nodes)
    if (n.kind === 'call')
      for (const a of n.args.flatMap((x) => (Array.isArray(x) ? x : [x])))
        if (isAtom(a) && a.kind === 'var') consumer.set(a, n);
  const once = (v: Var, op: string): CallNode | null => {
    const c = consumer.get(v);
    return uses.get(v) === 1 && c && c.op.name === op && c.out.kind === 'var' ? c : null;
  };
  const groups = new Map<Node, { readonly calls: CallNode[]; readonly node: FusedNode }>();
  const inGroup = new Set<Node>();
  for (const mi of g.nodes) {
    if (mi.kind !== 'call' || mi.op.name !== 'matmul_integer' || mi.out.kind !== 'var') continue;
    const [, b, , zb] = mi.args;
    // The weight a constant matrix (its packed columns are cached per tensor), its zero point constant too.
    if (!isAtom(b) || b.kind !== 'const' || b.value.shape.length !== 2) continue;
    if (zb != null && (!isAtom(zb) || zb.kind !== 'const')) continue;
    const shape = mi.out.type.shape;
    const n = shape[shape.length - 1]!;
    const cast = once(mi.out, 'cast');
    if (!cast || cast.args[0] !== mi.out || cast.args[1] !== 'float32') continue;
    const mul = once(cast.out as Var, 'multiply');
    if (!mul || !perColumn(other(mul, cast.out as Var), n, shape.length)) continue;
    if (!shapeEq((mul.out as Var).type.shape, shape)) continue;
    const add = once(mul.out as Var, 'add');
    const bias = add ? other(add, mul.out as Var) : undefined;
    const calls =
      add && perColumn(bias, n, shape.length) && shapeEq((add.out as Var).type.shape, shape)
        ? [mi, cast, mul, add]
        : [mi, cast, mul];
    groups.set(calls[calls.length - 1]!, { calls, node: group(calls) });
    for (const c of calls) inGroup.add(c);
  }
  if (!groups.size) return g;
  // Registered here, when a graph has groups, rather than when this module loads: by now fused-cpu.ts has been
  // evaluated, whatever order an import cycle evaluated the modules in.
  registerCpuPatternCompiler(QUANT_DENSE, compileQuantDense);
  const nodes: Node[] = [];
  for (const n of g.nodes) {
    const grouped = groups.get(n);
    if (grouped) nodes.push(grouped.node);
    else if (!inGroup.has(n)) nodes.push(n);
  }
  return { ...g, nodes };
}

/** The fused group of a chain: its vars read from outside become params, its last call's result its output. */
function group(calls: readonly CallNode[]): FusedNode {
  const inside = new Set<Var>(calls.map((c) => c.out as Var));
  const params = new Map<Var, Var>();
  for (const c of calls)
    for (const a of c.args)
      if (isAtom(a) && a.kind === 'var' && !inside.has(a) && !params.has(a)) params.set(a, mkVar(a.type, a.device));
  const map = new Map<Var, Atom>(params);
  const inner = calls.map((c) => substitute(c, map) as CallNode);
  const last = calls[calls.length - 1]!.out as Var;
  return {
    kind: 'fused',
    fn: { params: [...params.values()], nodes: inner, outputs: [last] },
    inputs: [...params.keys()],
    out: last,
    origin: { by: 'pattern', dialect: 'cpu', pattern: QUANT_DENSE },
  };
}

/** The kernel of a quant_dense group: int8Dense on its operands, or its calls one by one where that cannot serve. */
function compileQuantDense(node: FusedNode): FusedKernel {
  const [mi, , mul, add] = node.fn.nodes as readonly CallNode[];
  const castOut = (node.fn.nodes[1] as CallNode).out as Var;
  const index = new Map(node.fn.params.map((p, i) => [p, i]));
  const scaleAtom = other(mul!, castOut) as Atom;
  const biasAtom = add ? (other(add, mul!.out as Var) as Atom) : null;
  return (inputs) => {
    const value = (a: unknown): Tensor | null =>
      a == null ? null : (a as Atom).kind === 'const' ? (a as { value: Tensor }).value : inputs[index.get(a as Var)!]!;
    const y = int8Dense(
      value(mi!.args[0])!,
      value(mi!.args[1])!,
      value(mi!.args[2]),
      value(mi!.args[3]),
      value(scaleAtom)!,
      biasAtom ? value(biasAtom) : null,
      node.out.type,
    );
    return y ?? execute(node.fn, inputs)[0]!;
  };
}

/** Whether a group is one this pass formed. */
export function isQuantDense(n: Node): n is FusedNode {
  return n.kind === 'fused' && n.origin.by === 'pattern' && n.origin.pattern === QUANT_DENSE;
}
