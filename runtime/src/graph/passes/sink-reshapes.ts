// SinkReshapes: moves reshape, squeeze and expand_dims below the elementwise calls that read them, and merges the
// reshapes that then meet. Importers write 1-D convolutions as expand_dims → conv2d → squeeze (ONNX Conv over [N, C,
// W], Relay's nn.conv1d), so a bias, activation or residual after such a convolution reads a squeezed value and
// cannot join the convolution's epilogue; and each layer pays a squeeze and an expand_dims. Reshapes only relabel the
// elements (their order stays row-major), so an elementwise call commutes with them:
//
//   relu(squeeze(y))              → squeeze(relu(y))
//   add(squeeze(a), squeeze(b))   → squeeze(add(a, b))   (a and b of one shape, read through one reshape)
//   add(squeeze(a), 2)            → squeeze(add(a, 2))   (a scalar constant)
//   expand_dims(squeeze(y))       → y, or one reshape    (reshapes of reshapes)
//
// The moved call reads the reshape's source, so nothing is computed twice; a reshape nothing reads any more is dropped.
// Values, dtypes and outputs are unchanged; the graph's own vars keep their shapes.

import { getOp } from '../../registry.ts';
import { shapesEqual } from '../../shape.ts';
import { eliminateDeadCode, mkVar, type Atom, type Graph, type Node, type Var } from '../ir.ts';

const RESHAPES = new Set(['reshape', 'squeeze', 'expand_dims']);
const SHAPED_ARGS = new Set(['axis', 'axes', 'shape', 'newshape', 'dim', 'dims']);

const isVar = (a: unknown): a is Var => typeof a === 'object' && a !== null && (a as Atom).kind === 'var';

/** A scalar constant operand (size 1, rank 0 or 1): it broadcasts the same against any shape. */
const isScalarConst = (a: unknown) =>
  typeof a === 'object' &&
  a !== null &&
  (a as Atom).kind === 'const' &&
  (a as { value: { size: number; shape: readonly number[] } }).value.size === 1;

export function sinkReshapes(g: Graph): Graph {
  const reshapeOp = getOp('reshape');
  /** For a var a reshape-like call made (through any chain of them): the value it reshapes. */
  const source = new Map<Var, Var>();
  /** Vars replaced by another (a reshape back to its source's shape). */
  const alias = new Map<Var, Atom>();
  const nodes: Node[] = [];
  let changed = false;
  const read = (a: unknown): unknown => (isVar(a) ? (alias.get(a) ?? a) : Array.isArray(a) ? a.map(read) : a);
  const reshapeTo = (x: Var, out: Var): Node => ({ kind: 'call', op: reshapeOp, args: [x, [...out.type.shape]], out });

  for (const n0 of g.nodes) {
    const n: Node = n0.kind === 'call' ? { ...n0, args: n0.args.map(read) } : n0;
    if (n.kind !== 'call' || n.out.kind !== 'var') {
      nodes.push(n);
      continue;
    }
    const out = n.out;
    const op = n.op;
    const x = n.args[0];

    if (RESHAPES.has(op.name) && isVar(x)) {
      const from = source.get(x);
      if (!from) {
        nodes.push(n);
        source.set(out, x);
        continue;
      }
      // A reshape of a reshape: one reshape from the first one's source, or that source itself.
      changed = true;
      if (shapesEqual(from.type.shape, out.type.shape)) alias.set(out, from);
      else {
        nodes.push(reshapeTo(from, out));
        source.set(out, from);
      }
      continue;
    }

    // An elementwise call whose tensor operands are reshapes of same-shaped values (or scalar constants), and whose
    // other arguments do not name axes or shapes (which a reshape would change the meaning of).
    const tensorArgs = op.tensorArgs.map((name) => op.schema.fields.findIndex((f) => f.name === name));
    if (
      (op.fusion === 'elemwise' || op.fusion === 'broadcast') &&
      tensorArgs.every((i) => i >= 0) &&
      !op.schema.fields.some((f) => SHAPED_ARGS.has(f.name))
    ) {
      const operands = tensorArgs.map((i) => n.args[i]);
      const first = operands.find((a): a is Var => isVar(a) && source.has(a));
      const inner = first && source.get(first)!;
      const fits =
        inner &&
        operands.every(
          (a) =>
            isScalarConst(a) ||
            (isVar(a) &&
              source.has(a) &&
              shapesEqual(a.type.shape, out.type.shape) &&
              shapesEqual(source.get(a)!.type.shape, inner.type.shape)),
        );
      if (fits) {
        changed = true;
        const args = [...n.args];
        for (const i of tensorArgs) if (isVar(args[i])) args[i] = source.get(args[i] as Var)!;
        const moved = mkVar({ shape: inner.type.shape, dtype: out.type.dtype }, out.device, out.hint);
        nodes.push({ ...n, args, out: moved });
        nodes.push(reshapeTo(moved, out));
        source.set(out, moved);
        continue;
      }
    }
    nodes.push(n);
  }
  if (!changed) return g;
  const outputs = g.outputs.map((o) => (isVar(o) ? (alias.get(o) ?? o) : o));
  // The reshapes nothing reads any more go.
  return eliminateDeadCode({ ...g, nodes, outputs });
}
