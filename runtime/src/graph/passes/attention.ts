// RecognizeAttention: scaled dot-product attention as ONNX exporters spell it out,
//   p = softmax(scale · (q · kᵀ) [+ mask | masked fill], -1) [guarded: where(isnan(p), 0, p)];  y = p · v
// becomes one attention call (specs/nn/attention.yaml): one blocked pass over query-row blocks on the CPU, one kernel
// on WebGPU, with no [q_seq, kv_seq] score tensor between calls. Which ops play each part is the spec's `recognize:`;
// the spellings it accepts, rather than one file's nodes (float32 and float64):
// - the scale as a scalar multiply or divide on the product, on q and kᵀ separately (√scale each), several or none;
// - kᵀ as a transpose (folded with the key's own transpose into one) or any value (transposed back by a new call);
// - the mask added (float, either operand order), a boolean masked fill where(c, scores, -inf), or none;
// - the IsNaN guard newer exporters put after Softmax (where(isnan(p), 0, p)), or none.
// A fully masked row is zeros with the guard and NaN without (softmax over all -inf): the call's masked_row says which.
// Every intermediate must have no other reader, and the softmax must be over the last axis.

import { attentionRecognize } from '../../generated/passes/attention.ts';
import { getOp } from '../../registry.ts';
import { shapesEqual } from '../../shape.ts';
import { mkVar, useCounts, type CallNode, type Graph, type Node, type Var } from '../ir.ts';
import { arg, isConst, isVar, readersOf, scalar as scalarOf } from './match.ts';

/**
 * Which ops play each part of the form, as specs/nn/attention.yaml declares under `recognize:`; a role the spec leaves
 * out matches nothing.
 */
const plays = (role: string, n: CallNode | undefined): n is CallNode =>
  !!n && (attentionRecognize[role] ?? []).includes(n.op.name);

interface Scaled {
  readonly base: unknown;
  readonly scale: number;
  readonly nodes: readonly CallNode[];
}

export function recognizeAttention(g: Graph): Graph {
  const uses = useCounts(g);
  const { readers } = readersOf(g);
  const producer = new Map<Var, CallNode>();
  for (const n of g.nodes) if (n.kind === 'call' && n.out.kind === 'var') producer.set(n.out, n);
  // CPU constants only: a GPU one cannot be read synchronously (recognize before moveGraph, as the tests do).
  const scalar = (a: unknown) => scalarOf(a, true);
  const single = (v: unknown): CallNode | undefined =>
    isVar(v) && uses.get(v) === 1 && !g.outputs.includes(v) ? producer.get(v) : undefined;

  /** `a` with scalar multiplies and divides peeled off (each read only by the next): the base and their product. */
  const peelScale = (a: unknown): Scaled => {
    let scale = 1;
    const nodes: CallNode[] = [];
    for (;;) {
      const n = single(a);
      if (!n || !isVar(a)) break;
      const [x, y] = [arg(n, 'a'), arg(n, 'b')];
      let c: number | null = null;
      let next: unknown;
      if (plays('scale_multiply', n)) {
        if ((c = scalar(y)) !== null) next = x;
        else if ((c = scalar(x)) !== null) next = y;
      } else if (plays('scale_divide', n) && (c = scalar(y)) !== null) {
        c = 1 / c;
        next = x;
      }
      if (c === null || !Number.isFinite(c) || c === 0 || !isVar(next) || !shapesEqual(next.type.shape, a.type.shape))
        break;
      scale *= c;
      nodes.push(n);
      a = next;
    }
    return { base: a, scale, nodes };
  };

  const drop = new Set<Node>();
  const replace = new Map<Node, Node[]>();
  for (const pv of g.nodes) {
    if (pv.kind !== 'call' || !plays('product', pv)) continue;
    if (pv.out.kind !== 'var' || drop.has(pv)) continue;
    const y = pv.out;
    const [pIn, v] = [arg(pv, 'a'), arg(pv, 'b')];
    if (!isVar(v) || !isVar(pIn) || y.type.shape.length !== 4 || v.type.shape.length !== 4) continue;
    const dtype = y.type.dtype;
    // float16 graphs round every step to float16, which the op (float64 inside) would not repeat.
    if ((dtype !== 'float32' && dtype !== 'float64') || v.type.dtype !== dtype) continue;
    // The optional guard: where(isnan(p), 0, p), where p has exactly those two readers.
    const used: CallNode[] = [];
    let p: unknown = pIn;
    let guarded = false;
    const w = single(pIn);
    if (plays('guard_select', w) && scalar(arg(w, 'x')) === 0 && isVar(arg(w, 'y'))) {
      const inner = arg(w, 'y') as Var;
      const nan = producer.get(arg(w, 'condition') as Var);
      const rs = readers.get(inner) ?? [];
      if (plays('guard_test', nan) && arg(nan, 'x') === inner && uses.get(nan.out as Var) === 1 && rs.length === 2) {
        if (rs.includes(nan) && rs.includes(w) && !g.outputs.includes(inner)) {
          used.push(w, nan);
          p = inner;
          guarded = true;
        }
      }
    }
    const sm = guarded ? producer.get(p as Var) : single(p);
    if (!plays('softmax', sm)) continue;
    const axis = Number(arg(sm, 'axis'));
    if (axis !== -1 && axis !== 3) continue;
    used.push(sm);
    // The mask: add(scores, mask) in either order, or where(c, scores, -inf); the scores are then a scaled product.
    const x = arg(sm, 'x');
    let mask: unknown = null;
    const m = single(x);
    const product = (a: unknown) => {
      const s = peelScale(a);
      const n = single(s.base);
      return plays('product', n) ? { ...s, n } : null;
    };
    let scores = product(x);
    if (!scores && plays('mask_add', m)) {
      const [a, b] = [arg(m, 'a'), arg(m, 'b')];
      const sa = product(a);
      const sb = sa ? null : product(b);
      if (sa || sb) {
        scores = (sa ?? sb)!;
        mask = sa ? b : a;
        used.push(m);
      }
    } else if (!scores && plays('mask_fill', m) && scalar(arg(m, 'y')) === -Infinity) {
      scores = product(arg(m, 'x'));
      if (scores) {
        mask = arg(m, 'condition');
        used.push(m);
      }
    }
    if (!scores) continue;
    const qk = scores.n;
    used.push(...scores.nodes, qk);
    const qs = peelScale(arg(qk, 'a'));
    const ks = peelScale(arg(qk, 'b'));
    const [q, kT] = [qs.base, ks.base];
    if (!isVar(q) || !isVar(kT) || q.type.dtype !== dtype || kT.type.dtype !== dtype) continue;
    const [qShape, kShape, vShape] = [q.type.shape, kT.type.shape, v.type.shape];
    if (qShape.length !== 4 || kShape.length !== 4) continue;
    const [B, H, Sq, D] = qShape as [number, number, number, number];
    const Skv = kShape[3]!;
    // No broadcasting between q, k and v: the attention op's heads are the product's batch axes as they are.
    if (kShape[0] !== B || kShape[1] !== H || kShape[2] !== D) continue;
    if (vShape[0] !== B || vShape[1] !== H || vShape[2] !== Skv) continue;
    // The mask broadcasts to [B, H, Sq, Skv] with its key axis whole (the op pads a shorter one as masked).
    if (mask !== null) {
      const ma = mask as { kind?: string };
      const mt = isVar(ma) ? ma.type : isConst(ma) ? { shape: ma.value.shape, dtype: ma.value.dtype } : null;
      if (!mt || mt.shape.length > 4 || mt.shape[mt.shape.length - 1] !== Skv) continue;
      const full = [B, H, Sq, Skv].slice(4 - mt.shape.length);
      if (mt.shape.some((d, i) => d !== 1 && d !== full[i])) continue;
      const fill = plays('mask_fill', m) && arg(m, 'condition') === mask;
      if (fill ? mt.dtype !== 'bool' : mt.dtype !== dtype) continue;
    }
    for (const n of [...qs.nodes, ...ks.nodes]) used.push(n);
    // k from kᵀ: a transpose read only here folds into one transpose of its input; anything else is transposed back.
    const k = mkVar({ shape: [B, H, Skv, D], dtype }, kT.device);
    const tr = single(kT);
    const trAxes = plays('key_transpose', tr) ? (arg(tr, 'axes') as readonly number[] | null) : undefined;
    const transposeOp = getOp('transpose');
    let kNode: CallNode;
    if (tr && trAxes !== undefined) {
      const axes = trAxes ?? [3, 2, 1, 0];
      const norm = axes.map((a) => (a < 0 ? a + 4 : a));
      kNode = { kind: 'call', op: transposeOp, args: [arg(tr, 'x'), [norm[0], norm[1], norm[3], norm[2]]], out: k };
      used.push(tr);
    } else kNode = { kind: 'call', op: transposeOp, args: [kT, [0, 1, 3, 2]], out: k };
    if (used.some((n) => drop.has(n) || replace.has(n))) continue;
    for (const n of used) drop.add(n);
    const scale = scores.scale * qs.scale * ks.scale;
    // A fully masked row: the guard makes it zeros; unguarded, softmax over all -inf makes it NaN.
    const maskedRow = guarded || mask === null ? 0 : NaN;
    replace.set(pv, [
      kNode,
      { kind: 'call', op: getOp('attention'), args: [q, k, v, mask, null, scale, false, 0, 0, maskedRow], out: y },
    ]);
  }
  if (!drop.size) return g;
  const nodes: Node[] = [];
  for (const n of g.nodes) if (!drop.has(n)) nodes.push(...(replace.get(n) ?? [n]));
  return { ...g, nodes };
}
