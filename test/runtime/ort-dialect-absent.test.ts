// Without onnxruntime-node (simulated by RAF_OP_ORT=0, which the dialect treats as not installed) the ort dialect is
// known but unavailable and has no dialect ops: every op keeps the dialects it had, and pinning ort says why.

import { describe, expect, it, vi } from 'vitest';

vi.stubEnv('RAF_OP_ORT', '0');
const r = await import('../../runtime/src/index.ts');
const { ORT_OPS } = await import('../../runtime/src/generated/dialects/ort/index.ts');
const { getDialect } = await import('../../runtime/src/dialect.ts');

describe('ort dialect absent', () => {
  it('registers no ort dialect op, and every op keeps its other dialects', () => {
    expect(ORT_OPS.length).toBeGreaterThan(100);
    for (const op of r.listOps()) {
      const name = typeof op === 'string' ? op : (op as { name: string }).name;
      expect(r.allDialectOps(name).map((d) => d.dialect)).not.toContain('ort');
    }
    expect(r.allDialectOps('matmul').map((d) => d.dialect)).toEqual(['webgpu', 'wasm', 'cpu']);
    expect(getDialect('ort')?.unavailable?.()).toMatch(/RAF_OP_ORT=0/);
  });

  it('refuses to pin it, naming why, and calls run as before', () => {
    const a = r.tensor([1, 2, 3, 4], { shape: [2, 2] });
    expect(() => r.withDialect(['ort'], () => r.matmul(a, a))).toThrow(/dialect 'ort' is unavailable: turned off/);
    expect(Array.from(r.matmul(a, a).dataSync())).toEqual([7, 10, 15, 22]);
  });
});
