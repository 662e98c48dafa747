// Case: conv2d 3×3 (conv2d.ts) again with raf-op's opt-in Winograd F(4×4, 3×3) (setWasmWinograd(4)) against the same
// onnxruntime column, in the same run as the default row. Without a target: targets hold for the defaults.

import { setWasmWinograd } from '../../runtime/src/index.ts';
import { defineCase, type Impl } from '../case.ts';
import conv2d from './conv2d.ts';

/** The raf-op column with setWasmWinograd(4) for its runs (activate, since the harness interleaves the columns). */
function winograd4(impl: Impl): Impl {
  return {
    async setup() {
      const r = await impl.setup();
      return {
        ...r,
        note: `${r.note ?? ''} F(4×4)`.trim(),
        activate: () => setWasmWinograd(4),
        dispose: async () => {
          setWasmWinograd(2);
          await r.dispose?.();
        },
      };
    },
  };
}

export default defineCase({
  name: `${conv2d.name} · winograd 4×4`,
  what: `${conv2d.what}; raf-op with setWasmWinograd(4)`,
  group: conv2d.group,
  impls: { 'raf-op': winograd4(conv2d.impls['raf-op']!), onnxruntime: conv2d.impls.onnxruntime! },
});
