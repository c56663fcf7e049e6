/**
 * A small seeded generator for workloads and policies: xoshiro128** (Blackman and Vigna, 2018), 32-bit
 * state words so that it needs no BigInt, seeded through splitmix32 so that nearby seeds give
 * unrelated streams. The same seed gives the same sequence on every platform.
 */

/** xoshiro128**: four 32-bit words of state, period 2^128 - 1. */
export class Rng {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;

  /** A generator seeded from any number (its integer part, modulo 2^32) or string. */
  constructor(seed: number | string = 1) {
    let x = typeof seed === 'string' ? hashString(seed) : Math.trunc(seed) >>> 0;
    const next = (): number => {
      // splitmix32 (the 32-bit variant of Steele, Lea and Flood's splitmix)
      x = (x + 0x9e3779b9) >>> 0;
      let z = x;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.s0 = next();
    this.s1 = next();
    this.s2 = next();
    this.s3 = next();
    if ((this.s0 | this.s1 | this.s2 | this.s3) === 0) this.s0 = 1;
  }

  /** A generator with this exact state (for reference vectors); not all zero. */
  static fromState(state: readonly [number, number, number, number]): Rng {
    const rng = new Rng(0);
    [rng.s0, rng.s1, rng.s2, rng.s3] = state.map((w) => w >>> 0) as [number, number, number, number];
    if ((rng.s0 | rng.s1 | rng.s2 | rng.s3) === 0) throw new RangeError('xoshiro128** state must not be all zero');
    return rng;
  }

  /** The next 32-bit unsigned integer. */
  nextU32(): number {
    const result = Math.imul(rotl(Math.imul(this.s1, 5), 7), 9) >>> 0;
    const t = this.s1 << 9;
    this.s2 ^= this.s0;
    this.s3 ^= this.s1;
    this.s1 ^= this.s2;
    this.s0 ^= this.s3;
    this.s2 ^= t;
    this.s3 = rotl(this.s3, 11);
    return result;
  }

  /** A float in [0, 1) with 32 random bits. */
  next(): number {
    return this.nextU32() / 4294967296;
  }

  /** An integer in [min, max], both included (max - min < 2^32). */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** A float in [min, max). */
  uniform(min: number, max: number): number {
    return min + this.next() * (max - min);
  }

  /** k distinct integers from [0, n) (Floyd's algorithm: O(k) draws and memory, whatever n). */
  sample(n: number, k: number): number[] {
    if (k > n) throw new RangeError(`cannot draw ${k} distinct values from ${n}`);
    const chosen = new Set<number>();
    for (let j = n - k; j < n; j++) {
      const t = this.int(0, j);
      chosen.add(chosen.has(t) ? j : t);
    }
    return [...chosen];
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

/** FNV-1a over the string's UTF-16 code units. */
function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
