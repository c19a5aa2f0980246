/**
 * Qwen3 (ChatML): `<|im_start|>role\ncontent<|im_end|>\n`; tool results are `<tool_response>`
 * blocks inside a user turn. The reference reply is text with Hermes `<tool_call>` JSON blocks.
 */
import type { Tokenizer } from "envroll/internal/tokenizer/index.ts";
import type { ChatMessage, PromptMessage, ReadToolCall, ReferenceTurn } from "../types.ts";
import { type ChatFormat, readArguments } from "./format.ts";

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

const TOOL_CALL = /<tool_call>\s*([\s\S]*?)\s*<\/tool_call>/g;

/** The Hermes `<tool_call>{"name": …, "arguments": …}</tool_call>` blocks of an assistant turn. */
function toolCalls(content: string): ReadToolCall[] {
  const out: ReadToolCall[] = [];
  for (const m of content.matchAll(TOOL_CALL)) {
    const call = readArguments(m[1]!) as { name?: unknown; arguments?: unknown } | string;
    if (typeof call === "object" && call !== null && typeof call.name === "string")
      out.push({ name: call.name, arguments: call.arguments ?? {} });
  }
  return out;
}

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
      continue;
    }
    const calls = t.role === "assistant" ? toolCalls(t.content) : [];
    const role = t.role as ChatMessage["role"];
    out.push(
      calls.length > 0 ? { role, content: t.content, tool_calls: calls } : { role, content: t.content },
    );
  }
  return out;
}

const TOOLS_BLOCK = /<tools>\n([\s\S]*?)\n<\/tools>/;

/** The function names in the system turn's `<tools>` block (one JSON tool per line). */
function tools(promptText: string): string[] {
  const block = TOOLS_BLOCK.exec(promptText)?.[1] ?? "";
  return block.split("\n").flatMap((line) => {
    const tool = readArguments(line) as { function?: { name?: unknown }; name?: unknown } | string;
    if (typeof tool !== "object" || tool === null) return [];
    const name = tool.function?.name ?? tool.name;
    return typeof name === "string" ? [name] : [];
  });
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
  tools,
  replyIds: (turn: ReferenceTurn, tokenizer: Tokenizer) => [
    ...tokenizer.encode(formatReferenceTurn(turn)),
    IM_END,
  ],
};
