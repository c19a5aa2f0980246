/**
 * A vocabulary in id order. The compiled-tokenizer cache holds every token in one string with
 * their UTF-16 offsets, so a cached tokenizer starts without making 150k strings (and the GC
 * work they cost); a token is sliced out when first asked for, and the decoder keeps its bytes.
 * A vocabulary parsed from tokenizer.json may have unused ids; it stays an array.
 */
export interface TokenList {
  /** One past the largest id. */
  readonly length: number;
  /** The token of `id`, or undefined for an id with none (or not an id at all). */
  get(id: number): string | undefined;
  /** The packed form (the cache's), or null when an id has no token (it has no holes). */
  pack(): PackedTokenList | null;
}

export class ArrayTokenList implements TokenList {
  constructor(private readonly tokens: readonly (string | undefined)[]) {}

  get length(): number {
    return this.tokens.length;
  }

  get(id: number): string | undefined {
    return Number.isInteger(id) && id >= 0 ? this.tokens[id] : undefined;
  }

  pack(): PackedTokenList | null {
    const n = this.tokens.length;
    const offsets = new Int32Array(n + 1);
    for (let id = 0; id < n; id++) {
      const t = this.tokens[id];
      if (t === undefined) return null;
      offsets[id + 1] = offsets[id]! + t.length;
    }
    return new PackedTokenList(this.tokens.join(""), offsets);
  }
}

/** Token `id` is `text.slice(offsets[id], offsets[id + 1])`. */
export class PackedTokenList implements TokenList {
  constructor(
    readonly text: string,
    readonly offsets: Int32Array,
  ) {}

  get length(): number {
    return this.offsets.length - 1;
  }

  get(id: number): string | undefined {
    if (!Number.isInteger(id) || id < 0 || id >= this.offsets.length - 1) return undefined;
    return this.text.slice(this.offsets[id], this.offsets[id + 1]);
  }

  pack(): PackedTokenList {
    return this;
  }

  /** UTF-16 length of token `id` without slicing it. */
  lengthOf(id: number): number {
    return this.offsets[id + 1]! - this.offsets[id]!;
  }
}
