// Cases: conv2d 3×3 (conv2d.ts) and the oww-embedding model (onnx_models.ts, 1×3 and 3×1 convolutions) again with
// raf-op's opt-in Winograd transforms of 4 outputs (setWasmWinograd(4): F(4×4, 3×3) and F(4, 3)) against the same
// onnxruntime column, in the same run as the default rows. Without a target: targets hold for the defaults.

import { setWasmWinograd } from '../../runtime/src/index.ts';
import { CORPUS } from '../../test/onnx-corpus/fetch.ts';
import { defineCase, type BenchCase, type Impl } from '../case.ts';
import conv2d from './conv2d.ts';
import { modelCase } from './onnx_models.ts';

/** The raf-op column with setWasmWinograd(4) for its runs (activate, since the harness interleaves the columns). */
function winograd4(impl: Impl): Impl {
  return {
    async setup() {
      const r = await impl.setup();
      return {
        ...r,
        note: `${r.note ?? ''} winograd 4`.trim(),
        activate: () => setWasmWinograd(4),
        dispose: async () => {
          setWasmWinograd(2);
          await r.dispose?.();
        },
      };
    },
  };
}

function optIn(c: BenchCase): BenchCase {
  return defineCase({
    name: `${c.name} · winograd 4×4`,
    what: `${c.what}; raf-op with setWasmWinograd(4)`,
    group: c.group,
    ...(c.unavailable ? { unavailable: c.unavailable } : {}),
    impls: { 'raf-op': winograd4(c.impls['raf-op']!), onnxruntime: c.impls.onnxruntime! },
  });
}

export default [conv2d, modelCase(CORPUS.find((m) => m.name === 'oww-embedding')!)].map(optIn);
