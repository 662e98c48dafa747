// Per-op time table of a corpus model's planned runs: `npx tsx bench/profile-model.ts NAME [runs]`.
// Each node of the graph (after fuseEpilogues) is timed over `runs` runs; rows are op types (fused groups by their ops).

import { readFileSync } from 'node:fs';
import { loadOnnx } from '../runtime/src/index.ts';
import { fuseEpilogues } from '../runtime/src/graph/index.ts';
import { setStepTimer } from '../runtime/src/graph/executor.ts';
import { feedsFor } from '../test/onnx-corpus/compare.ts';
import { CORPUS, corpusFile } from '../test/onnx-corpus/fetch.ts';

const [name, runsArg] = process.argv.slice(2);
const m = CORPUS.find((c) => c.name === name);
if (!m || !corpusFile(m)) throw new Error(`no fetched corpus model '${name}'`);
const bytes = new Uint8Array(readFileSync(corpusFile(m)!));
const session = loadOnnx(bytes, { passes: [fuseEpilogues] });
const feeds = feedsFor(m, bytes);
// loadOnnx's default ort regions form at a signature's second run: profile the graph the runs use from then on.
for (let i = 0; i < 2; i++) for (const t of Object.values(session.run(feeds))) t.dispose();
const g = session.graphFor(feeds);
const label = (i: number): string => {
  const n = g.nodes[i]!;
  if (n.kind === 'call') return n.op.name.replace(/^raf\.op\./, '');
  return `fused(${n.fn.nodes.map((c) => (c.kind === 'call' ? c.op.name.replace(/^raf\.op\./, '') : 'fused')).join('+')})`;
};
const runOnce = () => {
  const out = session.run(feeds);
  for (const t of Object.values(out)) {
    t.dataSync();
    t.dispose();
  }
};
for (let i = 0; i < 5; i++) runOnce();
const runs = Number(runsArg ?? 50);
const perNode = new Float64Array(g.nodes.length);
setStepTimer((i, ms) => (perNode[i] += ms));
const t0 = performance.now();
for (let i = 0; i < runs; i++) runOnce();
const total = (performance.now() - t0) / runs;
setStepTimer(null);
const byOp = new Map<string, { ms: number; n: number }>();
perNode.forEach((ms, i) => {
  const e = byOp.get(label(i)) ?? { ms: 0, n: 0 };
  e.ms += ms / runs;
  e.n++;
  byOp.set(label(i), e);
});
const inNodes = [...byOp.values()].reduce((a, e) => a + e.ms, 0);
console.log(`${name}: ${g.nodes.length} nodes, ${total.toFixed(3)} ms a run (timed), nodes ${inNodes.toFixed(3)} ms`);
for (const [op, e] of [...byOp].sort((a, b) => b[1].ms - a[1].ms))
  console.log(`${e.ms.toFixed(4).padStart(9)} ms  ${String(e.n).padStart(4)}×  ${op}`);
if (process.argv.includes('--nodes'))
  [...perNode]
    .map((ms, i) => [ms / runs, i] as const)
    .sort((a, b) => b[0] - a[0])
    .slice(0, 25)
    .forEach(([ms, i]) => {
      const n = g.nodes[i]!;
      const out = n.out.kind === 'tuple' ? n.out.items[0]! : n.out;
      console.log(`${ms.toFixed(4).padStart(9)} ms  #${i} ${label(i)} -> [${out.type.shape.join(',')}]`);
    });
