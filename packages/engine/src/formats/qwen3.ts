/**
 * Qwen3 (ChatML): `<|im_start|>role\ncontent<|im_end|>\n`; tool results are `<tool_response>`
 * blocks inside a user turn. The reference reply is text with Hermes `<tool_call>` JSON blocks.
 */
import type { Tokenizer } from "envroll/internal/tokenizer/index.ts";
import type { ChatMessage, PromptMessage, ReferenceTurn } from "../types.ts";
import type { ChatFormat } from "./format.ts";

export const IM_START = 151644;
export const IM_END = 151645;

const TURN = /<\|im_start\|>([^\n]*)\n([\s\S]*?)(?:<\|im_end\|>|$)/g;

/** All turns in order; the trailing open `assistant` generation prompt comes last with its partial content. */
export function parseChatPrompt(promptText: string): PromptMessage[] {
  const out: PromptMessage[] = [];
  for (const m of promptText.matchAll(TURN)) out.push({ role: m[1]!, content: m[2]! });
  return out;
}

/** The complete turns: without the open generation prompt. */
function turns(promptText: string): PromptMessage[] {
  const all = parseChatPrompt(promptText);
  const open = all.at(-1);
  if (open?.role === "assistant" && !promptText.trimEnd().endsWith("<|im_end|>")) all.pop();
  return all;
}

const TOOL_RESPONSE = /<tool_response>\n?([\s\S]*?)\n?<\/tool_response>/g;
const ROLES = new Set(["system", "user", "assistant"]);

/**
 * The conversation before the generation prompt as messages: a user turn made only of
 * `<tool_response>` blocks (how Qwen3 renders tool results) becomes one `tool` message per block.
 */
export function chatMessages(promptText: string): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const t of turns(promptText)) {
    if (!ROLES.has(t.role)) continue;
    const results = t.role === "user" ? [...t.content.matchAll(TOOL_RESPONSE)] : [];
    if (results.length > 0 && t.content.replace(TOOL_RESPONSE, "").trim() === "") {
      for (const r of results) out.push({ role: "tool", content: r[1]! });
    } else out.push({ role: t.role as ChatMessage["role"], content: t.content });
  }
  return out;
}

/** The reply text: content, then each call as a Hermes-style `<tool_call>` block. */
export function formatReferenceTurn(turn: ReferenceTurn): string {
  const calls = turn.tool_calls.map(
    (c) => `<tool_call>\n${JSON.stringify({ name: c.name, arguments: c.arguments })}\n</tool_call>`,
  );
  return [turn.content, ...calls].filter((part) => part !== "").join("\n");
}

export const qwen3Format: ChatFormat = {
  family: "qwen3",
  turnStartId: IM_START,
  turns,
  messages: chatMessages,
  replyIds: (turn: ReferenceTurn, tokenizer: Tokenizer) => [
    ...tokenizer.encode(formatReferenceTurn(turn)),
    IM_END,
  ],
};
