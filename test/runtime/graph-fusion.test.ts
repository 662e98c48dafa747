// Fusion: rule-based grouping by fusion pattern and dialect patterns with levels; fused and unfused graphs agree and launch fewer kernels.

import { describe, expect, it } from 'vitest';
import { gpuSync, ops, randomUniform, type Tensor } from '../../runtime/src/index.ts';
import {
  alt,
  executeCounted,
  fuseDialect,
  fuseOps,
  isOp,
  printGraph,
  reduceThenElementwiseCase,
  registerPattern,
  trace,
  wildcard,
  type Graph,
} from '../../runtime/src/graph/index.ts';
import { assertAllClose } from '../support/assert.ts';

/** Runs both graphs; checks values agree and returns the kernel launches of each. */
function compare(
  unfused: Graph,
  fused: Graph,
  inputs: Tensor[],
  tol = { atol: 1e-5, rtol: 1e-5 },
): { unfused: number; fused: number } {
  const a = executeCounted(unfused, inputs);
  const b = executeCounted(fused, inputs);
  a.outputs.forEach((t, i) =>
    assertAllClose(Array.from(b.outputs[i]!.dataSync()), Array.from(t.dataSync()), tol, `output ${i} fused vs unfused`),
  );
  return { unfused: a.launches, fused: b.launches };
}

const spec = (name: string, shape: number[]) => ({ name, shape, dtype: 'float32' as const });

describe('rule-based fusion (FuseTVM)', () => {
  it('fuses five elementwise calls into the reduction that feeds them: 6 launches become 1', () => {
    const c = reduceThenElementwiseCase(64, 128);
    expect(c.fused.nodes).toHaveLength(1);
    expect(printGraph(c.fused)).toContain('Primitive=1, Dialect="cpu"');
    const x = randomUniform([64, 128], { seed: 7 });
    expect(compare(c.unfused, c.fused, [x])).toEqual({ unfused: 6, fused: 1 });
    expect(c.launches()).toEqual({ unfused: 6, fused: 1 });
  });

  it('never fuses across an opaque call; an elementwise chain before it fuses alone', () => {
    const f = (x: Tensor) => ops.add(ops.softmax(ops.multiply(ops.exp(ops.negative(x)), 2), -1), 1);
    const g = trace(f, [spec('x', [8, 16])]);
    const fused = fuseOps(g);
    expect(fused.nodes.map((n) => (n.kind === 'call' ? n.op.name : `fused(${n.fn.nodes.length})`))).toEqual([
      'fused(3)',
      'softmax',
      'add',
    ]);
    expect(compare(g, fused, [randomUniform([8, 16], { seed: 1 })])).toEqual({ unfused: 5, fused: 3 });
  });

  it('compiles the elementwise chain feeding a sum into the reduction loop (prologue): 4 launches become 1', () => {
    const f = (x: Tensor, b: Tensor) => ops.sum(ops.exp(ops.multiply(ops.add(x, b), 0.5)), [0]);
    const g = trace(f, [spec('x', [5, 7]), spec('b', [7])]);
    const fused = fuseOps(g);
    expect(
      fused.nodes.map((n) =>
        n.kind === 'call'
          ? n.op.name
          : `fused(${n.fn.nodes.map((c) => (c.kind === 'call' ? c.op.name : '?')).join(',')})`,
      ),
    ).toEqual(['fused(add,multiply,exp,sum)']);
    expect(compare(g, fused, [randomUniform([5, 7], { seed: 8 }), randomUniform([7], { seed: 9 })])).toEqual({
      unfused: 4,
      fused: 1,
    });
  });

  it.each([
    ['a mean over every axis', null, false],
    ['a mean over two axes, kept', [0, -1], true],
    ['a mean over the middle axis', [1], false],
  ] as const)('prologue, %s and an epilogue in one kernel, in float64', (_name, axis, keepdims) => {
    const f = (x: Tensor, y: Tensor) =>
      ops.relu(ops.subtract(ops.mean(ops.multiply(ops.tanh(x), y), axis === null ? null : [...axis], keepdims), 0.1));
    const g = trace(f, [
      { name: 'x', shape: [3, 4, 5], dtype: 'float64' },
      { name: 'y', shape: [4, 1], dtype: 'float64' },
    ]);
    const fused = fuseOps(g);
    expect(fused.nodes).toHaveLength(1);
    const xs = [
      randomUniform([3, 4, 5], { dtype: 'float64', seed: 10, low: -1, high: 1 }),
      randomUniform([4, 1], { dtype: 'float64', seed: 11 }),
    ];
    expect(compare(g, fused, xs, { atol: 1e-12, rtol: 1e-12 })).toEqual({ unfused: 5, fused: 1 });
  });

  it.each([
    ['max', (x: Tensor) => ops.exp(ops.subtract(x, ops.max(ops.multiply(x, 2), [1], true)))],
    ['min', (x: Tensor) => ops.divide(ops.min(ops.abs(ops.subtract(x, 0.25)), [0], false), 3)],
    ['prod', (x: Tensor) => ops.sqrt(ops.prod(ops.add(ops.abs(x), 0.5), null, false))],
  ] as const)('a %s with its prologue and epilogue is one loop nest, in float64', (_name, f) => {
    const g = trace(f, [{ name: 'x', shape: [6, 5], dtype: 'float64' }]);
    const fused = fuseOps(g);
    expect(fused.nodes).toHaveLength(1);
    const x = randomUniform([6, 5], { dtype: 'float64', seed: 13, low: -1, high: 1 });
    expect(compare(g, fused, [x], { atol: 1e-12, rtol: 1e-12 })).toEqual({ unfused: 4, fused: 1 });
  });

  it('a reduction whose epilogue broadcasts it to another shape keeps its prologue in its loop', () => {
    const g = trace(
      (x: Tensor, y: Tensor) => ops.multiply(ops.add(ops.sum(ops.exp(x), [1], true), y), 2),
      [spec('x', [4, 8]), spec('y', [4, 16])],
    );
    const fused = fuseOps(g);
    expect(fused.nodes).toHaveLength(1);
    expect(compare(g, fused, [randomUniform([4, 8], { seed: 1 }), randomUniform([4, 16], { seed: 2 })])).toEqual({
      unfused: 4,
      fused: 1,
    });
  });

  it('keeps a prologue value that something else reads outside the reduction', () => {
    const g = trace(
      (x: Tensor) => {
        const e = ops.exp(x);
        return ops.add(ops.sum(e, [1], true), e);
      },
      [spec('x', [3, 4])],
    );
    const fused = fuseOps(g);
    expect(compare(g, fused, [randomUniform([3, 4], { seed: 12 })])).toEqual({ unfused: 3, fused: 2 });
  });

  it('fuses a broadcast chain with several outside inputs and keeps values shared with later calls', () => {
    const f = (x: Tensor, b: Tensor) => {
      const h = ops.relu(ops.add(x, b));
      return ops.add(ops.multiply(h, h), ops.sum(h, [0], true));
    };
    const g = trace(f, [spec('x', [4, 6]), spec('b', [6])]);
    const fused = fuseOps(g);
    // h is read three times, so add+relu end one group; sum starts another, and its epilogue takes the multiply's group result.
    expect(compare(g, fused, [randomUniform([4, 6], { seed: 2 }), randomUniform([6], { seed: 3 })])).toEqual({
      unfused: 5,
      fused: 3,
    });
  });
});

describe('pattern-based fusion (FuseDialect)', () => {
  const mlp = (x: Tensor, w: Tensor, b: Tensor) => ops.relu(ops.add(ops.matmul(x, w), b));
  const params = [spec('x', [16, 32]), spec('w', [32, 8]), spec('b', [8])];
  const inputs = () => [
    randomUniform([16, 32], { seed: 4 }),
    randomUniform([32, 8], { seed: 5 }),
    randomUniform([8], { seed: 6 }),
  ];

  it('dispatches matmul + bias + activation as one op, printed as a primitive function', () => {
    const g = trace(mlp, params);
    const fused = fuseDialect(g);
    expect(printGraph(fused)).toBe(
      [
        'fn (%x: Tensor[(16, 32), float32], %w: Tensor[(32, 8), float32], %b: Tensor[(8,), float32]) {',
        '  %0 = fn (%p0: Tensor[(16, 32), float32], %p1: Tensor[(32, 8), float32], %p2: Tensor[(8,), float32], Primitive=1, Dialect="cpu", PatternName="matmul_fusion") {',
        '    %1 = raf.op.matmul(%p0, %p1);',
        '    %2 = raf.op.add(%1, %p2);',
        '    %3 = raf.op.relu(%2);',
        '    %3',
        '  };',
        '  %4 = %0(%x, %w, %b);',
        '  %4',
        '}',
      ].join('\n'),
    );
    expect(compare(g, fused, inputs())).toEqual({ unfused: 3, fused: 1 });
  });

  it('runs before the rule-based pass, which fuses what is left (a two-layer MLP with softmax)', () => {
    const f = (x: Tensor, w: Tensor, b: Tensor, w2: Tensor) =>
      ops.softmax(ops.multiply(ops.matmul(mlp(x, w, b), w2), 0.5), -1);
    const g = trace(f, [...params, spec('w2', [8, 4])]);
    const both = fuseOps(fuseDialect(g));
    expect(both.nodes.map((n) => (n.kind === 'call' ? n.op.name : (n.origin.pattern ?? 'rules')))).toEqual([
      'matmul_fusion',
      'rules',
      'softmax',
    ]);
    expect(compare(g, both, [...inputs(), randomUniform([8, 4], { seed: 7 })])).toEqual({ unfused: 6, fused: 3 });
  });
});

describe('fused kernels on WebGPU (one WGSL pipeline per group)', async () => {
  const { initWebGpu } = await import('../../runtime/src/index.ts');
  const gpu = await initWebGpu().catch(() => null);
  if (!gpu && (process.env.CI || process.env.RAF_REQUIRE_WEBGPU === '1'))
    throw new Error('WebGPU is required here but no adapter was found');
  const { moveGraph } = await import('../../runtime/src/graph/index.ts');

  /**
   * Runs both graphs on WebGPU; values must agree with each other and with the CPU. Returns the calls each graph
   * dispatched (a fused group counts once) and the compute passes the GPU actually ran.
   */
  async function onGpu(
    unfused: Graph,
    fused: Graph,
    inputs: Tensor[],
  ): Promise<{ unfused: number; fused: number; gpuUnfused: number; gpuFused: number }> {
    const [u, f] = [await moveGraph(unfused, 'webgpu'), await moveGraph(fused, 'webgpu')];
    const xs = await Promise.all(inputs.map((x) => x.to('webgpu')));
    const passes = () => gpu!.pipelines.dispatches;
    const p0 = passes();
    const a = executeCounted(u, xs);
    const p1 = passes();
    const b = executeCounted(f, xs);
    const p2 = passes();
    const cpu = executeCounted(unfused, inputs).outputs;
    for (const [i, t] of a.outputs.entries()) {
      const [gu, gf] = [Array.from(await t.data()), Array.from(await b.outputs[i]!.data())];
      assertAllClose(gf, gu, { atol: 1e-4, rtol: 1e-4 }, `output ${i} fused vs unfused on WebGPU`);
      assertAllClose(gu, Array.from(cpu[i]!.dataSync()), { atol: 1e-3, rtol: 1e-3 }, `output ${i} WebGPU vs CPU`);
    }
    expect(b.outputs[0]!.device.kind).toBe('webgpu');
    expect(gpu!.uncapturedErrors).toEqual([]);
    expect(gpu!.pipelines.errors).toEqual([]);
    return { unfused: a.launches, fused: b.launches, gpuUnfused: p1 - p0, gpuFused: p2 - p1 };
  }

  it.skipIf(!gpu)('reduction + five elementwise calls: 6 launches become 1 compute pass', async () => {
    const c = reduceThenElementwiseCase(64, 128);
    expect(await onGpu(c.unfused, c.fused, [randomUniform([64, 128], { seed: 7 })])).toEqual({
      unfused: 6,
      fused: 1,
      gpuUnfused: 6,
      gpuFused: 1,
    });
  });

  it.skipIf(!gpu)(
    'an elementwise prologue feeding a short sum (one invocation per cell): 4 passes become 1',
    async () => {
      const g = trace(
        (x: Tensor, b: Tensor) => ops.sum(ops.exp(ops.multiply(ops.add(x, b), 0.5)), [0]),
        [spec('x', [5, 7]), spec('b', [7])],
      );
      const xs = [randomUniform([5, 7], { seed: 8 }), randomUniform([7], { seed: 9 })];
      expect(await onGpu(g, fuseOps(g), xs)).toEqual({ unfused: 4, fused: 1, gpuUnfused: 4, gpuFused: 1 });
    },
  );

  it.skipIf(!gpu).each([
    ['a mean over every axis', null, false],
    ['a mean over the outer and inner axes, kept', [0, -1], true],
    ['a mean over the middle axis', [1], false],
  ] as const)('prologue, %s and an epilogue: 5 passes become 1', async (_name, axis, keepdims) => {
    const f = (x: Tensor, y: Tensor) =>
      ops.relu(ops.subtract(ops.mean(ops.multiply(ops.tanh(x), y), axis === null ? null : [...axis], keepdims), 0.1));
    const g = trace(f, [spec('x', [3, 40, 50]), spec('y', [40, 1])]);
    const xs = [randomUniform([3, 40, 50], { seed: 10, low: -1, high: 1 }), randomUniform([40, 1], { seed: 11 })];
    expect(await onGpu(g, fuseOps(g), xs)).toEqual({ unfused: 5, fused: 1, gpuUnfused: 5, gpuFused: 1 });
  });

  it.skipIf(!gpu)(
    'a max over the leading axis read back by broadcasting (x - max(x, 0)): 2 passes become 1',
    async () => {
      const g = trace((x: Tensor) => ops.exp(ops.subtract(x, ops.max(x, [0], false))), [spec('x', [300, 7])]);
      expect(await onGpu(g, fuseOps(g), [randomUniform([300, 7], { seed: 3, low: -2, high: 2 })])).toEqual({
        unfused: 3,
        fused: 1,
        gpuUnfused: 3,
        gpuFused: 1,
      });
    },
  );

  it.skipIf(!gpu)(
    'an epilogue of another shape than the reduction input: the reduction with its prologue, then one elementwise pass',
    async () => {
      const g = trace(
        (x: Tensor, y: Tensor) => ops.multiply(ops.add(ops.sum(ops.exp(x), [1], true), y), 2),
        [spec('x', [4, 8]), spec('y', [4, 16])],
      );
      expect(
        await onGpu(g, fuseOps(g), [randomUniform([4, 8], { seed: 1 }), randomUniform([4, 16], { seed: 2 })]),
      ).toEqual({ unfused: 4, fused: 1, gpuUnfused: 4, gpuFused: 2 });
    },
  );

  it.skipIf(!gpu).each([
    [
      'max over a long row (a workgroup per cell)',
      (x: Tensor) => ops.exp(ops.subtract(x, ops.max(ops.multiply(x, 2), [1], true))),
      [8, 300],
    ],
    [
      'min over a short column',
      (x: Tensor) => ops.divide(ops.min(ops.abs(ops.subtract(x, 0.25)), [0], false), 3),
      [6, 5],
    ],
    ['prod over everything', (x: Tensor) => ops.sqrt(ops.prod(ops.add(ops.abs(x), 0.5), null, false)), [6, 5]],
  ] as const)('a %s with its prologue and epilogue: 4 passes become 1', async (_name, f, shape) => {
    const g = trace(f, [spec('x', [...shape])]);
    expect(await onGpu(g, fuseOps(g), [randomUniform([...shape], { seed: 13, low: -1, high: 1 })])).toEqual({
      unfused: 4,
      fused: 1,
      gpuUnfused: 4,
      gpuFused: 1,
    });
  });

  it.skipIf(!gpu)(
    'matmul with a bias, relu and scale epilogue by the rule-based pass alone: 4 passes become 1',
    async () => {
      const g = trace(
        (x: Tensor, w: Tensor, b: Tensor) => ops.multiply(ops.relu(ops.add(ops.matmul(x, w), b)), 0.5),
        [spec('x', [2, 20, 33]), spec('w', [33, 17]), spec('b', [17])],
      );
      const xs = [
        randomUniform([2, 20, 33], { seed: 4 }),
        randomUniform([33, 17], { seed: 5 }),
        randomUniform([17], { seed: 6 }),
      ];
      expect(await onGpu(g, fuseOps(g), xs)).toEqual({ unfused: 4, fused: 1, gpuUnfused: 4, gpuFused: 1 });
    },
  );

  it.skipIf(!gpu)(
    'a matmul large enough for the blocked 64 × 64 pipeline keeps its bias and relu epilogue',
    async () => {
      // 2 × 300 × 530 outputs (over BLOCKED_FROM), with partial tiles on both sides and k = 40 not a multiple of 16.
      const g = trace(
        (x: Tensor, w: Tensor, b: Tensor) => ops.relu(ops.add(ops.matmul(x, w), b)),
        [spec('x', [2, 300, 40]), spec('w', [40, 530]), spec('b', [530])],
      );
      const xs = [
        randomUniform([2, 300, 40], { seed: 4, low: -1 }),
        randomUniform([40, 530], { seed: 5, low: -1 }),
        randomUniform([530], { seed: 6, low: -1 }),
      ];
      expect(await onGpu(g, fuseOps(g), xs)).toEqual({ unfused: 3, fused: 1, gpuUnfused: 3, gpuFused: 1 });
      expect(gpu!.pipelines.compiledPipelineKeys().some((k) => k.startsWith('webgpu:matrix_product|f32|b64r'))).toBe(
        true,
      );
    },
  );

  it.skipIf(!gpu)('dense with a tanh epilogue: 2 passes become 1', async () => {
    const g = trace(
      (x: Tensor, w: Tensor, b: Tensor) => ops.tanh(ops.dense(x, w, b)),
      [spec('x', [9, 12]), spec('w', [5, 12]), spec('b', [5])],
    );
    const xs = [
      randomUniform([9, 12], { seed: 4 }),
      randomUniform([5, 12], { seed: 5 }),
      randomUniform([5], { seed: 6 }),
    ];
    expect(await onGpu(g, fuseOps(g), xs)).toEqual({ unfused: 2, fused: 1, gpuUnfused: 2, gpuFused: 1 });
  });

  it.skipIf(!gpu)(
    'a negative base raised to an integral power (x ** 2 of a layer norm, a cube) as the CPU gives it, in a reduction, a chain and a matrix epilogue',
    async () => {
      const g = trace(
        (x: Tensor, w: Tensor) => {
          const centred = ops.subtract(x, ops.mean(x, [-1], true));
          const norm = ops.divide(centred, ops.sqrt(ops.add(ops.mean(ops.power(centred, 2), [-1], true), 1e-5)));
          const cube = ops.power(ops.subtract(x, 0.5), 3);
          return ops.add(ops.power(ops.matmul(norm, w), 2), ops.sum(cube, [-1], true));
        },
        [spec('x', [6, 16]), spec('w', [16, 16])],
      );
      const xs = [
        randomUniform([6, 16], { seed: 21, low: -2, high: 1 }),
        randomUniform([16, 16], { seed: 22, low: -1 }),
      ];
      // WGSL's own pow(x, y) is NaN for every x < 0: the fused text calls a helper with the CPU's signs.
      const r = await onGpu(g, fuseOps(g), xs);
      expect(r.fused).toBeLessThan(r.unfused);
    },
  );

  it.skipIf(!gpu)(
    'a clip to +Infinity (an open bound, which WGSL cannot spell) runs, and no pipeline fails',
    async () => {
      const g = trace((x: Tensor) => ops.log(ops.clip(ops.multiply(x, 3), 1e-10, Infinity)), [spec('x', [4, 50])]);
      const xs = [randomUniform([4, 50], { seed: 23, low: -1, high: 1 })];
      await onGpu(g, fuseOps(g), xs);
    },
  );

  it.skipIf(!gpu)('reading what a pipeline that failed to compile wrote rejects with the compile error', async () => {
    const { elementwise } = await import('../../runtime/src/dialects/webgpu/elementwise.ts');
    const broken = elementwise({
      op: 'broken_for_test',
      inputs: ['x'],
      attrs: [],
      out: 'float',
      expr: 'v_x + no_such_value',
      helpers: '',
    });
    const x = await randomUniform([8], { seed: 24 }).to('webgpu');
    const kernel = broken({}, { shape: [8], dtype: 'float32' }, { x } as never) as (...a: unknown[]) => Tensor;
    const y = kernel({ x }, {}, { shape: [8], dtype: 'float32' });
    const errorsBefore = gpu!.pipelines.errors.length;
    await expect(y.data()).rejects.toThrow(/broken_for_test.*failed to compile/);
    // What is computed from it fails the same way instead of reading garbage.
    await expect(ops.exp(y).data()).rejects.toThrow(/failed to compile/);
    expect(gpu!.pipelines.errors.length).toBeGreaterThanOrEqual(errorsBefore);
    // The invalid pipeline's launches also raised uncaptured validation errors: let them land, then forget them all
    // (the other tests check that both lists stay empty).
    await gpuSync();
    await new Promise((resolve) => setTimeout(resolve, 50));
    gpu!.pipelines.errors.length = 0;
    gpu!.uncapturedErrors.length = 0;
  });

  it.skipIf(!gpu)('matmul + bias + relu by pattern, then the rule-based rest', async () => {
    const f = (x: Tensor, w: Tensor, b: Tensor) =>
      ops.softmax(ops.multiply(ops.relu(ops.add(ops.matmul(x, w), b)), 0.5), -1);
    const g = trace(f, [spec('x', [16, 32]), spec('w', [32, 8]), spec('b', [8])]);
    const fused = fuseOps(fuseDialect(g));
    const xs = [
      randomUniform([16, 32], { seed: 4 }),
      randomUniform([32, 8], { seed: 5 }),
      randomUniform([8], { seed: 6 }),
    ];
    expect(await onGpu(g, fused, xs)).toMatchObject({ unfused: 5, fused: 3 });
  });
});

// Last: registering a pattern changes what every later fuseDialect call in this file sees.
describe('pattern levels', () => {
  it('tries higher levels first', () => {
    registerPattern(isOp('relu')(alt(isOp('add')(wildcard(), wildcard()), wildcard())), 'cpu', 20, 'add_relu');
    const g = trace(
      (x: Tensor, w: Tensor, b: Tensor) => ops.relu(ops.add(ops.matmul(x, w), b)),
      [spec('x', [16, 32]), spec('w', [32, 8]), spec('b', [8])],
    );
    const fused = fuseDialect(g);
    const text = printGraph(fused);
    expect(text).toContain('PatternName="add_relu"');
    expect(text).toContain('%0 = raf.op.matmul(%x, %w);');
    expect(
      compare(g, fused, [
        randomUniform([16, 32], { seed: 4 }),
        randomUniform([32, 8], { seed: 5 }),
        randomUniform([8], { seed: 6 }),
      ]),
    ).toEqual({ unfused: 3, fused: 2 });
  });
});
