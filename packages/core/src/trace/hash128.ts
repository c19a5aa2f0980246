/**
 * A 128-bit non-cryptographic hash over a stream of 32-bit words (MurmurHash3's x86 128-bit
 * block mix and finalizer, fed words instead of bytes). Strings go in as their UTF-16 code
 * units, two per word, after their length — so a sequence of strings hashes unambiguously.
 * One instance is reused (`reset`): hashing allocates only the hex digest.
 */
const C1 = 0x239b961b;
const C2 = 0xab0e9789;
const C3 = 0x38b34ae5;
const C4 = 0xa1e38b93;
const SEED = 0x9747b28c;

const rotl = (x: number, r: number) => (x << r) | (x >>> (32 - r));

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

const digest = Buffer.alloc(16);

export class Hash128 {
  private h1 = SEED;
  private h2 = SEED;
  private h3 = SEED;
  private h4 = SEED;
  private k1 = 0;
  private k2 = 0;
  private k3 = 0;
  /** Words in the pending block (0-3). */
  private n = 0;
  private words = 0;

  reset(): this {
    this.h1 = this.h2 = this.h3 = this.h4 = SEED;
    this.n = 0;
    this.words = 0;
    return this;
  }

  word(w: number): void {
    this.words++;
    switch (this.n) {
      case 0:
        this.k1 = w;
        this.n = 1;
        return;
      case 1:
        this.k2 = w;
        this.n = 2;
        return;
      case 2:
        this.k3 = w;
        this.n = 3;
        return;
      default:
        this.block(this.k1, this.k2, this.k3, w);
        this.n = 0;
    }
  }

  /** The string's length, then its code units two per word. */
  text(s: string): void {
    const len = s.length;
    this.word(len);
    let i = 0;
    for (; i + 1 < len; i += 2) this.word(s.charCodeAt(i) | (s.charCodeAt(i + 1) << 16));
    if (i < len) this.word(s.charCodeAt(i));
  }

  /** The digest as 32 hex digits (the state must be `reset` before the next use). */
  hex(): string {
    let h1 = this.h1;
    let h2 = this.h2;
    let h3 = this.h3;
    let h4 = this.h4;
    // The pending words mixed like MurmurHash3's tail, then the length.
    if (this.n > 0) {
      if (this.n >= 3) h3 ^= Math.imul(rotl(Math.imul(this.k3, C3), 17), C4);
      if (this.n >= 2) h2 ^= Math.imul(rotl(Math.imul(this.k2, C2), 16), C3);
      h1 ^= Math.imul(rotl(Math.imul(this.k1, C1), 15), C2);
    }
    const len = this.words * 4;
    h1 ^= len;
    h2 ^= len;
    h3 ^= len;
    h4 ^= len;
    h1 = (h1 + h2 + h3 + h4) | 0;
    h2 = (h2 + h1) | 0;
    h3 = (h3 + h1) | 0;
    h4 = (h4 + h1) | 0;
    h1 = fmix(h1);
    h2 = fmix(h2);
    h3 = fmix(h3);
    h4 = fmix(h4);
    h1 = (h1 + h2 + h3 + h4) | 0;
    h2 = (h2 + h1) | 0;
    h3 = (h3 + h1) | 0;
    h4 = (h4 + h1) | 0;
    digest.writeInt32BE(h1, 0);
    digest.writeInt32BE(h2, 4);
    digest.writeInt32BE(h3, 8);
    digest.writeInt32BE(h4, 12);
    return digest.toString("hex");
  }

  private block(k1: number, k2: number, k3: number, k4: number): void {
    let h1 = this.h1;
    let h2 = this.h2;
    let h3 = this.h3;
    let h4 = this.h4;
    h1 ^= Math.imul(rotl(Math.imul(k1, C1), 15), C2);
    h1 = (Math.imul(rotl(h1, 19) + h2, 5) + 0x561ccd1b) | 0;
    h2 ^= Math.imul(rotl(Math.imul(k2, C2), 16), C3);
    h2 = (Math.imul(rotl(h2, 17) + h3, 5) + 0x0bcaa747) | 0;
    h3 ^= Math.imul(rotl(Math.imul(k3, C3), 17), C4);
    h3 = (Math.imul(rotl(h3, 15) + h4, 5) + 0x96cd1c35) | 0;
    h4 ^= Math.imul(rotl(Math.imul(k4, C4), 18), C1);
    h4 = (Math.imul(rotl(h4, 13) + h1, 5) + 0x32ac3b17) | 0;
    this.h1 = h1;
    this.h2 = h2;
    this.h3 = h3;
    this.h4 = h4;
  }
}
