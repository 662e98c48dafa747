// Multiply-add for the wasm dialect (AssemblyScript), the one instruction that differs between its two builds.
// build/raf-relaxed.wasm is compiled with relaxed SIMD, where f32x4.relaxed_madd becomes one fused multiply-add on
// CPUs that have it (x64 with FMA3, arm64): twice the multiply-adds per instruction. build/raf.wasm, for engines
// without relaxed SIMD, multiplies then adds. ASC_FEATURE_RELAXED_SIMD is a compile-time constant, so each build
// holds only its own branch.

/** a·b + c, lane-wise: fused (one rounding) in the relaxed build where the CPU fuses, else rounded after each step. */
@inline
export function madd(a: v128, b: v128, c: v128): v128 {
  if (ASC_FEATURE_RELAXED_SIMD) return f32x4.relaxed_madd(a, b, c);
  return f32x4.add(c, f32x4.mul(a, b));
}
