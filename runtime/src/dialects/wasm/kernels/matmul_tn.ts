// Wasm kernel of raf.op.matmul_tn (specs/linalg/matmul_tn.yaml), a transposed, on the shared SIMD matrix product.

import type { MatmulTnKernel } from '../../../generated/bridge/matmul_tn.ts';
import { wasmMatrixProduct } from '../matmul.ts';

export const matmulTnWasm: MatmulTnKernel = ({ a, b }, _attrs, out) => wasmMatrixProduct(a, b, out, true, false);
