// FoldBatchNorm: inference batch_norm with constant statistics becomes a per-channel scale and shift, folded into the
// weights of the conv2d feeding it when it can be (ONNX exporters write Conv → BatchNormalization everywhere).

import { getOp } from '../../registry.ts';
import { fromStorage, type Tensor } from '../../tensor.ts';
import { mkConst, mkVar, useCounts, type CallNode, type Const, type Graph, type Node, type Var } from '../ir.ts';
import { arg, isConst, isVar, values, withArg } from './match.ts';

function constOf(like: Tensor, shape: readonly number[], data: ArrayLike<number>): Const {
  const array = like.dtype === 'float64' ? Float64Array.from(data) : Float32Array.from(data);
  return mkConst(fromStorage(shape, like.dtype, array));
}

/**
 * Rewrites each `batch_norm(x, scale, bias, mean, variance)` over axis 1 whose four statistics are constants, as
 * inference graphs have it: y = x · s + t with s = scale / sqrt(variance + epsilon), t = bias − mean · s per channel.
 * When x is `conv2d(_, w)` with a constant w that only the batch_norm reads (optionally through `add` of a constant
 * per-channel bias, as Conv's bias imports), s folds into w and t into that bias: the batch_norm disappears. Otherwise
 * it becomes `multiply` and `add` of per-channel constants, which fuse with their neighbours. Float32 and float64.
 */
export function foldBatchNorm(g: Graph): Graph {
  const uses = useCounts(g);
  const made = new Map<Var, number>();
  g.nodes.forEach((n, i) => {
    if (n.kind === 'call' && n.out.kind === 'var') made.set(n.out, i);
  });
  const nodes: (Node | null)[] = [...g.nodes];
  const extra = new Map<number, Node[]>();
  let changed = false;
  g.nodes.forEach((n, i) => {
    if (n.kind !== 'call' || n.op.name !== 'batch_norm' || n.out.kind !== 'var') return;
    const [x, scale, bias, mean, variance] = ['x', 'scale', 'bias', 'mean', 'variance'].map((k) => arg(n, k));
    if (!isVar(x) || ![scale, bias, mean, variance].every(isConst)) return;
    const rank = x.type.shape.length;
    const axis = Number(arg(n, 'axis'));
    if (rank < 2 || (axis !== 1 && axis !== 1 - rank)) return;
    if (x.type.dtype !== 'float32' && x.type.dtype !== 'float64') return;
    const like = (scale as Const).value;
    if ([scale, bias, mean, variance].some((c) => (c as Const).value.dtype !== x.type.dtype)) return;
    const channels = x.type.shape[1]!;
    const eps = Number(arg(n, 'epsilon'));
    const [sc, bi, mu, va] = [scale, bias, mean, variance].map((c) => values((c as Const).value));
    if ([sc, bi, mu, va].some((v) => v!.length !== channels)) return;
    const s = Array.from({ length: channels }, (_, c) => sc![c]! / Math.sqrt(va![c]! + eps));
    const t = Array.from({ length: channels }, (_, c) => bi![c]! - mu![c]! * s[c]!);
    const perChannel = [channels, ...x.type.shape.slice(2).map(() => 1)];
    const add = getOp('add');
    changed = true;

    // conv2d(_, w) [→ add(·, b)] → batch_norm: scale w's output channels, shift the bias.
    const p = made.get(x);
    const pn = p === undefined ? undefined : (nodes[p] as CallNode | null);
    if (pn && uses.get(x) === 1 && rank === 4) {
      let conv: CallNode | undefined;
      let convAt: number | undefined;
      let prior: ArrayLike<number> | null = null;
      if (pn.op.name === 'conv2d') [conv, convAt] = [pn, p];
      else if (pn.op.name === 'add') {
        const [a, b] = [arg(pn, 'a'), arg(pn, 'b')];
        const [v, c] = isVar(a) && isConst(b) ? [a, b] : isVar(b) && isConst(a) ? [b, a] : [undefined, undefined];
        const q = v ? made.get(v) : undefined;
        const qn = q === undefined ? undefined : (nodes[q] as CallNode | null);
        const cs = c?.value.shape ?? [];
        const perChannelBias =
          c !== undefined &&
          c.value.dtype === x.type.dtype &&
          c.value.size === channels &&
          cs.length <= 4 &&
          cs.every((d, k) => d === 1 || k + 4 - cs.length === 1);
        if (qn?.op.name === 'conv2d' && uses.get(v!) === 1 && perChannelBias) {
          [conv, convAt, prior] = [qn, q, values(c!.value)];
          nodes[p!] = null;
        }
      }
      const w = conv ? arg(conv, 'w') : undefined;
      if (conv && isConst(w) && w.value.dtype === x.type.dtype && w.value.shape[0] === channels) {
        const wv = values(w.value);
        const per = wv.length / channels;
        const scaled = Array.from(wv, (v, k) => v * s[Math.floor(k / per)]!);
        nodes[convAt!] = withArg(conv, 'w', constOf(w.value, w.value.shape, scaled));
        const shift = t.map((v, c) => v + (prior ? prior[c]! * s[c]! : 0));
        const convOut = conv.out as Var;
        nodes[i] = { kind: 'call', op: add, args: [convOut, constOf(like, perChannel, shift)], out: n.out };
        return;
      }
      if (prior) nodes[p!] = pn; // not a foldable conv after all: keep the add
    }
    const mid = mkVar(x.type, x.device);
    nodes[i] = { kind: 'call', op: getOp('multiply'), args: [x, constOf(like, perChannel, s)], out: mid };
    extra.set(i, [{ kind: 'call', op: add, args: [mid, constOf(like, perChannel, t)], out: n.out }]);
  });
  if (!changed) return g;
  const out: Node[] = [];
  nodes.forEach((n, i) => {
    if (n) out.push(n);
    out.push(...(extra.get(i) ?? []));
  });
  return { ...g, nodes: out };
}
