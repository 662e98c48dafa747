// FoldScalarAffine: `conv2d(x, w) [+ per-channel bias] → · a [→ + b]` with scalar constants a and b (PaddleOCR's
// learnable affine blocks after every convolution) folds into the convolution: w becomes a·w and the bias a·bias + b,
// so the scale and shift disappear and the bias joins the convolution's wasm epilogue.

import { getOp } from '../../registry.ts';
import { fromStorage, type Tensor } from '../../tensor.ts';
import { mkConst, useCounts, type CallNode, type Const, type Graph, type Node, type Var } from '../ir.ts';
import { arg, isCpuConst, isVar, scalar as scalarOf, values } from './match.ts';

const isConst = isCpuConst;
const scalar = (a: unknown) => scalarOf(a, true);

/** A binary call's (var, scalar) operands in either order, or null. */
function varAndScalar(n: CallNode): [Var, number] | null {
  const [a, b] = [arg(n, 'a'), arg(n, 'b')];
  if (isVar(a) && scalar(b) !== null) return [a, scalar(b)!];
  if (isVar(b) && scalar(a) !== null) return [b, scalar(a)!];
  return null;
}

function indexOf(g: Graph) {
  const uses = useCounts(g);
  const made = new Map<Var, number>();
  g.nodes.forEach((n, i) => {
    if (n.kind === 'call' && n.out.kind === 'var') made.set(n.out, i);
  });
  const readers = new Map<Var, number[]>();
  g.nodes.forEach((n, i) => {
    if (n.kind === 'call') for (const a of n.args) if (isVar(a)) readers.set(a, [...(readers.get(a) ?? []), i]);
  });
  const nodes: (Node | null)[] = [...g.nodes];
  const callAt = (v: Var | undefined): [CallNode, number] | null => {
    const i = v ? made.get(v) : undefined;
    return i === undefined ? null : [nodes[i] as CallNode, i];
  };
  return { uses, made, readers, nodes, callAt };
}

export function foldScalarAffine(g: Graph): Graph {
  const { uses, readers, nodes, callAt } = indexOf(g);
  let changed = false;
  g.nodes.forEach((mul, i) => {
    if (mul.kind !== 'call' || mul.op.name !== 'multiply' || mul.out.kind !== 'var' || nodes[i] !== mul) return;
    const operands = varAndScalar(mul);
    if (!operands) return;
    const [x, a] = operands;
    if (uses.get(x) !== 1 || x.type.shape.length !== 4 || !shapesMatch(x, mul.out)) return;
    if (x.type.dtype !== 'float32' && x.type.dtype !== 'float64') return;
    const channels = x.type.shape[1]!;
    // x = conv2d(...) or add(conv2d(...), per-channel constant), each read once.
    let conv = callAt(x);
    let biasAt: number | null = null;
    let bias: ArrayLike<number> | null = null;
    if (conv?.[0].op.name === 'add') {
      const [p, q] = [arg(conv[0], 'a'), arg(conv[0], 'b')];
      const [v, c] = isVar(p) && isConst(q) ? [p, q] : isVar(q) && isConst(p) ? [q, p] : [undefined, undefined];
      const cs = c?.value.shape ?? [];
      const perChannel =
        c !== undefined &&
        c.value.dtype === x.type.dtype &&
        c.value.size === channels &&
        cs.length <= 4 &&
        cs.every((d, k) => d === 1 || k + 4 - cs.length === 1);
      if (!v || !perChannel || uses.get(v) !== 1) return;
      [biasAt, bias] = [conv[1], values(c.value)];
      conv = callAt(v);
    }
    if (!conv || conv[0].op.name !== 'conv2d') return;
    const w = arg(conv[0], 'w');
    if (!isConst(w) || w.value.dtype !== x.type.dtype || w.value.shape[0] !== channels) return;
    // An add of a scalar right after, read only there, is the shift.
    let last: CallNode = mul;
    let lastAt = i;
    let b = 0;
    const next = uses.get(mul.out) === 1 ? readers.get(mul.out)?.[0] : undefined;
    const nn = next === undefined ? undefined : (nodes[next] as CallNode);
    const shift = nn?.op.name === 'add' && nn.out.kind === 'var' ? varAndScalar(nn) : null;
    if (shift && shift[0] === mul.out && shapesMatch(mul.out, nn!.out as Var)) {
      [last, lastAt, b] = [nn!, next!, shift[1]];
    }
    const wv = values(w.value);
    const like = w.value;
    const convOut = conv[0].out as Var;
    nodes[conv[1]] = withArg(conv[0], 'w', scaledConst(like, wv, a));
    const shifted = Array.from({ length: channels }, (_, c) => (bias ? bias[c]! : 0) * a + b);
    if (biasAt !== null) nodes[biasAt] = null;
    nodes[i] = null;
    nodes[lastAt] = {
      kind: 'call',
      op: getOp('add'),
      args: [convOut, floatConst(like, [channels, 1, 1], shifted)],
      out: last.out,
    };
    changed = true;
  });
  return foldBefore(changed ? { ...g, nodes: nodes.filter((n): n is Node => n !== null) } : g);
}

/**
 * Before a conv2d with no padding (every tap reads the shifted value, none a padded zero):
 * conv2d(h · a + b, w) + bias = conv2d(h, a·w) + (bias + b · Σ w[o]), w and bias constants.
 */
function foldBefore(g: Graph): Graph {
  const { uses, readers, nodes, callAt } = indexOf(g);
  let changed = false;
  g.nodes.forEach((conv, i) => {
    if (conv.kind !== 'call' || conv.op.name !== 'conv2d' || nodes[i] !== conv || conv.out.kind !== 'var') return;
    const x = arg(conv, 'x');
    const w = arg(conv, 'w');
    const padding = arg(conv, 'padding') as readonly number[] | null;
    if (!isVar(x) || !isConst(w) || w.value.dtype !== x.type.dtype || uses.get(x) !== 1) return;
    if (padding && padding.some((p) => p !== 0)) return;
    if (x.type.dtype !== 'float32' && x.type.dtype !== 'float64') return;
    let first = callAt(x);
    if (!first || nodes[first[1]] === null) return;
    let b = 0;
    let addAt: number | null = null;
    if (first[0].op.name === 'add') {
      const op = varAndScalar(first[0]);
      if (!op || uses.get(op[0]) !== 1 || !shapesMatch(op[0], x)) return;
      [b, addAt] = [op[1], first[1]];
      first = callAt(op[0]);
      if (!first || nodes[first[1]] === null) return;
    }
    if (first[0].op.name !== 'multiply') return;
    const m = varAndScalar(first[0]);
    if (!m || !shapesMatch(m[0], x)) return;
    const [h, a] = m;
    // The conv's per-channel bias add takes the shift.
    const o = w.value.shape[0]!;
    const next = uses.get(conv.out) === 1 ? readers.get(conv.out)?.[0] : undefined;
    const bn = next === undefined ? undefined : (nodes[next] as CallNode | null);
    if (!bn || bn.op.name !== 'add' || bn.out.kind !== 'var') return;
    const [p, q] = [arg(bn, 'a'), arg(bn, 'b')];
    const c = p === conv.out && isConst(q) ? q : q === conv.out && isConst(p) ? p : undefined;
    const cs = c?.value.shape ?? [];
    if (
      !c ||
      c.value.dtype !== x.type.dtype ||
      c.value.size !== o ||
      cs.some((d, k) => d !== 1 && k + 4 - cs.length !== 1)
    )
      return;
    const wv = values(w.value);
    const per = wv.length / o;
    const sums = Array.from({ length: o }, (_, k) => {
      let s = 0;
      for (let j = k * per; j < (k + 1) * per; j++) s += wv[j]!;
      return s;
    });
    const bias = values(c.value);
    const like = w.value;
    nodes[first[1]] = null;
    if (addAt !== null) nodes[addAt] = null;
    nodes[i] = {
      ...conv,
      args: conv.args.map((v) => (v === x ? h : v === w ? scaledConst(like, wv, a) : v)),
    };
    nodes[next!] = {
      ...bn,
      args: [
        conv.out,
        floatConst(
          like,
          [o, 1, 1],
          Array.from({ length: o }, (_, k) => bias[k]! + b * sums[k]!),
        ),
      ],
    };
    changed = true;
  });
  if (!changed) return g;
  return { ...g, nodes: nodes.filter((n): n is Node => n !== null) };
}

/**
 * a·w as a constant of like's shape and dtype, computed straight into a typed array (each product rounded as storing it
 * rounds it): a model with an affine block after every convolution folds all of its weights here.
 */
function scaledConst(like: Tensor, wv: ArrayLike<number>, a: number): Const {
  const out = like.dtype === 'float64' ? new Float64Array(wv.length) : new Float32Array(wv.length);
  for (let i = 0; i < wv.length; i++) out[i] = wv[i]! * a;
  return mkConst(fromStorage(like.shape, like.dtype, out));
}

function floatConst(like: Tensor, shape: readonly number[], data: readonly number[]): Const {
  const array = like.dtype === 'float64' ? Float64Array.from(data) : Float32Array.from(data);
  return mkConst(fromStorage(shape, like.dtype, array));
}

const shapesMatch = (a: Var, b: Var): boolean =>
  a.type.dtype === b.type.dtype && a.type.shape.join(',') === b.type.shape.join(',');

const withArg = (n: CallNode, name: string, v: unknown): CallNode => {
  const i = (n.op.schema.fields as readonly { name: string }[]).findIndex((f) => f.name === name);
  return { ...n, args: n.args.map((x, k) => (k === i ? v : x)) };
};
