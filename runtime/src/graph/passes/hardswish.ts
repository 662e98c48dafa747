// RecognizeHardSwish: `x · clip(x + 3, 0, 6) / 6`, as ONNX exporters spell HardSwish out, becomes one hardswish call,
// whose single read of x fuses onto the call making x (a convolution's bias and activation epilogue).

import { getOp } from '../../registry.ts';
import { shapesEqual } from '../../shape.ts';
import type { Graph, Node, Var } from '../ir.ts';
import { arg, other, readersOf, rewrite, scalar as scalarOf } from './match.ts';

export function recognizeHardSwish(g: Graph): Graph {
  const { only } = readersOf(g);
  // Constants on any device: a small GPU upload stays readable.
  const scalar = (a: unknown) => scalarOf(a, false);
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
  return rewrite(g, drop, replace);
}
