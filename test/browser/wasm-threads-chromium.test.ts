// The wasm dialect's threads in headless Chromium (Debian chromium via playwright-core): a cross-origin isolated page
// (COOP/COEP headers) switches with initWasmThreads(2), Web Workers on a shared memory, and its matmul, conv2d and add
// must equal the page's own single-threaded results bit for bit and float64 references computed here; a page that is
// not isolated must be refused with the reason. The page is bundled from the runtime's sources.

import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertAllClose, tolerance } from '../support/assert.ts';
import type { ThreadsInput, ThreadsRun } from './threads-page.ts';

const CHROMIUM = process.env.RAF_CHROMIUM ?? '/usr/bin/chromium';
const WASM = fileURLToPath(new URL('../../runtime/src/dialects/wasm/build/raf.wasm', import.meta.url));

function values(n: number, seed: number): number[] {
  let a = seed >>> 0;
  return Array.from({ length: n }, () => {
    a = (a * 1664525 + 1013904223) >>> 0;
    // float32-exact, so the float64 references below see the page's inputs.
    return Math.fround((a >>> 8) / 2 ** 23 - 1);
  });
}

const input: ThreadsInput = {
  a: values(67 * 131, 1),
  b: values(131 * 29, 2),
  x: values(5 * 12 * 9, 3),
  w: values(6 * 5 * 3 * 3, 4),
  v: values((1 << 12) + 7, 5),
};

/** The float64 references of the page's three kernels. */
function references(): number[][] {
  const { a, b, x, w, v } = input;
  const mm: number[] = [];
  for (let i = 0; i < 67; i++)
    for (let j = 0; j < 29; j++) {
      let s = 0;
      for (let p = 0; p < 131; p++) s += a[i * 131 + p]! * b[p * 29 + j]!;
      mm.push(s);
    }
  const conv: number[] = [];
  for (let o = 0; o < 6; o++)
    for (let y = 0; y < 12; y++)
      for (let z = 0; z < 9; z++) {
        let s = 0;
        for (let c = 0; c < 5; c++)
          for (let ky = 0; ky < 3; ky++)
            for (let kx = 0; kx < 3; kx++) {
              const iy = y - 1 + ky;
              const ix = z - 1 + kx;
              if (iy >= 0 && iy < 12 && ix >= 0 && ix < 9)
                s += w[((o * 5 + c) * 3 + ky) * 3 + kx]! * x[(c * 12 + iy) * 9 + ix]!;
            }
        conv.push(s);
      }
  return [mm, conv, v.map((t) => 2 * t)];
}

async function bundle(): Promise<string> {
  const { build } = await import('esbuild');
  const out = await build({
    entryPoints: [fileURLToPath(new URL('./threads-page.ts', import.meta.url))],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  return out.outputFiles[0]!.text;
}

/** `/` is cross-origin isolated (COOP same-origin, COEP require-corp); `/plain` is the same page without them. */
function serve(js: string): Promise<http.Server> {
  const html = '<!doctype html><meta charset="utf-8"><script type="module" src="/bundle.js"></script>';
  const isolation = { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' };
  const server = http.createServer((req, res) => {
    if (req.url === '/bundle.js') res.writeHead(200, { 'content-type': 'text/javascript', ...isolation }).end(js);
    else if (req.url === '/raf.wasm')
      res.writeHead(200, { 'content-type': 'application/wasm', ...isolation }).end(readFileSync(WASM));
    else if (req.url === '/') res.writeHead(200, { 'content-type': 'text/html', ...isolation }).end(html);
    else if (req.url === '/plain') res.writeHead(200, { 'content-type': 'text/html' }).end(html);
    else res.writeHead(404).end();
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

let isolated: ThreadsRun | undefined;
let plain: ThreadsRun | undefined;
let server: http.Server | undefined;
const unavailable = existsSync(CHROMIUM) ? undefined : `no Chromium at ${CHROMIUM} (set RAF_CHROMIUM)`;

beforeAll(async () => {
  if (unavailable) return;
  server = await serve(await bundle());
  const { chromium } = await import('playwright-core');
  const args = process.getuid?.() === 0 ? ['--no-sandbox'] : [];
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args });
  try {
    const origin = `http://localhost:${(server.address() as AddressInfo).port}`;
    const runPage = async (path: string): Promise<ThreadsRun> => {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(`${origin}${path}`);
      await page
        .waitForFunction(() => 'rafThreads' in globalThis, undefined, { timeout: 60_000 })
        .catch((e: Error) => {
          throw new Error(`the page never loaded its bundle (${e.message}); page errors: ${errors.join('; ')}`);
        });
      const run = await page.evaluate(
        (i) => (globalThis as unknown as { rafThreads: (i: ThreadsInput) => Promise<ThreadsRun> }).rafThreads(i),
        input,
      );
      if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
      return run;
    };
    isolated = await runPage('/');
    plain = await runPage('/plain');
  } finally {
    await browser.close();
  }
}, 180_000);

afterAll(() => {
  server?.close();
});

describe.skipIf(unavailable)('wasm threads in headless Chromium', () => {
  it('a cross-origin isolated page runs matmul, conv2d and add on 2 threads, equal to 1 thread', () => {
    const run = isolated!;
    expect(run.isolated).toBe(true);
    expect(run.threads).toBe(2);
    expect(run.splits).toBe(3);
    const want = references();
    run.two.forEach((two, k) => {
      expect(two).toEqual(run.one[k]);
      assertAllClose(two, want[k]!, tolerance('float32'), ['matmul', 'conv2d', 'add'][k]);
    });
  });

  it('a page that is not cross-origin isolated is refused, with the reason', () => {
    expect(plain!.isolated).toBe(false);
    expect(plain!.threads).toBe(1);
    expect(plain!.refused).toMatch(/initWasmThreads: this page is not cross-origin isolated/);
  });
});
