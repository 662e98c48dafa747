// ort regions: connected calls with ONNX mappings run as one onnxruntime session each. Region-fused graphs agree with
// the unfused graph (raf-op's own kernels: a different order of float32 sums) within the suite's float32 tolerance
// (1e-4), with a float64 reference, and with onnxruntime-node running a
// whole corpus model; printGraph shows each region and its ops; calls onnxruntime cannot run split regions.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { grad, loadOnnx, ops, randomUniform, tensor, withDialect, type Tensor } from '../../runtime/src/index.ts';
import {
  dissolveOrtRegions,
  execute,
  fuseDialect,
  isOrtRegion,
  moveGraph,
  ortRegions,
  printGraph,
  REGION_SIGNATURES,
  trace,
  type Graph,
} from '../../runtime/src/graph/index.ts';
import { ortStats } from '../../runtime/src/dialects/ort/index.ts';
import { encodeGraphModel } from '../../runtime/src/dialects/ort/proto.ts';
import { feedsFor, ortFeeds, ortSession } from '../onnx-corpus/compare.ts';
import { CORPUS, corpusFile } from '../onnx-corpus/fetch.ts';
import { assertAllClose, tolerance } from '../support/assert.ts';
import { useWebGpu } from '../support/webgpu-context.ts';

const spec = (name: string, shape: number[]) => ({ name, shape, dtype: 'float32' as const });
const TOL = tolerance('float32');
const needGpu = useWebGpu();
/** Each node as its op, an ort region as `ort[op,op,...]`. */
const layout = (g: Graph) =>
  g.nodes.map((n) => (isOrtRegion(n) ? `ort[${n.args[1].ops.join(',')}]` : n.kind === 'call' ? n.op.name : 'fused'));
const values = (t: Tensor) => Array.from(t.dataSync());

/** Runs both graphs on the inputs; every output of `fused` equals `plain`'s within TOL. */
function agree(plain: Graph, fused: Graph, inputs: Tensor[]): Tensor[] {
  const a = execute(plain, inputs);
  const b = execute(fused, inputs);
  expect(b).toHaveLength(a.length);
  a.forEach((t, i) => assertAllClose(values(b[i]!), values(t), TOL, `output ${i}: regions vs unfused`));
  return b;
}

describe('ort regions on an MLP', () => {
  const mlp = (x: Tensor, w: Tensor, b: Tensor, w2: Tensor, b2: Tensor) =>
    ops.softmax(ops.add(ops.matmul(ops.relu(ops.add(ops.matmul(x, w), b)), w2), b2), -1);
  // 256² · 256² matmuls: above the ort threshold for matmul (3 · 256² elements of work).
  const params = [
    spec('x', [256, 256]),
    spec('w', [256, 256]),
    spec('b', [256]),
    spec('w2', [256, 10]),
    spec('b2', [10]),
  ];
  const inputs = () => params.map((p, i) => randomUniform(p.shape, { seed: 11 + i }));

  it('becomes one session, printed as a fused group of dialect ort, equal to the unfused graph and to float64', () => {
    const g = trace(mlp, params);
    const before = ortStats();
    const r = ortRegions(g);
    expect(layout(r)).toEqual(['ort[matmul,add,relu,matmul,add,softmax]']);
    expect(printGraph(r)).toBe(
      [
        'fn (%x: Tensor[(256, 256), float32], %w: Tensor[(256, 256), float32], %b: Tensor[(256,), float32], %w2: Tensor[(256, 10), float32], %b2: Tensor[(10,), float32]) {',
        '  %0 = fn (%p0: Tensor[(256, 256), float32], %p1: Tensor[(256, 256), float32], %p2: Tensor[(256,), float32], %p3: Tensor[(256, 10), float32], %p4: Tensor[(10,), float32], Primitive=1, Dialect="ort", PatternName="ort_region", Ops="matmul,add,relu,matmul,add,softmax") {',
        '    %1 = raf.op.matmul(%p0, %p1);',
        '    %2 = raf.op.add(%1, %p2);',
        '    %3 = raf.op.relu(%2);',
        '    %4 = raf.op.matmul(%3, %p3);',
        '    %5 = raf.op.add(%4, %p4);',
        '    %6 = raf.op.softmax(%5, -1);',
        '    %6',
        '  };',
        '  %7 = %0(%x, %w, %b, %w2, %b2);',
        '  %7',
        '}',
      ].join('\n'),
    );
    const ins = inputs();
    const [out] = agree(g, r, ins);
    // One onnxruntime run per graph run, and the same region built again reuses its session.
    const mid = ortStats();
    execute(r, ins);
    expect(ortStats().runs - mid.runs).toBe(1);
    ortRegions(g);
    expect(ortStats().sessions - before.sessions).toBe(mid.sessions - before.sessions);
    // float64 reference, written out here.
    const [x, w, b, w2, b2] = ins.map(values);
    const ref: number[] = [];
    for (let i = 0; i < 256; i++) {
      const h = Array.from({ length: 256 }, (_, j) => {
        let s = b![j]!;
        for (let k = 0; k < 256; k++) s += x![i * 256 + k]! * w![k * 256 + j]!;
        return Math.max(s, 0);
      });
      const z = Array.from({ length: 10 }, (_, j) => {
        let s = b2![j]!;
        for (let k = 0; k < 256; k++) s += h[k]! * w2![k * 10 + j]!;
        return s;
      });
      const m = Math.max(...z);
      const e = z.map((v) => Math.exp(v - m));
      const sum = e.reduce((p, q) => p + q, 0);
      ref.push(...e.map((v) => v / sum));
    }
    assertAllClose(values(out!), ref, TOL, 'regions vs float64');
  });

  it('leaves a small graph alone unless ort is pinned at the pass; unpinned at run time the calls run in raf-op', () => {
    const small = [spec('x', [4, 8]), spec('w', [8, 6]), spec('b', [6]), spec('w2', [6, 3]), spec('b2', [3])];
    const g = trace(mlp, small);
    expect(ortRegions(g)).toBe(g);
    const r = withDialect(['ort', 'wasm', 'cpu'], () => ortRegions(g));
    expect(layout(r)).toEqual(['ort[matmul,add,relu,matmul,add,softmax]']);
    expect(layout(ortRegions(g, { all: true }))).toEqual(layout(r));
    const ins = small.map((p, i) => randomUniform(p.shape, { seed: 3 + i }));
    const runs = ortStats().runs;
    agree(g, r, ins);
    expect(ortStats().runs).toBe(runs + 1);
    const pinned = withDialect(['wasm', 'cpu'], () => execute(r, ins));
    assertAllClose(values(pinned[0]!), values(execute(g, ins)[0]!), TOL, 'region run by raf-op under a wasm pin');
    expect(ortStats().runs).toBe(runs + 1);
  });

  it('refuses a gradient through a region, naming it, rather than treating the region as a constant', () => {
    const g = trace(mlp, params);
    const r = ortRegions(g);
    const ins = inputs();
    const loss = (x: Tensor) => ops.sum(execute(r, [x, ...ins.slice(1)])[0]!);
    expect(() => grad(loss)(ins[0]!)).toThrow(/ort_region.*no gradient/);
  });

  it("is what fuseDialect does for the dialect 'ort', before the cpu patterns", () => {
    const g = trace(mlp, params);
    expect(layout(fuseDialect(g, { dialects: ['ort', 'cpu'] }))).toEqual(['ort[matmul,add,relu,matmul,add,softmax]']);
    expect(layout(fuseDialect(g, { dialects: ['cpu'] }))).toEqual(['fused', 'fused', 'softmax']);
  });
});

describe('ort regions on a conv net', () => {
  const net = (x: Tensor, w1: Tensor, b1: Tensor, w2: Tensor, w3: Tensor, b3: Tensor) => {
    let h = ops.relu(ops.add(ops.conv2d(x, w1, [1, 1], [1, 1, 1, 1]), b1));
    h = ops.maxPool2d(h, [3, 3], [2, 2], [1, 1, 1, 1]);
    h = ops.relu(ops.conv2d(h, w2, [1, 1], [1, 1, 1, 1]));
    return ops.add(ops.matmul(ops.flatten(ops.globalAvgPool2d(h)), w3), b3);
  };
  const params = [
    spec('x', [1, 16, 32, 32]),
    spec('w1', [32, 16, 3, 3]),
    spec('b1', [32, 1, 1]),
    spec('w2', [32, 32, 3, 3]),
    spec('w3', [32, 10]),
    spec('b3', [10]),
  ];

  it('conv + bias + relu, pooling and the head become one session equal to the unfused graph', () => {
    const g = trace(net, params);
    const r = ortRegions(g);
    expect(layout(r)).toEqual(['ort[conv2d,add,relu,max_pool2d,conv2d,relu,global_avg_pool2d,flatten,matmul,add]']);
    expect(printGraph(r)).toContain(
      'Dialect="ort", PatternName="ort_region", Ops="conv2d,add,relu,max_pool2d,conv2d,relu,global_avg_pool2d,flatten,matmul,add"',
    );
    agree(
      g,
      r,
      params.map((p, i) => randomUniform(p.shape, { seed: 21 + i })),
    );
  });
});

describe('ort regions with a tuple op', () => {
  it('split inside a region: each of its outputs is a value of the model; one read outside is returned', () => {
    const f = (x: Tensor, w: Tensor) => {
      const [a, b] = ops.split(ops.matmul(x, w), 2, 1) as Tensor[];
      return [ops.multiply(ops.relu(a!), ops.sigmoid(b!)), b!] as Tensor[];
    };
    const params = [spec('x', [256, 256]), spec('w', [256, 256])];
    const g = trace(f, params);
    const r = ortRegions(g);
    expect(layout(r)).toEqual(['ort[matmul,split,relu,sigmoid,multiply]']);
    expect(printGraph(r)).toMatch(/%(\d+) = %\d+\(%x, %w\);\n {2}\(%\1\.1, %\1\.0\)\n}$/);
    agree(
      g,
      r,
      params.map((p, i) => randomUniform(p.shape, { seed: 61 + i })),
    );
  });
});

describe('calls below their thresholds count together; int64 ids pass into a region', () => {
  // Token ids (int64) → embedding rows → `layers` dense layers of 128 × 128 on 128 rows: each matmul's work
  // (3 · 128² elements) is a third of matmul's threshold, so one alone, or two, stay on raf-op's kernels; four
  // together reach it, and the embedding, reading the int64 ids, joins them in the region.
  const V = 50;
  const D = 128;
  const net =
    (layers: number) =>
    (ids: Tensor, table: Tensor, ...ws: Tensor[]) => {
      let h = ops.embedding(table, ids);
      for (let l = 0; l < layers; l++) h = ops.relu(ops.matmul(h, ws[l]!));
      return h;
    };
  const params = (layers: number) => [
    { name: 'ids', shape: [1, 128], dtype: 'int64' as const },
    spec('table', [V, D]),
    ...Array.from({ length: layers }, (_, l) => spec(`w${l}`, [D, D])),
  ];
  const inputs = (layers: number) => [
    tensor(
      Array.from({ length: 128 }, (_, i) => (i * 7 + 3) % V),
      { dtype: 'int64', shape: [1, 128] },
    ),
    randomUniform([V, D], { seed: 71, low: -1, high: 1 }),
    ...Array.from({ length: layers }, (_, l) => randomUniform([D, D], { seed: 72 + l, low: -0.2, high: 0.2 })),
  ];
  /** The same network in float64 from the float32 inputs. */
  const reference = (ins: Tensor[]): number[] => {
    const ids = Array.from(ins[0]!.dataSync());
    const table = ins[1]!.dataSync();
    let h = ids.map((k) => Array.from({ length: D }, (_, j) => table[k * D + j]!));
    for (const w of ins.slice(2).map((t) => t.dataSync()))
      h = h.map((row) =>
        Array.from({ length: D }, (_, j) =>
          Math.max(
            0,
            row.reduce((acc, v, k) => acc + v * w[k * D + j]!, 0),
          ),
        ),
      );
    return h.flat();
  };

  it('two 128² matmuls stay on raf-op; four become one region with the embedding, equal to float64', () => {
    const two = trace(net(2), params(2));
    expect(ortRegions(two)).toBe(two);
    const g = trace(net(4), params(4));
    const r = ortRegions(g);
    expect(layout(r)).toEqual(['ort[embedding,matmul,relu,matmul,relu,matmul,relu,matmul,relu]']);
    const ins = inputs(4);
    const [out] = agree(g, r, ins);
    assertAllClose(values(out!), reference(ins), TOL, 'region vs float64');
    // An id past the table: onnxruntime refuses the run, the region's calls run again on raf-op's kernels, and the
    // error names the op and the argument, as without regions.
    const bad = tensor(
      Array.from({ length: 128 }, (_, i) => (i === 9 ? V + 10 : i % V)),
      { dtype: 'int64', shape: [1, 128] },
    );
    expect(() => execute(r, [bad, ...ins.slice(1)])).toThrow(
      /raf\.op\.embedding \(argument 'indices'\): index 60 is out of range for axis of size 50/,
    );
  });
});

describe('regions split around what onnxruntime cannot run', () => {
  it('a call with no ort dialect op (matmul_nt) splits a chain into two regions', () => {
    const f = (x: Tensor, w: Tensor, b: Tensor, v: Tensor, w3: Tensor, b3: Tensor) => {
      const h = ops.relu(ops.add(ops.matmul(x, w), b));
      return ops.relu(ops.add(ops.matmul(ops.matmulNt(h, v), w3), b3));
    };
    const params = [
      spec('x', [64, 128]),
      spec('w', [128, 64]),
      spec('b', [64]),
      spec('v', [128, 64]),
      spec('w3', [128, 64]),
      spec('b3', [64]),
    ];
    const g = trace(f, params);
    const r = ortRegions(g, { all: true }); // what splits the regions, whatever their work
    expect(layout(r)).toEqual(['ort[matmul,add,relu]', 'matmul_nt', 'ort[matmul,add,relu]']);
    agree(
      g,
      r,
      params.map((p, i) => randomUniform(p.shape, { seed: 31 + i })),
    );
  });

  it('a call onnxruntime refuses in a model (Conv in float64: no kernel) is left out, the rest is one region', () => {
    const f = (x: Tensor, w: Tensor, w2: Tensor, b: Tensor) =>
      ops.add(ops.matmul(ops.flatten(ops.relu(ops.conv2d(x, w, [1, 1], [1, 1, 1, 1]))), w2), b);
    const shapes = [[4, 8, 8, 8], [8, 8, 3, 3], [512, 64], [64]];
    const g = trace(
      f,
      shapes.map((s, i) => ({ name: 'xwvb'[i]!, shape: s, dtype: 'float64' as const })),
    );
    const r = ortRegions(g, { all: true });
    expect(layout(r)).toEqual(['conv2d', 'ort[relu,flatten,matmul,add]']);
    const ins = shapes.map((s, i) => randomUniform(s, { seed: 51 + i, dtype: 'float64' }));
    agree(g, r, ins);
    const runs = ortStats().runs;
    execute(r, ins);
    expect(ortStats().runs).toBe(runs + 1);
  });

  it('a value read outside and fed back in ends its region: no cycle through the outside', () => {
    // a feeds matmul_nt (outside) and relu; add reads relu's result and matmul_nt's, so it cannot join a's region.
    const f = (x: Tensor, w: Tensor, v: Tensor, w3: Tensor) => {
      const a = ops.matmul(x, w);
      const y = ops.add(ops.relu(a), ops.matmulNt(a, v));
      return ops.matmul(ops.sigmoid(y), w3);
    };
    const params = [spec('x', [64, 128]), spec('w', [128, 64]), spec('v', [64, 64]), spec('w3', [64, 32])];
    const g = trace(f, params);
    const r = ortRegions(g, { all: true });
    expect(layout(r)).toEqual(['ort[matmul,relu]', 'matmul_nt', 'ort[add,sigmoid,matmul]']);
    // The first region returns both a (read by matmul_nt) and relu(a) (read by the second region).
    const text = printGraph(r);
    expect(text).toMatch(/%(\d+) = %\d+\(%x, %w\);\n.*raf\.op\.matmul_nt\(%\1\.0, %v\);/);
    expect(text).toMatch(/= %\d+\(%\d+\.1, %\d+, %w3\);/);
    agree(
      g,
      r,
      params.map((p, i) => randomUniform(p.shape, { seed: 41 + i })),
    );
  });
});

describe("loadOnnx forms ort regions by default where its heavy calls reach a threshold, at a signature's second run", () => {
  // x · w + b, relu: an ONNX model whose input has no declared shape, so one session runs at any batch size.
  const K = 256;
  const w = Array.from({ length: K * K }, (_, i) => Math.sin(i * 0.013) / 16);
  const b = Array.from({ length: K }, (_, i) => Math.cos(i * 0.7) / 8);
  const bytes = encodeGraphModel({
    opset: 17,
    nodes: [
      { opType: 'MatMul', inputs: ['x', 'w'], outputs: ['h'], attrs: {} },
      { opType: 'Add', inputs: ['h', 'b'], outputs: ['y'], attrs: {} },
      { opType: 'Relu', inputs: ['y'], outputs: ['z'], attrs: {} },
    ],
    inputs: [{ name: 'x', type: 1, shape: undefined as unknown as number[] }],
    consts: { w: { type: 1, shape: [K, K], data: w }, b: { type: 1, shape: [K], data: b } },
    outputs: ['z'],
  });
  /** relu(x · w + b) in float64, from the float32 values the model holds. */
  const reference = (x: Float32Array, rows: number): number[] => {
    const w32 = Float32Array.from(w);
    const b32 = Float32Array.from(b);
    const out: number[] = [];
    for (let r = 0; r < rows; r++)
      for (let j = 0; j < K; j++) {
        let acc = b32[j]!;
        for (let k = 0; k < K; k++) acc += x[r * K + k]! * w32[k * K + j]!;
        out.push(Math.max(0, acc));
      }
    return out;
  };

  it('at its second run, a batch of 256 rows (matmul work above its threshold) is one region; 4 rows stay on raf-op kernels', () => {
    const s = loadOnnx(bytes);
    const big = randomUniform([256, K], { seed: 5, low: -1, high: 1 });
    const small = randomUniform([4, K], { seed: 6, low: -1, high: 1 });
    const noRegion = (g: Graph) => !layout(g).some((l) => l.startsWith('ort['));
    for (const [x, rows] of [
      [big, 256],
      [small, 4],
    ] as const) {
      // Converted, and run once, a signature's graph is raf-op's calls: a length seen once builds no session.
      expect(noRegion(s.graphFor({ x })), `${rows} rows, before its first run`).toBe(true);
      const want = reference(x.dataSync() as Float32Array, rows);
      assertAllClose(values(s.run({ x }).z!), want, TOL, `${rows} rows, first run, vs float64`);
      expect(noRegion(s.graphFor({ x })), `${rows} rows, after its first run`).toBe(true);
      assertAllClose(values(s.run({ x }).z!), want, TOL, `${rows} rows, second run, vs float64`);
      assertAllClose(values(s.run({ x }).z!), want, TOL, `${rows} rows, third run, vs float64`);
    }
    expect(layout(s.graphFor({ x: big }))).toEqual(['ort[matmul,add,relu]']);
    expect(noRegion(s.graphFor({ x: small }))).toBe(true);
    // Under a pin that leaves ort out, a signature waits for a run that may use onnxruntime.
    const pinned = loadOnnx(bytes);
    for (let i = 0; i < 3; i++) withDialect(['wasm', 'cpu'], () => pinned.run({ x: big }));
    expect(noRegion(pinned.graphFor({ x: big }))).toBe(true);
    assertAllClose(values(pinned.run({ x: big }).z!), reference(big.dataSync() as Float32Array, 256), TOL, 'unpinned');
    expect(layout(pinned.graphFor({ x: big }))).toEqual(['ort[matmul,add,relu]']);
    // ortRegions: true forms them at conversion.
    expect(layout(loadOnnx(bytes, { ortRegions: true }).graphFor({ x: big }))).toEqual(['ort[matmul,add,relu]']);
    // Opted out, the graph stays as converted however often it runs.
    const off = loadOnnx(bytes, { ortRegions: false });
    off.run({ x: big });
    assertAllClose(values(off.run({ x: big }).z!), values(s.run({ x: big }).z!), TOL, 'ortRegions: false vs default');
    expect(noRegion(off.graphFor({ x: big }))).toBe(true);
  });

  it(`keeps regions for ${REGION_SIGNATURES} signatures (the least recently run releases its sessions); release() frees all`, () => {
    const s = loadOnnx(bytes);
    // Batches of 200 rows and more: each signature's matmul is above its threshold.
    const batches = Array.from({ length: REGION_SIGNATURES + 1 }, (_, i) => 200 + i);
    const xs = batches.map((rows, i) => randomUniform([rows, K], { seed: 40 + i, low: -1, high: 1 }));
    const run = (i: number) => values(s.run({ x: xs[i]! }).z!);
    const want = (i: number) => reference(xs[i]!.dataSync() as Float32Array, batches[i]!);
    /** The runner of signature i's region (its graph now has one). */
    const runner = (i: number) => {
      const n = s.graphFor({ x: xs[i]! }).nodes[0]!;
      if (!isOrtRegion(n)) throw new Error(`signature ${i} has no region`);
      return n.args[1].runner;
    };
    const hasRegion = (i: number) => layout(s.graphFor({ x: xs[i]! })).some((l) => l.startsWith('ort['));
    for (let i = 0; i < REGION_SIGNATURES; i++) for (let r = 0; r < 2; r++) run(i);
    expect(s.regionSignatures).toBe(REGION_SIGNATURES);
    const runners = Array.from({ length: REGION_SIGNATURES }, (_, i) => runner(i));
    expect(runners.every((r) => !r.released)).toBe(true);
    const first = s.graphFor({ x: xs[0]! });
    expect(layout(first)).toEqual(['ort[matmul,add,relu]']);
    // Signature 1 is run again, so 0 is the least recently run when the ninth forms its region.
    run(1);
    run(REGION_SIGNATURES);
    assertAllClose(run(REGION_SIGNATURES), want(REGION_SIGNATURES), TOL, 'ninth signature, with its region');
    expect(hasRegion(REGION_SIGNATURES)).toBe(true);
    expect(s.regionSignatures).toBe(REGION_SIGNATURES);
    expect(runners.map((r) => r.released)).toEqual(runners.map((_, i) => i === 0));
    // Signature 0 runs on raf-op's kernels again; the graph taken before refuses to run its released region.
    expect(hasRegion(0)).toBe(false);
    assertAllClose(run(0), want(0), TOL, 'released signature, on raf-op kernels');
    expect(() => execute(first, [xs[0]!])).toThrow(/its session was released/);
    // Run twice more, it forms its region again, and signature 2 (now least recently run) leaves.
    assertAllClose(run(0), want(0), TOL, 'released signature, its region again');
    expect(hasRegion(0)).toBe(true);
    expect(hasRegion(2)).toBe(false);
    expect(runners[2]!.released).toBe(true);
    // release() lets every session go; the session still runs, on raf-op's kernels, then forms regions again.
    const held = [0, 1, 3, 4, 5, 6, 7, REGION_SIGNATURES].map(runner);
    expect(s.release()).toBe(REGION_SIGNATURES);
    expect(held.every((r) => r.released)).toBe(true);
    expect(s.regionSignatures).toBe(0);
    assertAllClose(run(3), want(3), TOL, 'after release, on raf-op kernels');
    expect(hasRegion(3)).toBe(false);
    assertAllClose(run(3), want(3), TOL, 'after release, run twice: its region again');
    expect(hasRegion(3)).toBe(true);
    expect(runner(3).released).toBe(false);
    const converted = loadOnnx(bytes, { ortRegions: true });
    assertAllClose(values(converted.run({ x: xs[4]! }).z!), want(4), TOL, 'ortRegions: true');
    expect(converted.release()).toBe(1);
    assertAllClose(values(converted.run({ x: xs[4]! }).z!), want(4), TOL, 'ortRegions: true, converted again');
  });

  it('shares sessions between signatures whose regions differ in constants only, from their first run', () => {
    // relu(x · w + b + ones(shape(x))) reshaped to [rows, 16, 16]: converted at a batch, the ones are a constant of
    // that batch's shape and the Reshape's target names the batch; the regions' models differ in those alone.
    const model = encodeGraphModel({
      opset: 17,
      nodes: [
        { opType: 'Shape', inputs: ['x'], outputs: ['s'], attrs: {} },
        {
          opType: 'ConstantOfShape',
          inputs: ['s'],
          outputs: ['ones'],
          attrs: { value: { tensor: { type: 1, shape: [1], data: [1] } } },
        },
        { opType: 'MatMul', inputs: ['x', 'w'], outputs: ['h'], attrs: {} },
        { opType: 'Add', inputs: ['h', 'b'], outputs: ['y'], attrs: {} },
        { opType: 'Add', inputs: ['y', 'ones'], outputs: ['y1'], attrs: {} },
        { opType: 'Relu', inputs: ['y1'], outputs: ['r'], attrs: {} },
        { opType: 'Reshape', inputs: ['r', 'to'], outputs: ['z'], attrs: {} },
      ],
      inputs: [{ name: 'x', type: 1, shape: ['rows', K] }],
      consts: {
        w: { type: 1, shape: [K, K], data: w },
        b: { type: 1, shape: [K], data: b },
        to: { type: 7, shape: [3], data: [-1, 16, 16] },
      },
      outputs: ['z'],
    });
    const s = loadOnnx(model);
    const xs = [200, 201, 202].map((rows, i) => randomUniform([rows, K], { seed: 60 + i, low: -1, high: 1 }));
    /** Runs signature i and compares with relu(x · w + b + 1) in float64. */
    const check = (i: number, what: string) => {
      const z = s.run({ x: xs[i]! }).z!;
      expect(z.shape, what).toEqual([xs[i]!.shape[0], 16, 16]);
      const x = xs[i]!.dataSync() as Float32Array;
      const rows = x.length / K;
      const exact: number[] = [];
      for (let r = 0; r < rows; r++)
        for (let j = 0; j < K; j++) {
          let acc = Math.fround(b[j]!);
          for (let k = 0; k < K; k++) acc += x[r * K + k]! * Math.fround(w[k * K + j]!);
          exact.push(Math.max(0, acc + 1));
        }
      assertAllClose(values(z), exact, TOL, what);
    };
    const hasRegion = (i: number) => layout(s.graphFor({ x: xs[i]! })).some((l) => l.startsWith('ort['));
    const opened = () => ortStats().sessions;
    // The first signature forms its regions at its second run, with every constant written into the model (its
    // first run's matmul may open a session of the ort dialect's own: counting starts after it).
    check(0, '200 rows, first run');
    expect(hasRegion(0)).toBe(false);
    const before = opened();
    check(0, '200 rows, second run');
    expect(hasRegion(0)).toBe(true);
    expect(opened() - before).toBe(1);
    // The next forms them at its first run: its ones differ, so a session taking them as an input is opened.
    check(1, '201 rows, first run');
    expect(hasRegion(1)).toBe(true);
    expect(opened() - before).toBe(2);
    // The third runs on that session at its first run, feeding its own ones; the Reshape's target is the same model.
    check(2, '202 rows, first run');
    expect(hasRegion(2)).toBe(true);
    expect(opened() - before).toBe(2);
    for (const i of [0, 1, 2]) check(i, `${200 + i} rows, again`);
  });

  it('keeps region models within the byte budget: the least recently run signature leaves first', () => {
    // Each signature's region holds the 256 × 256 weights (about 263 kB): two fit in 600 kB, a third does not.
    const s = loadOnnx(bytes, { regionCache: { bytes: 600_000 } });
    const xs = [210, 211, 212].map((rows, i) => randomUniform([rows, K], { seed: 50 + i, low: -1, high: 1 }));
    const has = (i: number) => layout(s.graphFor({ x: xs[i]! })).some((l) => l.startsWith('ort['));
    for (const i of [0, 1]) for (let r = 0; r < 2; r++) s.run({ x: xs[i]! });
    expect([has(0), has(1)]).toEqual([true, true]);
    const size = s.graphFor({ x: xs[0]! }).nodes.find(isOrtRegion)!;
    expect(isOrtRegion(size) && size.args[1].runner.modelBytes).toBeGreaterThan(256 * 256 * 4);
    for (let r = 0; r < 2; r++) s.run({ x: xs[2]! });
    expect([has(0), has(1), has(2)]).toEqual([false, true, true]);
    expect(s.regionSignatures).toBe(2);
    assertAllClose(
      values(s.run({ x: xs[0]! }).z!),
      reference(xs[0]!.dataSync() as Float32Array, 210),
      TOL,
      'evicted signature, on raf-op kernels',
    );
  });

  it('dissolves back into its calls for a graph that leaves the CPU, on the CPU and by moveGraph to WebGPU', async (ctx) => {
    const x = randomUniform([256, K], { seed: 7, low: -1, high: 1 });
    const g = loadOnnx(bytes, { ortRegions: true }).graphFor({ x });
    expect(layout(g)).toEqual(['ort[matmul,add,relu]']);
    const plain = dissolveOrtRegions(g);
    expect(layout(plain).some((l) => l.startsWith('ort['))).toBe(false);
    expect(printGraph(plain)).toMatch(/raf\.op\.matmul\(/);
    const want = reference(x.dataSync() as Float32Array, 256);
    assertAllClose(values(execute(plain, [x])[0]!), want, TOL, 'dissolved, on the CPU, vs float64');
    needGpu(ctx);
    const gpu = await moveGraph(g, 'webgpu');
    expect(printGraph(gpu)).not.toContain('ort_region');
    const [out] = execute(gpu, [await x.to('webgpu')]);
    expect(out!.device.kind).toBe('webgpu');
    assertAllClose(Array.from(await out!.data()), want, TOL, 'moved to WebGPU vs float64');
  });
});

describe('ort regions on a corpus model', () => {
  const m = CORPUS.find((c) => c.name === 'ppocr-cls-mobile-v2')!;
  it.skipIf(!corpusFile(m))(
    'ppocr-cls-mobile-v2 is one region, equal to the unfused graph and to onnxruntime-node',
    async () => {
      const bytes = new Uint8Array(readFileSync(corpusFile(m)!));
      const feeds = feedsFor(m, bytes);
      // `ortRegions: true` forms the regions at conversion; `false` keeps the graph as converted.
      const plain = loadOnnx(bytes, { ortRegions: false });
      const fused = loadOnnx(bytes, { ortRegions: true });
      const g = plain.graphFor(feeds);
      const r = fused.graphFor(feeds);
      expect(g.nodes.length).toBeGreaterThan(200);
      expect(r.nodes).toHaveLength(1);
      const ops = (isOrtRegion(r.nodes[0]!) && r.nodes[0].args[1].ops) || [];
      expect(ops.filter((o) => o === 'conv2d').length).toBe(
        g.nodes.filter((n) => n.kind === 'call' && n.op.name === 'conv2d').length,
      );
      expect(printGraph(r)).toContain('Dialect="ort", PatternName="ort_region", Ops="conv2d,batch_norm,add,clip,');
      const out = agree(
        g,
        r,
        g.params.map((p) => feeds[p.hint!]!),
      );
      const session = await ortSession(bytes);
      const ref = await session.run(ortFeeds(bytes, feeds));
      const name = fused.outputNames[0]!;
      assertAllClose(values(out[0]!), Array.from(ref[name]!.data as Float32Array), TOL, 'regions vs onnxruntime-node');
      assertAllClose(values(fused.run(feeds)[name]!), Array.from(ref[name]!.data as Float32Array), TOL, 'session.run');
      // By default the weights are in the model: the region reads only the image. Fed as inputs instead, it reads
      // every weight too, and computes the same.
      expect(isOrtRegion(r.nodes[0]!) && r.nodes[0].args[0].length).toBe(1);
      const fed = ortRegions(g, { weights: 'inputs' });
      expect(fed.nodes).toHaveLength(1);
      expect(isOrtRegion(fed.nodes[0]!) && fed.nodes[0].args[0].length).toBeGreaterThan(50);
      const [b] = execute(fed, [feeds.x!]);
      assertAllClose(
        values(b!),
        Array.from(ref[name]!.data as Float32Array),
        TOL,
        'weights fed as inputs vs onnxruntime-node',
      );
    },
  );
});

describe("every corpus model at loadOnnx's defaults: the second run, through whatever regions formed", () => {
  // Models not fetched (npm run fetch:models) are skipped, as the corpus test skips them.
  for (const m of CORPUS.filter((c) => !c.refuses))
    it.skipIf(!corpusFile(m))(`${m.name} equals onnxruntime-node`, async () => {
      const bytes = new Uint8Array(readFileSync(corpusFile(m)!));
      const feeds = feedsFor(m, bytes);
      const s = loadOnnx(bytes);
      s.run(feeds);
      const ours = s.run(feeds);
      const session = await ortSession(bytes);
      const ref = await session.run(ortFeeds(bytes, feeds));
      for (const name of session.outputNames) {
        const want = Array.from(ref[name]!.data as ArrayLike<number | bigint>, Number);
        expect(want.every(Number.isFinite), `${name}: onnxruntime's output is finite`).toBe(true);
        assertAllClose(values(ours[name]!), want, TOL, `${m.name} ${name}, second run vs onnxruntime-node`);
      }
    });
});
