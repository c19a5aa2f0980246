/**
 * The UTF-8 bytes each token id stands for, computed on first use and kept in one growing byte
 * pool indexed by two typed arrays (start, length). Decoding a completion copies from the pool
 * into one scratch buffer: no per-token object and no lookup in a sparse id-indexed array.
 */
export class TokenBytes {
  /**
   * Per id, side by side (one cache line per lookup, which a decode makes per token): where its
   * bytes start in the pool, and their length + 1 (0 while the id is not computed yet).
   */
  private readonly meta: Int32Array;
  private pool = new Uint8Array(1 << 16);
  private used = 0;
  private scratch = new Uint8Array(4096);

  constructor(
    /** One past the largest id of the vocabulary: other ids stand for no bytes. */
    private readonly size: number,
    private readonly compute: (id: number) => Uint8Array,
  ) {
    this.meta = new Int32Array(size * 2);
  }

  /** Byte length of token `id` (0 for an id outside the vocabulary). */
  length(id: number): number {
    // Only ids 0 … size-1 stand for bytes (a fractional or negative "id" for none, as before).
    if (id >>> 0 !== id || id >= this.size) return 0;
    const l = this.meta[2 * id + 1]!;
    return l > 0 ? l - 1 : this.add(id);
  }

  /**
   * The concatenated bytes of `ids[0, end)` (those `keep` accepts), in a scratch buffer reused
   * by the next call: the caller decodes it before calling again.
   */
  concat(ids: readonly number[], end: number, keep: ((id: number) => boolean) | null): Uint8Array {
    let out = this.scratch;
    let at = 0;
    for (let k = 0; k < end; k++) {
      const id = ids[k]!;
      if (keep !== null && !keep(id)) continue;
      const n = this.length(id);
      if (n === 0) continue;
      if (at + n > out.length) {
        const grown = new Uint8Array(Math.max(out.length * 2, at + n));
        grown.set(out.subarray(0, at));
        out = grown;
        this.scratch = grown;
      }
      const pool = this.pool;
      let s = this.meta[2 * id]!;
      const stop = s + n;
      while (s < stop) out[at++] = pool[s++]!;
    }
    return out.subarray(0, at);
  }

  /** Computes and stores token `id`'s bytes; returns their length. */
  private add(id: number): number {
    const bytes = this.compute(id);
    if (this.used + bytes.length > this.pool.length) {
      const grown = new Uint8Array(Math.max(this.pool.length * 2, this.used + bytes.length));
      grown.set(this.pool.subarray(0, this.used));
      this.pool = grown;
    }
    this.pool.set(bytes, this.used);
    this.meta[2 * id] = this.used;
    this.meta[2 * id + 1] = bytes.length + 1;
    this.used += bytes.length;
    return bytes.length;
  }
}
