// The real ONNX models of the corpus on WebGPU: `npx tsx bench/webgpu-models.ts [runs]`. Each fetched model is imported,
// fused (fuseOps), moved to the GPU and run there; the table gives the median of `runs` runs (read-back included)
// beside the same session on the CPU (default dispatch: wasm kernels, one thread) and the largest difference between
// the two. Meant for a machine with a GPU; on a software adapter only the error column says anything.

import { readFileSync } from 'node:fs';
import { initWebGpu, loadOnnx, type Tensor } from '../runtime/src/index.ts';
import { execute, fuseOps, moveGraph } from '../runtime/src/graph/index.ts';
import { feedsFor } from '../test/onnx-corpus/compare.ts';
import { CORPUS, corpusFile } from '../test/onnx-corpus/fetch.ts';

const runs = Number(process.argv[2] ?? 20);
const gpu = await initWebGpu();
if (!gpu) throw new Error('no WebGPU adapter');
console.log(`WebGPU adapter: ${gpu.info.device} (${gpu.info.description}; ${gpu.info.backend})`);

async function median(run: () => Promise<void>): Promise<number> {
  for (let i = 0; i < 3; i++) await run();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await run();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[runs >> 1]!;
}

const rows: string[] = [
  '| model | nodes (fused) | cpu ms | webgpu ms | cpu / webgpu | max rel. difference |',
  '|---|---|---|---|---|---|',
];
for (const m of CORPUS.filter((c) => !c.refuses && corpusFile(c))) {
  const bytes = new Uint8Array(readFileSync(corpusFile(m)!));
  const session = loadOnnx(bytes, { passes: [fuseOps] });
  const feeds = feedsFor(m, bytes);
  const graph = await moveGraph(session.graphFor(feeds), 'webgpu');
  const inputs = await Promise.all(graph.params.map((p) => feeds[p.hint!]!.to('webgpu')));
  const onCpu = async () => {
    const out = session.run(feeds);
    for (const t of Object.values(out)) t.dispose();
  };
  const readGpu = async (outs: readonly Tensor[]) => Promise.all(outs.map((t) => t.data()));
  const onGpu = async () => {
    const outs = execute(graph, inputs);
    await readGpu(outs);
    for (const t of outs) t.dispose();
  };
  const cpuMs = await median(onCpu);
  const gpuMs = await median(onGpu);
  const cpu = session.run(feeds);
  const outs = execute(graph, inputs);
  const got = await readGpu(outs);
  let err = 0;
  session.outputNames.forEach((name, i) => {
    const want = cpu[name]!.dataSync();
    for (let k = 0; k < want.length; k++)
      err = Math.max(err, Math.abs(got[i]![k]! - want[k]!) / (1 + Math.abs(want[k]!)));
  });
  rows.push(
    `| ${m.name} | ${graph.nodes.length} | ${cpuMs.toFixed(3)} | ${gpuMs.toFixed(3)} | ${(cpuMs / gpuMs).toFixed(2)}× | ${err.toExponential(1)} |`,
  );
  console.error(rows.at(-1));
}
console.log(rows.join('\n'));
process.exit(0);
