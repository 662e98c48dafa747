// Builds the WebGPU kernel of an elementwise op from its generated WGSL expression: one pipeline for every shape and broadcast.

import { broadcastStrides, sizeOf, stridesOf } from '../../shape.ts';
import type { Tensor, TensorType } from '../../tensor.ts';
import { requireGpu } from './dialect.ts';
import { coalesce, FLAT_INDEX, launch, MAIN_1D, MAX_RANK, Params, paramsWgsl, pipelineKey, type WebGpuBuilder } from './kernel.ts';
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
  if (strides.slice(0, k).every((st) => st === 0)) return { mode: k === 0 ? 'flat' : 'tail', period: sizeOf(shape.slice(k)) };
  // Head: it walks the prefix [0, k) contiguously and repeats each element along [k, rank).
  k = rank;
  while (k > 0 && strides[k - 1] === 0) k--;
  if (strides.slice(0, k).every((st, d) => st === sizeOf(shape.slice(d + 1, k)))) return { mode: 'head', period: sizeOf(shape.slice(k)) };
  return { mode: 'strided', period: 0 };
}

/** WGSL storage type per input dtype; bool tensors are stored as u32 (see storage.ts). */
const STORED = { float32: 'f32', int32: 'i32', bool: 'u32' } as const;
type StoredDType = keyof typeof STORED;

export function elementwiseSource(
  def: ElementwiseDef,
  dtypes: readonly StoredDType[] = def.inputs.map(() => 'float32'),
  modes: readonly IndexMode[] = def.inputs.map(() => 'strided'),
): string {
  const { shape, strides, period, words } = layout(def);
  const outType = def.out === 'bool' ? 'u32' : 'f32';
  const n = def.inputs.length;
  const strided = def.inputs.filter((_, k) => modes[k] === 'strided');
  const offset = (name: string, k: number) =>
    ({ flat: 'i', tail: `i % pu(${period(k)}u)`, head: `i / pu(${period(k)}u)`, strided: `off_${name}` })[modes[k]!];
  return [
    def.helpers,
    ...def.inputs.map((name, k) => `@group(0) @binding(${k}) var<storage, read> in_${name}: array<${STORED[dtypes[k]!]}>;`),
    `@group(0) @binding(${n}) var<storage, read_write> out: array<${outType}>;`,
    paramsWgsl(n + 1, words),
    `${MAIN_1D} {`,
    `  ${FLAT_INDEX}`,
    '  if (i >= pu(0u)) { return; }',
    ...(strided.length
      ? [
          ...strided.map((name) => `  var off_${name} = 0u;`),
          '  var rem = i;',
          '  // Innermost dimension first: peel one coordinate per step and add it times each input\'s (broadcast) stride.',
          '  for (var d = pu(1u); d > 0u; d--) {',
          `    let size = pu(${shape}u + d - 1u);`,
          '    let c = rem % size;',
          '    rem = rem / size;',
          ...def.inputs.map((name, k) => (modes[k] === 'strided' ? `    off_${name} += c * pu(${strides(k)}u + d - 1u);` : '')),
          '  }',
        ]
      : []),
    // The expression computes in f32: integer and bool inputs are converted on load (bool reads as 0 or 1).
    ...def.inputs.map((name, k) => {
      const at = `in_${name}[${offset(name, k)}]`;
      return `  let v_${name} = ${dtypes[k] === 'float32' ? at : `f32(${at})`};`;
    }),
    ...def.attrs.map((name, k) => `  let a_${name} = pf(${2 + k}u);`),
    def.out === 'bool' ? `  out[i] = select(0u, 1u, ${def.expr});` : `  out[i] = ${def.expr};`,
    '}',
  ]
    .filter(Boolean)
    .join('\n');
}

/** The build() of a generated elementwise dialect op. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function elementwise<K extends (inputs: any, attrs: any, out: TensorType) => Tensor>(def: ElementwiseDef): WebGpuBuilder<K> {
  const { words } = layout(def);
  return (_attrs, out, inputs) => {
    const gpu = requireGpu();
    const tensors = def.inputs.map((name) => (inputs as Record<string, Tensor>)[name]!);
    // The renderer has f32 and f16; f16 needs shader-f16, which software adapters lack, so results are f32 (or bool).
    // Integer results would need an i32 rendering of the expression, so int32 ops stay on the CPU dialect.
    if (out.dtype !== (def.out === 'bool' ? 'bool' : 'float32')) return null;
    if (def.out === 'bool' ? tensors.some((t) => t.dtype !== 'float32') : !tensors.every((t) => t.dtype in STORED)) return null;
    const dtypes = tensors.map((t) => t.dtype as StoredDType);
    // One pipeline per op, input dtypes and index-mode mix; shapes, broadcasts and number args are uniforms.
    const dtypeKey = dtypes.every((d) => d === 'float32') ? 'f32' : dtypes.join(',');
    const pipelineFor = (modes: readonly IndexMode[]) =>
      gpu.pipelines.getPipelineSync(pipelineKey(def.op, dtypeKey, modes.map((m) => MODE_LETTER[m]).join('')), () => elementwiseSource(def, dtypes, modes));
    // The general pipeline serves every shape, so it is compiled here; the fast ones on first use.
    pipelineFor(def.inputs.map(() => 'strided'));
    const kernel = (kin: Record<string, Tensor>, attrs: Record<string, number>, kout: TensorType): Tensor => {
      const ts = def.inputs.map((name) => kin[name]!);
      const result = allocGpu(gpu, kout);
      const n = sizeOf(kout.shape);
      const dims = coalesce(kout.shape, ts.map((t) => broadcastStrides(t.shape, kout.shape)));
      const modes = dims.strides.map((st) => indexMode(dims.shape, st));
      const p = new Params().u32(n).u32(dims.shape.length);
      for (const a of def.attrs) p.f32(Number(attrs[a]));
      p.dims(dims.shape);
      for (const s of dims.strides) p.dims(s);
      for (const m of modes) p.u32(m.period);
      launch(gpu, pipelineFor(modes.map((m) => m.mode)), [...ts, result], p.data(words), n, def.op);
      return result;
    };
    return kernel as unknown as K;
  };
}
