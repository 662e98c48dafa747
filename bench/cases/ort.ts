// Cases: the ort dialect (onnxruntime-node, run synchronously) against the wasm dialect, for its per-call overhead
// and for the break-even sizes that set its work thresholds (runtime/src/dialects/ort/policy.ts). Each size is three
// cases, the raf-op column pinned to wasm, pinned to ort, and left to dispatch (which picks by the threshold); the
// onnxruntime column is the same node run through onnxruntime-node's own async API, for the dialect's overhead.

import { readFileSync } from 'node:fs';
import { call, fromStorage, loadOnnx, ops, tidy, withDialect, type Tensor } from '../../runtime/src/index.ts';
import { ortStats } from '../../runtime/src/dialects/ort/index.ts';
import { isOrtRegion } from '../../runtime/src/graph/index.ts';
import { feedsFor, ortFeeds, ortSession } from '../../test/onnx-corpus/compare.ts';
import { CORPUS, corpusFile, type CorpusModel } from '../../test/onnx-corpus/fetch.ts';
import { asFloat32, defineCase, type BenchCase, type Impl } from '../case.ts';
import { data, onnx, ortThreadCount } from '../peers.ts';
import type { ModelSpec } from '../../test/support/onnx-proto.ts';
import { input, readAll } from '../raf.ts';

type Column = 'wasm' | 'ort' | 'dispatch';

/** The raf-op column: inputs in wasm memory for wasm, plain CPU arrays for ort; the note says which dialect ran. */
function column(how: Column, make: (place: (shape: number[], v: Float32Array) => Tensor) => () => Tensor): Impl {
  return {
    setup() {
      const place =
        how === 'wasm'
          ? (s: number[], v: Float32Array) => input(s, v)
          : (s: number[], v: Float32Array) => fromStorage(s, 'float32', v.slice());
      const f = make(place);
      const pinned = how === 'dispatch' ? f : () => withDialect([how], f);
      const before = ortStats().runs;
      tidy(() => pinned().dataSync());
      const ran = ortStats().runs > before ? 'ort' : how === 'dispatch' ? 'wasm (declined)' : how;
      return {
        run: () => tidy(() => void pinned().dataSync()),
        note: ran,
        result: () => readAll(tidy(pinned)),
      };
    },
  };
}

function cases(
  name: string,
  what: string,
  make: (place: (shape: number[], v: Float32Array) => Tensor) => () => Tensor,
  model: ModelSpec,
  feeds: () => Record<string, { dims: number[]; data: Float32Array }>,
  columns: readonly Column[] = ['wasm', 'ort', 'dispatch'],
): BenchCase[] {
  return columns.map((how) =>
    defineCase({
      name: `ort ${name} · ${how}`,
      what: `${what}; raf-op ${how === 'dispatch' ? 'by default dispatch' : `pinned to ${how}`}`,
      group: 'kernels',
      wallClock: true,
      impls: { 'raf-op': column(how, make), onnxruntime: onnx(model, feeds) },
    }),
  );
}

const binary = (op: string, shapes: [number[], number[]], a: Float32Array, b: Float32Array) =>
  [
    {
      nodes: [{ op, inputs: ['a', 'b'], outputs: ['y'] }],
      inputs: [
        { name: 'a', dtype: 'float32', shape: shapes[0] },
        { name: 'b', dtype: 'float32', shape: shapes[1] },
      ],
      outputs: [{ name: 'y' }],
    } as ModelSpec,
    () => ({ a: { dims: shapes[0], data: a }, b: { dims: shapes[1], data: b } }),
  ] as const;

function addCase(): BenchCase[] {
  const [a, b] = [data(4, 1), data(4, 2)];
  return cases(
    'add 4',
    'add(a, b) of 4 float32: the per-call round trip',
    (place) => {
      const [x, y] = [place([4], a), place([4], b)];
      return () => ops.add(x, y);
    },
    ...binary('Add', [[4], [4]], a, b),
    ['wasm', 'ort'],
  );
}

function matmulCases(n: number): BenchCase[] {
  const [a, b] = [data(n * n, 1), data(n * n, 2)];
  return cases(
    `matmul ${n}³`,
    `matmul(a, b), ${n}×${n} · ${n}×${n} float32 (work ${3 * n * n} elements)`,
    (place) => {
      const [x, y] = [place([n, n], a), place([n, n], b)];
      return () => ops.matmul(x, y);
    },
    ...binary(
      'MatMul',
      [
        [n, n],
        [n, n],
      ],
      a,
      b,
    ),
  );
}

function conv2dCases(c: number, hw: number): BenchCase[] {
  const xs = [1, c, hw, hw];
  const ws = [c, c, 3, 3];
  const [x, w] = [data(c * hw * hw, 3), data(c * c * 9, 4)];
  const model: ModelSpec = {
    nodes: [{ op: 'Conv', inputs: ['a', 'b'], outputs: ['y'], attrs: { pads: [1, 1, 1, 1] } }],
    inputs: [
      { name: 'a', dtype: 'float32', shape: xs },
      { name: 'b', dtype: 'float32', shape: ws },
    ],
    outputs: [{ name: 'y' }],
  } as ModelSpec;
  return cases(
    `conv2d ${c}×${hw}²`,
    `conv2d 3×3 pad 1, x [1, ${c}, ${hw}, ${hw}], w [${c}, ${c}, 3, 3] float32 (work ${2 * c * hw * hw + 9 * c * c} elements)`,
    (place) => {
      const [tx, tw] = [place(xs, x), place(ws, w)];
      return () => ops.conv2d(tx, tw, [1, 1], [1, 1, 1, 1]);
    },
    model,
    () => ({ a: { dims: xs, data: x }, b: { dims: ws, data: w } }),
  );
}

/** One-input-node cases (pooling, norms, softmax, RNNs): the model's inputs are `a`, `b`, … in `shapes`' order. */
function unaryish(
  name: string,
  what: string,
  onnxOp: string,
  attrs: Record<string, unknown>,
  shapes: number[][],
  call: (ts: Tensor[]) => Tensor,
): BenchCase[] {
  const names = shapes.map((_, k) => String.fromCharCode(97 + k));
  const arrays = shapes.map((sh, k) =>
    data(
      sh.reduce((p, q) => p * q, 1),
      5 + k,
    ),
  );
  const model = {
    nodes: [{ op: onnxOp, inputs: names, outputs: ['y'], attrs }],
    inputs: shapes.map((sh, k) => ({ name: names[k]!, dtype: 'float32', shape: sh })),
    outputs: [{ name: 'y' }],
  } as ModelSpec;
  return cases(
    name,
    what,
    (place) => {
      const ts = shapes.map((sh, k) => place(sh, arrays[k]!));
      return () => call(ts);
    },
    model,
    () => Object.fromEntries(shapes.map((sh, k) => [names[k]!, { dims: sh, data: arrays[k]! }])),
  );
}

const poolCases = (c: number, hw: number): BenchCase[] =>
  (['max', 'avg'] as const).flatMap((kind) =>
    unaryish(
      `${kind}_pool2d ${c}×${hw}²`,
      `${kind}_pool2d 3×3 stride 2 pad 1, x [1, ${c}, ${hw}, ${hw}] float32`,
      kind === 'max' ? 'MaxPool' : 'AveragePool',
      { kernel_shape: [3, 3], strides: [2, 2], pads: [1, 1, 1, 1] },
      [[1, c, hw, hw]],
      ([x]) => call(`${kind}_pool2d`, [], { x, kernel: [3, 3], stride: [2, 2], padding: [1, 1, 1, 1] }) as Tensor,
    ),
  );

const layerNormCases = (n: number, d: number): BenchCase[] =>
  unaryish(
    `layer_norm ${n}×${d}`,
    `layer_norm over the last axis of [${n}, ${d}] float32`,
    'LayerNormalization',
    { axis: -1, epsilon: 1e-5 },
    [[n, d], [d], [d]],
    ([x, scale, bias]) => call('layer_norm', [], { x, scale, bias }) as Tensor,
  );

const softmaxCases = (n: number, d: number): BenchCase[] =>
  unaryish(
    `softmax ${n}×${d}`,
    `softmax over rows of ${d}, [${n}, ${d}] float32`,
    'Softmax',
    { axis: -1 },
    [[n, d]],
    ([x]) => ops.softmax(x!, -1),
  );

/** lstm/gru over T steps, batch B, input I, hidden H, no bias: the first output (Y) is read. */
const rnnCases = (kind: 'lstm' | 'gru', t: number, b: number, i: number, h: number): BenchCase[] => {
  const gates = kind === 'lstm' ? 4 : 3;
  return unaryish(
    `${kind} T${t} B${b} I${i} H${h}`,
    `${kind} forward, x [${t}, ${b}, ${i}], hidden ${h}, float32`,
    kind === 'lstm' ? 'LSTM' : 'GRU',
    { hidden_size: h },
    [
      [t, b, i],
      [1, gates * h, i],
      [1, gates * h, h],
    ],
    ([x, w, r]) => (call(kind, [], { x, w, r, hidden_size: h }) as Tensor[])[0]!,
  );
};

/** A corpus model run by loadOnnx, with ort regions formed at conversion (weights as `regions` says) or as imported. */
function modelColumn(m: CorpusModel, regions: false | 'inputs' | 'initializers'): Impl {
  return {
    setup() {
      const bytes = new Uint8Array(readFileSync(corpusFile(m)!));
      const session = loadOnnx(bytes, { ortRegions: regions && { weights: regions } });
      const feeds = feedsFor(m, bytes);
      const outputs = (): Tensor[] => {
        const out = session.run(feeds);
        return session.outputNames.map((n) => out[n]!);
      };
      const g = session.graphFor(feeds);
      const sessions = g.nodes.filter(isOrtRegion).length;
      return {
        run: () => {
          for (const t of outputs()) {
            t.dataSync();
            t.dispose();
          }
        },
        note: regions
          ? `${g.nodes.length} nodes, ${sessions} ort region${sessions === 1 ? '' : 's'}`
          : `${g.nodes.length} nodes`,
        result: () => readAll(outputs()),
      };
    },
  };
}

/** A whole model in onnxruntime-node (its own async API, graph optimizations on), the peer of the region column. */
function modelOrt(m: CorpusModel): Impl {
  return {
    async setup() {
      const bytes = new Uint8Array(readFileSync(corpusFile(m)!));
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

/** Committed corpus models with and without ort regions (every region one onnxruntime session). */
const regionCases = (): BenchCase[] =>
  ['ppocr-cls-mobile-v2', 'oww-melspectrogram']
    .map((name) => CORPUS.find((c) => c.name === name)!)
    .flatMap((m) =>
      (['initializers', 'inputs'] as const).map((weights) =>
        defineCase({
          name: `ort regions ${m.name}${weights === 'inputs' ? ' · weights as inputs' : ''}`,
          what: `${m.kind}: loadOnnx().run with ortRegions, weights ${weights === 'inputs' ? 'fed as inputs' : 'in the model (the default)'} (raf-op), and as imported (raf-op unfused: heavy calls still go to ort one by one), against onnxruntime-node on the whole model`,
          group: 'graph',
          unavailable: async () => (corpusFile(m) ? undefined : 'not fetched: npm run fetch:models'),
          impls: {
            'raf-op': modelColumn(m, weights),
            'raf-op unfused': modelColumn(m, false),
            onnxruntime: modelOrt(m),
          },
        }),
      ),
    );

export default [
  ...regionCases(),
  ...addCase(),
  ...[64, 96, 128, 256].flatMap(matmulCases),
  ...(
    [
      [8, 16],
      [16, 32],
      [32, 32],
      [64, 32],
    ] as const
  ).flatMap(([c, hw]) => conv2dCases(c, hw)),
  ...(
    [
      [8, 16],
      [16, 32],
      [32, 32],
      [64, 56],
    ] as const
  ).flatMap(([c, hw]) => poolCases(c, hw)),
  ...(
    [
      [16, 64],
      [128, 768],
      [512, 768],
    ] as const
  ).flatMap(([n, d]) => layerNormCases(n, d)),
  ...(
    [
      [64, 1024],
      [16, 8192],
      [128, 4096],
    ] as const
  ).flatMap(([n, d]) => softmaxCases(n, d)),
  ...(['lstm', 'gru'] as const).flatMap((k) => [
    ...rnnCases(k, 8, 1, 16, 16),
    ...rnnCases(k, 16, 1, 64, 64),
    ...rnnCases(k, 32, 4, 128, 128),
  ]),
];
