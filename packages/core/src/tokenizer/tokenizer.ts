/**
 * A BPE tokenizer built from HF `tokenizer.json` + `tokenizer_config.json`, exact to HF
 * `tokenizers` for the features the supported families use: added-token split → normalizer
 * (NFC, literal Replace, Sequence) → pre-tokenizer (Split sequences with every behaviour,
 * ByteLevel) → BPE (byte-level or character-level with byte fallback, ignore_merges) → decoder.
 * Per-token offsets let renderers attribute the tokens of one BPE pass to segments. Anything
 * else in tokenizer.json is refused by name at load, never approximated.
 */
import { getOrCompute } from "../memo.ts";
import { type AddedTokenJson, AddedTokenMatcher } from "./added-tokens.ts";
import { type BpeModelJson, BytePairModel } from "./bpe.ts";
import type { CompiledBpe } from "./compiled-cache.ts";
import { buildDecoder, byteLevelBytes, type Decoder, decodeUtf8Lossy } from "./decoder.ts";
import { buildNormalizer, type Normalizer } from "./normalizer.ts";
import { type EncodingWithOffsets, pieceOffsets, remapOffsets } from "./offsets.ts";
import { type PieceStep, runSteps } from "./pretokenize.ts";
import { buildPreTokenizer } from "./pretokenizer-json.ts";
import { TokenBytes } from "./token-bytes.ts";
import { AlphabetTokenList } from "./token-list.ts";

export type { EncodingWithOffsets } from "./offsets.ts";

interface TokenizerJson {
  added_tokens: AddedTokenJson[];
  normalizer: unknown;
  pre_tokenizer: unknown;
  decoder?: unknown;
  model: BpeModelJson & { type: string };
}

/** Bound on the chunk cache (total cached characters) before it is dropped and refilled. */
const CHUNK_CACHE_CHARS = 8_000_000;
const LONE_SURROGATE = /\p{Cs}/u;

export interface TokenizerConfigInfo {
  chatTemplate: string | null;
  /** Named templates (tokenizer_config.json's list form, e.g. "tool_use"); "default" is `chatTemplate`. */
  chatTemplates?: Record<string, string>;
  /** The model's vocabulary and merges from the tokenizer cache (tokenizer.json then lacks them). */
  compiled?: CompiledBpe;
}

export class BpeTokenizer {
  readonly chatTemplate: string | null;
  /** Named chat templates ("default", "tool_use", …) when the checkpoint has several. */
  readonly chatTemplates: Readonly<Record<string, string>>;
  readonly specialTokenIds: ReadonlySet<number>;
  /** `bos_token` / `eos_token` strings from tokenizer_config.json (chat templates use them). */
  readonly bosToken: string | null;
  readonly eosToken: string | null;
  /** tokenizer_config.json as read. */
  readonly config: Readonly<Record<string, unknown>>;
  private readonly model: BytePairModel;
  private readonly added: AddedTokenMatcher;
  private readonly addedById = new Map<number, string>();
  private readonly steps: PieceStep[];
  private readonly normalize: Normalizer;
  private readonly decoder: Decoder;
  private readonly tokenBytes: TokenBytes;
  private readonly scratch: number[] = [];
  /** The last `encodeSpans`: `[start, end, id]` per span (id -1: plain text), and the text spans' encodings. */
  private readonly spans: number[] = [];
  private readonly chunks: EncodingWithOffsets[] = [];
  private startsBuf = new Int32Array(1024);
  private readonly chunkCache = new Map<string, EncodingWithOffsets>();
  private readonly splitCache = new Map<number, boolean>();
  private chunkCacheChars = 0;
  /** UTF-8 length of token `id` (offsets: see `byteLength`). */
  private readonly byteLen: (id: number) => number;
  private readonly notSpecial = (id: number): boolean => !this.specialTokenIds.has(id);
  private readonly splitsAfterUncached = (id: number): boolean => {
    const t = this.addedById.get(id);
    return t !== undefined && this.added.splitsAt(t);
  };

  constructor(tokenizerJson: unknown, tokenizerConfig: Record<string, unknown>, info?: TokenizerConfigInfo) {
    const tj = tokenizerJson as TokenizerJson;
    if (tj.model?.type !== "BPE") throw new Error(`unsupported tokenizer model ${tj.model?.type}`);
    this.normalize = buildNormalizer(tj.normalizer);
    const pre = buildPreTokenizer(tj.pre_tokenizer);
    this.steps = pre.steps;
    const decoderByteLevel = (tj.decoder as { type?: string } | null)?.type === "ByteLevel";
    const byteLevel = pre.byteLevel || decoderByteLevel;
    this.model = new BytePairModel(tj.model, byteLevel, info?.compiled);
    this.decoder = buildDecoder(tj.decoder ?? null, byteLevel);
    this.added = new AddedTokenMatcher(tj.added_tokens);
    for (const t of tj.added_tokens) this.addedById.set(t.id, t.content);
    this.specialTokenIds = new Set(tj.added_tokens.filter((t) => t.special).map((t) => t.id));
    this.config = tokenizerConfig;
    const tpl = info ? info.chatTemplate : tokenizerConfig.chat_template;
    this.chatTemplate = typeof tpl === "string" ? tpl : null;
    this.chatTemplates = info?.chatTemplates ?? {};
    let size = this.model.tokens.length;
    for (const t of tj.added_tokens) size = Math.max(size, t.id + 1);
    this.tokenBytes = new TokenBytes(size, (id) => this.bytesOf(id));
    this.byteLen = this.byteLength();
    this.bosToken = tokenString(tokenizerConfig.bos_token);
    this.eosToken = tokenString(tokenizerConfig.eos_token);
  }

  /**
   * Byte lengths for token offsets. A byte-level vocabulary held in its alphabet (the tokenizer
   * cache's form) has one byte per character, so a vocabulary token's length is its offsets'
   * difference: what `bytesOf(id).length` is, without copying the token's bytes into the decode
   * pool. The first render of an eval took each of its tokens through that copy (and a fresh
   * page of the pool's 1.2 MB id table per token), ~15 % of the render in a CPU profile.
   */
  private byteLength(): (id: number) => number {
    const tokens = this.model.tokens;
    const slow = (id: number): number => this.tokenBytes.length(id);
    if (!this.model.byteLevel || !(tokens instanceof AlphabetTokenList)) return slow;
    const vocabSize = tokens.length;
    const added = this.addedById;
    return (id) => (id >>> 0 === id && id < vocabSize && !added.has(id) ? tokens.lengthOf(id) : slow(id));
  }

  /** What the tokenizer cache stores for this tokenizer (null: its vocabulary cannot be cached). */
  compiled(): CompiledBpe | null {
    return this.model.compile();
  }

  /** No special tokens added; added tokens such as `<|im_end|>` inside text ARE matched (as HF does). */
  encode(text: string): number[] {
    const n = this.encodeSpans(text);
    const ids = new Array<number>(n);
    const spans = this.spans;
    const chunks = this.chunks;
    let t = 0;
    let c = 0;
    for (let k = 0; k < spans.length; k += 3) {
      const id = spans[k + 2]!;
      if (id >= 0) {
        ids[t++] = id;
        continue;
      }
      const chunk = chunks[c++]!.ids;
      for (let i = 0; i < chunk.length; i++) ids[t++] = chunk[i]!;
    }
    chunks.length = 0;
    return ids;
  }

  /** Like `encode`, with [start, end) UTF-16 offsets of each token into `text`. */
  encodeWithOffsets(text: string): EncodingWithOffsets {
    const n = this.encodeSpans(text);
    const out: EncodingWithOffsets = {
      ids: new Array<number>(n),
      starts: new Array<number>(n),
      ends: new Array<number>(n),
    };
    this.fillSpans(out.ids, out.starts, out.ends);
    return out;
  }

  /**
   * The ids of `text` (the caller's to keep) and each token's start offset, for attributing
   * tokens to the segments of a render. `starts` is a buffer owned by the tokenizer and reused
   * by the next call: read it before encoding again. It may be longer than `ids`.
   */
  encodeWithStarts(text: string): { ids: number[]; starts: Int32Array } {
    const n = this.encodeSpans(text);
    const ids = new Array<number>(n);
    if (this.startsBuf.length < n) this.startsBuf = new Int32Array(Math.max(n, this.startsBuf.length * 2));
    this.fillSpans(ids, this.startsBuf, null);
    return { ids, starts: this.startsBuf };
  }

  /** Writes the last `encodeSpans`' tokens: ids, start offsets and (when wanted) end offsets. */
  private fillSpans(ids: number[], starts: number[] | Int32Array, ends: number[] | null): void {
    const spans = this.spans;
    const chunks = this.chunks;
    let t = 0;
    let c = 0;
    for (let k = 0; k < spans.length; k += 3) {
      const s = spans[k]!;
      const id = spans[k + 2]!;
      if (id >= 0) {
        if (ends !== null) ends[t] = spans[k + 1]!;
        ids[t] = id;
        starts[t++] = s;
        continue;
      }
      const chunk = chunks[c++]!;
      for (let i = 0; i < chunk.ids.length; i++) {
        if (ends !== null) ends[t] = s + chunk.ends[i]!;
        ids[t] = chunk.ids[i]!;
        starts[t++] = s + chunk.starts[i]!;
      }
    }
    chunks.length = 0;
  }

  /**
   * Splits `text` at its added tokens (into `spans`) and encodes each plain-text span (into
   * `chunks`, in order); returns the token count, so the callers size their arrays exactly.
   */
  private encodeSpans(text: string): number {
    assertNoLoneSurrogate(text);
    const spans = this.spans;
    this.added.split(text, spans);
    const chunks = this.chunks;
    chunks.length = 0;
    let n = 0;
    for (let k = 0; k < spans.length; k += 3) {
      if (spans[k + 2] !== -1) {
        n++;
        continue;
      }
      const s = spans[k]!;
      const e = spans[k + 1]!;
      const chunk = this.encodeChunk(s === 0 && e === text.length ? text : text.slice(s, e));
      chunks.push(chunk);
      n += chunk.ids.length;
    }
    return n;
  }

  /** Normalized pre-tokens of text without added tokens (HF `pre_tokenize_str` after the normalizer). */
  preTokenize(raw: string): string[] {
    const { text } = this.normalize(raw);
    const pieces: number[] = [];
    runSteps(this.steps, text, pieces);
    const out: string[] = [];
    for (let p = 0; p < pieces.length; p += 2) out.push(text.slice(pieces[p], pieces[p + 1]));
    return out;
  }

  /**
   * Ids and offsets of a span containing no added token, cached per span text: a rollout
   * re-renders the same history every turn, so most spans were encoded before.
   */
  private encodeChunk(raw: string): EncodingWithOffsets {
    const hit = this.chunkCache.get(raw);
    if (hit !== undefined) return hit;
    const { text, remap } = this.normalize(raw);
    const pieces = this.scratch;
    runSteps(this.steps, text, pieces);
    const out: EncodingWithOffsets = { ids: [], starts: [], ends: [] };
    for (let p = 0; p < pieces.length; p += 2) {
      const ps = pieces[p]!;
      const pe = pieces[p + 1]!;
      pieceOffsets(text, ps, pe, this.model.encodePiece(text.slice(ps, pe)), this.byteLen, out);
    }
    if (remap && text !== raw) remapOffsets(raw, text, out);
    this.chunkCacheChars += raw.length;
    if (this.chunkCacheChars > CHUNK_CACHE_CHARS) {
      this.chunkCache.clear();
      this.chunkCacheChars = raw.length;
    }
    this.chunkCache.set(raw, out);
    return out;
  }

  /**
   * Byte-level vocabularies: the tokens' bytes (added tokens included, as HF passes them to the
   * decoder) are gathered in one buffer and decoded as lossy UTF-8 — a character may span
   * tokens; an id outside the vocabulary stands for nothing. Other decoders take the token
   * strings. `opts.end`: decode only `ids[0, end)` (a stop-truncated completion, without copying it).
   */
  decode(ids: readonly number[], opts?: { skipSpecialTokens?: boolean; end?: number }): string {
    const skip = opts?.skipSpecialTokens ?? false;
    const end = Math.min(opts?.end ?? ids.length, ids.length);
    if (!this.model.byteLevel) {
      const tokens: string[] = [];
      for (let k = 0; k < end; k++) {
        const id = ids[k]!;
        if (skip && this.specialTokenIds.has(id)) continue;
        const t = this.addedById.get(id) ?? this.model.token(id);
        if (t !== undefined) tokens.push(t);
      }
      return this.decoder(tokens);
    }
    const bytes = this.tokenBytes.concat(ids, end, skip ? this.notSpecial : null);
    return bytes.length > 0 ? decodeUtf8Lossy(bytes) : "";
  }

  tokenToId(token: string): number | undefined {
    return this.added.idByContent.get(token) ?? this.model.vocab.get(token);
  }

  idToToken(id: number): string | undefined {
    return this.addedById.get(id) ?? this.model.token(id);
  }

  /** True for ids of tokenizer.json `added_tokens` (special or not): they split text before BPE. */
  isAddedToken(id: number): boolean {
    return this.addedById.has(id);
  }

  /**
   * True when `encode(x + T + y)` is `encode(x + T)` followed by `encode(y)` for every x and y,
   * T being added token `id`'s text: the added-token scan always splits there (see
   * `AddedTokenMatcher.splitsAt`) and each plain-text span is normalized and encoded on its own.
   */
  splitsAfter(id: number): boolean {
    return getOrCompute(this.splitCache, id, this.splitsAfterUncached);
  }

  /** UTF-8 bytes a token stands for (byte-level alphabet, `<0xNN>`, or its text); may be a view of the vocabulary: copy before changing it. */
  bytesOf(id: number): Uint8Array {
    const added = this.addedById.get(id);
    if (added === undefined) {
      const stored = this.model.tokenBytes(id);
      if (stored !== null) return stored;
    }
    const tok = added ?? this.model.token(id) ?? "";
    if (this.model.byteLevel) return byteLevelBytes(tok);
    if (added === undefined && /^<0x[0-9A-Fa-f]{2}>$/.test(tok))
      return Uint8Array.of(Number.parseInt(tok.slice(3, 5), 16));
    return Buffer.from(tok, "utf8");
  }
}

function assertNoLoneSurrogate(text: string): void {
  // The native check first: the regex scan costs more than the rest of a warm encode's checks.
  if ((text as unknown as { isWellFormed(): boolean }).isWellFormed()) return;
  const at = text.search(LONE_SURROGATE);
  throw new Error(
    `text contains a lone UTF-16 surrogate (U+${text.charCodeAt(at).toString(16).toUpperCase()} at offset ${at}), which cannot be encoded as UTF-8`,
  );
}

/** Config token entries are a string or an AddedToken dict `{content, …}`. */
function tokenString(x: unknown): string | null {
  if (typeof x === "string") return x;
  if (x && typeof x === "object" && typeof (x as { content?: unknown }).content === "string") {
    return (x as { content: string }).content;
  }
  return null;
}
