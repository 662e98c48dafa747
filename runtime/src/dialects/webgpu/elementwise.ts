// Builds the WebGPU kernel of an elementwise op from its generated WGSL expression: one pipeline for every shape and broadcast.

import { broadcastStrides, shapesEqual, sizeOf, stridesOf } from '../../shape.ts';
import type { Tensor, TensorType } from '../../tensor.ts';
import { requireGpu } from './dialect.ts';
import { F16_PACK, loadHalf } from './f16.ts';
import {
  coalesce,
  FLAT_INDEX,
  launch,
  MAIN_1D,
  MAX_RANK,
  Params,
  paramsWgsl,
  pipelineKey,
  type WebGpuBuilder,
} from './kernel.ts';
import { allocGpu } from './storage.ts';

/** What the generator emits per compute op (runtime/src/generated/dialects/webgpu/<op>.ts). */
export interface ElementwiseDef {
  readonly op: string;
  /** Tensor args, in binding order; the expression reads each as `v_<name>`. */
  readonly inputs: readonly string[];
  /** Number args the expression reads as `a_<name>`; they travel in the uniforms, so every value shares a pipeline. */
  readonly attrs: readonly string[];
  /** The compute expression rendered as WGSL (renderWgsl), of type f32, or bool when the op outputs bool. */
  readonly expr: string;
  readonly out: 'float' | 'bool';
  /** WGSL helper functions the expression calls. */
  readonly helpers: string;
}

// Word offsets in the uniform block: count, rank, the attrs, the output shape, one stride list per input, then one
// period per input (the modulus or divisor of the fast index modes).
const layout = (def: ElementwiseDef) => {
  const shape = 2 + def.attrs.length;
  const strides = (k: number) => shape + MAX_RANK * (k + 1);
  const period = (k: number) => strides(def.inputs.length) + k;
  return { shape, strides, period, words: period(def.inputs.length) };
};

/**
 * How an input's offset follows from the flat output index, picked per call from the coalesced broadcast: `flat`
 * (the output's own layout: i), `tail` (broadcast over leading dims, e.g. a bias row: i % period), `head` (broadcast
 * over trailing dims, e.g. a column: i / period), or `strided` (the general per-dimension loop). llvmpipe runs the
 * loop's dynamically indexed uniform reads slowly, so the common cases skip it; each mix is its own pipeline.
 */
export type IndexMode = 'flat' | 'tail' | 'head' | 'strided';
const MODE_LETTER: Record<IndexMode, string> = { flat: 'f', tail: 't', head: 'h', strided: 's' };

/** The mode and period of an input with these coalesced strides over the coalesced output shape. */
export function indexMode(shape: readonly number[], strides: readonly number[]): { mode: IndexMode; period: number } {
  const rank = shape.length;
  const dense = stridesOf(shape);
  // Tail: the input walks the output's suffix [k, rank) contiguously and repeats it along [0, k) (stride 0).
  let k = rank;
  while (k > 0 && strides[k - 1] === dense[k - 1]) k--;
  if (strides.slice(0, k).every((st) => st === 0))
    return { mode: k === 0 ? 'flat' : 'tail', period: sizeOf(shape.slice(k)) };
  // Head: it walks the prefix [0, k) contiguously and repeats each element along [k, rank).
  k = rank;
  while (k > 0 && strides[k - 1] === 0) k--;
  if (strides.slice(0, k).every((st, d) => st === sizeOf(shape.slice(d + 1, k))))
    return { mode: 'head', period: sizeOf(shape.slice(k)) };
  return { mode: 'strided', period: 0 };
}

/** WGSL storage type per input dtype; bool tensors are stored as u32, float16 as u32 words of two halves (see storage.ts). */
const STORED = { float32: 'f32', float16: 'u32', int32: 'i32', bool: 'u32' } as const;
type StoredDType = keyof typeof STORED;

/**
 * WGSL of one pipeline. `value(i)` computes output element i in f32 (or bool); main stores one element per invocation,
 * or, for a float16 output (`half`), the word of elements 2w and 2w + 1, so no two invocations write one word. With
 * `native` (the device has shader-f16) float16 tensors are bound as `array<f16>` over the same bytes instead: loads
 * convert exactly and each invocation stores its own element, still rounded by f16_bits so results match the CPU.
 */
export function elementwiseSource(
  def: ElementwiseDef,
  dtypes: readonly StoredDType[] = def.inputs.map(() => 'float32'),
  modes: readonly IndexMode[] = def.inputs.map(() => 'strided'),
  half = false,
  native = false,
): string {
  const { shape, strides, period, words } = layout(def);
  const outType = def.out === 'bool' ? 'u32' : half ? (native ? 'f16' : 'u32') : 'f32';
  const stored = (d: StoredDType) => (native && d === 'float16' ? 'f16' : STORED[d]);
  const n = def.inputs.length;
  const strided = def.inputs.filter((_, k) => modes[k] === 'strided');
  const offset = (name: string, k: number) =>
    ({ flat: 'i', tail: `i % pu(${period(k)}u)`, head: `i / pu(${period(k)}u)`, strided: `off_${name}` })[modes[k]!];
  return [
    // Directives come before every declaration.
    native ? 'enable f16;' : '',
    def.helpers,
    half ? F16_PACK : '',
    half && native ? 'fn to_half(v: f32) -> f16 { return bitcast<vec2<f16>>(f16_bits(v)).x; }' : '',
    ...def.inputs.map(
      (name, k) => `@group(0) @binding(${k}) var<storage, read> in_${name}: array<${stored(dtypes[k]!)}>;`,
    ),
    `@group(0) @binding(${n}) var<storage, read_write> out: array<${outType}>;`,
    paramsWgsl(n + 1, words),
    `fn value(i: u32) -> ${def.out === 'bool' ? 'bool' : 'f32'} {`,
    ...(strided.length
      ? [
          ...strided.map((name) => `  var off_${name} = 0u;`),
          '  var rem = i;',
          "  // Innermost dimension first: peel one coordinate per step and add it times each input's (broadcast) stride.",
          '  for (var d = pu(1u); d > 0u; d--) {',
          `    let size = pu(${shape}u + d - 1u);`,
          '    let c = rem % size;',
          '    rem = rem / size;',
          ...def.inputs.map((name, k) =>
            modes[k] === 'strided' ? `    off_${name} += c * pu(${strides(k)}u + d - 1u);` : '',
          ),
          '  }',
        ]
      : []),
    // The expression computes in f32: float16, integer and bool inputs are converted on load (bool reads as 0 or 1).
    ...def.inputs.map((name, k) => {
      const at = offset(name, k);
      const load =
        dtypes[k] === 'float32'
          ? `in_${name}[${at}]`
          : dtypes[k] === 'float16' && !native
            ? loadHalf(`in_${name}`, at)
            : `f32(in_${name}[${at}])`;
      return `  let v_${name} = ${load};`;
    }),
    ...def.attrs.map((name, k) => `  let a_${name} = pf(${2 + k}u);`),
    `  return ${def.expr};`,
    '}',
    `${MAIN_1D} {`,
    `  ${FLAT_INDEX}`,
    ...(half && native
      ? ['  if (i >= pu(0u)) { return; }', '  out[i] = to_half(value(i));']
      : half
        ? [
            // Rounded to float16 once, at the store, as the CPU does.
            '  let j = 2u * i;',
            '  if (j >= pu(0u)) { return; }',
            '  var b = 0.0;',
            '  if (j + 1u < pu(0u)) { b = value(j + 1u); }',
            '  out[i] = pack_f16(value(j), b);',
          ]
        : [
            '  if (i >= pu(0u)) { return; }',
            def.out === 'bool' ? '  out[i] = select(0u, 1u, value(i));' : '  out[i] = value(i);',
          ]),
    '}',
  ]
    .filter(Boolean)
    .join('\n');
}

/** The build() of a generated elementwise dialect op. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function elementwise<K extends (inputs: any, attrs: any, out: TensorType) => Tensor>(
  def: ElementwiseDef,
): WebGpuBuilder<K> {
  const { words } = layout(def);
  return (_attrs, out, inputs) => {
    const gpu = requireGpu();
    const tensors = def.inputs.map((name) => (inputs as Record<string, Tensor>)[name]!);
    // The expression is rendered in f32 and computes in f32 whatever the storage: float16 is loaded and stored packed
    // (f16.ts) on every adapter, or as f16 where the device has shader-f16. Integer results would need an i32
    // rendering, so int32 ops stay on the CPU dialect.
    if (def.out === 'bool' ? out.dtype !== 'bool' : out.dtype !== 'float32' && out.dtype !== 'float16') return null;
    if (
      def.out === 'bool'
        ? // bool inputs load exactly as 0 or 1 (logical_not); int32 ones stay on the CPU, f32 cannot hold them all.
          tensors.some((t) => t.dtype !== 'float32' && t.dtype !== 'float16' && t.dtype !== 'bool')
        : !tensors.every((t) => t.dtype in STORED)
    )
      return null;
    const dtypes = tensors.map((t) => t.dtype as StoredDType);
    const half = out.dtype === 'float16';
    const native = gpu.hasF16 && (half || dtypes.includes('float16'));
    // One pipeline per op, input and output dtypes and index-mode mix; shapes, broadcasts and number args are uniforms.
    const dtypeKey =
      (dtypes.every((d) => d === 'float32') ? 'f32' : dtypes.join(',')) +
      (half ? '>f16' : '') +
      (native ? ' shader-f16' : '');
    const pipelineFor = (modes: readonly IndexMode[]) =>
      gpu.pipelines.getPipelineSync(pipelineKey(def.op, dtypeKey, modes.map((m) => MODE_LETTER[m]).join('')), () =>
        elementwiseSource(def, dtypes, modes, half, native),
      );
    // The general pipeline serves every shape, so it is compiled here; the fast ones on first use.
    pipelineFor(def.inputs.map(() => 'strided'));
    // The last call's shapes, attr values and what they gave (pipeline, uniforms): a graph step, or a loop of eager
    // calls, repeats them, and then skips coalescing the strides and building the uniform block.
    let last: {
      shapes: (readonly number[])[];
      attrs: number[];
      pipeline: GPUComputePipeline;
      data: Uint32Array;
    } | null = null;
    const kernel = (kin: Record<string, Tensor>, attrs: Record<string, number>, kout: TensorType): Tensor => {
      const ts = def.inputs.map((name) => kin[name]!);
      const result = allocGpu(gpu, kout);
      const n = sizeOf(kout.shape);
      if (!last || !sameCall(last, ts, kout, def.attrs, attrs)) {
        const dims = coalesce(
          kout.shape,
          ts.map((t) => broadcastStrides(t.shape, kout.shape)),
        );
        const modes = dims.strides.map((st) => indexMode(dims.shape, st));
        const p = new Params().u32(n).u32(dims.shape.length);
        for (const a of def.attrs) p.f32(Number(attrs[a]));
        p.dims(dims.shape);
        for (const s of dims.strides) p.dims(s);
        for (const m of modes) p.u32(m.period);
        last = {
          shapes: [kout.shape, ...ts.map((t) => t.shape)],
          attrs: def.attrs.map((a) => Number(attrs[a])),
          pipeline: pipelineFor(modes.map((m) => m.mode)),
          data: p.data(words),
        };
      }
      launch(gpu, last.pipeline, [...ts, result], last.data, half && !native ? Math.ceil(n / 2) : n, def.op);
      return result;
    };
    return kernel as unknown as K;
  };
}

/** Whether a call has the shapes and attr values `last` was made for (so its pipeline and uniforms serve it). */
function sameCall(
  last: { readonly shapes: readonly (readonly number[])[]; readonly attrs: readonly number[] },
  ts: readonly Tensor[],
  out: TensorType,
  names: readonly string[],
  attrs: Record<string, number>,
): boolean {
  if (!shapesEqual(last.shapes[0]!, out.shape)) return false;
  for (let k = 0; k < ts.length; k++) if (!shapesEqual(last.shapes[k + 1]!, ts[k]!.shape)) return false;
  // Compared as the uniforms hold them (Params.f32 stores float32 bits): -0 and NaN are told apart by Object.is.
  for (let k = 0; k < names.length; k++) if (!Object.is(last.attrs[k], Number(attrs[names[k]!]))) return false;
  return true;
}
