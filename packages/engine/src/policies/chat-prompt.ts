/**
 * Reading a Qwen3 chat-format prompt back into messages, for policies that answer the
 * conversation rather than the raw ids.
 */
import { IM_START } from "../special-tokens.ts";
import type { ChatMessage, EngineTokenizer, PromptMessage } from "../types.ts";

const TURN = /<\|im_start\|>([^\n]*)\n([\s\S]*?)(?:<\|im_end\|>|$)/g;

/** All turns in order; the trailing open `assistant` generation prompt comes last with its partial content. */
export function parseChatPrompt(promptText: string): PromptMessage[] {
  const out: PromptMessage[] = [];
  for (const m of promptText.matchAll(TURN)) out.push({ role: m[1], content: m[2] });
  return out;
}

/** The content of the last user turn, if any. */
export function lastUserContent(promptText: string): string | undefined {
  return parseChatPrompt(promptText)
    .filter((m) => m.role === "user")
    .at(-1)?.content;
}

/** The last message before the generation prompt, or null for a prompt not in chat format. */
export function lastMessage(promptText: string): PromptMessage | null {
  const turns = parseChatPrompt(promptText);
  for (let i = turns.length - 1; i >= 0; i--) {
    const t = turns[i];
    if (i === turns.length - 1 && t.role === "assistant" && !promptText.trimEnd().endsWith("<|im_end|>"))
      continue;
    return t;
  }
  return null;
}

/**
 * The same as `lastMessage(decode(ids))` but decodes only the tail of the prompt — the echo
 * policy is on the benchmark path and must not decode a long history on every turn.
 */
export function lastMessageFromIds(ids: readonly number[], tokenizer: EngineTokenizer): PromptMessage | null {
  let starts = 0;
  for (let i = ids.length - 1; i >= 0; i--) {
    if (ids[i] === IM_START && ++starts === 2) return lastMessage(tokenizer.decode(ids.slice(i) as number[]));
  }
  return lastMessage(tokenizer.decode(ids as number[]));
}

const TOOL_RESPONSE = /<tool_response>\n?([\s\S]*?)\n?<\/tool_response>/g;
const ROLES = new Set(["system", "user", "assistant"]);

/**
 * The conversation before the generation prompt as messages: a user turn made only of
 * `<tool_response>` blocks (how Qwen3 renders tool results) becomes one `tool` message per block.
 */
export function chatMessages(promptText: string): ChatMessage[] {
  const turns = parseChatPrompt(promptText);
  const open = turns.at(-1);
  if (open?.role === "assistant" && !promptText.trimEnd().endsWith("<|im_end|>")) turns.pop();
  const out: ChatMessage[] = [];
  for (const t of turns) {
    if (!ROLES.has(t.role)) continue;
    const results = t.role === "user" ? [...t.content.matchAll(TOOL_RESPONSE)] : [];
    if (results.length > 0 && t.content.replace(TOOL_RESPONSE, "").trim() === "") {
      for (const r of results) out.push({ role: "tool", content: r[1]! });
    } else out.push({ role: t.role as ChatMessage["role"], content: t.content });
  }
  return out;
}
