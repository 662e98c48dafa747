// The op suite refuses an oracle result that is NaN or infinite (it would compare nothing), naming the spec's
// tests.domain, unless the spec says such results are expected (tests.non_finite).

import { describe, expect, it } from 'vitest';
import { requireFinite } from '../support/op-suite.ts';

const suite = { op: 'batch_norm', spec: 'specs/nn/batch_norm.yaml (nn)' };

describe('requireFinite', () => {
  it('refuses NaN and infinities, telling the author to fix tests.domain in the spec', () => {
    for (const bad of [NaN, Infinity, -Infinity]) {
      expect(() => requireFinite(suite, [1, bad, 2], 'onnxruntime BatchNormalization')).toThrow(
        `raf.op.batch_norm: the oracle (onnxruntime BatchNormalization) gives ${bad} at element 1, so this case checks nothing there; fix tests.domain (or tests.inputs) in specs/nn/batch_norm.yaml`,
      );
    }
  });

  it('accepts finite results, and non-finite ones when the spec says they are expected', () => {
    expect(() => requireFinite(suite, [0, -1e300, 5], 'x')).not.toThrow();
    expect(() => requireFinite({ ...suite, nonFinite: true }, [NaN, Infinity], 'x')).not.toThrow();
  });
});
