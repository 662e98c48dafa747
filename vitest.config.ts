// vitest: generator tests, runtime tests and the generated per-op tests, one run, in two projects:
// - `default`: every test, on the engine as Node 20 starts it (the wasm dialect loads build/raf.wasm);
// - `relaxed-simd`: the wasm kernel tests, every generated op test and the real-model corpus again, in Node processes
//   started with --experimental-wasm-relaxed-simd, where the dialect loads build/raf-relaxed.wasm (as it does by
//   default on Node ≥ 22 and in Chrome): its matrix products, convolutions, recurrent cells and vector math fuse
//   their multiply-adds.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const RELAXED_SIMD_TESTS = [
  'test/runtime/wasm-*.test.ts',
  'test/runtime/onnx-corpus.test.ts',
  'test/generated/*.test.ts',
];

export default defineConfig({
  // The runtime by its package name is its sources here (as tsconfig's @raf-op/source condition says for types): the
  // harness behind a package's generated tests (generator-raf-op/testing) imports it so, and test/extend runs it.
  resolve: {
    alias: [
      { find: /^@raf-op\/runtime$/, replacement: fileURLToPath(new URL('runtime/src/index.ts', import.meta.url)) },
      {
        find: /^@raf-op\/runtime\/extend$/,
        replacement: fileURLToPath(new URL('runtime/src/extend.ts', import.meta.url)),
      },
    ],
  },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'default', include: ['test/**/*.test.ts'] } },
      {
        extends: true,
        test: { name: 'relaxed-simd', include: RELAXED_SIMD_TESTS, execArgv: ['--experimental-wasm-relaxed-simd'] },
      },
    ],
  },
});
