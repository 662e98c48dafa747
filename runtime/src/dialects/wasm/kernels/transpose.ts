// Wasm kernel of raf.op.transpose (specs/tensor/transpose.yaml): x read through permuted strides, as an index table
// over wasm memory (see gather.ts).

import type { TransposeKernel } from '../../../generated/bridge/transpose.ts';
import { permutation } from '../../../ops/transpose.rule.ts';
import { stridesOf } from '../../../shape.ts';
import { gatherOverWasm, indexFor } from '../gather.ts';

export const transposeWasm: TransposeKernel = ({ x }, attrs, out) =>
  gatherOverWasm(
    x,
    out,
    indexFor(attrs, x.shape, () => {
      const perm = permutation(attrs.axes, x.shape.length);
      const xStrides = stridesOf(x.shape);
      const strides = perm.map((p) => xStrides[p]!);
      const rank = out.shape.length;
      const counter = new Array<number>(rank).fill(0);
      const index = new Int32Array(x.size);
      let src = 0;
      for (let i = 0; i < index.length; i++) {
        index[i] = src;
        for (let d = rank - 1; d >= 0; d--) {
          counter[d]!++;
          src += strides[d]!;
          if (counter[d]! < out.shape[d]!) break;
          src -= strides[d]! * counter[d]!;
          counter[d] = 0;
        }
      }
      return index;
    }),
  );
