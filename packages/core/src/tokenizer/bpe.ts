/**
 * BPE model: vocabulary, merge ranks and the merge loop, with a per-piece cache. Two symbol
 * alphabets, as in HF: byte-level (GPT-2 style: every byte is a vocabulary entry; Qwen, Llama 3,
 * DeepSeek, gpt-oss) and character-level with byte fallback (SentencePiece-converted
 * vocabularies such as Gemma's: a character missing from the vocabulary becomes its UTF-8 bytes
 * as `<0xNN>` tokens, or the unknown token). `ignore_merges` (Llama 3, o200k) takes a piece that
 * is itself a vocabulary entry as one token before any merge.
 *
 * Symbols are kept as vocabulary ids throughout, so a merge lookup is one numeric Map probe
 * instead of string concatenation. A model from the tokenizer cache builds its token → id map
 * only when something needs it (`tokenToId`, character-level or `ignore_merges` encoding):
 * byte-level encoding goes through byte ids and merges alone, and the map is ~150k inserts.
 */
import { BYTE_TO_CHAR } from "./byte-level.ts";
import type { CompiledBpe } from "./compiled-cache.ts";
import { mergeAll } from "./merge-loop.ts";
import { MergeTable, PAIR_SHIFT } from "./merge-table.ts";
import { joinedBeforeMetaSpace, META_SPACE } from "./meta-space.ts";
import { AlphabetTokenList, ArrayTokenList, type TokenList } from "./token-list.ts";

export interface BpeModelJson {
  vocab: Record<string, number>;
  merges: (string | [string, string])[];
  byte_fallback?: boolean;
  ignore_merges?: boolean;
  unk_token?: string | null;
  fuse_unk?: boolean;
  continuing_subword_prefix?: string | null;
  end_of_word_suffix?: string | null;
  dropout?: number | null;
}

export class BytePairModel {
  readonly tokens: TokenList;
  readonly merges: MergeTable;
  readonly unkId: number | undefined;
  private vocabMap: Map<string, number> | null = null;
  private readonly byteIds: Int32Array;
  /** `<0xNN>` ids for byte fallback (-1 where missing). */
  private readonly fallbackIds: Int32Array;
  private readonly ignoreMerges: boolean;
  private readonly byteFallback: boolean;
  private readonly fuseUnk: boolean;
  private readonly cache = new Map<string, number[]>();
  /** id + 1 of each one-unit character, -1 when it is not in the vocabulary, 0 not looked up yet. */
  private charIds: Int32Array | null = null;
  /** Characters a piece must not be cut after (meta-space.ts); null until first needed. */
  private noCutBefore: Set<number> | null = null;
  private static readonly CACHE_LIMIT = 200_000;

  /** `compiled` (from the tokenizer cache) stands in for `model.vocab` and `model.merges`. */
  constructor(
    model: BpeModelJson,
    readonly byteLevel: boolean,
    compiled?: CompiledBpe,
  ) {
    if (model.dropout) throw new Error("BPE dropout is not supported");
    if (model.continuing_subword_prefix || model.end_of_word_suffix)
      throw new Error("BPE continuing_subword_prefix / end_of_word_suffix are not supported");
    if (compiled) {
      this.tokens = compiled.tokens;
      this.merges = MergeTable.fromArrays(compiled.merges);
    } else {
      // A keys loop: Object.entries on a 150k-key object costs twice as much at start-up.
      const vocab = new Map<string, number>();
      const idToToken: string[] = [];
      const tokens = Object.keys(model.vocab);
      for (let i = 0; i < tokens.length; i++) {
        const id = model.vocab[tokens[i]!]!;
        vocab.set(tokens[i]!, id);
        idToToken[id] = tokens[i]!;
      }
      this.vocabMap = vocab;
      this.tokens = new ArrayTokenList(idToToken);
      this.merges = new MergeTable(model.merges.length);
      model.merges.forEach((merge, rank) => {
        const [a, b] = typeof merge === "string" ? splitMergeString(merge) : merge;
        const ia = vocab.get(a);
        const ib = vocab.get(b);
        const merged = vocab.get(a + b);
        if (ia === undefined || ib === undefined || merged === undefined) return;
        this.merges.add(ia, ib, rank, merged);
      });
    }
    if (this.tokens.length >= PAIR_SHIFT) throw new Error("BPE vocabulary too large for pair keys");
    this.ignoreMerges = model.ignore_merges === true;
    this.byteFallback = model.byte_fallback === true;
    this.fuseUnk = model.fuse_unk === true;
    this.unkId = model.unk_token ? this.vocab.get(model.unk_token) : undefined;
    if (compiled) {
      // Stored with the compiled form: finding them means a pass over the whole vocabulary.
      this.byteIds = compiled.byteIds;
      this.fallbackIds = compiled.fallbackIds;
      if (byteLevel && this.byteIds.includes(-1))
        throw new Error(`byte-level vocabulary lacks byte ${this.byteIds.indexOf(-1)}`);
      return;
    }
    this.byteIds = new Int32Array(256).fill(-1);
    this.fallbackIds = new Int32Array(256).fill(-1);
    const vocab = this.vocab;
    for (let b = 0; b < 256; b++) {
      if (byteLevel) {
        const id = vocab.get(BYTE_TO_CHAR[b]!);
        if (id === undefined) throw new Error(`byte-level vocabulary lacks byte ${b}`);
        this.byteIds[b] = id;
      }
      const fb = vocab.get(`<0x${b.toString(16).toUpperCase().padStart(2, "0")}>`);
      if (fb !== undefined) this.fallbackIds[b] = fb;
    }
  }

  /** Token → id; from the tokenizer cache, built on first use. */
  get vocab(): ReadonlyMap<string, number> {
    if (this.vocabMap === null) {
      const map = new Map<string, number>();
      for (let id = 0; id < this.tokens.length; id++) map.set(this.tokens.get(id)!, id);
      this.vocabMap = map;
    }
    return this.vocabMap;
  }

  token(id: number): string | undefined {
    return this.tokens.get(id);
  }

  /** The vocabulary and merges for the tokenizer cache; null unless ids are exactly 0..n-1, one token each. */
  compile(): CompiledBpe | null {
    const packed = this.tokens.pack();
    if (packed === null || this.vocab.size !== packed.length) return null;
    return {
      tokens: packed,
      merges: this.merges.arrays(),
      byteIds: this.byteIds,
      fallbackIds: this.fallbackIds,
    };
  }

  /** The bytes token `id` stands for, when the vocabulary holds them as they are (else null). */
  tokenBytes(id: number): Uint8Array | null {
    return this.byteLevel && this.tokens instanceof AlphabetTokenList && id < this.tokens.length
      ? this.tokens.bytesOf(id)
      : null;
  }

  /** Token ids of one pre-token (already normalized text). Results are cached and must not be mutated. */
  encodePiece(piece: string): number[] {
    const hit = this.cache.get(piece);
    if (hit !== undefined) return hit;
    let ids: number[];
    if (this.byteLevel) ids = this.encodeBytes(piece);
    else if (this.ignoreMerges) ids = this.encodeChars(piece);
    else ids = this.encodeWords(piece);
    this.remember(piece, ids);
    return ids;
  }

  private remember(piece: string, ids: number[]): void {
    // Like HF (`MAX_LENGTH`), only short pieces are cached: a long one rarely repeats, and the
    // count-bounded cache would otherwise hold arbitrarily large keys.
    if (piece.length >= CACHE_PIECE_MAX) return;
    if (this.cache.size >= BytePairModel.CACHE_LIMIT) this.cache.clear();
    this.cache.set(piece, ids);
  }

  /**
   * Character-level: the piece cut before each "▁" where no merge can cross (meta-space.ts),
   * each part merged (and cached) on its own. The character before a cut must be a vocabulary
   * character, so its symbol is its own text (a byte-fallback or unknown symbol is not).
   */
  private encodeWords(piece: string): number[] {
    let out: number[] | null = null;
    let start = 0;
    for (let q = piece.indexOf(META_SPACE, 1); q >= 0; q = piece.indexOf(META_SPACE, q + 1)) {
      const x = piece.charCodeAt(q - 1);
      if ((x & 0xf800) === 0xd800 || this.bmpCharId(x) === undefined) continue;
      this.noCutBefore ??= joinedBeforeMetaSpace(this.tokens);
      if (x === META_SPACE.charCodeAt(0) || this.noCutBefore.has(x)) continue;
      out ??= [];
      for (const id of this.word(piece.slice(start, q))) out.push(id);
      start = q;
    }
    if (out === null) return this.encodeChars(piece);
    for (const id of this.word(piece.slice(start))) out.push(id);
    return out;
  }

  private word(part: string): number[] {
    const hit = this.cache.get(part);
    if (hit !== undefined) return hit;
    const ids = this.encodeChars(part);
    this.remember(part, ids);
    return ids;
  }

  private encodeBytes(piece: string): number[] {
    const bytes = Buffer.from(piece, "utf8");
    if (this.ignoreMerges) {
      let alpha = "";
      for (let i = 0; i < bytes.length; i++) alpha += BYTE_TO_CHAR[bytes[i]!];
      const whole = this.vocab.get(alpha);
      if (whole !== undefined) return [whole];
    }
    const syms: number[] = new Array(bytes.length);
    for (let i = 0; i < bytes.length; i++) syms[i] = this.byteIds[bytes[i]!]!;
    return mergeAll(syms, this.merges);
  }

  /** Character symbols; a missing character becomes its `<0xNN>` bytes, or the unknown token. */
  private encodeChars(piece: string): number[] {
    if (this.ignoreMerges) {
      const whole = this.vocab.get(piece);
      if (whole !== undefined) return [whole];
    }
    const syms: number[] = [];
    let lastUnk = false;
    for (let i = 0; i < piece.length; ) {
      // Same characters as `for (const ch of piece)`: a surrogate pair is one, a lone one is one.
      const c = piece.charCodeAt(i);
      const pair =
        c >= 0xd800 && c < 0xdc00 && i + 1 < piece.length && (piece.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
      const ch = pair ? piece.slice(i, i + 2) : null;
      i += pair ? 2 : 1;
      const id = ch === null ? this.bmpCharId(c) : this.vocab.get(ch);
      if (id !== undefined) {
        syms.push(id);
        lastUnk = false;
        continue;
      }
      if (this.byteFallback) {
        const bytes = Buffer.from(ch ?? String.fromCharCode(c), "utf8");
        let all = true;
        for (const b of bytes) if (this.fallbackIds[b]! < 0) all = false;
        if (all) {
          for (const b of bytes) syms.push(this.fallbackIds[b]!);
          lastUnk = false;
          continue;
        }
      }
      if (this.unkId === undefined)
        throw new Error(
          `character U+${(ch?.codePointAt(0) ?? c).toString(16)} is not in the vocabulary and there is no unk_token`,
        );
      if (!(this.fuseUnk && lastUnk)) syms.push(this.unkId);
      lastUnk = true;
    }
    return mergeAll(syms, this.merges);
  }

  /**
   * Vocabulary id of a one-unit character, memoized in a 64k table: character-level encoding
   * (Gemma: a whole message is one piece) looks up every character, and a string-keyed Map
   * probe per character was the largest cost after the merge loop.
   */
  private bmpCharId(c: number): number | undefined {
    let table = this.charIds;
    if (table === null) {
      table = new Int32Array(0x10000);
      this.charIds = table;
    }
    const v = table[c]!;
    if (v > 0) return v - 1;
    if (v < 0) return undefined;
    const id = this.vocab.get(String.fromCharCode(c));
    table[c] = id === undefined ? -1 : id + 1;
    return id;
  }
}

/** Pieces this long (UTF-16 units) or longer are not cached. */
const CACHE_PIECE_MAX = 256;

function splitMergeString(merge: string): [string, string] {
  const at = merge.indexOf(" ", 1);
  return [merge.slice(0, at), merge.slice(at + 1)];
}
