// Hand-written gradient of raf.op.einsum (specs/linalg/einsum.yaml). The gradient for input i is itself an einsum: dy
// and the other inputs contracted to input i's labels ('ij,jk->ik' gives 'ik,jk->ij' for the first). Labels only input
// i has (summed away) come from a ones tensor; a label it repeats (a diagonal) is put back on the diagonal with an
// identity; an axis it broadcast (size 1 against a larger label) is summed back.

import type { EinsumGradContext, EinsumGradResult } from '../generated/grad/einsum.ts';
import { einsum } from '../generated/api/einsum.ts';
import { multiply } from '../generated/api/multiply.ts';
import { reshape } from '../generated/api/reshape.ts';
import { sum } from '../generated/api/sum.ts';
import { ones, placeOn, tensor, type Tensor } from '../tensor.ts';
import { einsumPlan } from './einsum.rule.ts';

export function einsumGradImpl({ xs, dy, equation }: EinsumGradContext): EinsumGradResult {
  const plan = einsumPlan(
    equation,
    xs.map((x) => x.shape),
  );
  const size = (c: string) => plan.sizes[plan.labels.indexOf(c)]!;
  return {
    xs: xs.map((x, i) => {
      const term = plan.terms[i]!;
      const unique = [...new Set(term)];
      const others = plan.terms.filter((_, k) => k !== i);
      const reached = new Set([...plan.output, ...others.join('')]);
      const alone = unique.filter((c) => !reached.has(c));
      const operands: Tensor[] = [dy, ...xs.filter((_, k) => k !== i)];
      const inTerms = [plan.output, ...others];
      if (alone.length) {
        operands.push(placeOn(ones(alone.map(size), x.dtype), x.device));
        inTerms.push(alone.join(''));
      }
      let g = einsum(operands, `${inTerms.join(',')}->${unique.join('')}`);
      // A repeated label: g holds the diagonal; spread it with an identity over each later occurrence.
      if (unique.length < term.length) {
        const first = [...term].map((c, d) => term.indexOf(c) === d);
        g = reshape(
          g,
          [...term].map((c, d) => (first[d] ? size(c) : 1)),
        );
        [...term].forEach((c, d) => {
          if (first[d]) return;
          const n = size(c);
          const eye = placeOn(
            tensor(
              Array.from({ length: n * n }, (_, k) => (k % (n + 1) === 0 ? 1 : 0)),
              { dtype: x.dtype, shape: [...term].map((e, k) => (k === d || k === term.indexOf(c) ? n : 1)) },
            ),
            x.device,
          );
          g = multiply(g, eye);
        });
      }
      // Axes x broadcast (size 1 against a larger label) receive the sum over that label.
      const summed = [...term].flatMap((c, d) => (x.shape[d] === 1 && size(c) !== 1 ? [d] : []));
      if (summed.length) g = sum(g, summed, true);
      return g;
    }),
  };
}
