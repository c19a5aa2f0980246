/**
 * Reading a prompt back into messages in the served model's chat format, for policies that
 * answer the conversation rather than the raw ids.
 */
import { type ChatFormat, qwen3Format } from "../formats/index.ts";
import type { ChatMessage, EngineTokenizer, PromptMessage } from "../types.ts";

export { chatMessages, parseChatPrompt } from "../formats/index.ts";

/** The last message before the generation prompt, or null for a prompt not in the format. */
export function lastMessage(
  promptText: string,
  format: ChatFormat | null = qwen3Format,
): PromptMessage | null {
  return format?.turns(promptText).at(-1) ?? null;
}

/** The content of the last user message, if any. */
export function lastUserContent(messages: readonly ChatMessage[]): string | undefined {
  return messages.filter((m) => m.role === "user").at(-1)?.content;
}

/**
 * The same as `lastMessage(decode(ids))` but decodes only the tail of the prompt — the echo
 * policy is on the benchmark path and must not decode a long history on every turn.
 */
export function lastMessageFromIds(
  ids: readonly number[],
  tokenizer: EngineTokenizer,
  format: ChatFormat | null = qwen3Format,
): PromptMessage | null {
  const start = format?.turnStartId;
  let starts = 0;
  if (start !== undefined)
    for (let i = ids.length - 1; i >= 0; i--) {
      if (ids[i] === start && ++starts === 2)
        return lastMessage(tokenizer.decode(ids.slice(i) as number[]), format);
    }
  return lastMessage(tokenizer.decode(ids as number[]), format);
}
