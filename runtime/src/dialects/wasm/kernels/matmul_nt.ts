// Wasm kernel of raf.op.matmul_nt (specs/linalg/matmul_nt.yaml), b transposed, on the shared SIMD matrix product.

import type { MatmulNtKernel } from '../../../generated/bridge/matmul_nt.ts';
import { wasmMatrixProduct } from '../matmul.ts';

export const matmulNtWasm: MatmulNtKernel = ({ a, b }, _attrs, out) => wasmMatrixProduct(a, b, out, false, true);
