/**
 * Hermes-style tool-call blocks (`<tool_call>{json}</tool_call>`) found by their special-token
 * ids, shared by the Qwen3 parser and the generic renderer's optional tool parser.
 */

import { pyStrip } from "../../text/python-str.ts";
import type { Tokenizer } from "../../tokenizer/index.ts";
import type { ParsedToolCall } from "../renderer.ts";
import { parseToolCallJson } from "./tool-call-json.ts";

/**
 * Splits stop-truncated ids into content (everything before the first block) and one record per
 * block attempt. A block without its close runs to the end and is `unclosed_block`; token spans
 * are [open, close+1) into `ids`. Text between and after blocks is not content (Python parity).
 */
export function parseHermesToolCalls(
  tokenizer: Tokenizer,
  ids: readonly number[],
  openId: number,
  closeId: number,
): { contentIds: number[]; toolCalls: ParsedToolCall[] } {
  const toolCalls: ParsedToolCall[] = [];
  const first = ids.indexOf(openId);
  if (first < 0) return { contentIds: ids.slice(), toolCalls };
  let i = first;
  while (i < ids.length) {
    if (ids[i] !== openId) {
      i++;
      continue;
    }
    const end = ids.indexOf(closeId, i + 1);
    if (end < 0) {
      const raw = pyStrip(tokenizer.decode(ids.slice(i + 1)));
      toolCalls.push({
        raw,
        name: null,
        arguments: null,
        tokenSpan: [i, ids.length],
        status: "unclosed_block",
        id: null,
      });
      break;
    }
    const raw = pyStrip(tokenizer.decode(ids.slice(i + 1, end)));
    const parsed = parseToolCallJson(raw);
    toolCalls.push({
      raw,
      name: parsed.name,
      arguments: parsed.arguments,
      tokenSpan: [i, end + 1],
      status: parsed.status,
      id: null,
    });
    i = end + 1;
  }
  return { contentIds: ids.slice(0, first), toolCalls };
}
