/**
 * Parsing a Qwen3 completion (Hermes-style `<tool_call>{json}</tool_call>`) at the token level:
 * blocks are found by the special-token ids, never by look-alike text, so a model writing the
 * characters "<tool_call>" does not open a call.
 */

import { pyStrip } from "../text/python-str.ts";
import type { Tokenizer } from "../tokenizer/index.ts";
import { parseHermesToolCalls } from "./hermes-tool-calls.ts";
import { QWEN3_IDS } from "./qwen3-format.ts";
import type { ParsedResponse } from "./renderer.ts";

/** Ids before the first stop id: the model should not generate past it. */
export function truncateAtStop(ids: readonly number[], stopIds: readonly number[]): number[] {
  for (let i = 0; i < ids.length; i++) if (stopIds.includes(ids[i]!)) return ids.slice(0, i);
  return ids.slice();
}

export function parseQwen3Completion(
  tokenizer: Tokenizer,
  completionIds: readonly number[],
  stopIds: readonly number[],
): ParsedResponse {
  const ids = truncateAtStop(completionIds, stopIds);
  const { contentIds, toolCalls } = parseHermesToolCalls(
    tokenizer,
    ids,
    QWEN3_IDS.toolCall,
    QWEN3_IDS.toolCallEnd,
  );
  // Qwen3's `<think>` / `</think>` are plain added tokens: reasoning is split on decoded text.
  let text = tokenizer.decode(contentIds);
  let reasoning: string | null = null;
  const close = text.indexOf("</think>");
  if (close >= 0) {
    reasoning = pyStrip(pyStrip(text.slice(0, close).replaceAll("<think>", ""), "\n"));
    text = pyStrip(text.slice(close + "</think>".length), "\n");
  }
  return { content: pyStrip(text), reasoningContent: reasoning ? reasoning : null, toolCalls };
}
