// Cases: the real third-party ONNX models of test/onnx-corpus (models.json), imported by loadOnnx and run against
// onnxruntime-node single-threaded on the same random inputs. Models not fetched (`npm run fetch:models`) are skipped.

import { readFileSync } from 'node:fs';
import { loadOnnx, type Tensor } from '../../runtime/src/index.ts';
import { fuseEpilogues } from '../../runtime/src/graph/index.ts';
import type { Graph } from '../../runtime/src/graph/index.ts';
import { feedsFor, ortFeeds, ortSession } from '../../test/onnx-corpus/compare.ts';
import { CORPUS, corpusFile, type CorpusModel } from '../../test/onnx-corpus/fetch.ts';
import { asFloat32, defineCase, type BenchCase, type Impl } from '../case.ts';
import { ortThreadCount } from '../peers.ts';
import { readAll } from '../raf.ts';

const bytesOf = (m: CorpusModel): Uint8Array => new Uint8Array(readFileSync(corpusFile(m)!));

/** One session per column; each run feeds the same inputs and reads every output back. */
function rafColumn(m: CorpusModel, pass: ((g: Graph) => Graph) | null): Impl {
  return {
    setup() {
      const bytes = bytesOf(m);
      const session = loadOnnx(bytes, { passes: pass ? [pass] : [] });
      const feeds = feedsFor(m, bytes);
      const outputs = (): Tensor[] => {
        const out = session.run(feeds);
        return session.outputNames.map((n) => out[n]!);
      };
      const g = session.graphFor(feeds);
      return {
        run: () => {
          for (const t of outputs()) {
            t.dataSync();
            t.dispose();
          }
        },
        note: `${g.nodes.length} nodes`,
        result: () => readAll(outputs()),
      };
    },
  };
}

function ortColumn(m: CorpusModel): Impl {
  return {
    async setup() {
      const bytes = bytesOf(m);
      const session = await ortSession(bytes, ortThreadCount());
      const feeds = ortFeeds(bytes, feedsFor(m, bytes));
      return {
        run: async () => {
          const out = await session.run(feeds);
          for (const t of Object.values(out)) t.dispose();
        },
        result: async () => {
          const out = await session.run(feeds);
          return asFloat32(session.outputNames.map((n) => Array.from(out[n]!.data as ArrayLike<number>)));
        },
        dispose: () => session.release(),
      };
    },
  };
}

export function modelCase(m: CorpusModel): BenchCase {
  const shapes = Object.entries(m.shapes ?? {})
    .map(([k, s]) => `${k} [${s.join(',')}]`)
    .join(', ');
  return defineCase({
    name: `model ${m.name}`,
    what: `${m.kind}${shapes ? `, ${shapes}` : ''}: loadOnnx().run (raf-op: fuseEpilogues, fuseOps' groups that run as wasm conv/matmul/dense epilogues; unfused: as imported) against onnxruntime, 1 thread`,
    group: 'graph',
    unavailable: async () => (corpusFile(m) ? undefined : 'not fetched: npm run fetch:models'),
    impls: {
      'raf-op': rafColumn(m, fuseEpilogues),
      'raf-op unfused': rafColumn(m, null),
      onnxruntime: ortColumn(m),
    },
  });
}

export default CORPUS.filter((m) => !m.refuses).map(modelCase);
