// Runs a subset of the op cases on WebGPU in headless Chromium (Debian chromium via playwright-core) and compares each with the CPU in Node.
// The page runs the built package (runtime/dist, bundled by esbuild through @raf-op/runtime's exports), not the sources.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { call, randomUniform, tensor, valueAndGrad, withDialect, type Tensor } from '../../runtime/src/index.ts';
import { assertAllClose } from '../support/assert.ts';
import { REQUIRE_WEBGPU, WEBGPU_TOLERANCE } from '../support/webgpu-cases.ts';
import type { BrowserCase, BrowserRun } from './page.ts';

const CHROMIUM = process.env.RAF_CHROMIUM ?? '/usr/bin/chromium';
// SwiftShader (software Vulkan) serves WebGPU when there is no GPU; WebGPU on Linux is still behind this flag.
const CHROMIUM_ARGS = ['--enable-unsafe-webgpu', '--enable-features=Vulkan', '--use-webgpu-adapter=swiftshader'];

/** One case per op family: broadcasting, every hand kernel, a batched matmul, and gradients through them. */
const CASES: readonly {
  op: string;
  shapes: Record<string, number[]>;
  args?: Record<string, unknown>;
  grad?: string[];
}[] = [
  { op: 'add', shapes: { a: [3, 4], b: [4] }, grad: ['a', 'b'] },
  { op: 'multiply', shapes: { a: [2, 3, 4], b: [3, 1] }, grad: ['a', 'b'] },
  { op: 'divide', shapes: { a: [5], b: [5] } },
  { op: 'relu', shapes: { x: [2, 3, 4] }, grad: ['x'] },
  { op: 'exp', shapes: { x: [7] }, grad: ['x'] },
  { op: 'softmax', shapes: { x: [3, 2, 5] }, args: { axis: 1 }, grad: ['x'] },
  { op: 'log_softmax', shapes: { x: [4, 6] }, args: { axis: -1 }, grad: ['x'] },
  { op: 'sum', shapes: { x: [2, 3, 4] }, args: { axis: [0, 2], keepdims: true }, grad: ['x'] },
  { op: 'matmul', shapes: { a: [2, 3, 5], b: [5, 4] }, grad: ['a', 'b'] },
  { op: 'matmul_nt', shapes: { a: [3, 5], b: [4, 5] } },
  { op: 'reshape', shapes: { x: [3, 4] }, args: { shape: [2, -1] }, grad: ['x'] },
];

/** Input of the wasm check: a [2, 3] softmax, run in the page through initWasm's module. */
const WASM_INPUT = [0.5, -1, 2, 3, 0, -0.25];

interface Prepared {
  readonly browser: BrowserCase;
  readonly value: Tensor;
  readonly grads: readonly Tensor[];
}

/** Inputs in float32 (what the page uploads) and the CPU reference computed in float64 from the same values. */
function prepare(): Prepared[] {
  return CASES.map((c, i) => {
    const inputs = Object.fromEntries(
      Object.entries(c.shapes).map(([name, shape], k) => [
        name,
        randomUniform(shape, { seed: 100 * i + k, low: 0.5, high: 2 }),
      ]),
    );
    const wide = Object.fromEntries(
      Object.entries(inputs).map(([k, t]) => [k, tensor(t.dataSync(), { dtype: 'float64', shape: t.shape })]),
    );
    const args = c.args ?? {};
    const value = withDialect(['cpu'], () => call(c.op, [], { ...wide, ...args })) as Tensor;
    const dy = Array.from({ length: value.size }, (_, k) => Math.cos(k + i));
    const f = (...xs: Tensor[]) =>
      call(c.op, [], { ...wide, ...args, ...Object.fromEntries((c.grad ?? []).map((n, k) => [n, xs[k]])) }) as Tensor;
    const grads = c.grad
      ? withDialect(
          ['cpu'],
          () =>
            valueAndGrad(
              f,
              undefined,
              tensor(dy, { dtype: 'float64', shape: value.shape }),
            )(...c.grad!.map((n) => wide[n]!)).grads,
        )
      : [];
    const browser: BrowserCase = {
      title: `${c.op} ${Object.entries(c.shapes)
        .map(([k, s]) => `${k}[${s}]`)
        .join(' ')} ${JSON.stringify(args)}`,
      op: c.op,
      inputs: Object.fromEntries(
        Object.entries(inputs).map(([k, t]) => [k, { shape: [...t.shape], data: Array.from(t.dataSync()) }]),
      ),
      args,
      ...(c.grad ? { grad: c.grad, dy } : {}),
    };
    return { browser, value, grads };
  });
}

const RUNTIME = fileURLToPath(new URL('../../runtime/', import.meta.url));

/** Newest modification time under a folder, in ms. */
function newest(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

/** Builds runtime/dist (`npm run build -w runtime`) when it is missing or older than a source. */
function ensureBuilt(): void {
  const stamp = join(RUNTIME, 'dist/.built');
  if (existsSync(stamp) && statSync(stamp).mtimeMs >= newest(join(RUNTIME, 'src'))) return;
  const r = spawnSync(
    process.execPath,
    [fileURLToPath(new URL('../../scripts/build-package.mjs', import.meta.url)), 'runtime'],
    {
      encoding: 'utf8',
    },
  );
  if (r.status !== 0) throw new Error(`building runtime/dist failed:\n${r.stdout}${r.stderr}`);
}

async function bundle(): Promise<string> {
  const { build } = await import('esbuild');
  const out = await build({
    entryPoints: [fileURLToPath(new URL('./page.ts', import.meta.url))],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  const js = out.outputFiles[0]!.text;
  // esbuild marks each module with its path: the page must get the built package, not the TypeScript sources.
  if (!js.includes('// runtime/dist/') || js.includes('// runtime/src/'))
    throw new Error('the page bundle does not come from runtime/dist (the built @raf-op/runtime)');
  return js;
}

/** A build of the wasm module as a page gets it: through the package's exports (runtime/dist, once built). */
const wasmModule = (file: string) => createRequire(import.meta.url).resolve(`@raf-op/runtime${file}`);

/**
 * Serves the page, the bundle and the wasm dialect's module on 127.0.0.1: WebGPU needs a secure context, which
 * http://localhost is. The bundle has no stubs: the runtime must load in a page as it is.
 */
function serve(js: string): Promise<http.Server> {
  const html =
    '<!doctype html><meta charset="utf-8"><title>raf-op webgpu</title><script type="module" src="/bundle.js"></script>';
  const server = http.createServer((req, res) => {
    if (req.url === '/bundle.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(js);
    else if (req.url === '/raf.wasm' || req.url === '/raf-relaxed.wasm')
      res.writeHead(200, { 'content-type': 'application/wasm' }).end(readFileSync(wasmModule(req.url)));
    else if (req.url === '/') res.writeHead(200, { 'content-type': 'text/html' }).end(html);
    else res.writeHead(404).end();
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

let run: BrowserRun | undefined;
let unavailable: string | undefined;
let prepared: Prepared[] = [];
let server: http.Server | undefined;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    unavailable = `no Chromium at ${CHROMIUM} (run scripts/install-chromium-webgpu.sh, or set RAF_CHROMIUM)`;
    return;
  }
  prepared = prepare();
  ensureBuilt();
  server = await serve(await bundle());
  const { chromium } = await import('playwright-core');
  // Chromium refuses to run as root with its sandbox on.
  const args = [...CHROMIUM_ARGS, ...(process.getuid?.() === 0 ? ['--no-sandbox'] : [])];
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args });
  try {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`http://localhost:${(server.address() as AddressInfo).port}/`);
    await page
      .waitForFunction(() => 'rafRunCases' in globalThis, undefined, { timeout: 20_000 })
      .catch((e: Error) => {
        throw new Error(
          `the page never loaded its bundle (${e.message})${errors.length ? `; page errors: ${errors.join('; ')}` : ''}`,
        );
      });
    run = await page.evaluate(
      ([cases, wasmInput]) =>
        (globalThis as unknown as { rafRunCases: (c: BrowserCase[], w: number[]) => Promise<BrowserRun> }).rafRunCases(
          cases,
          wasmInput,
        ),
      [prepared.map((p) => p.browser), WASM_INPUT] as const,
    );
    if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
  } catch (e) {
    unavailable = `WebGPU in Chromium failed: ${(e as Error).message}`;
  } finally {
    await browser.close();
  }
  // Building runtime/dist first, when it is stale, takes a minute or more on a loaded machine.
}, 600_000);

afterAll(() => {
  server?.close();
});

describe('webgpu in headless Chromium', () => {
  it('gets an adapter', (ctx) => {
    if (!run) {
      if (REQUIRE_WEBGPU) throw new Error(unavailable);
      return ctx.skip(unavailable);
    }
    console.log(`[webgpu-browser] adapter: ${run.adapter}; ${run.pipelines} pipelines compiled in the page`);
    expect(run.results).toHaveLength(CASES.length);
  });

  it('loads the wasm dialect (its relaxed-SIMD build) with initWasm and falls back to the CPU before it', (ctx) => {
    if (!run) {
      if (REQUIRE_WEBGPU) throw new Error(unavailable);
      return ctx.skip(unavailable);
    }
    const { before, relaxed, loaded, build, softmax, matmul } = run.wasm;
    expect(before).toMatch(/initWasm/);
    expect(loaded).toBe(true);
    // Chromium has had relaxed SIMD since 114: the page loads, and runs, the relaxed build.
    expect(relaxed).toBe(true);
    expect(build).toBe('relaxed-simd');
    const x = tensor(WASM_INPUT, { dtype: 'float32', shape: [2, 3] });
    const w = tensor([...WASM_INPUT].reverse(), { dtype: 'float32', shape: [3, 2] });
    assertAllClose(
      softmax,
      Array.from((withDialect(['cpu'], () => call('softmax', [x, -1])) as Tensor).dataSync()),
      { atol: 1e-6, rtol: 0 },
      'softmax on wasm in Chromium vs CPU',
    );
    assertAllClose(
      matmul,
      Array.from((withDialect(['cpu'], () => call('matmul', [x, w])) as Tensor).dataSync()),
      { atol: 1e-6, rtol: 1e-6 },
      'matmul on wasm in Chromium vs CPU',
    );
  });

  it.for(CASES.map((c, i) => [c.op, i] as const))('%s matches the CPU', ([, i], ctx) => {
    if (!run) {
      if (REQUIRE_WEBGPU) throw new Error(unavailable);
      return ctx.skip(unavailable);
    }
    const got = run.results[i]!;
    const want = prepared[i]!;
    expect(got.device).toBe('webgpu');
    expect(got.shape).toEqual([...want.value.shape]);
    assertAllClose(got.value, Array.from(want.value.dataSync()), WEBGPU_TOLERANCE, `${got.title} in Chromium vs CPU`);
    expect(got.grads).toHaveLength(want.grads.length);
    want.grads.forEach((g, k) =>
      assertAllClose(
        got.grads[k]!,
        Array.from(g.dataSync()),
        WEBGPU_TOLERANCE,
        `${got.title}: gradient ${k} in Chromium vs CPU`,
      ),
    );
  });
});
