// One case's onnxruntime-web column in a process of its own, with as many threads as the parent asks: the wasm module
// reads its thread count once per process, so the threaded cases (cases/threads.ts) cannot share the bench's. The
// parent sends { module, name, threads } (the case's file under cases/ and its name), then 'run' (answered with the
// run's time in ms, taken here around the run alone), 'result' (the outputs) and 'dispose'.

import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BenchCase, Runner } from './case.ts';
import { setOrtWebThreads } from './ort-web.ts';

type Message =
  { readonly module: string; readonly name: string; readonly threads: number } | 'run' | 'result' | 'dispose';

const HERE = dirname(fileURLToPath(import.meta.url));
let runner: Runner | undefined;

async function answer(m: Message): Promise<unknown> {
  if (typeof m === 'object') {
    setOrtWebThreads(m.threads);
    const mod = (await import(pathToFileURL(join(HERE, 'cases', m.module)).href)) as {
      default: BenchCase | BenchCase[];
    };
    const c = [mod.default].flat().find((x) => x.name === m.name);
    const impl = c?.impls['onnxruntime-web'];
    if (!impl) throw new Error(`cases/${m.module} has no case '${m.name}' with an onnxruntime-web column`);
    runner = await impl.setup();
    return { note: runner.note };
  }
  if (!runner) throw new Error('ort-web child: not set up');
  if (m === 'run') {
    const t0 = performance.now();
    await runner.run();
    return { ms: performance.now() - t0 };
  }
  if (m === 'result') return { result: await runner.result?.() };
  await runner.dispose?.();
  runner = undefined;
  return {};
}

// One message at a time, in order: each answer is sent before the next message is read.
let queue: Promise<void> = Promise.resolve();
process.on('message', (m: Message) => {
  queue = queue.then(() =>
    answer(m).then(
      (r) => void process.send!(r),
      (e: unknown) => void process.send!({ error: e instanceof Error ? e.message : String(e) }),
    ),
  );
  if (m === 'dispose') void queue.then(() => process.disconnect());
});
