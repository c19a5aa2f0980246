/**
 * Parsing a Qwen3 completion (Hermes-style `<tool_call>{json}</tool_call>`) at the token level:
 * blocks are found by the special-token ids, never by look-alike text, so a model writing the
 * characters "<tool_call>" does not open a call.
 */
import type { Tokenizer } from "../tokenizer/index.ts";
import { pyStrip } from "./py-str.ts";
import { QWEN3_IDS } from "./qwen3-format.ts";
import type { ParsedResponse, ParsedToolCall } from "./renderer.ts";
import { parseToolCallJson } from "./tool-call-json.ts";

/** Ids before the first stop id: the model should not generate past it. */
export function truncateAtStop(ids: readonly number[], stopIds: readonly number[]): number[] {
  for (let i = 0; i < ids.length; i++) if (stopIds.includes(ids[i])) return ids.slice(0, i);
  return ids.slice();
}

export function parseQwen3Completion(
  tokenizer: Tokenizer,
  completionIds: readonly number[],
  stopIds: readonly number[],
): ParsedResponse {
  const ids = truncateAtStop(completionIds, stopIds);
  const toolCalls: ParsedToolCall[] = [];
  const first = ids.indexOf(QWEN3_IDS.toolCall);
  const contentIds = first < 0 ? ids : ids.slice(0, first);
  let i = first < 0 ? ids.length : first;
  while (i < ids.length) {
    if (ids[i] !== QWEN3_IDS.toolCall) {
      i++;
      continue;
    }
    const end = ids.indexOf(QWEN3_IDS.toolCallEnd, i + 1);
    if (end < 0) {
      const raw = pyStrip(tokenizer.decode(ids.slice(i + 1)));
      toolCalls.push(call(raw, null, null, [i, ids.length], "unclosed_block"));
      break;
    }
    const raw = pyStrip(tokenizer.decode(ids.slice(i + 1, end)));
    const parsed = parseToolCallJson(raw);
    toolCalls.push(call(raw, parsed.name, parsed.arguments, [i, end + 1], parsed.status));
    i = end + 1;
  }

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

function call(
  raw: string,
  name: string | null,
  args: unknown,
  tokenSpan: [number, number],
  status: ParsedToolCall["status"],
): ParsedToolCall {
  return { raw, name, arguments: args, tokenSpan, status, id: null };
}
