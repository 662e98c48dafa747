// Cases: a two-layer MLP as an ONNX model, imported by FromOnnx, fused and run by the graph executor (cpu, webgpu) against onnxruntime.

import { gpuSync, type DeviceKind } from '../../runtime/src/index.ts';
import { execute, fromOnnx, fuseOps, moveGraph } from '../../runtime/src/graph/index.ts';
import { buildModel, type ModelSpec } from '../../test/support/onnx-proto.ts';
import { defineCase, type BenchCase } from '../case.ts';
import { noWebGpu } from '../gpu.ts';
import { data, onnx } from '../peers.ts';
import { input, readAll, servedBy } from '../raf.ts';

/** softmax(relu(x·W1 + b1)·W2 + b2), the model of test/runtime/graph-onnx.test.ts at a size worth timing. */
export function mlpModel(
  batch: number,
  inDim: number,
  hidden: number,
  outDim: number,
): { spec: ModelSpec; x: Float32Array } {
  // Small weights keep the softmax away from saturation, so outputs compare meaningfully.
  const w = (name: string, shape: number[], seed: number) => ({
    name,
    dtype: 'float32' as const,
    shape,
    data: data(
      shape.reduce((a, b) => a * b, 1),
      seed,
    ).map((v) => v * 0.1),
  });
  return {
    spec: {
      nodes: [
        { op: 'MatMul', inputs: ['x', 'w1'], outputs: ['h0'] },
        { op: 'Add', inputs: ['h0', 'b1'], outputs: ['h1'] },
        { op: 'Relu', inputs: ['h1'], outputs: ['h2'] },
        { op: 'MatMul', inputs: ['h2', 'w2'], outputs: ['h3'] },
        { op: 'Add', inputs: ['h3', 'b2'], outputs: ['h4'] },
        { op: 'Softmax', inputs: ['h4'], outputs: ['y'], attrs: { axis: -1 } },
      ],
      inputs: [{ name: 'x', dtype: 'float32', shape: [batch, inDim] }],
      outputs: [{ name: 'y' }],
      initializers: [
        w('w1', [inDim, hidden], 2),
        w('b1', [hidden], 3),
        w('w2', [hidden, outDim], 4),
        w('b2', [outDim], 5),
      ],
      opset: 17,
    },
    x: data(batch * inDim, 1),
  };
}

export function onnxMlpCase(device: DeviceKind, batch = 128, inDim = 784, hidden = 256, outDim = 10): BenchCase {
  const { spec, x } = mlpModel(batch, inDim, hidden, outDim);
  const shape = [batch, inDim];
  return defineCase({
    name: `onnx mlp · ${device}`,
    what: `FromOnnx + fuseOps of softmax(relu(x·W1 + b1)·W2 + b2), x ${batch}×${inDim}, W1 ${inDim}×${hidden}, W2 ${hidden}×${outDim}; raf-op on ${device}, onnxruntime on the CPU`,
    group: 'graph',
    ...(device === 'webgpu' ? { unavailable: noWebGpu } : {}),
    impls: {
      'raf-op': {
        async setup() {
          // Fused as a compiler would run it: each matmul takes its bias (and relu) into its store; softmax stays alone.
          const cpuGraph = fuseOps(fromOnnx(buildModel(spec)));
          const g = device === 'cpu' ? cpuGraph : await moveGraph(cpuGraph, device);
          const tx = await input(shape, x).to(device);
          const f = () => execute(g, [tx])[0]!;
          return {
            run:
              device === 'cpu'
                ? () => f().dataSync()
                : async () => {
                    const y = f();
                    await gpuSync();
                    y.dispose();
                  },
            note: `graph, fused to ${g.nodes.length} kernels, matmul: ${servedBy('matmul', device)}`,
            result: () => readAll(f()),
          };
        },
      },
      onnxruntime: onnx(spec, () => ({ x: { dims: shape, data: x } })),
    },
  });
}

export default [onnxMlpCase('cpu'), onnxMlpCase('webgpu')];
