// RecognizeHardSwish: `x · clip(x + 3, 0, 6) / 6`, as ONNX exporters spell HardSwish out, becomes one hardswish call,
// whose single read of x fuses onto the call making x (a convolution's bias and activation epilogue).

import { getOp } from '../../registry.ts';
import { shapesEqual } from '../../shape.ts';
import { useCounts, type Atom, type CallNode, type Graph, type Node, type Var } from '../ir.ts';

const arg = (n: CallNode, name: string): unknown =>
  n.args[(n.op.schema.fields as readonly { name: string }[]).findIndex((f) => f.name === name)];

/** The value of a one-element float constant, or null. */
function scalar(a: unknown): number | null {
  const c = a as Atom;
  if (typeof a !== 'object' || a === null || c.kind !== 'const') return null;
  if (c.value.size !== 1 || !c.value.dtype.startsWith('float')) return null;
  return Number((c.value.dataSync() as ArrayLike<number>)[0]);
}

/** `n`'s other operand when one of its tensor args (a, b) is `v`. */
function other(n: CallNode, v: Var): unknown {
  const [a, b] = [arg(n, 'a'), arg(n, 'b')];
  return a === v ? b : b === v ? a : undefined;
}

export function recognizeHardSwish(g: Graph): Graph {
  const uses = useCounts(g);
  const readers = new Map<Var, CallNode[]>();
  for (const n of g.nodes)
    if (n.kind === 'call')
      for (const a of n.args)
        if (typeof a === 'object' && a !== null && (a as Atom).kind === 'var')
          readers.set(a as Var, [...(readers.get(a as Var) ?? []), n]);
  const only = (v: Var): CallNode | undefined => (uses.get(v) === 1 ? readers.get(v)?.[0] : undefined);
  const drop = new Set<Node>();
  const replace = new Map<Node, Node>();
  for (const add of g.nodes) {
    if (add.kind !== 'call' || add.op.name !== 'add' || add.out.kind !== 'var' || drop.has(add)) continue;
    const [a, b] = [arg(add, 'a') as Var, arg(add, 'b') as Var];
    const x = scalar(b) === 3 && a?.kind === 'var' ? a : scalar(a) === 3 && b?.kind === 'var' ? b : null;
    if (!x || !x.type.dtype.startsWith('float') || !shapesEqual(x.type.shape, add.out.type.shape)) continue;
    const clip = only(add.out);
    if (clip?.op.name !== 'clip' || clip.out.kind !== 'var') continue;
    if (Number(arg(clip, 'a_min')) !== 0 || Number(arg(clip, 'a_max')) !== 6) continue;
    const mul = only(clip.out);
    if (mul?.op.name !== 'multiply' || mul.out.kind !== 'var' || other(mul, clip.out) !== x) continue;
    const div = only(mul.out);
    if (div?.op.name !== 'divide' || div.out.kind !== 'var' || arg(div, 'a') !== mul.out || scalar(arg(div, 'b')) !== 6)
      continue;
    if (div.out.type.dtype !== x.type.dtype || !shapesEqual(div.out.type.shape, x.type.shape)) continue;
    for (const n of [add, clip, mul]) drop.add(n);
    replace.set(div, { kind: 'call', op: getOp('hardswish'), args: [x], out: div.out });
  }
  if (!drop.size) return g;
  return { ...g, nodes: g.nodes.filter((n) => !drop.has(n)).map((n) => replace.get(n) ?? n) };
}
