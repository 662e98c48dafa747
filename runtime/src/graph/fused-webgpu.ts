// The WebGPU dialect's fused kernels: a group anchored on a reduction (with its prologue and epilogue) or on a matrix product (with its epilogue) is one WGSL pipeline; any other anchor runs its own kernel, then the chain after it is one elementwise pipeline.

import { requireGpu } from '../dialects/webgpu/dialect.ts';
import { elementwise } from '../dialects/webgpu/elementwise.ts';
import { WORKGROUP } from '../dialects/webgpu/kernel.ts';
import { matrixProduct, type MatrixEpilogue } from '../dialects/webgpu/matrix-product.ts';
import { workgroupGrid } from '../dialects/webgpu/pipelines.ts';
import { allocGpu, gpuBuffer } from '../dialects/webgpu/storage.ts';
import { shapesEqual } from '../shape.ts';
import type { Tensor, TensorType } from '../tensor.ts';
import { exprToWgsl, WGSL_EXPR_HELPERS } from './expr.ts';
import { execute, registerFusedCompiler, type FusedKernel } from './executor.ts';
import { singleOut, type Atom, type FusedNode } from './ir.ts';
import {
  argOf,
  Bindings,
  broadcastOffset,
  combineText,
  directKernel,
  dtypeOf,
  planFused,
  reductionLayout,
  releaseIntermediate,
  shapeOf,
  slotTensors,
  walkOffset,
  type FusedPlan,
  type FusedStep,
  type ReductionLayout,
} from './fused-plan.ts';

let nextId = 0;

export function compileWebGpuFused(node: FusedNode): FusedKernel | null {
  const plan = planFused(node);
  // float16 groups (AutoCast's) take the elementwise route, whose builder reads and writes halves; the one-pass
  // reduction and matrix kernels are float32 only.
  if (!plan || (node.out.type.dtype !== 'float32' && node.out.type.dtype !== 'float16')) return null;
  const layout = reductionLayout(node, plan);
  const whole =
    layout && layout.epilogue !== 'separate' ? reductionKernel(node, plan, layout, true) : matrixGroup(node, plan);
  if (whole) return whole;
  // Otherwise the anchor runs alone (a reduction with its prologue, or the anchor's own kernel), then the chain.
  const anchorRun =
    layout && plan.prologue
      ? reductionKernel(node, plan, layout, false)
      : plan.anchor
        ? directKernel(plan.anchor, 'webgpu')
        : null;
  if (plan.prologue && !anchorRun) return null;
  return chainGroup(node, plan, anchorRun as ((values: readonly unknown[]) => Tensor) | null);
}

// Shapes are static in a graph, so fused pipelines bake them in as constants: one pipeline per group, no uniforms.

/** WGSL `let` statements computing each step (`<prefix><k>`), or null when an expression has no WGSL spelling. */
function stepLets(steps: readonly FusedStep[], slot: (k: number) => string, prefix: string): string[] | null {
  const lines: string[] = [];
  for (const [k, st] of steps.entries()) {
    const names: Record<string, string> = {};
    for (const [v, ref] of Object.entries(st.names)) {
      if ('value' in ref && !Number.isFinite(ref.value)) return null;
      names[v] = 'slot' in ref ? slot(ref.slot) : 'step' in ref ? `${prefix}${ref.step}` : `f32(${ref.value})`;
    }
    const text = exprToWgsl(st.expr, names);
    if (text === null) return null;
    lines.push(`let ${prefix}${k} = ${text};`);
  }
  return lines;
}

/** Below this many elements per output cell, one invocation reduces a cell alone; from it on a workgroup shares it. */
const SHARED_FROM = WORKGROUP;

/**
 * `prologue* reduce epilogue*` as one launch. Each output cell of the reduction is one workgroup (or one invocation
 * for short rows): it computes the prologue per input element, combines, and then runs the epilogue once for the cell
 * or over the cell's row (see ReductionLayout). Without `withEpilogue` it returns the reduction's result, for a group
 * whose epilogue needs a pass of its own. The kernel takes the group's inputs.
 */
function reductionKernel(
  node: FusedNode,
  plan: FusedPlan,
  layout: ReductionLayout,
  withEpilogue: boolean,
): FusedKernel | null {
  const anchorOut = singleOut(plan.anchor!);
  if (anchorOut.type.dtype !== 'float32' || (withEpilogue && node.out.type.dtype !== 'float32')) return null;
  const { x, shape, cells, count } = layout;
  const out = withEpilogue ? node.out.type : anchorOut.type;
  const perRow = withEpilogue && layout.epilogue === 'row';
  const bind = new Bindings('b');
  const j = `${walkOffset('wgsl', 'cell', layout.kept.sizes, layout.kept.strides)} + ${walkOffset('wgsl', 'r', layout.reduced.sizes, layout.reduced.strides)}`;
  // The value each input element contributes: x itself, or the prologue computed from its slots at that element.
  let element: string[];
  if (plan.prologue) {
    const p = plan.prologue;
    const steps = stepLets(p.steps, (k) => `p_s${k}`, 'p');
    if (!steps) return null;
    element = [
      ...p.slots.map((s, k) => `let p_s${k} = ${bind.of(s)}[${broadcastOffset('wgsl', shapeOf(s), shape, 'j')}];`),
      ...steps,
      `let v = p${p.steps.length - 1};`,
    ];
  } else {
    element = [`let v = ${bind.of(x)}[j];`];
  }
  const epilogue = withEpilogue ? epilogueLets(plan, anchorOut, 'red', bind, out.shape) : ['let res = red;'];
  if (!epilogue || bind.atoms.some((a) => dtypeOf(a) !== 'float32')) return null;

  const combine = (a: string, b: string) => combineText('wgsl', layout.op, a, b);
  const lanes = count >= SHARED_FROM ? WORKGROUP : 1;
  const first = lanes === 1 ? '0u' : 'lane';
  const indent = (lines: string[]) => lines.map((l) => `  ${l}`);
  const visit = (from: string, body: string[]) => [
    `for (var r = ${from}; r < ${count}u; r += ${lanes}u) {`,
    `  let j = ${j};`,
    ...indent(body),
    '}',
  ];
  const store = perRow
    ? visit(first, ['let o = j;', ...epilogue, 'out[o] = res;'])
    : ['let o = cell;', ...epilogue, 'out[o] = res;'];
  const reduceLines = [
    // Each lane folds a strided share of the row (every lane has a first element: count >= lanes).
    'var acc = 0.0;',
    '{',
    `  let r = ${first};`,
    `  let j = ${j};`,
    ...indent(element),
    '  acc = v;',
    '}',
    ...visit(`${first} + ${lanes}u`, [...element, `acc = ${combine('acc', 'v')};`]),
    // Then the lanes combine pairwise in workgroup memory.
    ...(lanes > 1
      ? [
          'part[lane] = acc;',
          'workgroupBarrier();',
          `for (var s = ${lanes / 2}u; s > 0u; s >>= 1u) {`,
          `  if (lane < s) { part[lane] = ${combine('part[lane]', 'part[lane + s]')}; }`,
          '  workgroupBarrier();',
          '}',
        ]
      : []),
    `let red = ${lanes > 1 ? 'part[0]' : 'acc'}${layout.op === 'mean' ? ` / f32(${count}u)` : ''};`,
    ...(perRow || lanes === 1 ? store : ['if (lane == 0u) {', ...indent(store), '}']),
  ];
  const source = [
    WGSL_EXPR_HELPERS,
    ...bind.atoms.map((_, k) => `@group(0) @binding(${k}) var<storage, read> b${k}: array<f32>;`),
    `@group(0) @binding(${bind.atoms.length}) var<storage, read_write> out: array<f32>;`,
    ...(lanes > 1 ? [`var<workgroup> part: array<f32, ${lanes}>;`] : []),
    `@compute @workgroup_size(${WORKGROUP})`,
    'fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lane: u32, @builtin(num_workgroups) nwg: vec3<u32>) {',
    lanes > 1 ? '  let cell = wg.x + wg.y * nwg.x;' : `  let cell = gid.x + gid.y * nwg.x * ${WORKGROUP}u;`,
    `  if (cell >= ${cells}u) { return; }`,
    ...indent(reduceLines),
    '}',
  ].join('\n');

  const key = `fused_reduce_${nextId++}`;
  return (inputs) => {
    const gpu = requireGpu();
    const pipeline = gpu.pipelines.getPipelineSync(key, () => source);
    const result = allocGpu(gpu, out);
    gpu.pipelines.dispatch({
      pipeline,
      buffers: [...bind.tensors(node, inputs).map(gpuBuffer), gpuBuffer(result)],
      workgroups: workgroupGrid(
        cells * lanes,
        lanes === 1 ? WORKGROUP : lanes,
        gpu.pipelines.maxWorkgroupsPerDimension,
      ),
      label: key,
    });
    return result;
  };
}

/**
 * The epilogue's statements ending in `let res = ...`: the anchor's result reads as `anchorValue`, any other slot
 * from its binding broadcast to the output at flat index `o`. With no epilogue `res` is the anchor's value.
 */
function epilogueLets(
  plan: FusedPlan,
  anchorOut: Atom,
  anchorValue: string,
  bind: Bindings,
  outShape: readonly number[],
): string[] | null {
  if (!plan.steps.length) return [`let res = ${anchorValue};`];
  const loads = plan.slots.map((s, k) =>
    s === anchorOut
      ? `let e_s${k} = ${anchorValue};`
      : `let e_s${k} = ${bind.of(s)}[${broadcastOffset('wgsl', shapeOf(s), outShape, 'o')}];`,
  );
  const steps = stepLets(plan.steps, (k) => `e_s${k}`, 'e');
  return steps && [...loads, ...steps, `let res = e${plan.steps.length - 1};`];
}

/** The matrix products a fused group may anchor, with which operand is read transposed and the args they take. */
const MATRIX: Readonly<Record<string, { ta: boolean; tb: boolean; a: string; b: string; bias?: string }>> = {
  matmul: { ta: false, tb: false, a: 'a', b: 'b' },
  batch_matmul: { ta: false, tb: false, a: 'a', b: 'b' },
  matmul_nt: { ta: false, tb: true, a: 'a', b: 'b' },
  matmul_tn: { ta: true, tb: false, a: 'a', b: 'b' },
  dense: { ta: false, tb: true, a: 'x', b: 'w', bias: 'b' },
};

/** `matmul epilogue+` as one launch: the tiled product's store runs the epilogue on each output element. */
function matrixGroup(node: FusedNode, plan: FusedPlan): FusedKernel | null {
  const anchor = plan.anchor;
  const m = anchor && MATRIX[anchor.op.name];
  if (
    !m ||
    plan.prologue ||
    !plan.steps.length ||
    node.out.type.dtype !== 'float32' ||
    !shapesEqual(node.out.type.shape, singleOut(anchor).type.shape)
  )
    return null;
  const operands = [m.a, m.b, ...(m.bias ? [m.bias] : [])].map((name) => argOf(anchor, name) as Atom);
  if (operands.some((a) => dtypeOf(a) !== 'float32')) return null;
  const bind = new Bindings('e');
  const body = epilogueLets(plan, singleOut(anchor), 'prod', bind, node.out.type.shape);
  if (!body || bind.atoms.some((a) => dtypeOf(a) !== 'float32')) return null;
  // The matrix product binds the extra inputs as e0, e1, ... and names the flat output index `o`.
  const def: MatrixEpilogue = {
    key: `fused_matrix_${nextId++}`,
    inputs: bind.atoms.length,
    body: body.map((l) => `    ${l}`).join('\n'),
    helpers: WGSL_EXPR_HELPERS,
  };
  return (inputs) => {
    const param = (a: Atom) => (a.kind === 'const' ? a.value : inputs[node.fn.params.indexOf(a)]!);
    const [a, b, bias] = operands.map(param);
    return matrixProduct(requireGpu(), a!, b!, node.out.type, m.ta, m.tb, bias, {
      def,
      inputs: bind.tensors(node, inputs),
    });
  };
}

/** The chain after an anchor that ran on its own (or a whole anchor-free chain) as one elementwise pipeline. */
function chainGroup(
  node: FusedNode,
  plan: FusedPlan,
  anchorRun: ((values: readonly unknown[]) => Tensor) | null,
): FusedKernel | null {
  // One expression: each step is substituted into the next (the elementwise builder takes an expression).
  const texts: string[] = [];
  for (const st of plan.steps) {
    const names: Record<string, string> = {};
    for (const [v, ref] of Object.entries(st.names)) {
      // WGSL has no literal for ±Infinity or NaN (clip's open bound): such a group stays unfused on WebGPU.
      if ('value' in ref && !Number.isFinite(ref.value)) return null;
      names[v] = 'slot' in ref ? `v_s${ref.slot}` : 'step' in ref ? `(${texts[ref.step]})` : `f32(${ref.value})`;
    }
    const t = exprToWgsl(st.expr, names);
    if (t === null) return null;
    texts.push(t);
  }
  const inputs = plan.slots.map((_, s) => `s${s}`);
  type Kin = Readonly<Record<string, Tensor>>;
  const build = elementwise<(kin: Kin, attrs: Record<string, number>, out: TensorType) => Tensor>({
    // Distinct per group: the pipeline cache is keyed by op name and input dtypes.
    op: `fused_${nextId++}`,
    inputs,
    attrs: [],
    out: 'float',
    expr: texts[texts.length - 1]!,
    helpers: WGSL_EXPR_HELPERS,
  });
  let kernel: ((kin: Kin, attrs: Record<string, number>, out: TensorType) => Tensor) | null | undefined;
  const anchorSlot = plan.anchor ? plan.slots.indexOf(singleOut(plan.anchor)) : -1;
  return (xs) => {
    const ts = slotTensors(node, plan, xs, anchorRun);
    const kin = Object.fromEntries(ts.map((t, s) => [`s${s}`, t]));
    if (kernel === undefined) kernel = build({}, node.out.type, kin);
    // Input dtypes the elementwise builder cannot serve: run the group's calls one by one instead.
    const result = kernel ? kernel(kin, {}, node.out.type) : execute(node.fn, xs)[0]!;
    // The anchor's result is the group's own intermediate: its buffer goes back to the pool once the chain has read it.
    if (anchorSlot >= 0) releaseIntermediate(ts[anchorSlot]!, xs, result);
    return result;
  };
}

registerFusedCompiler('webgpu', compileWebGpuFused);
