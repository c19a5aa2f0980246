/**
 * A byte-level BPE tokenizer built from HF `tokenizer.json` + `tokenizer_config.json`, exact to
 * HF `tokenizers` for the Qwen2/Qwen3 family (added-token split → NFC → regex split → ByteLevel
 * BPE), with per-token offsets so renderers can attribute tokens of one BPE pass to segments.
 */
import { type AddedTokenJson, AddedTokenMatcher } from "./added-tokens.ts";
import { type BpeModelJson, BytePairModel } from "./bpe.ts";
import { tokenStringToBytes } from "./byte-level.ts";
import { compileSplitPattern, splitPieces } from "./pretokenize.ts";

/** Token ids with [start, end) UTF-16 offsets into the encoded text. */
export interface EncodingWithOffsets {
  ids: number[];
  starts: number[];
  ends: number[];
}

interface TokenizerJson {
  added_tokens: AddedTokenJson[];
  normalizer: { type: string } | null;
  pre_tokenizer: unknown;
  model: BpeModelJson & { type: string; byte_fallback?: boolean; ignore_merges?: boolean };
}

const utf8Decoder = new TextDecoder("utf-8", { fatal: false });

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
      (s, e) => this.encodePlain(text.slice(s, e), ids, null, null, 0),
      (id) => ids.push(id),
    );
    return ids;
  }

  encodeWithOffsets(text: string): EncodingWithOffsets {
    const out: EncodingWithOffsets = { ids: [], starts: [], ends: [] };
    this.added.scan(
      text,
      (s, e) => this.encodePlain(text.slice(s, e), out.ids, out.starts, out.ends, s),
      (id, s, e) => {
        out.ids.push(id);
        out.starts.push(s);
        out.ends.push(e);
      },
    );
    return out;
  }

  /** Encodes text containing no added token; offsets (if wanted) are shifted by `base`. */
  private encodePlain(
    raw: string,
    ids: number[],
    starts: number[] | null,
    ends: number[] | null,
    base: number,
  ): void {
    const text = this.nfc ? raw.normalize("NFC") : raw;
    const pieces = this.scratch;
    pieces.length = 0;
    splitPieces(this.splitRe, text, pieces);
    const remap = starts !== null && text !== raw ? new OffsetRemap(raw, text) : null;
    for (let p = 0; p < pieces.length; p += 2) {
      const ps = pieces[p];
      const pe = pieces[p + 1];
      const pieceIds = this.model.encodePiece(text.slice(ps, pe));
      if (starts === null || ends === null) {
        for (const id of pieceIds) ids.push(id);
        continue;
      }
      pieceOffsets(
        text,
        ps,
        pe,
        pieceIds,
        (id) => this.bytesOf(id).length,
        (id, s, e) => {
          ids.push(id);
          starts.push(base + (remap ? remap.map(s) : s));
          ends.push(base + (remap ? remap.map(e) : e));
        },
      );
    }
  }

  decode(ids: readonly number[], opts?: { skipSpecialTokens?: boolean }): string {
    const skip = opts?.skipSpecialTokens ?? false;
    let out = "";
    let pending: number[] = [];
    const flush = () => {
      if (pending.length === 0) return;
      const total = pending.reduce((n, id) => n + this.bytesOf(id).length, 0);
      const buf = new Uint8Array(total);
      let at = 0;
      for (const id of pending) {
        const b = this.bytesOf(id);
        buf.set(b, at);
        at += b.length;
      }
      out += utf8Decoder.decode(buf);
      pending = [];
    };
    for (const id of ids) {
      const addedText = this.addedById.get(id);
      if (addedText !== undefined) {
        flush();
        if (!(skip && this.specialTokenIds.has(id))) out += addedText;
      } else if (this.model.idToToken[id] !== undefined) {
        pending.push(id);
      }
    }
    flush();
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

/**
 * Emits each token of one pre-token with UTF-16 offsets. A token that ends inside a multi-byte
 * character owns that character's end (its start is the character holding its first byte).
 */
function pieceOffsets(
  text: string,
  ps: number,
  pe: number,
  pieceIds: readonly number[],
  byteLen: (id: number) => number,
  emit: (id: number, start: number, end: number) => void,
): void {
  let ci = ps; // UTF-16 index of the code point holding the current byte
  let cpByte = 0; // bytes already consumed of that code point
  for (const id of pieceIds) {
    const start = ci;
    let n = byteLen(id);
    while (n > 0 && ci < pe) {
      const cp = text.codePointAt(ci)!;
      const cpLen = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
      const take = Math.min(n, cpLen - cpByte);
      n -= take;
      cpByte += take;
      if (cpByte === cpLen) {
        ci += cp > 0xffff ? 2 : 1;
        cpByte = 0;
      }
    }
    const end = cpByte > 0 ? ci + ((text.codePointAt(ci) ?? 0) > 0xffff ? 2 : 1) : ci;
    emit(id, start, end);
  }
}

/**
 * Maps offsets in NFC-normalized text back to the raw text (rare path: only when NFC changed
 * something). Uses the shortest raw prefix whose normalization reaches the offset.
 */
class OffsetRemap {
  constructor(
    private readonly raw: string,
    private readonly norm: string,
  ) {}
  map(n: number): number {
    if (n >= this.norm.length) return this.raw.length;
    let lo = 0;
    let hi = this.raw.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.raw.slice(0, mid).normalize("NFC").length >= n) hi = mid;
      else lo = mid + 1;
    }
    return lo;
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
