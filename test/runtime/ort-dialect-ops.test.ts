// Every op with an ONNX mapping and a CPU kernel: one expressible case of its generated suite, run pinned to the ort
// dialect (onnxruntime-node) and to the CPU dialect; the two must agree. The cases are the generated suites' own data.

import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { allDialectOps, call, Tensor, withDialect, type DType } from '../../runtime/src/index.ts';
import { ORT_OPS } from '../../runtime/src/generated/dialects/ort/index.ts';
import { assertAllClose, tolerance } from '../support/assert.ts';
import { makeInputs, type OpSuite } from '../support/op-suite.ts';

// The generated suites' data, read as the object literal each passes to opSuite (importing them would run them).
const suites = new Map<string, OpSuite>();
const served = new Set(ORT_OPS.map((d) => d.op));
const dir = new URL('../generated/', import.meta.url);
for (const f of readdirSync(dir).filter((f) => f.endsWith('.test.ts'))) {
  if (!served.has(f.slice(0, -'.test.ts'.length))) continue;
  const text = readFileSync(new URL(f, dir), 'utf8');
  const literal = text.slice(text.indexOf('opSuite(') + 'opSuite('.length, text.lastIndexOf(');'));
  const s = new Function(`return (${literal});`)() as OpSuite;
  suites.set(s.op, s);
}

type Case = OpSuite['cases'][number];

/** The first case the ONNX mapping expresses (no tensor it does not pass, every arg it leaves out at its default). */
function expressedCase(s: OpSuite): [Case, number] | null {
  const o = s.oracle as Extract<OpSuite['oracle'], { kind: 'onnx' }>;
  const passes = new Set([
    ...o.inputs,
    ...Object.values(o.attrs),
    ...(o.flatten ? [o.flatten] : []),
    ...(Object.values(o.convert ?? {}).includes('value_tensor') ? ['dtype'] : []),
  ]);
  const i = s.cases.findIndex(
    (c) =>
      Object.keys(c.shapes).every((t) => passes.has(t)) &&
      Object.entries(o.fixed ?? {}).every(
        ([k, v]) => !(k in c.full) || JSON.stringify(c.full[k]) === JSON.stringify(v),
      ),
  );
  return i < 0 ? null : [s.cases[i]!, i];
}

const valuesOf = (v: unknown): number[] =>
  v instanceof Tensor ? Array.from(v.dataSync() as ArrayLike<number>) : [Number(v)];

const walked = [...served]
  .filter((op) => suites.get(op)?.oracle.kind === 'onnx' && allDialectOps(op).some((d) => d.dialect === 'cpu'))
  .sort();

describe('ort dialect vs cpu dialect, every op with an ONNX mapping', () => {
  it('walks every op the dialect serves that has a CPU kernel and a generated suite', () => {
    expect(walked.length).toBeGreaterThan(100);
  });
  it.each(walked)('%s', (op) => {
    const s = suites.get(op)!;
    const found = expressedCase(s);
    expect(found, `${op}: no case its ONNX mapping expresses`).not.toBeNull();
    const [c, i] = found!;
    const dtype: DType = s.dtypes.includes('float32') ? 'float32' : s.dtypes[0]!;
    const inputs = makeInputs(c.shapes, dtype, s.domain, i + 1, s.inputs);
    const run = (dialect: string) => withDialect([dialect], () => call(op, [], { ...inputs, ...c.args }));
    const want = run('cpu');
    const got = run('ort');
    const outs = Array.isArray(got) ? got : [got];
    const wants = Array.isArray(want) ? want : [want];
    expect(outs.length).toBe(wants.length);
    outs.forEach((t, k) => {
      const w = wants[k] as Tensor;
      expect(t instanceof Tensor && [...t.shape]).toEqual([...w.shape]);
      expect((t as Tensor).dtype).toBe(w.dtype);
      assertAllClose(valuesOf(t), valuesOf(w), tolerance(dtype), `raf.op.ort.${op} output ${k} vs raf.op.cpu.${op}`);
    });
  });
});
