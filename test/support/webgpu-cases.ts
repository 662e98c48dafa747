// The WebGPU half of the per-op harness: the CPU dialect's cases run on the GPU in float32 and are compared with the CPU, gradients included.

import { appendFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  initWebGpu,
  releaseGpu,
  tensor,
  Tensor,
  valueAndGrad,
  withDialect,
  type DType,
} from '../../runtime/src/index.ts';
import { gpuHolds, gpuUnavailableReason, type GpuContext } from '../../runtime/src/dialects/webgpu/index.ts';
import { isFloat } from '../../runtime/src/dtype.ts';
import { assertAllClose } from './assert.ts';
import { flatTensors, outputsOf } from './tensor-args.ts';

/** DESIGN.md: WebGPU results within abs 1e-3 of the CPU reference. */
export const WEBGPU_TOLERANCE = { atol: 1e-3, rtol: 0 };

// CI and RAF_REQUIRE_WEBGPU=1 turn a missing adapter into failures: there the install script must have run.
export const REQUIRE_WEBGPU = Boolean(process.env.CI) || process.env.RAF_REQUIRE_WEBGPU === '1';

interface Case {
  /** A shape per tensor arg; a Tensor[] arg has one per element. */
  readonly shapes: Readonly<Record<string, readonly number[] | readonly (readonly number[])[]>>;
  readonly args: Readonly<Record<string, unknown>>;
}

export interface WebGpuSuite<C extends Case> {
  readonly op: string;
  readonly dtypes: readonly DType[];
  readonly cases: readonly C[];
  /** Tensor args that get a gradient. */
  readonly grad: readonly string[];
  /** Everything one call passes (tensors on the CPU in `dtype`, and the attrs), as the CPU cases build it. */
  readonly callArgs: (c: C, i: number, dtype: DType) => Record<string, unknown>;
  readonly title: (c: C) => string;
  /** A tuple op's output names (sort's values, indices), for messages; indices where absent. */
  readonly outputs?: readonly string[];
}

/**
 * Runs GPU work inside a validation error scope, so that a validation error (a bind group that does not fit its
 * layout, a buffer too small) fails the case with WebGPU's own message instead of as zeros read back.
 */
export async function validated<T>(gpu: GpuContext, what: string, work: () => Promise<T>): Promise<T> {
  gpu.device.pushErrorScope('validation');
  let out: T | undefined;
  let thrown: { error: unknown } | undefined;
  try {
    out = await work();
  } catch (error) {
    thrown = { error };
  }
  const error = await gpu.device.popErrorScope();
  if (error) throw new Error(`${what}: WebGPU validation error: ${error.message.trim()}`);
  if (thrown) throw thrown.error;
  return out as T;
}

/** Registers the WebGPU describe block of one op's suite. */
export function webgpuCases<C extends Case>(s: WebGpuSuite<C>): void {
  let gpu: GpuContext | null = null;
  beforeAll(async () => {
    gpu = await initWebGpu();
  });
  afterAll(async () => {
    // Lets `RAF_WEBGPU_PIPELINE_LOG=file npm test` count the distinct pipelines the whole suite compiled.
    const log = process.env.RAF_WEBGPU_PIPELINE_LOG;
    if (gpu && log)
      appendFileSync(
        log,
        gpu.pipelines
          .compiledPipelineKeys()
          .map((k) => `${k}\n`)
          .join(''),
      );
    await releaseGpu();
  });

  /** The device, or a skip (a failure under CI / RAF_REQUIRE_WEBGPU=1) naming why there is none. */
  const need = (ctx: { skip: (note?: string) => void }): GpuContext | undefined => {
    if (!gpu) {
      if (REQUIRE_WEBGPU) throw new Error(`WebGPU required but unavailable: ${gpuUnavailableReason()}`);
      ctx.skip(`WebGPU unavailable: ${gpuUnavailableReason()}`);
      return undefined;
    }
    return gpu;
  };

  /** Skips a case whose result WebGPU cannot hold (cast to float64): such calls stay on the CPU by design. */
  const resultHeld = (ctx: { skip: (note?: string) => void }, args: Record<string, unknown>): boolean => {
    const held = outputsOf(withDialect(['cpu'], () => call(s.op, [], args))).find((t) => !gpuHolds(t.dtype));
    if (held) {
      ctx.skip(`the result is ${held.dtype}, which WebGPU cannot hold; it runs on the CPU dialect`);
      return false;
    }
    // WebGPU holds int64 as int32 (storage.ts); a float cast into it stays on the CPU, where no value can saturate.
    if (s.op === 'cast' && args.dtype === 'int64' && isFloat((args.x as Tensor).dtype)) {
      ctx.skip('a float cast to int64 runs on the CPU dialect (WGSL would saturate at int32)');
      return false;
    }
    return true;
  };

  // WGSL has no f64, so float64 cases run on the CPU dialect by design rather than appearing here as skipped tests.
  // No spec lists float16 among its test dtypes; float16 on WebGPU is tested by test/runtime/webgpu-float16.test.ts.
  // An op tested in no float dtype (logical_not takes bools) runs its first dtype WebGPU holds instead.
  const gpuDtypes = s.dtypes.includes('float32')
    ? (['float32'] as const)
    : s.dtypes.filter((d) => d === 'int32' || d === 'bool').slice(0, 1);
  describe.each(gpuDtypes)('%s', (dtype) => {
    it.for(s.cases.map((c, i) => [s.title(c), c, i] as const))('forward %s (vs CPU)', async ([, c, i], ctx) => {
      const device = need(ctx);
      if (!device) return;
      const args = s.callArgs(c, i, dtype);
      if (!resultHeld(ctx, args)) return;
      const reference = outputsOf(withDialect(['cpu'], () => call(s.op, [], widen(args))));
      const onGpu = await toGpu(args);
      // A tuple op (split) is compared output by output; a validation error on the way is reported as itself.
      const { got, values } = await validated(device, `raf.op.webgpu.${s.op}`, async () => {
        const got = outputsOf(withDialect(['webgpu'], () => call(s.op, [], onGpu)));
        return { got, values: await Promise.all(got.map(async (t) => Array.from(await t.data()))) };
      });
      expect(got.length).toBe(reference.length);
      for (const [k, t] of got.entries()) {
        expect(t.device.kind).toBe('webgpu');
        expect(t.shape).toEqual(reference[k]!.shape);
        const which = got.length > 1 ? ` output ${s.outputs?.[k] ?? k}` : '';
        assertAllClose(
          values[k]!,
          Array.from(reference[k]!.dataSync()),
          WEBGPU_TOLERANCE,
          `raf.op.webgpu.${s.op}${which} vs raf.op.cpu.${s.op}${which}`,
        );
      }
      disposeAll([got, Object.values(onGpu)]);
    });

    if (s.grad.length) {
      it.for(s.cases.map((c, i) => [s.title(c), c, i] as const))('gradient %s (vs CPU)', async ([, c, i], ctx) => {
        const device = need(ctx);
        if (!device) return;
        const args = s.callArgs(c, i, dtype);
        if (!resultHeld(ctx, args)) return;
        // A Tensor[] arg (concatenate's xs) is one differentiated parameter per element.
        const f = (base: Record<string, unknown>) => {
          const flat = flatTensors(base, s.grad);
          return {
            params: flat.params,
            labels: flat.labels,
            fn: (...xs: Tensor[]) => call(s.op, [], { ...base, ...flat.rebuild(xs) }) as Tensor | Tensor[],
          };
        };
        const cpu = f(widen(args));
        const ys = outputsOf(withDialect(['cpu'], () => cpu.fn(...cpu.params)));
        // A random seed rather than ones, so a wrongly summed or transposed gradient cannot hide; a tuple op's
        // outputs each get their own stretch of it.
        let at = i;
        const dys = ys.map((y) =>
          tensor(
            Array.from({ length: y.size }, () => Math.sin(at++)),
            { dtype: 'float64', shape: y.shape },
          ),
        );
        const expected = withDialect(['cpu'], () => valueAndGrad(cpu.fn, undefined, dys)(...cpu.params).grads);
        const onGpu = await toGpu(args);
        const gpuCall = f(onGpu);
        const dysGpu = await Promise.all(
          dys.map((dy) => tensor(dy.dataSync(), { dtype: 'float32', shape: dy.shape }).to('webgpu')),
        );
        const { value, grads, read } = await validated(device, `d${s.op} on webgpu`, async () => {
          const { value, grads } = withDialect(['webgpu'], () =>
            valueAndGrad(gpuCall.fn, undefined, dysGpu)(...gpuCall.params),
          );
          return { value, grads, read: await Promise.all(grads.map(async (g) => Array.from(await g.data()))) };
        });
        for (const [k, name] of gpuCall.labels.entries()) {
          expect(grads[k]!.device.kind).toBe('webgpu');
          expect(grads[k]!.shape).toEqual(expected[k]!.shape);
          assertAllClose(
            read[k]!,
            Array.from(expected[k]!.dataSync()),
            WEBGPU_TOLERANCE,
            `d${s.op}/d${name} on webgpu vs cpu`,
          );
        }
        disposeAll([value, dysGpu, grads, Object.values(onGpu)]);
      });
    }
  });
}

/** The same values as float64 CPU tensors: the reference computes in float64 from exactly the GPU's inputs. */
function widen(args: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(args).map(([k, v]) => [k, Array.isArray(v) ? v.map(widenOne) : widenOne(v)]),
  );
}

const widenOne = (v: unknown) =>
  v instanceof Tensor && isFloat(v.dtype) ? tensor(v.dataSync(), { dtype: 'float64', shape: v.shape }) : v;

async function toGpu(args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  const move = async (k: string, v: unknown): Promise<unknown> => {
    if (!(v instanceof Tensor)) return v;
    if (!gpuHolds(v.dtype)) throw new Error(`argument '${k}' has dtype ${v.dtype}, which WebGPU cannot hold`);
    return v.to('webgpu');
  };
  // A Tensor[] arg moves element by element.
  for (const [k, v] of Object.entries(args))
    out[k] = Array.isArray(v) ? await Promise.all(v.map((e) => move(k, e))) : await move(k, v);
  return out;
}

/** Disposes the GPU tensors among `values`, looking inside lists (tuple results, Tensor[] args). */
function disposeAll(values: readonly unknown[]): void {
  for (const v of values) {
    if (Array.isArray(v)) disposeAll(v);
    else if (v instanceof Tensor && v.device.kind === 'webgpu') v.dispose();
  }
}
