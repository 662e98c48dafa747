// Runs the Relay corpus (../shared/relay, beside the clone): each program through the independent float64
// reference (relay-reference.ts) and through FromRelay, on the same random inputs and meta constants.

import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DTYPES, rng, tensor, type Tensor } from '../../runtime/src/index.ts';
import { execute, fromRelay, RelayParseError } from '../../runtime/src/graph/index.ts';
import { assertAllClose } from './assert.ts';
import { referenceProgram, roundTo, type RDType, type RValue, type T64 } from './relay-reference.ts';

export interface OpCall {
  readonly op: string;
  readonly args: RValue[];
  readonly attrs: Record<string, unknown>;
  readonly out: RValue;
}

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const CORPUS = resolve(ROOT, '../shared/relay');

/**
 * Integer inputs are drawn from [0, 10) unless a program needs a narrower range: class indices of nll_loss must lie
 * in [0, C), and both sides refuse others (checked, never clipped).
 */
const INT_INPUT_RANGE: Readonly<Record<string, number>> = {
  'raf_autodataparallel_forward.rly': 2, // nll_loss over x·c of shape [2, 2]: two classes
};

function randomT64(
  shape: readonly number[],
  dtype: RDType,
  rand: () => number,
  kind: 'input' | 'const',
  intRange = 10,
): T64 {
  const n = shape.reduce((a, b) => a * b, 1);
  const data = new Float64Array(n);
  const fanIn = shape.slice(1).reduce((a, b) => a * b, 1);
  for (let i = 0; i < n; i++) {
    const u = rand();
    let v: number;
    if (dtype === 'bool') v = u < 0.5 ? 0 : 1;
    else if (!dtype.startsWith('float')) v = Math.floor(u * intRange);
    else if (kind === 'const' && shape.length <= 1)
      v = 0.5 + u; // scales, shifts, means, variances: positive
    else if (kind === 'const')
      v = (2 * u - 1) * Math.sqrt(3 / fanIn); // weights keep activations near unit scale
    else v = 2 * u - 1;
    data[i] = roundTo(dtype, v);
  }
  return { shape, dtype, data };
}

export function toRuntime(t: T64): Tensor {
  return tensor(t.data, { shape: [...t.shape], dtype: t.dtype as (typeof DTYPES)[number] });
}

export function flatten(v: RValue): T64[] {
  if (Array.isArray(v)) return (v as RValue[]).flatMap(flatten);
  if (!('data' in (v as object))) throw new Error('reference: the program returns a function');
  return [v as T64];
}

function header(text: string): { src: string; meta: { dtype: string | string[]; shapes: number[][] } | null } {
  const lines = text.split('\n');
  let meta = null;
  let k = 0;
  while (k < lines.length && /^\/\/ (source|meta):/.test(lines[k]!)) {
    if (lines[k]!.startsWith('// meta:')) meta = JSON.parse(lines[k]!.slice('// meta:'.length));
    k++;
  }
  // Keep line numbers: blank the header instead of dropping it.
  return { src: [...lines.slice(0, k).map(() => ''), ...lines.slice(k)].join('\n'), meta };
}

export function tolFor(dtype: string, ref: Float64Array): { atol: number; rtol: number } {
  let m = 1;
  for (const v of ref) m = Math.max(m, Math.abs(v));
  if (dtype === 'float16') return { atol: 2e-2 * m, rtol: 2e-2 };
  if (dtype === 'float32') return { atol: 1e-4 * m, rtol: 1e-4 };
  return { atol: 0, rtol: 0 };
}

export interface Outcome {
  /** The stage that failed ('agree' when none did). */
  stage: 'parse' | 'convert' | 'run' | 'compare' | 'agree';
  error?: string;
}

/** Runs one corpus program through the reference and the importer; `calls` collects the op calls it made. */
export function check(file: string, calls: OpCall[]): Outcome {
  return checkSource(file, readFileSync(join(CORPUS, file), 'utf8'), calls);
}

/** Runs Relay text (with the corpus files' optional `// meta:` header) through the reference and the importer. */
export function checkSource(file: string, text: string, calls: OpCall[] = []): Outcome {
  const { src, meta } = header(text);
  const rand = rng(file.length * 7919 + file.charCodeAt(0));
  const consts = (meta?.shapes ?? []).map((s, i) =>
    randomT64(s, (Array.isArray(meta!.dtype) ? meta!.dtype[i] : meta!.dtype) as RDType, rand, 'const'),
  );
  let ref;
  try {
    ref = referenceProgram(src);
  } catch (e) {
    return { stage: 'parse', error: (e as Error).message };
  }
  const inputs = ref.params.map((p) =>
    randomT64(
      p.shape.map((d) => (d < 0 ? 3 : d)),
      p.dtype,
      rand,
      'input',
      INT_INPUT_RANGE[file],
    ),
  );
  let g;
  try {
    g = fromRelay(src, {
      meta: { 'relay.Constant': consts.map(toRuntime) },
      shapes: Object.fromEntries(ref.params.map((p, i) => [p.name, inputs[i]!.shape])),
    });
  } catch (e) {
    return { stage: e instanceof RelayParseError ? 'parse' : 'convert', error: (e as Error).message };
  }
  let got: Tensor[];
  try {
    got = execute(g, inputs.map(toRuntime));
  } catch (e) {
    return { stage: 'run', error: (e as Error).message };
  }
  let expected: T64[];
  try {
    expected = flatten(ref.run(inputs, consts, (op, args, attrs, out) => calls.push({ op, args, attrs, out })));
  } catch (e) {
    return { stage: 'compare', error: (e as Error).message };
  }
  try {
    if (got.length !== expected.length) throw new Error(`${got.length} outputs, expected ${expected.length}`);
    got.forEach((t, i) => {
      const want = expected[i]!;
      if (t.shape.join() !== want.shape.join())
        throw new Error(`output ${i} has shape [${t.shape}], expected [${want.shape}]`);
      if (t.dtype !== want.dtype) throw new Error(`output ${i} has dtype ${t.dtype}, expected ${want.dtype}`);
      assertAllClose(t.dataSync(), want.data, tolFor(want.dtype, want.data), `${file} output ${i}`);
    });
  } catch (e) {
    return { stage: 'compare', error: (e as Error).message };
  }
  return { stage: 'agree' };
}
