/**
 * The model the engine serves: a checkpoint folder (tokenizer.json, tokenizer_config.json,
 * chat_template.jinja), or by default the carried Qwen3 files. Its renderer comes from
 * `createRenderer` and its family from `identifyTemplate`, the functions the client uses, so
 * the engine and a TrainClient pointed at the same folder agree on every id; its stop ids are
 * the renderer's. The chat format (formats/) tells the policies how to read prompts back.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createRenderer, identifyTemplate } from "envroll/internal/renderers/index.ts";
import type { Renderer } from "envroll/internal/renderers/renderer.ts";
import { isCheckpointFolder, loadTokenizer, type Tokenizer } from "envroll/internal/tokenizer/index.ts";
import { type ChatFormat, chatFormatFor, FORMAT_FAMILIES } from "./formats/index.ts";
import type { ReferenceTurn } from "./types.ts";

export interface ServedModel {
  /** A checkpoint folder, or "qwen3" for the carried Qwen3 files. */
  readonly path: string;
  /** The verified family, or null for a template envroll does not know. */
  readonly family: string | null;
  readonly tokenizer: Tokenizer;
  readonly renderer: Renderer;
  /** What /get_model_info reports: the folder's config.json, else the family's release config. */
  readonly config: ModelConfig;
  /** How policies read prompts back; null when the engine cannot read this family's prompts. */
  readonly format: ChatFormat | null;
  /** Ids that end a turn (the renderer's stop ids). */
  readonly stopIds: readonly number[];
  /** The stop id a reply ends with when it runs out (the renderer's first). */
  readonly closeId: number;
  /** The ids the model samples for a turn: content and tool calls in this family's format. */
  replyIds(turn: ReferenceTurn): number[];
}

/**
 * `/get_model_info`'s `model_type` and `architectures` per family, as the released HF configs
 * name them: what a folder without a config.json is reported as (a config.json always wins).
 */
export const FAMILY_CONFIGS: Readonly<Record<string, ModelConfig>> = {
  qwen3: { modelType: "qwen3", architectures: ["Qwen3ForCausalLM"] },
  "deepseek-v3": { modelType: "deepseek_v3", architectures: ["DeepseekV3ForCausalLM"] },
  "llama-3": { modelType: "llama", architectures: ["LlamaForCausalLM"] },
  // The text-only release (gemma-3-1b): the engine serves no images.
  "gemma-3": { modelType: "gemma3_text", architectures: ["Gemma3ForCausalLM"] },
  "gpt-oss": { modelType: "gpt_oss", architectures: ["GptOssForCausalLM"] },
};

/** What a checkpoint's config.json says the model is (SGLang reports both on /get_model_info). */
export interface ModelConfig {
  modelType: string | null;
  architectures: string[] | null;
}

/** The folder's config.json `model_type` and `architectures`, or null when it has none. */
export function readModelConfig(folder: string): ModelConfig | null {
  const file = join(folder, "config.json");
  if (!existsSync(file)) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new Error(`model ${folder}: config.json is not JSON (${(e as Error).message})`);
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    throw new Error(`model ${folder}: config.json is not a JSON object`);
  const { model_type: modelType, architectures } = raw as Record<string, unknown>;
  if (modelType !== undefined && typeof modelType !== "string")
    throw new Error(`model ${folder}: config.json model_type: expected a string`);
  if (
    architectures !== undefined &&
    !(Array.isArray(architectures) && architectures.every((a) => typeof a === "string"))
  )
    throw new Error(`model ${folder}: config.json architectures: expected a list of strings`);
  return { modelType: modelType ?? null, architectures: (architectures as string[] | undefined) ?? null };
}

export function servedModel(path = "qwen3"): ServedModel {
  const folder = path !== "qwen3";
  if (folder && !isCheckpointFolder(path))
    throw new Error(
      `model ${path}: not a checkpoint folder (no tokenizer.json there); give a folder or "qwen3"`,
    );
  const tokenizer = loadTokenizer(path);
  const family = folder ? identifyTemplate(tokenizer).family : "qwen3";
  const renderer = createRenderer(path);
  const stopIds = renderer.stopTokenIds;
  if (stopIds.length === 0) throw new Error(`model ${path}: its renderer has no stop token ids`);
  const format = chatFormatFor(family);
  const own = folder ? readModelConfig(path) : null;
  const known = family === null ? undefined : FAMILY_CONFIGS[family];
  const config: ModelConfig = {
    modelType: own?.modelType ?? known?.modelType ?? null,
    architectures: own?.architectures ?? known?.architectures ?? null,
  };
  const rendered = (turn: ReferenceTurn) => renderedReply(renderer, tokenizer, stopIds[0]!, turn);
  return {
    path,
    family,
    tokenizer,
    renderer,
    config,
    format,
    stopIds,
    closeId: stopIds[0]!,
    replyIds: format?.replyIds ? (turn) => format.replyIds!(turn, tokenizer) : rendered,
  };
}

/**
 * What the renderer marks sampled when the turn is an assistant message after one user turn:
 * the family's own markup for content and tool calls, through its stop token.
 */
function renderedReply(
  renderer: Renderer,
  tokenizer: Tokenizer,
  closeId: number,
  turn: ReferenceTurn,
): number[] {
  const calls = turn.tool_calls.map((c, i) => ({
    id: `call_${i}`,
    type: "function",
    function: { name: c.name, arguments: JSON.stringify(c.arguments ?? {}) },
  }));
  const assistant = {
    role: "assistant",
    content: calls.length > 0 && turn.content === "" ? null : turn.content,
    ...(calls.length > 0 ? { tool_calls: calls } : {}),
  };
  const r = renderer.render([{ role: "user", content: "x" }, assistant]);
  const ids = r.tokenIds.filter((_, i) => r.messageIndices[i] === 1 && r.sampledMask[i]);
  return ids.length > 0 ? ids : [...tokenizer.encode(turn.content), closeId];
}

/** Why the engine's policies cannot read a model's prompts (for the start-up warning). */
export function unreadableFormat(model: ServedModel): string | null {
  if (model.format) return null;
  return (
    `${model.path}: the engine reads prompts of ${FORMAT_FAMILIES.join(", ")}, not this template ` +
    "(policies see no messages: echo answers with the raw prompt text, reference with nothing)"
  );
}
