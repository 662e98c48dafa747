// The CPU dialect's fused kernels: a group anchored on a reduction is one loop nest over the reduction's cells (prologue, combine, epilogue); any other anchor runs its own kernel, then every inlinable call after it is one loop over the output built from their compute expressions.

import { allocStorage, finishInt64, roundToFloat16 } from '../dtype.ts';
import { broadcastRows } from '../dialects/cpu/support.ts';
import { residentOutput, residentView } from '../dialects/wasm/support.ts';
import { enabledDialects } from '../dialect.ts';
import { sizeOf } from '../shape.ts';
import { fromStorage, type Tensor, type TensorType } from '../tensor.ts';
import { exprToJs, JS_HELPERS } from './expr.ts';
import { registerFusedCompiler, type FusedKernel } from './executor.ts';
import { singleOut, type FusedNode } from './ir.ts';
import {
  Bindings,
  broadcastOffset,
  combineText,
  directKernel,
  planFused,
  reductionLayout,
  shapeOf,
  slotTensors,
  walkOffset,
  type FusedPlan,
  type FusedStep,
  type ReductionLayout,
} from './fused-plan.ts';

export function compileCpuFused(node: FusedNode): FusedKernel | null {
  const plan = planFused(node);
  if (!plan) return null;
  const layout = reductionLayout(node, plan);
  if (layout && layout.epilogue !== 'separate') return rowLoops(node, plan, layout, true);
  // A prologue needs the reduction's own loop; with no layout (an empty reduction) the group runs call by call.
  if (plan.prologue && !layout) return null;
  const anchorRun =
    layout && plan.prologue
      ? rowLoops(node, plan, layout, false)
      : plan.anchor
        ? directKernel(plan.anchor, 'cpu')
        : null;
  const out = node.out.type;
  const n = sizeOf(out.shape);
  // The broadcast walk is planned once per group (shapes are static in the graph): contiguous runs of the output,
  // each slot read from its run start and stepping 1, or 0 when it is constant along the run.
  const walk = broadcastRows(
    out.shape,
    plan.slots.map((s) => shapeOf(s)),
  );
  const src = [
    ...plan.slots.map((_, s) => `const d${s} = D[${s}], s${s} = S[${s}], k${s} = K[${s}];`),
    `for (let row = 0, i = 0; row < ${walk.rows}; row++) {`,
    ...plan.slots.map((_, s) => `  let j${s} = s${s}[row];`),
    `  for (const end = i + ${walk.inner}; i < end; i++${plan.slots.map((_, s) => `, j${s} += k${s}`).join('')}) {`,
    ...plan.slots.map((_, s) => `    const v${s} = d${s}[j${s}];`),
    ...stepConsts(plan.steps, (k) => `v${k}`, 't').map((l) => `    ${l}`),
    // float16 rounds once, at the store: the fused chain keeps full precision in between.
    `    r[i] = ${out.dtype === 'float16' ? 'R' : ''}(t${plan.steps.length - 1});`,
    '  }',
    '}',
  ].join('\n');
  const loop = new Function('D', 'S', 'K', 'r', 'H', 'R', src) as (
    d: unknown[],
    s: readonly Int32Array[],
    k: readonly number[],
    r: unknown,
    h: unknown,
    rnd: unknown,
  ) => void;
  return (inputs) => {
    const ts = slotTensors(node, plan, inputs, anchorRun as ((values: readonly unknown[]) => Tensor) | null);
    return runInto(node, out, ts, (data, result) =>
      loop(data, walk.starts, walk.steps, result, JS_HELPERS, roundToFloat16),
    );
  };
}

/**
 * Runs a fused loop over the slots' elements into a new output. Where the wasm dialect may run, the output is a block
 * of wasm memory and resident inputs are read there in place, so a group between two wasm kernels (a convolution's
 * bias and activation) copies nothing; otherwise both are JavaScript arrays. The loop is the same either way.
 */
function runInto(
  node: FusedNode,
  out: TensorType,
  ts: readonly Tensor[],
  loop: (data: unknown[], result: unknown) => void,
): Tensor {
  const pin = enabledDialects();
  const res = !pin || pin.includes('wasm') ? residentOutput(out) : null;
  if (!res) {
    const result = allocStorage(out.dtype, sizeOf(out.shape));
    loop(
      ts.map((t) => t.dataSync()),
      result,
    );
    // int64 never lives in wasm memory, so only this path checks its range.
    if (out.dtype === 'int64') finishInt64(lastOp(node), 'out', result as Float64Array);
    return fromStorage(out.shape, out.dtype, result);
  }
  // Views are taken after the output's allocation, the last one of this call.
  loop(
    ts.map((t) => residentView(res.arena, t) ?? t.dataSync()),
    res.data(),
  );
  return res.tensor();
}

/** `const` lines computing each step (`<prefix><k>`) from the slots, named by `slot(k)`, and earlier steps. */
function stepConsts(steps: readonly FusedStep[], slot: (k: number) => string, prefix: string): string[] {
  return steps.map((st, k) => {
    const names: Record<string, string> = {};
    for (const [v, ref] of Object.entries(st.names))
      names[v] = 'slot' in ref ? slot(ref.slot) : 'step' in ref ? `${prefix}${ref.step}` : `(${ref.value})`;
    return `const ${prefix}${k} = ${exprToJs(st.expr, names)};`;
  });
}

/**
 * One loop nest for `prologue* reduce epilogue*`: for each output cell, walk its row computing the prologue per
 * element and combining (in float64, as the reduction kernels accumulate), then run the epilogue once for the cell or
 * over the row again (see ReductionLayout). Without `withEpilogue` it returns the reduction's result, for a group
 * whose epilogue needs a loop of its own. The kernel takes the group's inputs.
 */
function rowLoops(node: FusedNode, plan: FusedPlan, layout: ReductionLayout, withEpilogue: boolean): FusedKernel {
  const anchorOut = singleOut(plan.anchor!);
  const out: TensorType = withEpilogue ? node.out.type : anchorOut.type;
  const bind = new Bindings('d');
  const { shape, count } = layout;
  const j = `${walkOffset('js', 'cell', layout.kept.sizes, layout.kept.strides)} + ${walkOffset('js', 'r', layout.reduced.sizes, layout.reduced.strides)}`;
  const p = plan.prologue;
  const element = p
    ? [
        ...p.slots.map((s, k) => `const p_s${k} = ${bind.of(s)}[${broadcastOffset('js', shapeOf(s), shape, 'j')}];`),
        ...stepConsts(p.steps, (k) => `p_s${k}`, 'p'),
        `const v = p${p.steps.length - 1};`,
      ]
    : [`const v = ${bind.of(layout.x)}[j];`];
  const steps = withEpilogue ? plan.steps : [];
  const epilogue = steps.length
    ? [
        ...plan.slots.map(
          (s, k) =>
            `const e_s${k} = ${s === anchorOut ? 'red' : `${bind.of(s)}[${broadcastOffset('js', shapeOf(s), out.shape, 'o')}]`};`,
        ),
        ...stepConsts(steps, (k) => `e_s${k}`, 'e'),
        `const res = e${steps.length - 1};`,
      ]
    : ['const res = red;'];
  const store = [...epilogue, `out[o] = ${out.dtype === 'float16' ? 'R(res)' : 'res'};`];
  const indent = (lines: string[], by = '  ') => lines.map((l) => by + l);
  const rows = (from: number, body: string[]) => [
    `for (let r = ${from}; r < ${count}; r++) {`,
    `  const j = ${j};`,
    ...indent(body),
    '}',
  ];
  const src = [
    ...bind.atoms.map((_, k) => `const d${k} = D[${k}];`),
    `for (let cell = 0; cell < ${layout.cells}; cell++) {`,
    ...indent([
      'let acc;',
      '{',
      '  const r = 0;',
      `  const j = ${j};`,
      ...indent(element),
      '  acc = v;',
      '}',
      ...rows(1, [...element, `acc = ${combineText('js', layout.op, 'acc', 'v')};`]),
      `const red = acc${layout.op === 'mean' ? ` / ${count}` : ''};`,
      ...(withEpilogue && layout.epilogue === 'row'
        ? rows(0, ['const o = j;', ...store])
        : ['const o = cell;', ...store]),
    ]),
    '}',
  ].join('\n');
  const loop = new Function('D', 'out', 'H', 'R', src) as (
    d: unknown[],
    out: unknown,
    h: unknown,
    rnd: unknown,
  ) => void;
  return (inputs) =>
    runInto(node, out, bind.tensors(node, inputs), (data, result) => loop(data, result, JS_HELPERS, roundToFloat16));
}

registerFusedCompiler('cpu', compileCpuFused);

/** The op a fused group's result comes from (its last call), to name in an int64 range error. */
function lastOp(node: FusedNode): string {
  const last = node.fn.nodes[node.fn.nodes.length - 1];
  return last?.kind === 'call' ? last.op.name : 'fused';
}
