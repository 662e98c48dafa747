// The wasm dialect's two builds (as/madd.ts): build/raf.wasm (SIMD) and build/raf-relaxed.wasm (relaxed SIMD, fused
// multiply-add). This file runs in both vitest projects: `default` (Node 20 as it starts, no relaxed SIMD) and
// `relaxed-simd` (--experimental-wasm-relaxed-simd), so each half of setWasmBuild is exercised in one of them.

import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { ops, relaxedSimdSupported, setWasmBuild, tensor, wasmBuild, withDialect } from '../../runtime/src/index.ts';
import { lcgValues, matmulRef } from '../support/reference.ts';

const flagged = process.execArgv.includes('--experimental-wasm-relaxed-simd');
const nodeMajor = Number(process.versions.node.split('.')[0]);
const f32 = (data: number[], shape: number[]) => tensor(data, { shape, dtype: 'float32' });
const onWasm = <T>(f: () => T) => withDialect(['wasm'], f);

/** Whether this CPU has fused multiply-add, where the answer is known (Linux on x64 from /proc/cpuinfo; arm64 has it). */
function cpuFma(): boolean | undefined {
  if (process.arch === 'arm64') return true;
  if (process.arch !== 'x64' || process.platform !== 'linux') return undefined;
  return /^flags\s*:.*\bfma\b/m.test(readFileSync('/proc/cpuinfo', 'utf8'));
}

/**
 * A product whose one element is −1 + (1 + 2⁻¹³)(1 − 2⁻¹³) = −2⁻²⁶ exactly. Rounded after the multiply, the
 * product is 1 and the sum 0; fused, the sum is exact. 8×8 with k = 2 runs the blocked kernel's vector path.
 */
function fusedProbe(): number {
  const a = new Array<number>(16).fill(0);
  const b = new Array<number>(16).fill(0);
  [a[0], a[1]] = [-1, 1 + 2 ** -13];
  [b[0], b[8]] = [1, 1 - 2 ** -13];
  return onWasm(() => ops.matmul(f32(a, [8, 2]), f32(b, [2, 8])).dataSync()[0]!);
}

describe('wasm dialect builds', () => {
  afterAll(() => setWasmBuild('auto'));

  it('loads the relaxed build exactly where the engine supports relaxed SIMD', () => {
    setWasmBuild('auto');
    expect(relaxedSimdSupported()).toBe(flagged || nodeMajor >= 22);
    onWasm(() => ops.add(f32([1], [1]), f32([2], [1])).dataSync());
    expect(wasmBuild()).toBe(flagged || nodeMajor >= 22 ? 'relaxed-simd' : 'simd');
  });

  it('switches builds in place, keeping resident tensors, and both agree with a float64 product', () => {
    const [m, n, k] = [37, 45, 300];
    const [a, b] = [lcgValues(m * k, 3), lcgValues(k * n, 4)];
    const want = matmulRef(a, b, m, n, k);
    // Made before any switch: it lives in the first instance's memory, and must read back the same after each.
    const resident = onWasm(() => ops.matmul(f32(a, [m, k]), f32(b, [k, n])));
    const snapshot = Array.from(resident.dataSync());
    for (let i = 0; i < m * n; i += 97) expect(snapshot[i]).toBeCloseTo(want[i]!, 3);
    const builds = relaxedSimdSupported() ? (['simd', 'relaxed-simd'] as const) : (['simd'] as const);
    for (const build of builds) {
      setWasmBuild(build);
      expect(wasmBuild()).toBe(build);
      const got = onWasm(() => ops.matmul(f32(a, [m, k]), f32(b, [k, n])).dataSync());
      for (let i = 0; i < m * n; i += 97) expect(got[i]).toBeCloseTo(want[i]!, 3);
      expect(Array.from(resident.dataSync())).toEqual(snapshot);
    }
  });

  it('the plain build rounds after each multiply', () => {
    setWasmBuild('simd');
    expect(fusedProbe()).toBe(0);
  });

  it.runIf(relaxedSimdSupported() && cpuFma() === true)(
    'the relaxed build fuses multiply-adds on a CPU with FMA',
    () => {
      setWasmBuild('relaxed-simd');
      expect(fusedProbe()).toBe(-(2 ** -26));
    },
  );

  it('names what it cannot do', () => {
    expect(() => setWasmBuild('fast' as never)).toThrow(
      /setWasmBuild: build must be 'auto', 'simd' or 'relaxed-simd', not "fast"/,
    );
    if (!relaxedSimdSupported())
      expect(() => setWasmBuild('relaxed-simd')).toThrow(
        /this engine has no relaxed SIMD .*--experimental-wasm-relaxed-simd/,
      );
  });
});
