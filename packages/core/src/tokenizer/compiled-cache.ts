/**
 * A cache of compiled tokenizers. Parsing an 11 MB tokenizer.json and building its vocabulary
 * and merge maps is most of envroll's start-up; the compiled form loads in a fraction of that:
 * the rest of tokenizer.json, the vocabulary (one byte per character for a byte-level alphabet,
 * else one UTF-16 string) with each token's offsets, and the merge table's own hash slots, which
 * are used where they lie in the file's bytes (nothing is rebuilt or split into per-token
 * strings at load). Its size is what a start-up pays for it: on the machines measured each
 * fresh 4 KB page read into costs ~15 µs, so the file is kept small (about 3.6 MB for Qwen3). An entry is keyed by the
 * file's real path, size and mtime and by the compiled format; it is written to a temp file and renamed, so a concurrent reader sees all of it or nothing;
 * anything unreadable counts as a miss. Folders under the temp folder are not cached (test
 * checkpoints come and go). `ENVROLL_CACHE_DIR` moves the cache (`off`: none).
 */
import { createHash } from "node:crypto";
import {
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  read,
  readFileSync,
  readSync,
  realpathSync,
  renameSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, sep } from "node:path";
import { defaultCacheDir } from "envroll/cache-dir.mjs";
import type { MergeTableArrays } from "./merge-table.ts";
import { AlphabetTokenList, PackedTokenList } from "./token-list.ts";

/** Bumped whenever the compiled form or what BytePairModel derives from it changes. */
const FORMAT = 5;
const MAGIC = "envroll-tokenizer";

/** A BPE model as compiled from tokenizer.json: ids 0..n-1 ↔ `tokens`, and its merge table. */
export interface CompiledBpe {
  tokens: PackedTokenList | AlphabetTokenList;
  merges: MergeTableArrays;
  /** The ids of the byte-level alphabet's 256 one-character tokens and of `<0xNN>` (-1: none). */
  byteIds: Int32Array;
  fallbackIds: Int32Array;
}

export interface CachedTokenizer {
  /** tokenizer.json without `model.vocab` and `model.merges`. */
  json: unknown;
  compiled: CompiledBpe;
}

interface Header {
  magic: string;
  format: number;
  source: string;
  size: number;
  mtimeMs: number;
  /** Vocabulary size, merge-table slots, rule words and merges in them, bytes of the tokens' text. */
  tokens: number;
  slots: number;
  rules: number;
  merges: number;
  tokensBytes: number;
  /** How the tokens' text is stored: UTF-16, or one byte per byte-level alphabet character. */
  text: "utf16" | "alphabet";
  byteIds: number[];
  fallbackIds: number[];
  json: unknown;
}

/**
 * The file: the header's length and the tokens' text's length (uint32 each), the header (JSON),
 * then each part 8-aligned, so typed arrays can view the bytes:
 * token offsets (int32), the merge table's slots and rules (int32, merge-table.ts), then the
 * tokens' text, used where it lies: alphabet bytes, or UTF-16 copied into a string.
 */
function layout(headerLen: number, h: Pick<Header, "tokens" | "slots" | "rules" | "tokensBytes">) {
  const offsets = align8(PREFIX + headerLen);
  const slots = offsets + align8(4 * (h.tokens + 1));
  const rules = slots + align8(4 * h.slots);
  const text = rules + align8(4 * h.rules);
  return { offsets, slots, rules, text, end: text + h.tokensBytes };
}

export { defaultCacheDir };

/** Whether tokenizer.json at `path` is worth caching: not a copy under the temp folder `tempRoot`. */
export function cacheable(path: string, tempRoot = tmpdir()): boolean {
  try {
    return !realpathSync.native(path).startsWith(realpathSync.native(tempRoot) + sep);
  } catch {
    return false;
  }
}

function entryOf(path: string, cacheDir: string) {
  const source = realpathSync.native(path);
  const st = statSync(source);
  const id = createHash("sha256").update(`${FORMAT}\0${source}\0${st.size}\0${st.mtimeMs}`).digest("hex");
  return { source, size: st.size, mtimeMs: st.mtimeMs, file: join(cacheDir, `${id.slice(0, 32)}.bin`) };
}

/** The two uint32 lengths before the header. */
const PREFIX = 8;

/** A prefetched entry: its bytes up to the tokens' text, and the open file to read that from. */
interface Ahead {
  head: Buffer;
  fd: number;
  size: number;
}

/** Cache entries read ahead by `prefetchCompiled`, by entry file, until `readCompiled` takes them. */
const prefetched = new Map<string, Ahead>();

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {}
}

/**
 * Reads the cache entry of tokenizer.json at `path` in the background (one read on libuv's
 * threads), for the next `readCompiled` of it. Resolves when it is in memory, or at once when
 * there is none; never rejects. The tokens' text (a quarter of Qwen3's entry) is left in the
 * file, which stays open, until something asks for a token's text or bytes: an eval's first
 * render needs only the tokens' lengths, and each page read is a fault (~12.7 us on the
 * machines measured, during which the main thread stalled too), so the text is read after the
 * first request is sent, while the engine works on it (decoding its reply needs the text).
 */
export function prefetchCompiled(path: string, cacheDir: string): Promise<void> {
  let fd = -1;
  try {
    const file = entryOf(path, cacheDir).file;
    fd = openSync(file, "r");
    const size = fstatSync(fd).size;
    const prefix = Buffer.alloc(PREFIX);
    if (readSync(fd, prefix, 0, PREFIX, 0) !== PREFIX) throw new Error("truncated");
    const headLength = size - prefix.readUInt32LE(4);
    if (headLength < PREFIX) throw new Error("truncated");
    const head = Buffer.allocUnsafeSlow(headLength);
    const opened = fd;
    return new Promise((resolve) => {
      read(opened, head, 0, headLength, 0, (err, n) => {
        const earlier = prefetched.get(file);
        if (earlier) closeQuietly(earlier.fd);
        if (err || n !== headLength) {
          prefetched.delete(file);
          closeQuietly(opened);
        } else prefetched.set(file, { head, fd: opened, size });
        resolve();
      });
    });
  } catch {
    if (fd >= 0) closeQuietly(fd);
    return Promise.resolve();
  }
}

export function readCompiled(path: string, cacheDir: string): CachedTokenizer | null {
  let ahead: Ahead | undefined;
  try {
    const entry = entryOf(path, cacheDir);
    ahead = prefetched.get(entry.file);
    prefetched.delete(entry.file);
    const compiled = ahead ? fromBytes(entry, ahead.head, ahead) : fromBytes(entry, readFileSync(entry.file));
    // A compiled entry owns the prefetch's file (it reads the text from it, then closes it).
    if (compiled !== null) ahead = undefined;
    return compiled;
  } catch {
    return null;
  } finally {
    if (ahead && ahead.fd >= 0) closeQuietly(ahead.fd);
  }
}

/**
 * The entry in `buf`: the whole file, or (`ahead`) a prefetch's bytes up to the tokens' text,
 * which is then read from the prefetch's open file when first needed. Everything is checked
 * before the text is read.
 */
function fromBytes(entry: ReturnType<typeof entryOf>, buf: Buffer, ahead?: Ahead): CachedTokenizer | null {
  const headerLen = buf.readUInt32LE(0);
  const header = JSON.parse(buf.toString("utf8", PREFIX, PREFIX + headerLen)) as Header;
  if (
    header.magic !== MAGIC ||
    header.format !== FORMAT ||
    header.source !== entry.source ||
    header.size !== entry.size ||
    header.mtimeMs !== entry.mtimeMs
  )
    return null;
  const at = layout(headerLen, header);
  if ((ahead?.size ?? buf.length) !== at.end || buf.length < at.text) return null;
  if (buf.readUInt32LE(4) !== header.tokensBytes) return null;
  // Typed arrays need aligned offsets into the ArrayBuffer; a large read has one of its own.
  const bytes = buf.byteOffset % 8 === 0 ? buf : Buffer.from(buf);
  const view = <T>(Kind: new (b: ArrayBufferLike, o: number, n: number) => T, o: number, n: number) =>
    new Kind(bytes.buffer, bytes.byteOffset + o, n);
  const offsets = view(Int32Array, at.offsets, header.tokens + 1);
  const textLength = header.text === "alphabet" ? header.tokensBytes : header.tokensBytes / 2;
  if (offsets[header.tokens] !== textLength) return null;
  const ids = (a: unknown) => (Array.isArray(a) && a.length === 256 ? Int32Array.from(a as number[]) : null);
  const byteIds = ids(header.byteIds);
  const fallbackIds = ids(header.fallbackIds);
  if (byteIds === null || fallbackIds === null) return null;
  const text = (): Uint8Array => {
    if (!ahead) return view(Uint8Array, at.text, header.tokensBytes);
    const own = Buffer.allocUnsafeSlow(header.tokensBytes);
    const fd = ahead.fd;
    ahead.fd = -1;
    let n: number;
    try {
      n = readSync(fd, own, 0, own.length, at.text);
    } finally {
      closeQuietly(fd);
    }
    if (n !== own.length)
      throw new Error(`tokenizer cache ${entry.file}: its vocabulary text could not be read`);
    return new Uint8Array(own.buffer, own.byteOffset, own.length);
  };
  const utf16 = (t: Uint8Array) => Buffer.from(t.buffer, t.byteOffset, t.byteLength).toString("utf16le");
  const tokens =
    header.text === "alphabet"
      ? new AlphabetTokenList(ahead ? text : text(), offsets)
      : new PackedTokenList(utf16(text()), offsets);
  const merges: MergeTableArrays = {
    slots: view(Int32Array, at.slots, header.slots),
    rules: view(Int32Array, at.rules, header.rules),
    count: header.merges,
  };
  return { json: header.json, compiled: { tokens, merges, byteIds, fallbackIds } };
}

/**
 * Stores the compiled form of tokenizer.json at `path` (the parsed JSON, whose vocab and
 * merges are left out). Best effort: a cache folder that cannot be written is skipped (a
 * vocabulary with gaps has no compiled form to store: `BytePairModel.compile()` is null).
 */
export function writeCompiled(
  path: string,
  json: Record<string, any>,
  compiled: CompiledBpe,
  cacheDir: string,
) {
  const { merges } = compiled;
  try {
    const entry = entryOf(path, cacheDir);
    const { vocab: _v, merges: _m, ...model } = json.model;
    const tokens =
      compiled.tokens instanceof PackedTokenList
        ? (AlphabetTokenList.fromText(compiled.tokens.text, compiled.tokens.offsets) ?? compiled.tokens)
        : compiled.tokens;
    const tokensText =
      tokens instanceof AlphabetTokenList
        ? Buffer.from(tokens.bytes.buffer, tokens.bytes.byteOffset, tokens.bytes.byteLength)
        : Buffer.from(tokens.text, "utf16le");
    const header: Header = {
      magic: MAGIC,
      format: FORMAT,
      source: entry.source,
      size: entry.size,
      mtimeMs: entry.mtimeMs,
      tokens: tokens.length,
      slots: merges.slots.length,
      rules: merges.rules.length,
      merges: merges.count,
      tokensBytes: tokensText.length,
      text: tokens instanceof AlphabetTokenList ? "alphabet" : "utf16",
      byteIds: [...compiled.byteIds],
      fallbackIds: [...compiled.fallbackIds],
      json: { ...json, model },
    };
    const headerText = Buffer.from(JSON.stringify(header), "utf8");
    const at = layout(headerText.length, header);
    const out = Buffer.alloc(at.end);
    out.writeUInt32LE(headerText.length, 0);
    out.writeUInt32LE(tokensText.length, 4);
    headerText.copy(out, PREFIX);
    const put = (a: Int32Array, o: number) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).copy(out, o);
    put(tokens.offsets, at.offsets);
    put(merges.slots, at.slots);
    put(merges.rules, at.rules);
    tokensText.copy(out, at.text);
    mkdirSync(cacheDir, { recursive: true });
    const tmp = `${entry.file}.${process.pid}.tmp`;
    writeFileSync(tmp, out);
    renameSync(tmp, entry.file);
  } catch {
    // A cache that cannot be written only costs the next start-up its speed.
  }
}

const align8 = (n: number) => (n + 7) & ~7;
