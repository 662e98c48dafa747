// Prints the corpus table (model, ops, loads, max error, time against onnxruntime single-threaded):
// `npx tsx test/onnx-corpus/report.ts` after fetch.ts. One quick measurement per model, not a benchmark.

import { readFileSync } from 'node:fs';
import { loadOnnx } from '../../runtime/src/index.ts';
import { compareModel, feedsFor, ortFeeds, ortSession } from './compare.ts';
import { CORPUS, corpusFile } from './fetch.ts';

const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

console.log('| model | kind | opset | ops | loads | max error | raf-op ms | onnxruntime ms (1 thread) |');
console.log('|---|---|---|---|---|---|---|---|');
for (const m of CORPUS) {
  const file = corpusFile(m);
  if (!file) {
    console.log(`| ${m.name} | ${m.kind} | | | not fetched | | | |`);
    continue;
  }
  const bytes = new Uint8Array(readFileSync(file));
  const c = await compareModel(m, bytes);
  let ours = '';
  let theirs = '';
  if (!c.error) {
    const feeds = feedsFor(m, bytes);
    const s = loadOnnx(bytes);
    s.run(feeds);
    const t0: number[] = [];
    for (let i = 0; i < 5; i++) {
      const a = performance.now();
      s.run(feeds);
      t0.push(performance.now() - a);
    }
    const o = await ortSession(bytes);
    const f = ortFeeds(bytes, feeds);
    await o.run(f);
    const t1: number[] = [];
    for (let i = 0; i < 5; i++) {
      const a = performance.now();
      await o.run(f);
      t1.push(performance.now() - a);
    }
    ours = median(t0).toFixed(2);
    theirs = median(t1).toFixed(2);
  }
  const loads = c.error ? `no: ${c.error.slice(0, 160).replace(/\|/g, '/')}` : 'yes';
  const err = c.error ? '' : c.maxErr.toExponential(1);
  console.log(`| ${m.name} | ${m.kind} | ${c.opset} | ${c.ops.join(' ')} | ${loads} | ${err} | ${ours} | ${theirs} |`);
}
