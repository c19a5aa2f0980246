/**
 * The model the engine serves: a checkpoint folder (tokenizer.json, tokenizer_config.json,
 * chat_template.jinja), or by default the carried Qwen3 files. Its renderer comes from
 * `createRenderer` and its family from `identifyTemplate`, the functions the client uses, so
 * the engine and a TrainClient pointed at the same folder agree on every id; its stop ids are
 * the renderer's. The chat format (formats/) tells the policies how to read prompts back.
 */
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
  /** How policies read prompts back; null when the engine cannot read this family's prompts. */
  readonly format: ChatFormat | null;
  /** Ids that end a turn (the renderer's stop ids). */
  readonly stopIds: readonly number[];
  /** The stop id a reply ends with when it runs out (the renderer's first). */
  readonly closeId: number;
  /** The ids the model samples for a turn: content and tool calls in this family's format. */
  replyIds(turn: ReferenceTurn): number[];
}

/** `/get_model_info`'s `model_type` per family, as the HF configs of those models name it. */
export const MODEL_TYPES: Readonly<Record<string, string>> = {
  qwen3: "qwen3",
  "deepseek-v3": "deepseek_v3",
  "llama-3": "llama",
  "gemma-3": "gemma3",
  "gpt-oss": "gpt_oss",
};

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
  const rendered = (turn: ReferenceTurn) => renderedReply(renderer, tokenizer, stopIds[0]!, turn);
  return {
    path,
    family,
    tokenizer,
    renderer,
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
