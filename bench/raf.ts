// The raf-op columns: the default dispatch (highest level that serves the device) and the TypeScript reference pinned.

import { setFlagsFromString } from 'node:v8';
import {
  allDialectOps,
  fromStorage,
  relaxedSimdSupported,
  setWasmBuild,
  tidy,
  toWasmMemory,
  withDialect,
  type DeviceKind,
  type Tensor,
  type WasmBuild,
} from '../runtime/src/index.ts';
import { enabledDialects, getDialect } from '../runtime/src/dialect.ts';
import { asFloat32, type Impl } from './case.ts';

/** The dialect that serves `op` on `device` by default: the highest level whose dialect is up (and pinned, if any are). */
export function servedBy(op: string, device: DeviceKind = 'cpu'): string {
  const pins = enabledDialects();
  const d = allDialectOps(op).find(
    (d) =>
      getDialect(d.dialect)?.devices.includes(device) &&
      !getDialect(d.dialect)?.unavailable?.() &&
      (pins === null || pins.includes(d.dialect)),
  );
  return d?.dialect ?? '?';
}

/** Reads every output back (async, so GPU tensors work too) as float32. */
export async function readAll(r: Tensor | readonly Tensor[]): Promise<Float32Array[]> {
  const ts = Array.isArray(r) ? (r as readonly Tensor[]) : [r as Tensor];
  return asFloat32(await Promise.all(ts.map((t) => t.data() as Promise<ArrayLike<number>>)));
}

/**
 * `build` makes inputs and returns the op chain; `op` names the op whose dialect the table reports. Each run is a
 * tidy() scope that reads the results back inside it, as the tfjs columns' runs are tf.tidy with dataSync inside:
 * intermediates and results are disposed when the run ends.
 */
export function raf(op: string, build: () => () => Tensor | readonly Tensor[], pin?: readonly string[]): Impl {
  return {
    setup() {
      const f = build();
      const pinned = pin ? () => withDialect(pin, f) : f;
      const run = () => tidy(pinned);
      return {
        run: () =>
          tidy(() => {
            const r = pinned();
            for (const t of Array.isArray(r) ? r : [r as Tensor]) t.dataSync();
          }),
        note: pin ? pin.join('+') : servedBy(op),
        result: () => readAll(run()),
      };
    },
  };
}

/**
 * A float32 tensor of the peers' shared data, placed in wasm memory as the tfjs-wasm column's inputs are (made on its
 * backend): wasm kernels read it in place. A column pinned to the CPU dialect reads it out once, on its first call.
 */
export const input = (shape: readonly number[], values: Float32Array): Tensor =>
  toWasmMemory(fromStorage(shape, 'float32', values));

/**
 * Turns on V8's relaxed SIMD for this process where the engine lacks it (Node 20), as `node
 * --experimental-wasm-relaxed-simd` would; it holds for wasm compiled afterwards.
 */
export function allowRelaxedSimd(): void {
  if (!relaxedSimdSupported()) setFlagsFromString('--experimental-wasm-relaxed-simd');
}

/**
 * `--wasm-build simd|relaxed-simd` from a script's arguments (else `fallback`), put in place before anything compiles
 * wasm (relaxed-simd after allowRelaxedSimd). Returns the build asked for, or undefined to leave the engine's default.
 */
export function wasmBuildFromArgs(argv: readonly string[], fallback?: WasmBuild): WasmBuild | undefined {
  const build = argv.includes('--wasm-build') ? (argv[argv.indexOf('--wasm-build') + 1] as WasmBuild) : fallback;
  if (build === 'relaxed-simd') allowRelaxedSimd();
  if (build) setWasmBuild(build);
  return build;
}
