// MT19937 as NumPy's legacy RandomState has it (np.random.seed(int), then random_sample), so an ONNX op with a seed
// attribute whose reference draws from NumPy (Dropout) reproduces that reference bit for bit.

export class Mt19937 {
  private readonly mt = new Uint32Array(624);
  private pos = 624;

  /** np.random.seed(seed): Knuth's linear initialisation of the state from one 32-bit seed. */
  constructor(seed: number) {
    let s = seed >>> 0;
    for (let i = 0; i < 624; i++) {
      this.mt[i] = s;
      s = (Math.imul(1812433253, s ^ (s >>> 30)) + i + 1) >>> 0;
    }
  }

  /** The next 32-bit output. */
  nextUint32(): number {
    const mt = this.mt;
    if (this.pos >= 624) {
      for (let i = 0; i < 624; i++) {
        const y = (mt[i]! & 0x80000000) | (mt[(i + 1) % 624]! & 0x7fffffff);
        mt[i] = mt[(i + 397) % 624]! ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      this.pos = 0;
    }
    let y = mt[this.pos++]!;
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** random_sample(): a double in [0, 1) from 53 random bits (27 + 26 of two outputs). */
  nextDouble(): number {
    const a = this.nextUint32() >>> 5;
    const b = this.nextUint32() >>> 6;
    return (a * 67108864 + b) / 9007199254740992;
  }
}
