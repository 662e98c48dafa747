// The ort half of the per-op harness: an op with an ONNX mapping runs its CPU dialect's cases pinned to the ort dialect
// (onnxruntime-node) and is compared with the CPU dialect, gradients included; where onnxruntime-node is absent
// (RAF_OP_ORT=0), the op has no ort dialect op and pinning ort says why.

import { describe, expect, it } from 'vitest';
import {
  allDialectOps,
  call,
  DispatchError,
  tensor,
  valueAndGrad,
  withDialect,
  type DType,
} from '../../runtime/src/index.ts';
import { isFloat, type Storage } from '../../runtime/src/dtype.ts';
import { ortStats, ortUnavailable } from '../../runtime/src/dialects/ort/index.ts';
import { ORT_OPS } from '../../runtime/src/generated/dialects/ort/index.ts';
import { assertAllClose, tolerance } from './assert.ts';
import { flatTensors, outputsOf } from './tensor-args.ts';
import type { Tensor } from '../../runtime/src/index.ts';

interface Case {
  readonly shapes: Readonly<Record<string, readonly number[] | readonly (readonly number[])[]>>;
  readonly args: Readonly<Record<string, unknown>>;
}

export interface OrtSuite<C extends Case> {
  readonly op: string;
  readonly dtypes: readonly DType[];
  readonly cases: readonly C[];
  readonly grad: readonly string[];
  readonly callArgs: (c: C, i: number, dtype: DType) => Record<string, unknown>;
  readonly title: (c: C) => string;
  readonly outputs?: readonly string[];
}

/** Ops the generated ort dialect has an op for (whether or not onnxruntime-node is here to run it). */
const ORT_SERVED = new Set(ORT_OPS.map((d) => d.op as string));

export const hasOrtOp = (op: string): boolean => ORT_SERVED.has(op);

/**
 * Runs `f` pinned to `pin`; undefined when the ort dialect declined the call (a case its mapping cannot express, a
 * type onnxruntime has no kernel for): dispatch then names raf.op.ort.OP among what it tried.
 */
function unlessDeclined<T>(op: string, f: () => T): { value: T } | { declined: string } {
  try {
    return { value: f() };
  } catch (e) {
    if (e instanceof DispatchError && e.tried.some((t) => t.startsWith(`raf.op.ort.${e.op} `)))
      return { declined: `raf.op.ort.${e.op} declines it (${e.tried.find((t) => t.startsWith('raf.op.ort.'))})` };
    throw e;
  }
}

const values = (t: Tensor): ArrayLike<number> => {
  const d: Storage = t.dataSync();
  return d instanceof BigInt64Array || d instanceof BigUint64Array ? Array.from(d, Number) : (d as ArrayLike<number>);
};

/** Registers the ort describe block of one op's suite. */
export function ortCases<C extends Case>(s: OrtSuite<C>): void {
  const why = ortUnavailable();
  describe('dialect ort', () => {
    if (why) {
      it(`is absent (${why}): no raf.op.ort.${s.op}, and pinning ort says why`, () => {
        expect(allDialectOps(s.op).map((d) => d.dialect)).not.toContain('ort');
        const c = s.cases[0];
        if (!c) return;
        const args = s.callArgs(c, 0, s.dtypes[0]!);
        expect(() => withDialect(['ort'], () => call(s.op, [], args))).toThrow(/dialect 'ort' is unavailable/);
      });
      return;
    }
    describe.each(s.dtypes)('%s', (dtype) => {
      it.for(s.cases.map((c, i) => [s.title(c), c, i] as const))('forward %s (vs CPU)', ([, c, i], ctx) => {
        const args = s.callArgs(c, i, dtype);
        const before = ortStats().runs;
        const got = unlessDeclined(s.op, () => outputsOf(withDialect(['ort'], () => call(s.op, [], args))));
        if ('declined' in got) return ctx.skip(got.declined);
        expect(ortStats().runs).toBeGreaterThan(before);
        const reference = outputsOf(withDialect(['cpu'], () => call(s.op, [], args)));
        expect(got.value.length).toBe(reference.length);
        for (const [k, t] of got.value.entries()) {
          const which = got.value.length > 1 ? ` output ${s.outputs?.[k] ?? k}` : '';
          expect(t.dtype).toBe(reference[k]!.dtype);
          expect(t.shape).toEqual(reference[k]!.shape);
          assertAllClose(
            values(t),
            values(reference[k]!),
            tolerance(isFloat(t.dtype) ? t.dtype : 'float64'),
            `raf.op.ort.${s.op}${which} vs raf.op.cpu.${s.op}${which}`,
          );
        }
      });
    });

    // Gradients with ort first: the forward and every backward op with an ONNX mapping run in onnxruntime, the rest on
    // the CPU dialect; compared with the CPU dialect alone, in the first float dtype of the suite.
    const gradDtype = s.dtypes.find((d) => d === 'float64' || d === 'float32');
    if (s.grad.length && gradDtype)
      it.for(s.cases.map((c, i) => [s.title(c), c, i] as const))('gradient %s (vs CPU)', ([, c, i], ctx) => {
        const base = s.callArgs(c, i, gradDtype);
        const flat = flatTensors(base, s.grad);
        const fn = (...xs: Tensor[]) => call(s.op, [], { ...base, ...flat.rebuild(xs) }) as Tensor | Tensor[];
        const ys = outputsOf(withDialect(['cpu'], () => fn(...flat.params)));
        let at = i;
        const dys = ys.map((y) =>
          tensor(
            Array.from({ length: y.size }, () => Math.sin(at++)),
            { dtype: y.dtype, shape: y.shape },
          ),
        );
        const expected = withDialect(['cpu'], () => valueAndGrad(fn, undefined, dys)(...flat.params).grads);
        const before = ortStats().runs;
        const { grads } = withDialect(['ort', 'cpu'], () => valueAndGrad(fn, undefined, dys)(...flat.params));
        if (ortStats().runs === before) return ctx.skip(`raf.op.ort.${s.op} and its backward ops decline this case`);
        for (const [k, name] of flat.labels.entries())
          assertAllClose(
            values(grads[k]!),
            values(expected[k]!),
            tolerance(gradDtype),
            `d${s.op}/d${name} with ort vs cpu`,
          );
      });
  });
}
