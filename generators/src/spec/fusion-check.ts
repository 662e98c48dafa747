// The fusion pattern a spec declares, checked against what the spec itself says the op does. The graph fuser trusts
// the pattern (an `elemwise` op is fused into its neighbours' loops element by element, a `comm_reduce` op takes
// elementwise producers into its reduction), so a pattern the op does not follow fuses into wrong numbers.
// Decided from the spec's own facts only: its `out:` rule, tuple outputs, `compute:` and the args' axis checks.

import { SpecError, type Loc } from './errors.ts';
import type { Path } from './load.ts';
import type { OpModel } from './model.ts';

/** What the op's out rule, outputs and args say it does, in words for a refusal; undefined where nothing is known. */
function readsAlongAxis(op: OpModel): string | undefined {
  const a = op.args.find((x) => x.checks.some((c) => c.kind === 'axis' || c.kind === 'axes'));
  if (!a) return undefined;
  const c = a.checks.find((x) => x.kind === 'axis' || x.kind === 'axes')! as { kind: string; of: string };
  return `reads along '${a.name}' (check: ${c.kind}(${c.of})), so an output element depends on a whole axis of '${c.of}'`;
}

function shapeWords(op: OpModel): string {
  const s = op.out.shape;
  switch (s.kind) {
    case 'same':
      return `out: same(${s.of})`;
    case 'broadcast':
      return `out: broadcast(${s.of.join(', ')})`;
    case 'reduce':
      return `out: reduce(${s.x}, ${s.axis}${s.keepdims ? `, ${s.keepdims}` : ''})`;
    case 'matmul':
      return `out: ${s.mode === 'nn' ? 'matmul' : `matmul_${s.mode}`}(${s.a}, ${s.b})`;
    case 'concat':
      return `out: concat(${s.xs}, ${s.axis})`;
    case 'custom':
      return `out: custom(${s.fn})`;
    case 'host':
      return 'out: host';
  }
}

/** Why the op's definition contradicts its declared pattern, or undefined when it does not. */
export function fusionProblem(op: OpModel): { why: string; hint: string } | undefined {
  const shape = op.out.shape;
  const pattern = op.fusion;
  const tuple = op.out.tuple || op.out.outputs !== null;
  const reduces = shape.kind === 'reduce';
  const mixes = shape.kind === 'matmul';
  const hintFor = () =>
    reduces
      ? 'a reduction is fusion: comm_reduce'
      : mixes
        ? 'a matrix product is fusion: out_ewise_fusable'
        : tuple || shape.kind === 'concat'
          ? 'an op that only moves or selects elements is fusion: injective; otherwise opaque'
          : 'write fusion: opaque (or injective if each output element is one input element, moved)';
  if (pattern === 'elemwise' || pattern === 'broadcast') {
    const kind =
      pattern === 'elemwise'
        ? 'each output element from the same element of each input'
        : 'each output element from one (broadcast) element of each input';
    if (tuple)
      return {
        why: `it returns ${op.out.outputs ? `several outputs (${op.out.outputs.join(', ')})` : 'a tuple of outputs'}, which ${pattern} cannot fuse`,
        hint: hintFor(),
      };
    if (shape.kind === 'reduce' || shape.kind === 'matmul' || shape.kind === 'concat' || shape.kind === 'host')
      return { why: `its ${shapeWords(op)} does not compute ${kind}`, hint: hintFor() };
    if (pattern === 'elemwise' && shape.kind === 'broadcast')
      return {
        why: `its ${shapeWords(op)} broadcasts its operands, which elemwise does not allow`,
        hint: 'write fusion: broadcast',
      };
    // bias_add (broadcast) names the axis its bias lines up with; an elemwise op has no axis to read along.
    const axis = pattern === 'elemwise' ? readsAlongAxis(op) : undefined;
    if (axis) return { why: `it ${axis}`, hint: hintFor() };
    return undefined;
  }
  if (pattern === 'injective') {
    if (reduces || mixes)
      return {
        why: `its ${shapeWords(op)} ${reduces ? 'sums or combines many input elements into one' : 'combines a row and a column into each element'}, which is not an index-only mapping`,
        hint: hintFor(),
      };
    return undefined;
  }
  if (pattern === 'comm_reduce') {
    if (tuple)
      return { why: 'it returns several outputs, which comm_reduce cannot fuse', hint: 'write fusion: opaque' };
    if (shape.kind === 'reduce' || shape.kind === 'custom') return undefined;
    return {
      why: `its ${shapeWords(op)}${op.compute ? ` and compute: ${op.compute.source}` : ''} do not reduce (a reduction has out: reduce(x, axis, keepdims))`,
      hint:
        op.compute && (shape.kind === 'same' || shape.kind === 'broadcast')
          ? `an op computed element by element is fusion: ${shape.kind === 'same' ? 'elemwise' : 'broadcast'}`
          : 'write fusion: opaque',
    };
  }
  return undefined;
}

/** Adds a refusal at the `fusion:` value when the op's definition contradicts its pattern. */
export function checkFusion(op: OpModel, at: (path: Path, key?: boolean) => Loc, errors: SpecError[]): void {
  const p = fusionProblem(op);
  if (!p) return;
  errors.push(
    new SpecError(
      at(['fusion']),
      `fusion: ${op.fusion} does not fit ${op.name}: ${p.why}`,
      `${p.hint}; the graph fuser trusts the pattern, so a wrong one fuses into wrong numbers`,
    ),
  );
}
