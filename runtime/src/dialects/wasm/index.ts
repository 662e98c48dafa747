// The wasm dialect: WebAssembly SIMD kernels for float tensors on the CPU, a level above the TypeScript reference.

import { registerDialect } from '../../dialect.ts';
import { wasmUnavailable } from './module.ts';

export const WASM_DIALECT = 'wasm';

registerDialect({ name: WASM_DIALECT, devices: ['cpu'], unavailable: wasmUnavailable });

export { elementwise } from './elementwise.ts';
export { toWasmMemory, wasmServes } from './support.ts';
export { setWasmWinograd, wasmWinograd, type WinogradTile } from './kernels/conv2d.ts';
export { initWasm, relaxedSimdSupported, setWasmBuild, wasmBuild, wasmUnavailable, type WasmBuild } from './module.ts';
