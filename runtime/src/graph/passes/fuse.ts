// Rule-based fusion (RAF's FuseTVM): elementwise and broadcast calls fuse onto the call that feeds them, whatever its pattern except opaque; a sum or mean also takes the elementwise chain feeding it.

import { COMPUTE } from '../../generated/passes/index.ts';
import type { FusionPattern } from '../../vocab.ts';
import { definedVars, useCounts, type CallNode, type Graph, type Var } from '../ir.ts';
import { foldBatchNorm } from './fold-batch-norm.ts';
import { applyGroups, type Group } from './group.ts';
import { recognizeHardSwish } from './hardswish.ts';
import { recognizeLayerNorm } from './layer-norm.ts';
import { recognizeAttention } from './attention.ts';
import { foldScalarAffine } from './fold-affine.ts';

/**
 * What may follow a group's current sink inside one kernel, by the sink group's pattern (TVM's
 * rules, for the epilogue direction): an elementwise or broadcast call extends any group but an
 * opaque one, so chains fuse and injective, comm_reduce and out_ewise_fusable calls take an
 * elementwise epilogue; nothing fuses after an opaque call.
 */
const ACCEPTS_EPILOGUE: { readonly [P in FusionPattern]: boolean } = {
  elemwise: true,
  broadcast: true,
  injective: true,
  comm_reduce: true,
  out_ewise_fusable: true,
  opaque: false,
};

/**
 * Reductions an elementwise prologue can feed inside one loop (each input element is computed, then combined); the
 * fused compilers walk each output cell's row with these.
 */
export const PROLOGUE_REDUCTIONS: ReadonlySet<string> = new Set(['sum', 'mean', 'prod', 'max', 'min']);

/** An elementwise call the fused kernel can inline: its pattern says so and it has a compute expression. */
export function inlinable(n: CallNode): boolean {
  return (n.op.fusion === 'elemwise' || n.op.fusion === 'broadcast') && !!COMPUTE[n.op.name];
}

/**
 * Groups `g`'s calls by fusion pattern and replaces each group of two or more with one fused node. Inference
 * batch_norms are folded and spelled-out hardswish recognized first (foldBatchNorm, recognizeHardSwish), so a conv2d's scale, shift and activation fuse onto it;
 * a scalar scale and shift after a conv2d fold into it (foldScalarAffine); spelled-out layer normalization becomes one
 * layer_norm call (recognizeLayerNorm), and spelled-out scaled dot-product attention one attention call
 * (recognizeAttention).
 */
export function fuseOps(g: Graph, opts: { dialect?: string; attention?: boolean } = {}): Graph {
  g = recognizeLayerNorm(recognizeHardSwish(foldScalarAffine(foldBatchNorm(g))));
  // `attention: false` keeps spelled-out attention as it is (the bench's unfused column).
  if (opts.attention !== false) g = recognizeAttention(g);
  const uses = useCounts(g);
  const dialect = opts.dialect ?? (g.nodes[0] ? definedVars(g.nodes[0])[0]?.device.kind : undefined) ?? 'cpu';
  // Both devices' compilers inline an elementwise prologue into a reduction's loop.
  const takesPrologue = (n: CallNode) =>
    PROLOGUE_REDUCTIONS.has(n.op.name) && n.out.kind === 'var' && n.out.type.dtype.startsWith('float');
  const groupOf = new Map<Var, CallNode[]>();
  const groups: CallNode[][] = [];
  for (const n of g.nodes) {
    if (n.kind !== 'call') continue;
    let joined: CallNode[] | undefined;
    if (takesPrologue(n)) {
      const x = n.args[0] as Var;
      const grp = x?.kind === 'var' ? groupOf.get(x) : undefined;
      // The whole group must be elementwise and end in x, which nothing else reads.
      if (grp && grp[grp.length - 1]!.out === x && uses.get(x) === 1 && grp.every(inlinable)) joined = grp;
    } else if (inlinable(n)) {
      for (const a of n.args) {
        if (typeof a !== 'object' || a === null || (a as { kind?: string }).kind !== 'var') continue;
        const grp = groupOf.get(a as Var);
        if (!grp) continue;
        const sink = grp[grp.length - 1]!;
        // Only the group's last value may be read, and only by this call: intermediates never leave the kernel.
        if (sink.out !== a || uses.get(a as Var) !== 1) continue;
        // One non-inlinable call at most (the anchor): first, or a reduction after its prologue.
        const at = Math.max(
          0,
          grp.findIndex((c) => !inlinable(c)),
        );
        if (!ACCEPTS_EPILOGUE[grp[at]!.op.fusion] || !grp.slice(at + 1).every(inlinable)) continue;
        joined = grp;
        break;
      }
    }
    if (joined) joined.push(n);
    else groups.push((joined = [n]));
    // A tuple call's elements never join a group: a fused group has one output.
    if (n.out.kind === 'var') groupOf.set(n.out, joined);
  }
  return applyGroups(
    g,
    groups.map((nodes): Group => ({ nodes, origin: { by: 'rules', dialect } })),
  );
}
