/**
 * Parsing a sampled gpt-oss completion (what follows the generation prompt `<|start|>assistant`)
 * into one message. The stream is harmony messages: the first continues the prompt's header
 * (`<|channel|>analysis<|message|>…`), later ones open with `<|start|>assistant`. Boundaries are
 * found by special-token id only, so text that looks like markup stays text. Channels:
 * `analysis` → reasoning; `final`, and `commentary` without a recipient (a preamble) → content;
 * a message with a recipient (` to=functions.NAME`, in the header before or after the channel)
 * → a tool call whose body is its JSON arguments. Bodies are kept exactly as sampled (harmony's
 * own parser does not strip them). The completion ends at its first `<|call|>` or `<|return|>`:
 * the engine stops there.
 */

import { pyJsonLoads } from "../../text/py-json.ts";
import type { Tokenizer } from "../../tokenizer/index.ts";
import type { ParsedResponse, ParsedToolCall } from "../renderer.ts";
import { HARMONY_IDS } from "./format.ts";

export const HARMONY_STOP_IDS: readonly number[] = [HARMONY_IDS.return, HARMONY_IDS.call];

export interface HarmonyHeader {
  role: string;
  recipient: string | null;
  channel: string | null;
}

/** A decoded header such as `assistant to=functions.f<|channel|>commentary <|constrain|>json`. */
export function parseHeader(text: string, defaultRole: string): HarmonyHeader {
  const role = /^[^\s<]*/.exec(text)?.[0] ?? "";
  const recipient = /(?:^|\s)to=([^\s<]*)/.exec(text)?.[1] ?? null;
  const channel = /<\|channel\|>([^\s<]+)/.exec(text)?.[1] ?? null;
  return { role: role || defaultRole, recipient, channel };
}

export function parseHarmonyCompletion(
  tokenizer: Tokenizer,
  completionIds: readonly number[],
): ParsedResponse {
  const { start: START, end: END, message: MESSAGE } = HARMONY_IDS;
  const stop = completionIds.findIndex((id) => HARMONY_STOP_IDS.includes(id));
  const ids = stop >= 0 ? completionIds.slice(0, stop) : completionIds.slice();
  const n = ids.length;
  const content: string[] = [];
  const reasoning: string[] = [];
  const toolCalls: ParsedToolCall[] = [];
  let pos = 0;
  let first = true;
  while (pos < n) {
    let start = pos;
    if (!first) {
      // Between messages only `<|start|>` belongs; anything else there is skipped.
      start = ids.indexOf(START, pos);
      if (start < 0) break;
      pos = start + 1;
    }
    let m = pos;
    while (m < n && ids[m] !== MESSAGE && ids[m] !== START && ids[m] !== END) m++;
    const header = parseHeader(tokenizer.decode(ids.slice(pos, m)), first ? "assistant" : "");
    first = false;
    if (m >= n || ids[m] !== MESSAGE) {
      // A header with no body: cut off (end of ids) or malformed (a new message began).
      if (header.recipient !== null && header.role === "assistant")
        toolCalls.push(
          call(header.recipient, "", null, [start, m], m >= n ? "unclosed_block" : "malformed_structure"),
        );
      pos = m < n && ids[m] === END ? m + 1 : m;
      continue;
    }
    let b = m + 1;
    while (b < n && ids[b] !== END && ids[b] !== START) b++;
    // Closed by `<|end|>`, or by the stop token the ids were cut at; not by a new `<|start|>`.
    const closed = b < n ? ids[b] === END : stop >= 0;
    const body = tokenizer.decode(ids.slice(m + 1, b));
    const spanEnd = b < n && ids[b] === END ? b + 1 : b;
    pos = spanEnd;
    if (header.role !== "assistant") continue;
    if (header.recipient !== null) {
      if (!closed) toolCalls.push(call(header.recipient, body, null, [start, spanEnd], "unclosed_block"));
      else toolCalls.push(argumentsCall(header.recipient, body, [start, spanEnd]));
    } else if (header.channel === "analysis") reasoning.push(body);
    else content.push(body);
  }
  return {
    content: content.join(""),
    reasoningContent: reasoning.length > 0 ? reasoning.join("") : null,
    toolCalls,
  };
}

function call(
  recipient: string,
  raw: string,
  args: unknown,
  span: [number, number],
  status: ParsedToolCall["status"],
): ParsedToolCall {
  const name = recipient.startsWith("functions.") ? recipient.slice("functions.".length) : recipient;
  return {
    raw,
    name: name || null,
    arguments: args,
    tokenSpan: span,
    status: name ? status : status === "ok" ? "missing_name" : status,
    id: null,
  };
}

function argumentsCall(recipient: string, raw: string, span: [number, number]): ParsedToolCall {
  try {
    return { ...call(recipient, raw, pyJsonLoads(raw), span, "ok"), argumentsText: raw };
  } catch {
    return call(recipient, raw, raw, span, "invalid_json");
  }
}
