/**
 * A cache of compiled tokenizers. Parsing an 11 MB tokenizer.json and building its vocabulary
 * and merge maps is most of envroll's start-up; the compiled form loads in a fraction of that:
 * the rest of tokenizer.json, the vocabulary as one string with each token's offsets, and the
 * merge table's own hash slots, which are used where they lie in the file's bytes (nothing is
 * rebuilt or split into per-token strings at load). An entry is keyed by the file's real path, size and mtime and by the compiled format;
 * it is written to a temp file and renamed, so a concurrent reader sees all of it or nothing;
 * anything unreadable counts as a miss. Folders under the temp folder are not cached (test
 * checkpoints come and go). `ENVROLL_CACHE_DIR` moves the cache (`off`: none).
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, realpathSync, renameSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, sep } from "node:path";
import { defaultCacheDir } from "envroll/cache-dir.mjs";
import type { MergeTableArrays } from "./merge-table.ts";
import { PackedTokenList } from "./token-list.ts";

/** Bumped whenever the compiled form or what BytePairModel derives from it changes. */
const FORMAT = 2;
const MAGIC = "envroll-tokenizer";

/** A BPE model as compiled from tokenizer.json: ids 0..n-1 ↔ `tokens`, and its merge table. */
export interface CompiledBpe {
  tokens: PackedTokenList;
  merges: MergeTableArrays;
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
  /** Vocabulary size, merge-table slots and merges in them, bytes of the tokens' text. */
  tokens: number;
  slots: number;
  merges: number;
  tokensBytes: number;
  json: unknown;
}

/**
 * Where each part lies after the header (8-aligned, so typed arrays can view the bytes):
 * token offsets (int32), the slots' left and right ids (int32), their packed rank/id (float64),
 * then the tokens' text as UTF-16 (a copy into a string: decoding 1.5 MB of UTF-8 costs ~10 ms).
 */
function layout(headerLen: number, h: Pick<Header, "tokens" | "slots" | "tokensBytes">) {
  const offsets = align8(4 + headerLen);
  const left = offsets + align8(4 * (h.tokens + 1));
  const right = left + 4 * h.slots;
  const packed = align8(right + 4 * h.slots);
  const text = packed + 8 * h.slots;
  return { offsets, left, right, packed, text, end: text + h.tokensBytes };
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

export function readCompiled(path: string, cacheDir: string): CachedTokenizer | null {
  try {
    const entry = entryOf(path, cacheDir);
    const buf = readFileSync(entry.file);
    const headerLen = buf.readUInt32LE(0);
    const header = JSON.parse(buf.toString("utf8", 4, 4 + headerLen)) as Header;
    if (
      header.magic !== MAGIC ||
      header.format !== FORMAT ||
      header.source !== entry.source ||
      header.size !== entry.size ||
      header.mtimeMs !== entry.mtimeMs
    )
      return null;
    const at = layout(headerLen, header);
    if (buf.length !== at.end) return null;
    // Typed arrays need aligned offsets into the ArrayBuffer; a large read has one of its own.
    const bytes = buf.byteOffset % 8 === 0 ? buf : Buffer.from(buf);
    const view = <T>(Kind: new (b: ArrayBufferLike, o: number, n: number) => T, o: number, n: number) =>
      new Kind(bytes.buffer, bytes.byteOffset + o, n);
    const tokens = new PackedTokenList(
      bytes.toString("utf16le", at.text, at.end),
      view(Int32Array, at.offsets, header.tokens + 1),
    );
    const merges: MergeTableArrays = {
      left: view(Int32Array, at.left, header.slots),
      right: view(Int32Array, at.right, header.slots),
      packed: view(Float64Array, at.packed, header.slots),
      count: header.merges,
    };
    if (tokens.offsets[header.tokens] !== tokens.text.length) return null;
    return { json: header.json, compiled: { tokens, merges } };
  } catch {
    return null;
  }
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
  const { tokens, merges } = compiled;
  try {
    const entry = entryOf(path, cacheDir);
    const { vocab: _v, merges: _m, ...model } = json.model;
    const tokensText = Buffer.from(tokens.text, "utf16le");
    const header: Header = {
      magic: MAGIC,
      format: FORMAT,
      source: entry.source,
      size: entry.size,
      mtimeMs: entry.mtimeMs,
      tokens: tokens.length,
      slots: merges.left.length,
      merges: merges.count,
      tokensBytes: tokensText.length,
      json: { ...json, model },
    };
    const headerText = Buffer.from(JSON.stringify(header), "utf8");
    const at = layout(headerText.length, header);
    const out = Buffer.alloc(at.end);
    out.writeUInt32LE(headerText.length, 0);
    headerText.copy(out, 4);
    const put = (a: Int32Array | Float64Array, o: number) =>
      Buffer.from(a.buffer, a.byteOffset, a.byteLength).copy(out, o);
    put(tokens.offsets, at.offsets);
    put(merges.left, at.left);
    put(merges.right, at.right);
    put(merges.packed, at.packed);
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
