// float16 on WebGPU: IEEE binary16 values packed two per u32 word (the byte layout of array<f16>), converted to and from f32 in WGSL.

/**
 * Element j of a packed float16 array bound as `array<u32>`: the low half of a word is the even element (little-endian,
 * the byte layout of `array<f16>`). f16 → f32 is exact, so the builtin serves.
 *
 * Where the device has shader-f16 (`gpu.hasF16`), the elementwise kernels bind the same buffers as `array<f16>`
 * instead (elementwise.ts); arithmetic stays f32 there too, so both paths round once, at the store, like the CPU.
 */
export function loadHalf(array: string, index: string): string {
  return `unpack2x16float(${array}[(${index}) >> 1u])[(${index}) & 1u]`;
}

/**
 * WGSL `pack_f16(a, b)`: the word holding elements 2w (a) and 2w + 1 (b), so one invocation writes a whole word and no two
 * race on halves of one. Not the builtin pack2x16float: WGSL leaves its rounding direction to the implementation and its
 * result undefined beyond ±65504, whereas this rounds half to even and overflows to ±inf like the CPU's roundToFloat16.
 */
export const F16_PACK = `fn f16_bits(v: f32) -> u32 {
  let x = bitcast<u32>(v);
  let sign = (x >> 16u) & 0x8000u;
  let a = x & 0x7fffffffu;
  if (a > 0x7f800000u) { return 0x7e00u; }
  // 65520 and above (inf included) round to inf.
  if (a >= 0x477ff000u) { return sign | 0x7c00u; }
  if (a >= 0x38800000u) {
    // Normal: rebias the exponent (127 → 15) and round the 13 dropped mantissa bits; a carry bumps the exponent.
    let h = (a - 0x38000000u) >> 13u;
    let rest = a & 0x1fffu;
    return sign | (h + select(0u, 1u, rest > 0x1000u || (rest == 0x1000u && (h & 1u) == 1u)));
  }
  // Subnormal or zero: the value in units of 2^-24 is the 24-bit significand shifted right; 1024 lands on 2^-14 exactly.
  let shift = 126u - (a >> 23u);
  if (shift > 24u) { return sign; }
  let m = (a & 0x7fffffu) | 0x800000u;
  let q = m >> shift;
  let rest = m & ((1u << shift) - 1u);
  let half = 1u << (shift - 1u);
  return sign | (q + select(0u, 1u, rest > half || (rest == half && (q & 1u) == 1u)));
}
fn pack_f16(a: f32, b: f32) -> u32 { return f16_bits(a) | (f16_bits(b) << 16u); }`;
