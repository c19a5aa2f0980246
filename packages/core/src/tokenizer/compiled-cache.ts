/**
 * A cache of compiled tokenizers. Parsing an 11 MB tokenizer.json and building its vocabulary
 * and merge maps is most of envroll's start-up; the compiled form — the rest of tokenizer.json,
 * the vocabulary in id order and the merge table as two number arrays — loads in a fraction of
 * that. An entry is keyed by the file's real path, size and mtime and by the compiled format;
 * it is written to a temp file and renamed, so a concurrent reader sees all of it or nothing;
 * anything unreadable counts as a miss. Folders under the temp folder are not cached (test
 * checkpoints come and go). `ENVROLL_CACHE_DIR` moves the cache (`off`: none).
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, realpathSync, renameSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, sep } from "node:path";

/** Bumped whenever the compiled form or what BytePairModel derives from it changes. */
const FORMAT = 1;
const MAGIC = "envroll-tokenizer";

/** A BPE model as compiled from tokenizer.json: ids 0..n-1 ↔ `tokens`; `MergeTable.entries()`. */
export interface CompiledBpe {
  tokens: string[];
  merges: Int32Array;
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
  merges: number;
  tokensBytes: number;
  json: unknown;
}

export function defaultCacheDir(): string | null {
  const env = process.env.ENVROLL_CACHE_DIR;
  if (env === "off") return null;
  if (env) return env;
  return join(tmpdir(), `envroll-cache-${process.getuid?.() ?? "user"}`);
}

/** Whether tokenizer.json at `path` is worth caching: not a copy under the temp folder `tempRoot`. */
export function cacheable(path: string, tempRoot = tmpdir()): boolean {
  try {
    return !realpathSync(path).startsWith(realpathSync(tempRoot) + sep);
  } catch {
    return false;
  }
}

function entryOf(path: string, cacheDir: string) {
  const source = realpathSync(path);
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
    const at = align4(4 + headerLen);
    const bytes = 16 * header.merges;
    if (buf.length !== at + bytes + header.tokensBytes) return null;
    const merges = new Int32Array(buf.buffer.slice(buf.byteOffset + at, buf.byteOffset + at + bytes));
    const tokens = buf.toString("utf8", at + bytes, at + bytes + header.tokensBytes).split("\0");
    return { json: header.json, compiled: { tokens, merges } };
  } catch {
    return null;
  }
}

/**
 * Stores the compiled form of tokenizer.json at `path` (the parsed JSON, whose vocab and
 * merges are left out). Best effort: a tokenizer the format cannot hold exactly (ids with
 * gaps, a token containing NUL) or a cache folder that cannot be written is skipped.
 */
export function writeCompiled(
  path: string,
  json: Record<string, any>,
  compiled: CompiledBpe,
  cacheDir: string,
) {
  const { tokens, merges } = compiled;
  for (let i = 0; i < tokens.length; i++)
    if (typeof tokens[i] !== "string" || tokens[i]!.includes("\0")) return;
  try {
    const entry = entryOf(path, cacheDir);
    const { vocab: _v, merges: _m, ...model } = json.model;
    const tokensText = Buffer.from(tokens.join("\0"), "utf8");
    const header: Header = {
      magic: MAGIC,
      format: FORMAT,
      source: entry.source,
      size: entry.size,
      mtimeMs: entry.mtimeMs,
      merges: merges.length / 4,
      tokensBytes: tokensText.length,
      json: { ...json, model },
    };
    const headerText = Buffer.from(JSON.stringify(header), "utf8");
    const at = align4(4 + headerText.length);
    const out = Buffer.alloc(at + 4 * merges.length + tokensText.length);
    out.writeUInt32LE(headerText.length, 0);
    headerText.copy(out, 4);
    Buffer.from(merges.buffer, merges.byteOffset, 4 * merges.length).copy(out, at);
    tokensText.copy(out, at + 4 * merges.length);
    mkdirSync(cacheDir, { recursive: true });
    const tmp = `${entry.file}.${process.pid}.tmp`;
    writeFileSync(tmp, out);
    renameSync(tmp, entry.file);
  } catch {
    // A cache that cannot be written only costs the next start-up its speed.
  }
}

const align4 = (n: number) => (n + 3) & ~3;
