// Cases: opening a real model, as a user's first call feels it: the ONNX bytes decoded, imported and planned, then one
// run read back (raf-op: loadOnnx with fuseEpilogues; onnxruntime: a one-thread session made and run once). No
// target; the JIT is warm after the first timed run, so these are the cost of opening a model in a running process.

import { readFileSync } from 'node:fs';
import { loadOnnx } from '../../runtime/src/index.ts';
import { fuseEpilogues } from '../../runtime/src/graph/index.ts';
import { feedsFor, ortFeeds, ortSession } from '../../test/onnx-corpus/compare.ts';
import { CORPUS, corpusFile, type CorpusModel } from '../../test/onnx-corpus/fetch.ts';
import { defineCase, type BenchCase } from '../case.ts';

const LOADED = ['ppocr-det-v4', 'ppocr-rec-v4'];

function loadCase(m: CorpusModel): BenchCase {
  const bytes = () => new Uint8Array(readFileSync(corpusFile(m)!));
  return defineCase({
    name: `load ${m.name}`,
    what: `${m.name}: decode, import and plan the ONNX bytes, then one run read back (raf-op: loadOnnx + fuseEpilogues; onnxruntime: InferenceSession.create, 1 thread, and one run)`,
    group: 'graph',
    unavailable: async () => (corpusFile(m) ? undefined : 'not fetched: npm run fetch:models'),
    impls: {
      'raf-op': {
        setup() {
          const b = bytes();
          const feeds = feedsFor(m, b);
          return {
            run: () => {
              const session = loadOnnx(b, { passes: [fuseEpilogues] });
              const out = session.run(feeds);
              for (const t of Object.values(out)) {
                t.dataSync();
                t.dispose();
              }
            },
          };
        },
      },
      onnxruntime: {
        setup() {
          const b = bytes();
          const feeds = ortFeeds(b, feedsFor(m, b));
          return {
            run: async () => {
              const session = await ortSession(b, 1);
              const out = await session.run(feeds);
              for (const t of Object.values(out)) t.dispose();
              await session.release();
            },
          };
        },
      },
    },
  });
}

export default CORPUS.filter((m) => LOADED.includes(m.name)).map(loadCase);
