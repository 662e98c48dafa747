// Wasm kernel of raf.op.matmul (specs/linalg/matmul.yaml), on the shared SIMD matrix product.

import type { MatmulKernel } from '../../../generated/bridge/matmul.ts';
import { wasmMatrixProduct } from '../matmul.ts';

export const matmulWasm: MatmulKernel = ({ a, b }, _attrs, out) => wasmMatrixProduct(a, b, out, false, false);
