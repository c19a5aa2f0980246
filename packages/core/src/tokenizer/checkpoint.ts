/**
 * Checkpoint folders: the tokenizer files of a local model folder as HF `transformers` reads
 * them — tokenizer.json (required), tokenizer_config.json, and the chat template, which a
 * separate chat_template.jinja (or legacy chat_template.json) overrides; named templates come
 * from tokenizer_config.json's list form or additional_chat_templates/*.jinja.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";

export interface CheckpointFiles {
  dir: string;
  tokenizerJson: unknown;
  config: Record<string, unknown>;
  chatTemplate: string | null;
  chatTemplates: Record<string, string>;
  /** Which file the default chat template came from (null: none). */
  templateFile: string | null;
}

export function isCheckpointFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory() && existsSync(join(path, "tokenizer.json"));
  } catch {
    return false;
  }
}

export function readJson(path: string, what: string): unknown {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch (err) {
    throw new Error(`${what} ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** `readTokenizerJson` stands in for parsing tokenizer.json (the tokenizer cache answers it). */
export function readCheckpoint(
  dir: string,
  readTokenizerJson: (path: string) => unknown = (path) => readJson(path, "cannot read"),
): CheckpointFiles {
  const tokenizerPath = join(dir, "tokenizer.json");
  if (!existsSync(tokenizerPath)) throw new Error(`checkpoint folder ${dir} has no tokenizer.json`);
  const tokenizerJson = readTokenizerJson(tokenizerPath);
  const configPath = join(dir, "tokenizer_config.json");
  const config = existsSync(configPath)
    ? (readJson(configPath, "cannot read") as Record<string, unknown>)
    : {};
  const chatTemplates: Record<string, string> = {};
  let chatTemplate: string | null = null;
  let templateFile: string | null = null;
  const fromConfig = config.chat_template;
  if (typeof fromConfig === "string") {
    chatTemplate = fromConfig;
    templateFile = "tokenizer_config.json";
  } else if (Array.isArray(fromConfig)) {
    for (const entry of fromConfig as { name?: unknown; template?: unknown }[]) {
      if (typeof entry?.name !== "string" || typeof entry.template !== "string")
        throw new Error(`${configPath}: chat_template list entries need string "name" and "template"`);
      chatTemplates[entry.name] = entry.template;
    }
    if (chatTemplates.default !== undefined) {
      chatTemplate = chatTemplates.default;
      templateFile = "tokenizer_config.json";
    }
  }
  const legacy = join(dir, "chat_template.json");
  if (existsSync(legacy)) {
    const t = (readJson(legacy, "cannot read") as { chat_template?: unknown }).chat_template;
    if (typeof t !== "string") throw new Error(`${legacy}: "chat_template" must be a string`);
    chatTemplate = t;
    templateFile = "chat_template.json";
  }
  const jinja = join(dir, "chat_template.jinja");
  if (existsSync(jinja)) {
    chatTemplate = readFileSync(jinja, "utf8");
    templateFile = "chat_template.jinja";
  }
  const extra = join(dir, "additional_chat_templates");
  if (existsSync(extra)) {
    for (const f of readdirSync(extra))
      if (f.endsWith(".jinja")) chatTemplates[basename(f, ".jinja")] = readFileSync(join(extra, f), "utf8");
  }
  if (chatTemplate !== null) chatTemplates.default = chatTemplate;
  return { dir, tokenizerJson, config, chatTemplate, chatTemplates, templateFile };
}
