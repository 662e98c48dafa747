// Without onnxruntime-node (simulated by RAF_OP_ORT=0, as test/runtime/ort-dialect-absent.test.ts does) ortRegions and
// fuseDialect with 'ort' leave a graph as it was: it runs on raf-op's kernels and prints no region.

import { describe, expect, it, vi } from 'vitest';

vi.stubEnv('RAF_OP_ORT', '0');
const r = await import('../../runtime/src/index.ts');
const gr = await import('../../runtime/src/graph/index.ts');

describe('ort regions absent', () => {
  it('forms no region, even with ort named, and the graph runs as before', () => {
    const f = (x: InstanceType<typeof r.Tensor>, w: InstanceType<typeof r.Tensor>) => r.relu(r.matmul(x, w));
    const g = gr.trace(f, [
      { name: 'x', shape: [64, 128], dtype: 'float32' },
      { name: 'w', shape: [128, 64], dtype: 'float32' },
    ]);
    expect(gr.ortRegions(g, { all: true })).toBe(g);
    const fused = gr.fuseDialect(g, { dialects: ['ort'] });
    expect(fused.nodes.map((n) => (n.kind === 'call' ? n.op.name : 'fused'))).toEqual(['matmul', 'relu']);
    expect(gr.printGraph(fused)).not.toContain('ort');
    expect(r.allDialectOps('ort_region')).toEqual([]);
    // relu(x @ w) with x = [[1, 2], [3, 4]], w = [[1, -1], [0, 1]]: [[1, 1], [3, 1]].
    const h = gr.trace(f, [
      { name: 'x', shape: [2, 2], dtype: 'float32' },
      { name: 'w', shape: [2, 2], dtype: 'float32' },
    ]);
    const out = gr.execute(gr.ortRegions(h, { all: true }), [
      r.tensor([1, 2, 3, 4], { shape: [2, 2] }),
      r.tensor([1, -1, 0, 1], { shape: [2, 2] }),
    ]);
    expect(Array.from(out[0]!.dataSync())).toEqual([1, 1, 3, 1]);
  });
});
