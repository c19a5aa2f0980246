/**
 * Parsing a Qwen3 completion (Hermes-style `<tool_call>{json}</tool_call>`) at the token level:
 * blocks are found by the special-token ids, never by look-alike text, so a model writing the
 * characters "<tool_call>" does not open a call.
 */

import { pyStrip } from "../../text/python-str.ts";
import type { Tokenizer } from "../../tokenizer/index.ts";
import type { ParsedResponse } from "../renderer.ts";
import { QWEN3_IDS } from "./format.ts";
import { parseHermesToolCalls } from "./hermes-tool-calls.ts";

/** Index of the first stop id (ids.length when none): the model should not generate past it. */
function stopIndex(ids: readonly number[], stopIds: readonly number[]): number {
  if (stopIds.length === 2) {
    const [a, b] = stopIds as [number, number];
    for (let i = 0; i < ids.length; i++) if (ids[i] === a || ids[i] === b) return i;
    return ids.length;
  }
  for (let i = 0; i < ids.length; i++) if (stopIds.includes(ids[i]!)) return i;
  return ids.length;
}

export function parseQwen3Completion(
  tokenizer: Tokenizer,
  completionIds: readonly number[],
  stopIds: readonly number[],
): ParsedResponse {
  const end = stopIndex(completionIds, stopIds);
  let text: string;
  let toolCalls: ParsedResponse["toolCalls"];
  const open = completionIds.indexOf(QWEN3_IDS.toolCall);
  if (open < 0 || open >= end) {
    // No call block (the common reply): the content is every id before the stop, decoded in place.
    text = tokenizer.decode(completionIds, { end });
    toolCalls = [];
  } else {
    const parsed = parseHermesToolCalls(
      tokenizer,
      completionIds.slice(0, end),
      QWEN3_IDS.toolCall,
      QWEN3_IDS.toolCallEnd,
    );
    text = tokenizer.decode(parsed.contentIds);
    toolCalls = parsed.toolCalls;
  }
  // Qwen3's `<think>` / `</think>` are plain added tokens: reasoning is split on decoded text.
  let reasoning: string | null = null;
  const close = text.indexOf("</think>");
  if (close >= 0) {
    reasoning = pyStrip(pyStrip(text.slice(0, close).replaceAll("<think>", ""), "\n"));
    text = pyStrip(text.slice(close + "</think>".length), "\n");
  }
  return { content: pyStrip(text), reasoningContent: reasoning ? reasoning : null, toolCalls };
}
