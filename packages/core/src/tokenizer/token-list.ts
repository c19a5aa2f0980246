/**
 * A vocabulary in id order. The compiled-tokenizer cache holds every token in one string with
 * their UTF-16 offsets, so a cached tokenizer starts without making 150k strings (and the GC
 * work they cost); a token is sliced out when first asked for, and the decoder keeps its bytes.
 * A vocabulary written only in the byte-level alphabet (Qwen, Llama 3, …) is held as one byte
 * per character instead (AlphabetTokenList), read from the cache file as it lies.
 * A vocabulary parsed from tokenizer.json may have unused ids; it stays an array.
 */
import { BYTE_TO_CHAR, CHAR_TO_BYTE } from "./byte-level.ts";

export interface TokenList {
  /** One past the largest id. */
  readonly length: number;
  /** The token of `id`, or undefined for an id with none (or not an id at all). */
  get(id: number): string | undefined;
  /** The packed form (the cache's), or null when an id has no token (it has no holes). */
  pack(): PackedTokenList | AlphabetTokenList | null;
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

/**
 * Token `id` is the byte-level alphabet characters of `bytes[offsets[id], offsets[id + 1])`, one
 * byte per character: half the size of the UTF-16 text, and no 2 MB string is made at start-up
 * (on the machines measured every fresh page costs ~15 µs, so bytes not touched are the saving).
 * For a byte-level model these are also the bytes each token stands for.
 */
export class AlphabetTokenList implements TokenList {
  private data: Uint8Array | null;
  private readonly load: (() => Uint8Array) | null;

  /** `bytes`, or a function that reads them when first needed (the tokenizer cache's prefetch). */
  constructor(
    bytes: Uint8Array | (() => Uint8Array),
    readonly offsets: Int32Array,
  ) {
    this.data = typeof bytes === "function" ? null : bytes;
    this.load = typeof bytes === "function" ? bytes : null;
  }

  get bytes(): Uint8Array {
    this.data ??= this.load!();
    return this.data;
  }

  /** The alphabet form of `text` (tokens at `offsets`), or null when a character is outside it. */
  static fromText(text: string, offsets: Int32Array): AlphabetTokenList | null {
    const bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      const b = code < 512 ? CHAR_TO_BYTE[code]! : -1;
      if (b < 0) return null;
      bytes[i] = b;
    }
    return new AlphabetTokenList(bytes, offsets);
  }

  get length(): number {
    return this.offsets.length - 1;
  }

  get(id: number): string | undefined {
    if (!Number.isInteger(id) || id < 0 || id >= this.offsets.length - 1) return undefined;
    const end = this.offsets[id + 1]!;
    let s = "";
    const bytes = this.bytes;
    for (let i = this.offsets[id]!; i < end; i++) s += BYTE_TO_CHAR[bytes[i]!];
    return s;
  }

  /** The bytes of token `id` under the byte-level alphabet (a view: copy before keeping). */
  bytesOf(id: number): Uint8Array {
    return this.bytes.subarray(this.offsets[id], this.offsets[id + 1]);
  }

  pack(): AlphabetTokenList {
    return this;
  }

  lengthOf(id: number): number {
    return this.offsets[id + 1]! - this.offsets[id]!;
  }
}
