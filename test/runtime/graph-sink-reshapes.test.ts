// sinkReshapes (runtime/src/graph/passes/sink-reshapes.ts): a 1-D convolution stack as importers write it
// (expand_dims → conv2d → squeeze, then bias, relu and a residual) has its squeezes moved below the elementwise calls,
// so fuseEpilogues runs bias, relu and residual in the convolution's wasm epilogue and the squeeze / expand_dims pairs
// between layers vanish. Checked against a float64 direct computation, and the reshapes that must stay are left alone.

import { describe, expect, it } from 'vitest';
import { ops, randomUniform, type Tensor } from '../../runtime/src/index.ts';
import { execute, fuseEpilogues, trace } from '../../runtime/src/graph/index.ts';
import { sinkReshapes } from '../../runtime/src/graph/passes/sink-reshapes.ts';
import { expectClose } from '../support/reference.ts';

const values = (t: Tensor): number[] => Array.from(t.dataSync() as Float32Array);
const calls = (g: { nodes: readonly { kind: string; op?: { name: string } }[] }, name: string) =>
  g.nodes.filter((n) => n.kind === 'call' && n.op!.name === name).length;

/** float64 1-D convolution, kernel 3, padding 1: x [C, W], w [O, C, 3]. */
function conv1d(x: number[], w: number[], c: number, width: number, o: number): number[] {
  const y = new Array<number>(o * width).fill(0);
  for (let oc = 0; oc < o; oc++)
    for (let j = 0; j < width; j++)
      for (let ic = 0; ic < c; ic++)
        for (let k = 0; k < 3; k++) {
          const q = j + k - 1;
          if (q >= 0 && q < width) y[oc * width + j] += x[ic * width + q]! * w[(oc * c + ic) * 3 + k]!;
        }
  return y;
}

describe('sinkReshapes', () => {
  const [C, W] = [4, 9];
  const w1 = randomUniform([C, C, 1, 3], { low: -0.5, high: 0.5, seed: 1 });
  const w2 = randomUniform([C, C, 1, 3], { low: -0.5, high: 0.5, seed: 2 });
  const b1 = randomUniform([C, 1, 1], { low: -0.5, high: 0.5, seed: 3 });
  const b2 = randomUniform([C, 1, 1], { low: -0.5, high: 0.5, seed: 4 });
  const layer = (x: Tensor, w: Tensor, b: Tensor) =>
    ops.squeeze(ops.add(ops.conv2d(ops.expandDims(x, 2), w, [1, 1], [0, 1, 0, 1]), b), [2]);
  // Two 1-D conv layers with relu, the second with a residual from the first's output.
  const net = (x: Tensor) => {
    const h = ops.relu(layer(x, w1, b1));
    return ops.relu(ops.add(layer(h, w2, b2), h));
  };

  it('moves the squeezes below bias, relu and residual; the epilogues take them; values as computed in float64', () => {
    const g = trace(net, [{ shape: [1, C, W], dtype: 'float32' }]);
    const sunk = sinkReshapes(g);
    // Between the layers squeeze and expand_dims meet and cancel: one reshape back to [1, C, W] at the end.
    expect(calls(g, 'squeeze') + calls(g, 'expand_dims')).toBe(4);
    expect(calls(sunk, 'squeeze') + calls(sunk, 'expand_dims') + calls(sunk, 'reshape')).toBe(2);
    expect(calls(sunk, 'relu') + calls(sunk, 'add')).toBe(calls(g, 'relu') + calls(g, 'add'));
    const fused = fuseEpilogues(g);
    // The first layer's relu joins its convolution's epilogue; the second's follows the residual, which the wasm
    // epilogue applies last, so it stays a call of its own.
    expect(fused.nodes.filter((n) => n.kind === 'call' && n.op.name === 'relu').length).toBe(1);
    expect(fused.nodes.filter((n) => n.kind === 'call' && ['squeeze', 'expand_dims'].includes(n.op.name)).length).toBe(
      1,
    );

    const x = randomUniform([1, C, W], { low: -1, high: 1, seed: 5 });
    const flat = (t: Tensor) => values(t);
    const [xv, bv1, bv2] = [flat(x), flat(b1), flat(b2)];
    const h = conv1d(xv, flat(w1), C, W, C).map((v, i) => Math.max(v + bv1[Math.floor(i / W)]!, 0));
    const want = conv1d(h, flat(w2), C, W, C).map((v, i) => Math.max(v + bv2[Math.floor(i / W)]! + h[i]!, 0));
    for (const graph of [g, sunk, fused]) {
      const [y] = execute(graph, [x]);
      expect([...y!.shape]).toEqual([1, C, W]);
      expectClose(values(y!), want, 1e-5);
    }
  });

  it('moves calls below a reshape with several readers without computing anything twice, but not calls naming axes', () => {
    const both = trace(
      (x: Tensor) => {
        const s = ops.squeeze(x, [1]);
        return [ops.relu(s), ops.exp(s)];
      },
      [{ shape: [3, 1, 4], dtype: 'float32' }],
    );
    const moved = sinkReshapes(both);
    expect(calls(moved, 'relu') + calls(moved, 'exp')).toBe(2);
    expect(calls(moved, 'squeeze')).toBe(0);
    const x = randomUniform([3, 1, 4], { low: -1, high: 1, seed: 6 });
    execute(moved, [x]).forEach((y, k) => {
      expect([...y.shape]).toEqual([3, 4]);
      expect(values(y)).toEqual(values(execute(both, [x])[k]!));
    });
    const axis = trace((x: Tensor) => ops.softmax(ops.squeeze(x, [1]), -1), [{ shape: [3, 1, 4], dtype: 'float32' }]);
    expect(sinkReshapes(axis)).toBe(axis);
  });
});
