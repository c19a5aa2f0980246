/**
 * One sampled assistant turn that a program sends back as two messages: its text, then an
 * assistant message with only the tool calls. The OpenAI Agents SDK's chat-completions
 * converter does this (a message item and function_call items become separate messages). Taken
 * literally the history differs from what the model sampled, so the trace forks and the next
 * prompt renders two assistant blocks where the model produced one; joined back, the turn
 * matches its sampled node and the next turn bridges from the sampled tokens.
 */
import type { AssistantMessage, Content, Message } from "../types.ts";

function isEmpty(content: Content | null | undefined): boolean {
  return content == null || content === "" || (Array.isArray(content) && content.length === 0);
}

/** All-text parts as one string (the form a sampled reply has); anything else unchanged. */
function plainText(content: Content | null | undefined): Content | null | undefined {
  if (!Array.isArray(content) || !content.every((p) => p.type === "text")) return content;
  return content.map((p) => (p as { text: string }).text).join("");
}

export function mergeSplitTurns(messages: Message[]): Message[] {
  const out: Message[] = [];
  for (const m of messages) {
    const prev = out.at(-1);
    if (
      m.role === "assistant" &&
      prev?.role === "assistant" &&
      (prev.tool_calls?.length ?? 0) === 0 &&
      !isEmpty(prev.content) &&
      (m.tool_calls?.length ?? 0) > 0 &&
      isEmpty(m.content) &&
      m.reasoning_content == null
    ) {
      const merged: AssistantMessage = {
        ...prev,
        content: plainText(prev.content),
        tool_calls: m.tool_calls,
      };
      out[out.length - 1] = merged;
    } else out.push(m);
  }
  return out;
}
