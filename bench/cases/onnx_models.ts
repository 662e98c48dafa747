// Cases: the real third-party ONNX models of test/onnx-corpus (models.json), imported by loadOnnx and run against
// onnxruntime-node and onnxruntime-web's wasm backend (the browser's peer), single-threaded, on the same random inputs.
// 'raf-op wasm' pins raf-op to its own wasm and TypeScript kernels, what a browser runs (no ort dialect there).
// The OCR models also run at the sizes an OCR pipeline feeds them (detection 640×640, recognition 48×320).
// Models not fetched (`npm run fetch:models`) are skipped.

import { readFileSync } from 'node:fs';
import { loadOnnx, withDialect, type Tensor } from '../../runtime/src/index.ts';
import { fuseEpilogues } from '../../runtime/src/graph/index.ts';
import type { Graph } from '../../runtime/src/graph/index.ts';
import { feedsFor, ortFeeds, ortSession } from '../../test/onnx-corpus/compare.ts';
import { CORPUS, corpusFile, type CorpusModel } from '../../test/onnx-corpus/fetch.ts';
import { asFloat32, defineCase, type BenchCase, type Impl } from '../case.ts';
import { ortWebFeeds, ortWebSession } from '../ort-web.ts';
import { ortThreadCount } from '../peers.ts';
import { readAll } from '../raf.ts';

const bytesOf = (m: CorpusModel): Uint8Array => new Uint8Array(readFileSync(corpusFile(m)!));

/** raf-op's own kernels, in this order of priority: what a browser without the ort dialect runs. */
const BROWSER = ['wasm', 'cpu'];

/** `impl` with its setup, runs and result read under withDialect(pin). */
function pinned(impl: Impl, pin: readonly string[]): Impl {
  return {
    async setup() {
      const r = await withDialect(pin, () => impl.setup());
      return {
        ...r,
        run: () => withDialect(pin, r.run),
        ...(r.result ? { result: () => withDialect(pin, r.result!) } : {}),
        note: `${r.note ?? ''}, ${pin.join('+')}`.replace(/^, /, ''),
      };
    },
  };
}

/**
 * One session per column; each run feeds the same inputs and reads every output back. `regions` is loadOnnx's
 * ortRegions option: its default (regions at a signature's second run, the warm-up's) for the default column, false
 * for the columns measuring raf-op's own kernels.
 */
function rafColumn(m: CorpusModel, pass: ((g: Graph) => Graph) | null, regions?: false): Impl {
  return {
    setup() {
      const bytes = bytesOf(m);
      const session = loadOnnx(bytes, { passes: pass ? [pass] : [], ortRegions: regions });
      const feeds = feedsFor(m, bytes);
      const outputs = (): Tensor[] => {
        const out = session.run(feeds);
        return session.outputNames.map((n) => out[n]!);
      };
      session.graphFor(feeds); // converted at setup, outside the timed runs
      return {
        run: () => {
          for (const t of outputs()) {
            t.dataSync();
            t.dispose();
          }
        },
        // Read after the timed runs: the graph the runs used (with regions formed at the second run).
        get note() {
          return `${session.graphFor(feeds).nodes.length} nodes`;
        },
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

/** onnxruntime-web's wasm backend, 1 thread, on the same feeds as ortColumn (converted to its own Tensor class). */
function ortWebColumn(m: CorpusModel): Impl {
  return {
    async setup() {
      const bytes = bytesOf(m);
      const session = await ortWebSession(bytes);
      const feeds = ortWebFeeds(ortFeeds(bytes, feedsFor(m, bytes)));
      return {
        run: async () => {
          const out = await session.run(feeds);
          for (const t of Object.values(out)) t.dispose();
        },
        result: async () => {
          const out = await session.run(feeds);
          return asFloat32(session.outputNames.map((n) => Array.from(out[n]!.data as ArrayLike<number>)));
        },
        note: 'wasm simd',
        dispose: () => session.release(),
      };
    },
  };
}

/** `m`'s case; `label` names a variant of it (other `shapes`), the file stays `m.name`'s. */
export function modelCase(m: CorpusModel, label?: string): BenchCase {
  const shapes = Object.entries(m.shapes ?? {})
    .map(([k, s]) => `${k} [${s.join(',')}]`)
    .join(', ');
  return defineCase({
    name: `model ${m.name}${label ? ` ${label}` : ''}`,
    what: `${m.kind}${shapes ? `, ${shapes}` : ''}: loadOnnx().run (raf-op: loadOnnx's defaults, ort regions where heavy calls add up to a threshold, then fuseEpilogues; unfused: as imported, no regions; wasm: fuseEpilogues, no regions, pinned as in a browser) against onnxruntime, 1 thread`,
    group: 'graph',
    unavailable: async () => (corpusFile(m) ? undefined : 'not fetched: npm run fetch:models'),
    impls: {
      'raf-op': rafColumn(m, fuseEpilogues),
      'raf-op unfused': rafColumn(m, null, false),
      'raf-op wasm': pinned(rafColumn(m, fuseEpilogues, false), BROWSER),
      onnxruntime: ortColumn(m),
      'onnxruntime-web': ortWebColumn(m),
    },
  });
}

/** The OCR models at the input sizes PaddleOCR's pipeline uses: a 640-pixel page for detection, a 48×320 text line. */
const REAL_SIZES: Readonly<Record<string, Readonly<Record<string, readonly number[]>>>> = {
  'ppocr-det-v4': { x: [1, 3, 640, 640] },
  'ppocr-rec-v4': { x: [1, 3, 48, 320] },
};

const realSize = (m: CorpusModel): BenchCase[] => {
  const shapes = REAL_SIZES[m.name];
  if (!shapes) return [];
  const label = Object.values(shapes)
    .map((s) => s.slice(2).join('×'))
    .join(', ');
  return [modelCase({ ...m, shapes: { ...m.shapes, ...shapes } }, label)];
};

export default CORPUS.filter((m) => !m.refuses).flatMap((m) => [modelCase(m), ...realSize(m)]);
