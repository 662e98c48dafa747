// Hand-written shape rule of raf.op.einsum (specs/linalg/einsum.yaml) and the plan its kernels share: the equation's
// labels (output labels first, then the summed ones), each label's size, and every input's stride per label.

import { OpError } from '../errors.ts';
import { stridesOf } from '../shape.ts';
import type { TensorType } from '../tensor.ts';
import type { EinsumArgs } from '../generated/schema/einsum.ts';

export interface EinsumPlan {
  /** Output labels first (in output order), then the summed labels. */
  readonly labels: readonly string[];
  readonly outRank: number;
  readonly sizes: readonly number[];
  /** Per input, its stride along each label (0 where it lacks the label or broadcasts a size-1 axis). */
  readonly strides: readonly (readonly number[])[];
  /** The inputs' terms after '...' is spelled out, and the output's. */
  readonly terms: readonly string[];
  readonly output: string;
}

// Labels standing for '...' axes: capitals from the end of the alphabet, unlikely in a model's equation.
const ELLIPSIS = 'ZYXWVUTSRQPONMLKJIHGFEDCBA';

const fail = (message: string): never => {
  throw new OpError('einsum', message, 'equation');
};

/** Parses `equation` against the inputs' shapes; refuses a malformed one with what is wrong. */
export function einsumPlan(equation: string, shapes: readonly (readonly number[])[]): EinsumPlan {
  const eq = equation.replace(/\s+/g, '');
  const arrow = eq.indexOf('->');
  const lhs = arrow < 0 ? eq : eq.slice(0, arrow);
  const given = lhs.split(',');
  if (given.length !== shapes.length)
    fail(`'${equation}' has ${given.length} input terms for ${shapes.length} tensors`);
  let ellipsisRank = 0;
  const terms = given.map((term, i) => {
    if (!/^[a-zA-Z]*(\.\.\.)?[a-zA-Z]*$/.test(term)) fail(`term '${term}' is not letters with at most one '...'`);
    const rank = shapes[i]!.length;
    const named = term.replace('...', '').length;
    if (!term.includes('...')) {
      if (named !== rank) fail(`term '${term}' has ${named} labels for input ${i} of rank ${rank}`);
      return term;
    }
    if (named > rank) fail(`term '${term}' has ${named} labels for input ${i} of rank ${rank}`);
    ellipsisRank = Math.max(ellipsisRank, rank - named);
    return term.replace(
      '...',
      ELLIPSIS.slice(0, rank - named)
        .split('')
        .reverse()
        .join(''),
    );
  });
  const broadcast = ELLIPSIS.slice(0, ellipsisRank).split('').reverse().join('');
  for (const c of broadcast) if (lhs.includes(c)) fail(`label '${c}' is reserved for '...' axes here`);
  let output: string;
  if (arrow >= 0) {
    const rhs = eq.slice(arrow + 2);
    if (!/^[a-zA-Z]*(\.\.\.)?[a-zA-Z]*$/.test(rhs)) fail(`output '${rhs}' is not letters with at most one '...'`);
    output = rhs.replace('...', broadcast);
  } else {
    // Implicit output: '...' axes, then every label used once, alphabetically.
    const counts = new Map<string, number>();
    for (const c of given.join('').replace(/\.\.\./g, '')) counts.set(c, (counts.get(c) ?? 0) + 1);
    output =
      broadcast +
      [...counts]
        .filter(([, n]) => n === 1)
        .map(([c]) => c)
        .sort()
        .join('');
  }
  const sizes = new Map<string, number>();
  terms.forEach((term, i) =>
    [...term].forEach((c, d) => {
      const n = shapes[i]![d]!;
      const had = sizes.get(c);
      // A '...' axis of size 1 broadcasts; a named label's sizes must agree (or be 1, as NumPy broadcasts).
      if (had === undefined || had === 1) sizes.set(c, n);
      else if (n !== had && n !== 1) fail(`label '${c}' has size ${had} and ${n}`);
    }),
  );
  const seen = new Set<string>();
  for (const c of output) {
    if (!sizes.has(c)) fail(`output label '${c}' is in no input`);
    if (seen.has(c)) fail(`output label '${c}' is repeated`);
    seen.add(c);
  }
  const labels = [...output, ...[...sizes.keys()].filter((c) => !seen.has(c))];
  const strides = terms.map((term, i) => {
    const own = stridesOf(shapes[i]!);
    const per = labels.map(() => 0);
    [...term].forEach((c, d) => {
      if (shapes[i]![d] !== 1) per[labels.indexOf(c)]! += own[d]!;
    });
    return per;
  });
  return { labels, outRank: output.length, sizes: labels.map((c) => sizes.get(c)!), strides, terms, output };
}

export function einsumRule<T extends TensorType>(args: EinsumArgs<T>): TensorType {
  const { xs, equation } = args;
  if (!xs.length) throw new OpError('einsum', 'needs at least one tensor', 'xs');
  const dtype = xs[0]!.dtype;
  xs.forEach((x, i) => {
    if (x.dtype !== dtype) throw new OpError('einsum', `tensor ${i} is ${x.dtype}, tensor 0 is ${dtype}`, 'xs');
  });
  const plan = einsumPlan(
    equation,
    xs.map((x) => x.shape),
  );
  return { shape: plan.sizes.slice(0, plan.outRank), dtype };
}
