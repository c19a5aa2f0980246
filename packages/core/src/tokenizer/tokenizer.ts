/**
 * A byte-level BPE tokenizer built from HF `tokenizer.json` + `tokenizer_config.json`, exact to
 * HF `tokenizers` for the Qwen2/Qwen3 family (added-token split → NFC → regex split → ByteLevel
 * BPE), with per-token offsets so renderers can attribute tokens of one BPE pass to segments.
 */
import { type AddedTokenJson, AddedTokenMatcher } from "./added-tokens.ts";
import { type BpeModelJson, BytePairModel } from "./bpe.ts";
import { tokenStringToBytes } from "./byte-level.ts";
import { type EncodingWithOffsets, pieceOffsets, remapOffsets } from "./offsets.ts";
import { compileSplitPattern, splitPieces } from "./pretokenize.ts";

export type { EncodingWithOffsets } from "./offsets.ts";

interface TokenizerJson {
  added_tokens: AddedTokenJson[];
  normalizer: { type: string } | null;
  pre_tokenizer: unknown;
  model: BpeModelJson & { type: string; byte_fallback?: boolean; ignore_merges?: boolean };
}

const utf8Decoder = new TextDecoder("utf-8", { fatal: false });
const NEEDS_NFC_CHECK = /[\u0300-\uffff]/;
/** Bound on the chunk cache (total cached characters) before it is dropped and refilled. */
const CHUNK_CACHE_CHARS = 8_000_000;
/** Largest decode scratch buffer kept between calls (bytes). */
const DECODE_SCRATCH_MAX = 1 << 20;

export class BpeTokenizer {
  readonly chatTemplate: string | null;
  readonly specialTokenIds: ReadonlySet<number>;
  readonly bosToken: string | null;
  readonly eosToken: string | null;
  private readonly model: BytePairModel;
  private readonly added: AddedTokenMatcher;
  private readonly addedById = new Map<number, string>();
  private readonly splitRe: RegExp;
  private readonly nfc: boolean;
  private readonly tokenBytes: (Uint8Array | undefined)[] = [];
  private readonly scratch: number[] = [];
  private readonly chunkCache = new Map<string, EncodingWithOffsets>();
  private chunkCacheChars = 0;
  private decodeScratch = new Uint8Array(4096);
  private readonly byteLen = (id: number): number => this.bytesOf(id).length;

  constructor(tokenizerJson: unknown, tokenizerConfig: Record<string, unknown>) {
    const tj = tokenizerJson as TokenizerJson;
    if (tj.model.type !== "BPE") throw new Error(`unsupported tokenizer model ${tj.model.type}`);
    if (tj.model.ignore_merges) throw new Error("BPE ignore_merges is not supported");
    const norm = tj.normalizer?.type ?? null;
    if (norm !== null && norm !== "NFC") throw new Error(`unsupported normalizer ${norm}`);
    this.nfc = norm === "NFC";
    this.splitRe = compileSplitPattern(findSplitRegex(tj.pre_tokenizer));
    this.model = new BytePairModel(tj.model);
    this.added = new AddedTokenMatcher(tj.added_tokens);
    for (const t of tj.added_tokens) this.addedById.set(t.id, t.content);
    this.specialTokenIds = new Set(tj.added_tokens.filter((t) => t.special).map((t) => t.id));
    const tpl = tokenizerConfig.chat_template;
    this.chatTemplate = typeof tpl === "string" ? tpl : null;
    this.bosToken = tokenString(tokenizerConfig.bos_token);
    this.eosToken = tokenString(tokenizerConfig.eos_token);
  }

  encode(text: string): number[] {
    const ids: number[] = [];
    this.added.scan(
      text,
      (s, e) => {
        for (const id of this.encodeChunk(text.slice(s, e)).ids) ids.push(id);
      },
      (id) => ids.push(id),
    );
    return ids;
  }

  encodeWithOffsets(text: string): EncodingWithOffsets {
    const out: EncodingWithOffsets = { ids: [], starts: [], ends: [] };
    this.added.scan(
      text,
      (s, e) => {
        const chunk = this.encodeChunk(text.slice(s, e));
        for (let i = 0; i < chunk.ids.length; i++) {
          out.ids.push(chunk.ids[i]);
          out.starts.push(s + chunk.starts[i]);
          out.ends.push(s + chunk.ends[i]);
        }
      },
      (id, s, e) => {
        out.ids.push(id);
        out.starts.push(s);
        out.ends.push(e);
      },
    );
    return out;
  }

  /**
   * Ids and offsets of a span containing no added token, cached per span text: a rollout
   * re-renders the same history every turn, so most spans were encoded before.
   */
  private encodeChunk(raw: string): EncodingWithOffsets {
    const hit = this.chunkCache.get(raw);
    if (hit !== undefined) return hit;
    // Below U+0300 nothing composes under NFC, so most text skips the normalizer.
    const text = this.nfc && NEEDS_NFC_CHECK.test(raw) ? raw.normalize("NFC") : raw;
    const pieces = this.scratch;
    pieces.length = 0;
    splitPieces(this.splitRe, text, pieces);
    const out: EncodingWithOffsets = { ids: [], starts: [], ends: [] };
    for (let p = 0; p < pieces.length; p += 2) {
      const ps = pieces[p];
      const pe = pieces[p + 1];
      pieceOffsets(text, ps, pe, this.model.encodePiece(text.slice(ps, pe)), this.byteLen, out);
    }
    if (text !== raw) remapOffsets(raw, text, out);
    this.chunkCacheChars += raw.length;
    if (this.chunkCacheChars > CHUNK_CACHE_CHARS) {
      this.chunkCache.clear();
      this.chunkCacheChars = raw.length;
    }
    this.chunkCache.set(raw, out);
    return out;
  }

  /**
   * Byte runs between added tokens are decoded as one UTF-8 buffer (a character may span token
   * boundaries; invalid bytes become U+FFFD as in HF's lossy decode). The run is gathered in a
   * scratch buffer reused across calls: decode is on the hot path of every parsed completion.
   */
  decode(ids: readonly number[], opts?: { skipSpecialTokens?: boolean }): string {
    const skip = opts?.skipSpecialTokens ?? false;
    let out = "";
    let buf = this.decodeScratch;
    let len = 0;
    for (let k = 0; k < ids.length; k++) {
      const id = ids[k];
      const addedText = this.addedById.get(id);
      if (addedText !== undefined) {
        if (len > 0) {
          out += utf8Decoder.decode(buf.subarray(0, len));
          len = 0;
        }
        if (!(skip && this.specialTokenIds.has(id))) out += addedText;
      } else if (this.model.idToToken[id] !== undefined) {
        const b = this.bytesOf(id);
        if (len + b.length > buf.length) {
          const grown = new Uint8Array(Math.max(buf.length * 2, len + b.length));
          grown.set(buf.subarray(0, len));
          buf = grown;
        }
        buf.set(b, len);
        len += b.length;
      }
    }
    if (len > 0) out += utf8Decoder.decode(buf.subarray(0, len));
    // Keep a grown buffer for the next call, unless one huge decode would pin it.
    if (buf.length <= DECODE_SCRATCH_MAX) this.decodeScratch = buf;
    return out;
  }

  tokenToId(token: string): number | undefined {
    return this.added.idByContent.get(token) ?? this.model.vocab.get(token);
  }

  idToToken(id: number): string | undefined {
    return this.addedById.get(id) ?? this.model.idToToken[id];
  }

  /** UTF-8 bytes a (non-added) token stands for; cached. */
  bytesOf(id: number): Uint8Array {
    let b = this.tokenBytes[id];
    if (b === undefined) {
      const added = this.addedById.get(id);
      b =
        added !== undefined
          ? Buffer.from(added, "utf8")
          : Uint8Array.from(tokenStringToBytes(this.model.idToToken[id] ?? ""));
      this.tokenBytes[id] = b;
    }
    return b;
  }
}

/** Config token entries are a string or an AddedToken dict `{content, …}`. */
function tokenString(x: unknown): string | null {
  if (typeof x === "string") return x;
  if (x && typeof x === "object" && typeof (x as { content?: unknown }).content === "string") {
    return (x as { content: string }).content;
  }
  return null;
}

function findSplitRegex(pre: unknown): string {
  const stack = [pre];
  while (stack.length) {
    const node = stack.pop() as Record<string, unknown> | null;
    if (!node || typeof node !== "object") continue;
    if (node.type === "Split") {
      const pattern = node.pattern as { Regex?: string };
      if (pattern?.Regex && node.behavior === "Isolated" && !node.invert) return pattern.Regex;
      throw new Error("unsupported Split pre-tokenizer (need Isolated Regex)");
    }
    if (node.type === "ByteLevel" && node.use_regex) throw new Error("ByteLevel use_regex is not supported");
    if (Array.isArray(node.pretokenizers)) stack.push(...(node.pretokenizers as unknown[]).reverse());
  }
  throw new Error("tokenizer.json has no Split pre-tokenizer");
}
