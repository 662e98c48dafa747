// RecognizeLayerNorm: layer normalization over the last axis as ONNX exporters spell it out before opset 17,
//   m = mean(x, [-1], keepdims); d = x - m; v = mean(d ** 2, [-1], keepdims); y = d / sqrt(v + eps) * scale + bias
// (scale and bias constant vectors of the last axis' length), becomes one layer_norm call: one wasm kernel where
// there were nine calls, with the same formula (biased variance, epsilon inside the root).

import { getOp } from '../../registry.ts';
import { shapesEqual } from '../../shape.ts';
import { useCounts, type Atom, type CallNode, type Graph, type Node, type Var } from '../ir.ts';
import { arg, other, readersOf, rewrite, scalar as scalarOf } from './match.ts';

/** A float constant of shape [len] in `dtype`. */
function vectorConst(a: unknown, len: number, dtype: string): boolean {
  const c = a as Atom;
  if (typeof a !== 'object' || a === null || c.kind !== 'const' || c.value.dtype !== dtype) return false;
  return c.value.shape.length === 1 && c.value.shape[0] === len;
}

export function recognizeLayerNorm(g: Graph): Graph {
  const uses = useCounts(g);
  const { readers, only } = readersOf(g);
  const scalar = (a: unknown) => scalarOf(a, true);
  const lastAxisMean = (n: CallNode | undefined, rank: number): boolean => {
    if (n?.op.name !== 'mean' || n.out.kind !== 'var' || arg(n, 'keepdims') !== true) return false;
    const axis = arg(n, 'axis') as readonly number[] | null;
    return !!axis && axis.length === 1 && (axis[0] === -1 || axis[0] === rank - 1);
  };
  const drop = new Set<Node>();
  const replace = new Map<Node, Node>();
  for (const m of g.nodes) {
    if (m.kind !== 'call' || drop.has(m)) continue;
    const x = arg(m, 'x') as Var;
    if (x?.kind !== 'var' || !x.type.dtype.startsWith('float') || x.type.shape.length < 1) continue;
    const rank = x.type.shape.length;
    const len = x.type.shape[rank - 1]!;
    if (!lastAxisMean(m, rank)) continue;
    const sub = only(m.out as Var);
    if (sub?.op.name !== 'subtract' || sub.out.kind !== 'var' || arg(sub, 'a') !== x || arg(sub, 'b') !== m.out)
      continue;
    const d = sub.out;
    if (!shapesEqual(d.type.shape, x.type.shape) || uses.get(d) !== 2) continue;
    const [pow, div] = (() => {
      const rs = readers.get(d) ?? [];
      return [rs.find((r) => r.op.name === 'power'), rs.find((r) => r.op.name === 'divide')];
    })();
    if (!pow || !div || arg(pow, 'a') !== d || scalar(arg(pow, 'b')) !== 2 || pow.out.kind !== 'var') continue;
    const v = only(pow.out);
    if (!lastAxisMean(v, rank)) continue;
    const add = only(v!.out as Var);
    const eps = add?.op.name === 'add' ? scalar(other(add, v!.out as Var)) : null;
    if (!add || eps === null || !(eps > 0) || add.out.kind !== 'var') continue;
    const sqrt = only(add.out);
    if (sqrt?.op.name !== 'sqrt' || sqrt.out.kind !== 'var') continue;
    if (arg(div, 'a') !== d || arg(div, 'b') !== sqrt.out || div.out.kind !== 'var' || only(sqrt.out) !== div) continue;
    const mul = only(div.out);
    const scale = mul?.op.name === 'multiply' ? other(mul, div.out) : undefined;
    if (!mul || mul.out.kind !== 'var' || !vectorConst(scale, len, x.type.dtype)) continue;
    const bAdd = only(mul.out);
    const bias = bAdd?.op.name === 'add' ? other(bAdd, mul.out) : undefined;
    if (!bAdd || bAdd.out.kind !== 'var' || !vectorConst(bias, len, x.type.dtype)) continue;
    if (bAdd.out.type.dtype !== x.type.dtype || !shapesEqual(bAdd.out.type.shape, x.type.shape)) continue;
    for (const n of [m, sub, pow, v!, add, sqrt, div, mul]) drop.add(n);
    replace.set(bAdd, {
      kind: 'call',
      op: getOp('layer_norm'),
      args: [x, scale, bias, -1, eps],
      out: bAdd.out,
    });
  }
  return rewrite(g, drop, replace);
}
