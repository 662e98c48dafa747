// ONNX If on a condition computed at run time: on the CPU an `if` call runs only the branch the condition picks
// (graph/control.ts), checked against a float64 reference and onnxruntime for both outcomes; the branch not taken is
// never computed (an index out of range there is no error); values a branch passes through are the caller's own;
// the session's passes reach the branches; off the CPU and for training both branches compute and where selects.
import { describe, expect, it } from 'vitest';

import { loadOnnx, tensor, type Tensor } from '../../runtime/src/index.ts';
import { autodiff, execute, fuseOps, moveGraph, printGraph } from '../../runtime/src/graph/index.ts';
import { fromOnnx } from '../../runtime/src/graph/frontends/from-onnx.ts';
import { buildModel, type ModelSpec } from '../support/onnx-proto.ts';
import { runOnnxModel, toFloat64 } from '../support/onnx-oracle.ts';
import { useWebGpu } from '../support/webgpu-context.ts';

const needGpu = useWebGpu();

/**
 * y = If(sum(x) > 0) then relu(x) · 2 + x[:, i] (a Gather that fails for i out of range) else -x; z = If(same) then
 * a constant else x itself (passed through).
 */
const MODEL: ModelSpec = {
  nodes: [
    { op: 'ReduceSum', inputs: ['x'], outputs: ['s'], attrs: { keepdims: 0 } },
    { op: 'Greater', inputs: ['s', 'zero'], outputs: ['cond'] },
    {
      op: 'If',
      inputs: ['cond'],
      outputs: ['y'],
      attrs: {
        then_branch: {
          graph: {
            nodes: [
              { op: 'Relu', inputs: ['x'], outputs: ['r'] },
              { op: 'Mul', inputs: ['r', 'two'], outputs: ['r2'] },
              { op: 'Gather', inputs: ['x', 'i'], outputs: ['col'], attrs: { axis: 1 } },
              { op: 'Add', inputs: ['r2', 'col'], outputs: ['t'] },
            ],
            outputs: [{ name: 't', dtype: 'float32', shape: [2, 3] }],
          },
        },
        else_branch: {
          graph: {
            nodes: [{ op: 'Neg', inputs: ['x'], outputs: ['e'] }],
            outputs: [{ name: 'e', dtype: 'float32', shape: [2, 3] }],
          },
        },
      },
    },
    {
      op: 'If',
      inputs: ['cond'],
      outputs: ['z'],
      attrs: {
        then_branch: {
          graph: {
            nodes: [{ op: 'Identity', inputs: ['table'], outputs: ['c'] }],
            outputs: [{ name: 'c', dtype: 'float32', shape: [2, 3] }],
          },
        },
        else_branch: {
          graph: {
            nodes: [{ op: 'Identity', inputs: ['x'], outputs: ['p'] }],
            outputs: [{ name: 'p', dtype: 'float32', shape: [2, 3] }],
          },
        },
      },
    },
  ],
  inputs: [
    { name: 'x', dtype: 'float32', shape: [2, 3] },
    { name: 'i', dtype: 'int64', shape: [1] },
  ],
  outputs: [{ name: 'y' }, { name: 'z' }],
  initializers: [
    { name: 'zero', dtype: 'float32', shape: [], data: [0] },
    { name: 'two', dtype: 'float32', shape: [], data: [2] },
    { name: 'table', dtype: 'float32', shape: [2, 3], data: [10, 20, 30, 40, 50, 60] },
  ],
  opset: 13,
};

const TABLE = [10, 20, 30, 40, 50, 60];

/** The model's outputs in float64, computing only the branch the condition picks. */
function reference(x: readonly number[], i: number): { y: number[]; z: number[] } {
  const taken = x.reduce((a, b) => a + b, 0) > 0;
  if (!taken) return { y: x.map((v) => -v), z: [...x] };
  return { y: x.map((v, k) => Math.max(v, 0) * 2 + x[Math.floor(k / 3) * 3 + i]!), z: [...TABLE] };
}

const POSITIVE = [0.5, -1.25, 2, 3.5, -0.75, 1];
const NEGATIVE = [-0.5, 1.25, -2, -3.5, 0.75, -1];

function feeds(x: readonly number[], i: number): Record<string, Tensor> {
  return { x: tensor([...x], { shape: [2, 3] }), i: tensor([i], { dtype: 'int64', shape: [1] }) };
}

function expectClose(got: Tensor, want: readonly number[]): void {
  const data = Array.from(got.dataSync() as Float32Array);
  expect(data.length).toBe(want.length);
  data.forEach((v, k) => expect(Math.abs(v - want[k]!)).toBeLessThan(1e-6));
}

describe('ONNX If on a condition computed at run time', () => {
  const bytes = buildModel(MODEL);

  it('runs only the branch the condition picks, against float64 and onnxruntime, for both outcomes', async () => {
    const s = loadOnnx(bytes, { ortRegions: false });
    for (const [x, i] of [
      [POSITIVE, 1],
      [NEGATIVE, 2],
    ] as const) {
      const out = s.run(feeds(x, i));
      const want = reference(x, i);
      expectClose(out.y!, want.y);
      expectClose(out.z!, want.z);
      const theirs = await runOnnxModel(bytes, {
        x: { dtype: 'float32', shape: [2, 3], data: new Float32Array(x) },
        i: { dtype: 'int64', shape: [1], data: new BigInt64Array([BigInt(i)]) },
      });
      expectClose(out.y!, Array.from(toFloat64(theirs[0]!)));
      expectClose(out.z!, Array.from(toFloat64(theirs[1]!)));
    }
    const text = printGraph(s.graphFor(feeds(POSITIVE, 1)));
    expect(text).toContain('raf.op.if(');
    expect(text).toContain('Branch="then"');
    expect(text).not.toContain('raf.op.where');
  });

  it('never computes the branch not taken: an index out of range there is no error', () => {
    const s = loadOnnx(bytes, { ortRegions: false });
    const out = s.run(feeds(NEGATIVE, 7));
    expectClose(out.y!, reference(NEGATIVE, 0).y);
    // Taken, the same index is refused, naming the op and argument.
    expect(() => s.run(feeds(POSITIVE, 7))).toThrow(/take|index/);
  });

  it("returns a value a branch passes through (an input, a constant) as the caller's own", () => {
    const s = loadOnnx(bytes, { ortRegions: false });
    const f = feeds(NEGATIVE, 0);
    const passed = s.run(f).z!;
    expect(passed.storage).not.toBe(f.x!.storage);
    passed.dispose();
    expectClose(f.x!, NEGATIVE);
    const constant = s.run(feeds(POSITIVE, 0)).z!;
    constant.dispose();
    expectClose(s.run(feeds(POSITIVE, 0)).z!, TABLE);
  });

  it("applies the session's passes inside the branches", () => {
    const s = loadOnnx(bytes, { ortRegions: false, passes: [fuseOps] });
    const text = printGraph(s.graphFor(feeds(POSITIVE, 1)));
    const then = text.slice(text.indexOf('Branch="then"'), text.indexOf('Branch="else"'));
    expect(then).toContain('Primitive=1');
    expectClose(s.run(feeds(POSITIVE, 1)).y!, reference(POSITIVE, 1).y);
  });

  it('names the branch a refused node is in', () => {
    const bad = structuredClone(MODEL);
    bad.nodes[2]!.attrs!.else_branch = {
      graph: {
        nodes: [{ op: 'Softmax', inputs: ['x'], outputs: ['e'], attrs: { axis: 5 } }],
        outputs: [{ name: 'e', dtype: 'float32', shape: [2, 3] }],
      },
    };
    expect(() => fromOnnx(buildModel(bad), { shapes: { x: [2, 3], i: [1] } })).toThrow(
      /node 2 \('n2_If', If\): else_branch: node 0 \('else_branch_n0_Softmax', Softmax\): raf\.op\.softmax \(argument 'axis'\)/,
    );
  });

  it('forms ort regions inside the branches, released with the session', () => {
    const s = loadOnnx(bytes, { ortRegions: { all: true } });
    expectClose(s.run(feeds(POSITIVE, 1)).y!, reference(POSITIVE, 1).y);
    expectClose(s.run(feeds(NEGATIVE, 1)).y!, reference(NEGATIVE, 1).y);
    const text = printGraph(s.graphFor(feeds(POSITIVE, 1)));
    const then = text.slice(text.indexOf('Branch="then"'), text.indexOf('Branch="else"'));
    expect(then).toContain('PatternName="ort_region"');
    // One signature (an integer scalar input is part of it): ReduceSum and Greater form one region, the
    // then-branch's four calls another.
    expect(s.release()).toBe(2);
  });

  it('computes both branches and selects with where off the CPU (moveGraph) and when imported for training', async (ctx) => {
    const g = fromOnnx(bytes, { shapes: { x: [2, 3], i: [1] } });
    expect(() => autodiff(g)).toThrow(/raf\.op\.if.*no gradient.*train\.onnxParams/);
    const training = fromOnnx(buildModel({ ...MODEL, initializers: MODEL.initializers }), {
      initializersAsInputs: ['table'],
    });
    const trainingText = printGraph(training);
    expect(trainingText).toContain('raf.op.where');
    expect(trainingText).not.toContain('raf.op.if(');
    const [y, z] = execute(training, [...Object.values(feeds(POSITIVE, 1)), tensor(TABLE, { shape: [2, 3] })]);
    expectClose(y!, reference(POSITIVE, 1).y);
    expectClose(z!, TABLE);
    needGpu(ctx);
    const moved = await moveGraph(g, 'webgpu');
    expect(printGraph(moved)).not.toContain('raf.op.if(');
    for (const [x, i] of [
      [POSITIVE, 1],
      [NEGATIVE, 2],
    ] as const) {
      const f = feeds(x, i);
      const outs = execute(moved, [await f.x!.to('webgpu'), await f.i!.to('webgpu')]);
      const want = reference(x, i);
      const got = await Promise.all(outs.map((t) => t.data()));
      got[0]!.forEach((v, k) => expect(Math.abs(v - want.y[k]!)).toBeLessThan(1e-5));
      got[1]!.forEach((v, k) => expect(Math.abs(v - want.z[k]!)).toBeLessThan(1e-5));
    }
  });
});
