// opcheck on built-in ops, and on registrations broken on purpose: each broken piece must be the check that fails.

import { describe, expect, it } from 'vitest';
import { randomUniform, tensor } from '../../runtime/src/index.ts';
import {
  allocOut,
  finish,
  getOp,
  installOps,
  opcheck,
  OpcheckError,
  registerDialectOps,
  type AnyOpDef,
  type DialectOp,
} from '../../runtime/src/extend.ts';

const x = () => randomUniform([2, 3], { dtype: 'float32', seed: 3, low: -1, high: 1 });

/** leaky_relu under another name, with a CPU kernel that may ignore alpha or drop it from its cache key. */
function fakeLeakyRelu(
  name: string,
  kernel: { ignoreAlpha?: boolean; keyOmitsAlpha?: boolean; grad?: boolean; transposed?: boolean },
): AnyOpDef {
  const base = getOp('leaky_relu');
  const def: AnyOpDef = { ...base, name, grad: kernel.grad === false ? null : base.grad };
  installOps({ [name]: def });
  const cpu: DialectOp<{ x: ReturnType<typeof x>; alpha: number }, { x: ReturnType<typeof x> }, { alpha: number }> = {
    op: name,
    dialect: 'cpu',
    level: 10,
    bridge: {
      inputs: (a) => ({ x: a.x }),
      attrs: (a) => ({ alpha: a.alpha }),
      key: (a, out) => (kernel.keyOmitsAlpha ? out.dtype : `${out.dtype}|${a.alpha}`),
    },
    // The kernel closes over the alpha it was built for, as a compiled WGSL pipeline would.
    build: (attrs) => (inputs, _attrs, out) => {
      const r = allocOut(kernel.transposed ? { ...out, shape: [...out.shape].reverse() } : out);
      const ys = r.dataSync();
      const xs = inputs.x.dataSync();
      const alpha = kernel.ignoreAlpha ? 0.01 : attrs.alpha;
      for (let i = 0; i < ys.length; i++) ys[i] = xs[i]! > 0 ? xs[i]! : alpha * xs[i]!;
      return finish(r);
    },
  };
  registerDialectOps([cpu]);
  return def;
}

describe('opcheck', () => {
  it('passes a built-in op on every check, with the attr varied', async () => {
    const report = await opcheck('leaky_relu', [{ args: [x(), 0.2] }], { dialects: ['cpu'] });
    const checks = new Set(report.results.map((r) => r.check));
    expect([...checks].sort()).toEqual(['attr', 'gradient', 'graph', 'schema', 'type']);
    expect(report.failures).toEqual([]);
    expect(report.results.find((r) => r.check === 'attr')!.message).toMatch(/alpha = .* changes the result/);
  });

  it('passes softmax with its axis varied and a reduction (sum) with keepdims', async () => {
    const t = randomUniform([3, 4], { dtype: 'float64', seed: 5 });
    await expect(opcheck('softmax', [{ args: [t, 1] }], { dialects: ['cpu'] })).resolves.toBeTruthy();
    await expect(opcheck('sum', [{ args: [t, 0, true] }], { dialects: ['cpu'] })).resolves.toBeTruthy();
  });

  it('fails a kernel that ignores an attr', async () => {
    const op = fakeLeakyRelu('opcheck_ignores_alpha', { ignoreAlpha: true });
    const err = await opcheck(op, [{ args: [x(), 0.2] }], { dialects: ['cpu'] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpcheckError);
    const failed = (err as OpcheckError).report.failures.map((f) => f.check);
    // The gradient is leaky_relu's own (alpha-aware), so the ignored alpha shows there too.
    expect(failed).toContain('attr');
    expect((err as OpcheckError).message).toMatch(/changing 'alpha' from 0.2 to .* leaves the result unchanged/);
  });

  it('fails a bridge whose cache key omits an attr, though the kernel honours it when built', async () => {
    const op = fakeLeakyRelu('opcheck_key_omits_alpha', { keyOmitsAlpha: true, grad: false });
    const report = await opcheck(op, [{ args: [x(), 0.2] }], { dialects: ['cpu'], throws: false });
    expect(report.failures.map((f) => f.check)).toEqual(['attr']);
  });

  it('fails a gradient that does not match central differences', async () => {
    const base = getOp('leaky_relu');
    const name = 'opcheck_bad_grad';
    fakeLeakyRelu(name, {});
    const def = getOp(name);
    def.grad = { ...base.grad!, fn: (ctx) => ({ x: ctx.dy as never }) }; // d/dx = 1 everywhere: wrong for x < 0
    const report = await opcheck(def, [{ args: [tensor([[-1, 2, -3]]), 0.2] }], { dialects: ['cpu'], throws: false });
    expect(report.failures.map((f) => f.check)).toEqual(['gradient']);
  });

  it('fails a kernel whose output shape is not the one the type function declared', async () => {
    const op = fakeLeakyRelu('opcheck_bad_shape', { grad: false, transposed: true });
    const report = await opcheck(op, [{ args: [x(), 0.2] }], { dialects: ['cpu'], throws: false });
    const type = report.failures.find((f) => f.check === 'type');
    expect(type?.message).toBe('output 0 is float32 [3,2], the type function says float32 [2,3]');
  });
});
