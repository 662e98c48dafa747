// The generated NaN/±inf case of a reduction, selection, scan or softmax-like op, shared by this repository's op suite
// (test/support/non-finite.ts) and a package's (`generator-raf-op/testing`): float32 rows holding NaN, +inf and -inf go
// through every dialect, each compared with the CPU dialect (NaN equals NaN, an infinity the same infinity), and the
// CPU is compared with NumPy's semantics of the op's ONNX counterpart, written out in float64 in numpy-reference.ts
// (np.sum, np.max, np.argmax, torch.topk's NaN order, the ONNX reference's max-shifted softmax, ...), so a case cannot
// pass by every dialect being wrong the same way. The runtime comes in as an argument: this file imports none, so it loads both from
// the repository's sources and from an installed @raf-op/runtime.

import { beforeAll, describe, expect, it } from 'vitest';
import type * as Runtime from '@raf-op/runtime';
import { REFERENCES, rowOf, type Row } from './numpy-reference.ts';

export interface NonFiniteCases {
  /** The ONNX op whose NumPy semantics the CPU must follow (a key of REFERENCES). */
  readonly reference: string;
  /** The tensor arg the rows are passed as. */
  readonly tensor: string;
  /** The rows' rank, each row along the last axis (a global pool's [1, 1, 1, n]); 1 where absent. */
  readonly rank?: number;
  /** Arg sets besides the tensor, one group of cases each. */
  readonly calls: readonly Readonly<Record<string, unknown>>[];
  readonly inputs: readonly { readonly title: string; readonly values: Row }[];
}

/** What the cases call: the runtime the suite tests, and how a webgpu case gets its device. */
export interface NonFiniteRuntime {
  readonly call: typeof Runtime.call;
  readonly tensor: typeof Runtime.tensor;
  readonly withDialect: typeof Runtime.withDialect;
  /** Acquires the device once before the cases run (omitted: the caller has already). */
  readonly acquireGpu?: () => Promise<void>;
  /** Before each webgpu case: returns when the device is there, else skips the case (or throws) saying why. */
  readonly needGpu?: (ctx: { skip: (why: string) => void }) => void;
}

type Tensor = Runtime.Tensor;

/** Every output's elements as numbers, each rounded to float32 (what a float32 result can hold). */
async function read(r: unknown): Promise<number[][]> {
  const outs = Array.isArray(r) ? (r as Tensor[]) : [r as Tensor];
  return Promise.all(outs.map(async (t) => Array.from(await t.data(), (v) => Math.fround(Number(v)))));
}

/**
 * `got` equals `want` output by output: NaN where NaN, the same infinity where infinite; finite values within `rtol`
 * (a GPU sums many numbers in another order).
 */
export function agree(got: number[][], want: number[][], rtol: number, what: string): void {
  expect(got.length, `${what}: outputs`).toBe(want.length);
  got.forEach((out, k) => {
    expect(out.length, `${what}: output ${k} elements`).toBe(want[k]!.length);
    out.forEach((v, i) => {
      const w = want[k]![i]!;
      const where = `${what}: output ${k} element ${i} is ${v}, expected ${w}`;
      if (Number.isFinite(w) && Number.isFinite(v))
        expect(Math.abs(v - w), where).toBeLessThanOrEqual(rtol * (1 + Math.abs(w)));
      else expect(Object.is(v, w) || (Number.isNaN(v) && Number.isNaN(w)), where).toBe(true);
    });
  });
}

/**
 * The describe block of one op's generated NaN/±inf case, run on `dialects` (each against the CPU, the CPU against
 * REFERENCES[s.reference]).
 */
export function nonFiniteSuite(op: string, dialects: readonly string[], s: NonFiniteCases, rt: NonFiniteRuntime): void {
  describe('non-finite inputs (NaN, ±inf)', () => {
    const reference = REFERENCES[s.reference];
    if (dialects.includes('webgpu') && rt.acquireGpu) beforeAll(rt.acquireGpu);
    const rows = s.inputs.map((input) => [input.title, rowOf(input.values)] as const);
    const lead = Array.from({ length: (s.rank ?? 1) - 1 }, () => 1);
    const f32 = (row: number[]) => rt.tensor(row, { dtype: 'float32', shape: [...lead, row.length] });
    for (const args of s.calls) {
      const shown = Object.keys(args).length ? ` ${JSON.stringify(args)}` : '';
      const run = (x: Tensor) => rt.call(op, [], { [s.tensor]: x, ...args });
      it.for(rows)(`cpu${shown} of %s vs NumPy's ${s.reference}`, async ([, row]) => {
        if (!reference)
          throw new Error(
            `no NumPy reference for ONNX ${s.reference} in generator-raf-op's testing/numpy-reference.ts`,
          );
        const x = f32(row);
        const got = await read(rt.withDialect(['cpu'], () => run(x)));
        const want = reference(Array.from(x.dataSync(), Number), args).map((o) => o.map((v) => Math.fround(v)));
        agree(got, want, 1e-5, `raf.op.cpu.${op}${shown} vs NumPy ${s.reference}`);
      });
      for (const d of dialects.filter((d) => d !== 'cpu')) {
        it.for(rows)(`${d}${shown} of %s vs cpu`, async ([, row], ctx) => {
          if (d === 'webgpu') rt.needGpu?.(ctx);
          const x = f32(row);
          const want = await read(rt.withDialect(['cpu'], () => run(x)));
          const on = d === 'webgpu' ? await x.to('webgpu') : x;
          const got = await read(rt.withDialect([d], () => run(on)));
          agree(got, want, 1e-4, `raf.op.${d}.${op}${shown} vs raf.op.cpu.${op}`);
        });
      }
    }
  });
}
