// WGSL for folds along a row (the softmax family's max and sum, the reductions): by one invocation for short rows, by a
// workgroup of lanes that share the row and combine their partials in workgroup memory for long ones.

import type { Tensor } from '../../tensor.ts';
import type { GpuContext } from './device.ts';
import { launch, pipelineKey, WORKGROUP } from './kernel.ts';

/** How elements combine. nanmax/nanmin propagate NaN (the first one read wins); max/min are WGSL's builtins. */
export type Fold = 'sum' | 'prod' | 'max' | 'min' | 'nanmax' | 'nanmin' | 'argmax' | 'argmin';

export interface RowFold {
  /**
   * The `let` the fold's result is bound to; later folds' terms may read it. An arg fold binds an i32 index, and its
   * value as `<name>_value`.
   */
  readonly name: string;
  readonly fold: Fold;
  /** WGSL f32 expression of the element at buffer offset `at` (which the caller's position expression sets). */
  readonly term: string;
}

/** From this row length on, a workgroup shares each row (fewer: one invocation walks its row alone). */
export const SHARED_FROM = 64;

/** Lanes per row: a workgroup of 64 for rows up to 1024 elements, 256 beyond (one invocation below SHARED_FROM). */
export const lanesFor = (len: number): 1 | 64 | 256 => (len < SHARED_FROM ? 1 : len <= 1024 ? 64 : 256);

/** The workgroup size a row kernel launches with: the 1-D kernels' own for one lane, else one workgroup per row. */
const laneGroup = (lanes: number): number => (lanes === 1 ? WORKGROUP : lanes);

/** WGSL testing `v` for NaN by its bits: WGSL's max/min/comparisons may ignore NaN, and `v != v` may be folded away. */
export const isNanWgsl = (v: string): string => `((bitcast<u32>(${v}) & 0x7fffffffu) > 0x7f800000u)`;

const isArg = (f: Fold): f is 'argmax' | 'argmin' => f === 'argmax' || f === 'argmin';

/** The combine of two f32 partials (not for arg folds). */
function combine(f: Exclude<Fold, 'argmax' | 'argmin'>, a: string, b: string): string {
  switch (f) {
    case 'sum':
      return `${a} + ${b}`;
    case 'prod':
      return `${a} * ${b}`;
    case 'max':
    case 'min':
      return `${f}(${a}, ${b})`;
    case 'nanmax':
    case 'nanmin':
      // a NaN partial stays; otherwise a NaN element takes over; otherwise the extreme.
      return `select(select(${f.slice(3)}(${a}, ${b}), ${b}, ${isNanWgsl(b)}), ${a}, ${isNanWgsl(a)})`;
  }
}

/**
 * Whether (bv, bi) replaces (av, ai) in an arg fold: the first NaN wins over every number, then the extreme, and on
 * ties the smaller index (lanes hold interleaved elements, so their partials are combined by index, not by order).
 */
function argTakes(f: 'argmax' | 'argmin', av: string, ai: string, bv: string, bi: string): string {
  const cmp = f === 'argmax' ? '>' : '<';
  return `select(!${isNanWgsl(av)} && (${bv} ${cmp} ${av} || (${bv} == ${av} && ${bi} < ${ai})), ${bi} < ${ai} || !${isNanWgsl(av)}, ${isNanWgsl(bv)})`;
}

/**
 * `var<workgroup>` scratch for folds shared by `lanes`: an array per fold (none for one lane). Each fold has its own,
 * so a lane that reads a result late still finds it: a later fold never overwrites it. (Mesa's llvmpipe, through
 * Dawn's GL backend, has let a read of the previous fold's result see the next fold's partials.)
 */
export function foldScratch(folds: readonly RowFold[], lanes: number): string[] {
  if (lanes === 1) return [];
  return folds.flatMap(({ name, fold }) => [
    `var<workgroup> part_${name}: array<f32, ${lanes}>;`,
    ...(isArg(fold) ? [`var<workgroup> part_${name}_i: array<i32, ${lanes}>;`] : []),
  ]);
}

/**
 * WGSL statements computing each fold over the row's elements k < `len`, in order; `position(k)` is the buffer offset
 * of element k. With lanes > 1 the caller's `lane` (local invocation index) picks every lanes-th element, the partials
 * combine pairwise in the fold's workgroup array (foldScratch must have declared it), and every lane ends with the
 * row's result; all lanes must run these statements (they hold barriers), so only a whole workgroup may return early.
 */
export function foldLines(
  folds: readonly RowFold[],
  lanes: number,
  len: string,
  position: (k: string) => string,
): string[] {
  const first = lanes === 1 ? '0u' : 'lane';
  const step = lanes === 1 ? 'k++' : `k += ${lanes}u`;
  const lines: string[] = [];
  for (const { name, fold, term } of folds) {
    // Every partial starts from element 0 (max/min and the arg folds are idempotent) or from the identity.
    const p = `p_${name}`;
    lines.push(`var ${p}: f32;`, '{', `  let at = ${position('0u')};`);
    if (fold === 'sum') lines.push(`  ${p} = 0.0;`);
    else if (fold === 'prod') lines.push(`  ${p} = 1.0;`);
    else lines.push(`  ${p} = ${term};`);
    lines.push('}');
    if (isArg(fold)) lines.push(`var i_${name} = 0i;`);
    lines.push(`for (var k = ${first}; k < ${len}; ${step}) {`, `  let at = ${position('k')};`, `  let v = ${term};`);
    if (isArg(fold))
      lines.push(
        `  if (${argTakes(fold, p, `i_${name}`, 'v', 'i32(k)')}) {`,
        `    ${p} = v;`,
        `    i_${name} = i32(k);`,
        '  }',
      );
    else lines.push(`  ${p} = ${combine(fold, p, 'v')};`);
    lines.push('}');
    if (lanes === 1) {
      lines.push(`let ${name} = ${isArg(fold) ? `i_${name}` : p};`);
      if (isArg(fold)) lines.push(`let ${name}_value = ${p};`);
      continue;
    }
    const [pf, pi] = [`part_${name}`, `part_${name}_i`];
    lines.push(`${pf}[lane] = ${p};`, ...(isArg(fold) ? [`${pi}[lane] = i_${name};`] : []), 'workgroupBarrier();');
    lines.push(`for (var s = ${lanes / 2}u; s > 0u; s >>= 1u) {`, '  if (lane < s) {');
    if (isArg(fold))
      lines.push(
        `    if (${argTakes(fold, `${pf}[lane]`, `${pi}[lane]`, `${pf}[lane + s]`, `${pi}[lane + s]`)}) {`,
        `      ${pf}[lane] = ${pf}[lane + s];`,
        `      ${pi}[lane] = ${pi}[lane + s];`,
        '    }',
      );
    else lines.push(`    ${pf}[lane] = ${combine(fold, `${pf}[lane]`, `${pf}[lane + s]`)};`);
    lines.push('  }', '  workgroupBarrier();', '}');
    lines.push(`let ${name} = ${isArg(fold) ? pi : pf}[0];`);
    if (isArg(fold)) lines.push(`let ${name}_value = ${pf}[0];`);
  }
  return lines;
}

/** A loop over the row's elements, shared among the lanes: `at` is each element's offset. */
export function eachElement(lanes: number, len: string, position: (k: string) => string, body: string[]): string[] {
  return [
    `for (var k = ${lanes === 1 ? '0u' : 'lane'}; k < ${len}; ${lanes === 1 ? 'k++' : `k += ${lanes}u`}) {`,
    `  let at = ${position('k')};`,
    ...body.map((l) => `  ${l}`),
    '}',
  ];
}

/**
 * The entry point's opening: `row` is this invocation's row (lanes 1: one per invocation over a 2-D grid of
 * workgroups of WORKGROUP; lanes > 1: one per workgroup) and `lane` its index within the row's workgroup.
 */
export function rowEntry(lanes: number): string[] {
  return [
    `@compute @workgroup_size(${laneGroup(lanes)})`,
    'fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lane: u32, @builtin(num_workgroups) nwg: vec3<u32>) {',
    lanes === 1 ? `  let row = gid.x + gid.y * nwg.x * ${WORKGROUP}u;` : '  let row = wg.x + wg.y * nwg.x;',
  ];
}

/**
 * Launches `rows` rows folded by `lanes` invocations each (one per row, or a workgroup per row), on the f32 pipeline
 * `op` keyed by its lane count (and `stage`, for kernels with several), compiling `source(lanes)` on first use.
 */
export function launchRows(
  gpu: GpuContext,
  op: string,
  lanes: number,
  source: (lanes: number) => string,
  buffers: readonly Tensor[],
  uniforms: Uint32Array,
  rows: number,
  stage?: string,
): void {
  const key = pipelineKey(op, 'f32', ...(lanes > 1 ? [`l${lanes}`] : []), ...(stage ? [stage] : []));
  const pipeline = gpu.pipelines.getPipelineSync(key, () => source(lanes));
  launch(gpu, pipeline, buffers, uniforms, rows * lanes, op, laneGroup(lanes));
}
