/**
 * A full render of a conversation in the gpt-oss chat template's rules, as segments:
 * - messages[0], when system or developer, is the developer message's `# Instructions`; later
 *   system/developer messages (and unknown roles) are not rendered, as the template does;
 * - an assistant with tool calls renders one commentary message per call (`to=functions.NAME`,
 *   closed by `<|call|>`), preceded by its reasoning (or its content, which the template also
 *   treats as reasoning there) as an analysis message unless a later assistant gives a final
 *   answer — the one place the template keeps reasoning in history;
 * - any other assistant is a `final` message closed by `<|end|>`, except the conversation's last
 *   one when no generation prompt follows: it keeps its analysis and closes with `<|return|>`,
 *   the token the model emits (a training render);
 * - a tool result is authored by `functions.NAME` (the call it answers) and its body `tojson`ed.
 * Where the template reads less or raises, the message is rendered as harmony (and the model)
 * write it: every call of a message with several (the template reads only the first), and
 * content beside reasoning on a message with calls as a commentary preamble (the template
 * raises).
 */

import { SegmentList } from "../common/attribution.ts";
import { contentText } from "../common/messages.ts";
import type { RenderMessage, RenderTool } from "../renderer.ts";
import {
  assertNoChannelTags,
  GENERATION_PROMPT,
  type HarmonySystemConfig,
  pushAssistant,
  pushPrefix,
  pushToolResult,
  pushUser,
  thinkingOf,
  toolCallsOf,
  truthy,
} from "./format.ts";

function hasCalls(m: RenderMessage): boolean {
  return Array.isArray(m.tool_calls) && m.tool_calls.length > 0;
}

/**
 * The author name of each tool message (null elsewhere): the call it answers by
 * `tool_call_id`, else the latest call (the template's rule; a final answer in between forgets
 * it), else the message's own `name`. `null` for a tool message nothing names — the template
 * raises there.
 */
export function harmonyToolNames(messages: readonly RenderMessage[], from = 0): (string | null)[] {
  let last: string | null = null;
  let byId = new Map<string, string>();
  return messages.map((m, i) => {
    if (i < from) return null;
    if (m.role === "assistant") {
      if (hasCalls(m)) {
        byId = new Map();
        const calls = toolCallsOf(m, i);
        (m.tool_calls as unknown[]).forEach((tc, k) => {
          const id = (tc as { id?: unknown } | null)?.id;
          const call = calls[k];
          if (typeof id === "string" && call) byId.set(id, call.name);
        });
        last = calls.at(-1)?.name ?? null;
      } else last = null;
      return null;
    }
    if (m.role !== "tool") return null;
    const joined = typeof m.tool_call_id === "string" ? byId.get(m.tool_call_id) : undefined;
    return joined ?? last ?? (typeof m.name === "string" && m.name ? m.name : null);
  });
}

export function toolNameError(i: number): Error {
  return new Error(
    `gpt-oss render: messages[${i}] is a tool result but no earlier assistant message has a tool call ` +
      "(and it has no name); the gpt-oss format needs the function name as the result's author",
  );
}

export function renderHarmony(
  messages: readonly RenderMessage[],
  tools: readonly RenderTool[] | null | undefined,
  addGenerationPrompt: boolean,
  cfg: HarmonySystemConfig,
): SegmentList {
  const out = new SegmentList();
  const from = pushPrefix(out, messages, tools, cfg) ? 1 : 0;
  const names = harmonyToolNames(messages, from);
  // Index of the last assistant without tool calls: reasoning before it is dropped.
  let lastFinal = -1;
  for (let i = messages.length - 1; i >= from; i--) {
    const m = messages[i];
    if (m?.role === "assistant" && !hasCalls(m)) {
      lastFinal = i;
      break;
    }
  }
  for (const [i, m] of messages.entries()) {
    if (i < from) continue;
    if (m.role === "user") pushUser(out, m, i);
    else if (m.role === "tool") {
      const name = names[i];
      if (name === null || name === undefined) throw toolNameError(i);
      pushToolResult(out, m, name, i);
    } else if (m.role === "assistant") {
      const content = contentText(m.content);
      const thinking = thinkingOf(m);
      assertNoChannelTags(content, "content", i);
      if (thinking !== undefined) assertNoChannelTags(thinking, "reasoning", i);
      if (hasCalls(m)) {
        const keep = lastFinal < i;
        let analysis: string | null = null;
        let preamble: string | null = null;
        if (truthy(content) && truthy(thinking)) {
          // The template raises here; harmony (and the model) write the content as a preamble.
          analysis = keep ? (thinking as string) : null;
          preamble = content;
        } else if (keep)
          analysis = truthy(content) ? content : truthy(thinking) ? (thinking as string) : null;
        pushAssistant(out, i, { analysis, preamble, calls: toolCallsOf(m, i), final: null, close: "" });
      } else if (i === messages.length - 1 && !addGenerationPrompt) {
        pushAssistant(out, i, {
          analysis: thinking ?? null,
          preamble: null,
          calls: [],
          final: content,
          close: "<|return|>",
        });
      } else
        pushAssistant(out, i, {
          analysis: null,
          preamble: null,
          calls: [],
          final: content,
          close: "<|end|>",
        });
    }
  }
  if (addGenerationPrompt) out.push(GENERATION_PROMPT, -1, false, false);
  return out;
}
