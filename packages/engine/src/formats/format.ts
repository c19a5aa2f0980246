/**
 * What the engine needs to know about the chat format of the model it serves: how to read a
 * rendered prompt back into turns (policies answer the conversation, not the ids) and which ids
 * the model would sample for a reply. The format is chosen from the renderer identity of the
 * served checkpoint (`envroll/internal/renderers`), the same function the client uses.
 */
import type { Tokenizer } from "envroll/internal/tokenizer/index.ts";
import type { ChatMessage, PromptMessage, ReferenceTurn } from "../types.ts";

export interface ChatFormat {
  /** The family whose format this is (`TemplateIdentity.family`). */
  readonly family: string;
  /** An id that opens every turn, so the echo policy can decode just the prompt's tail. */
  readonly turnStartId?: number;
  /** The prompt's complete turns in order, as written (the open generation prompt is not one). */
  turns(promptText: string): PromptMessage[];
  /**
   * The conversation those turns stand for: roles normalised, tool results as `tool` messages,
   * an assistant's tool calls in `tool_calls` where the format writes them.
   */
  messages(promptText: string): ChatMessage[];
  /** The tool names the prompt offers; absent where the format writes no tools block. */
  tools?(promptText: string): string[];
  /**
   * The ids the model samples for a turn, ending with its stop token; absent where the served
   * renderer's own rendering of the turn is what the model samples (see served-model.ts).
   */
  replyIds?(turn: ReferenceTurn, tokenizer: Tokenizer): number[];
}

const ROLES = new Set(["system", "user", "assistant", "tool"]);

/** Turns with a conversation role, as messages (for formats that write tool results as turns). */
export function roleMessages(turns: readonly PromptMessage[]): ChatMessage[] {
  return turns.filter((t) => ROLES.has(t.role)).map((t) => t as ChatMessage);
}

/** Every match of a turn pattern (groups: role, content, close); an unclosed last match is the open prompt. */
export function closedTurns(
  text: string,
  pattern: RegExp,
  role: (raw: string) => string = (r) => r,
): PromptMessage[] {
  const out: PromptMessage[] = [];
  for (const m of text.matchAll(pattern))
    if (m[3] !== undefined) out.push({ role: role(m[1]!), content: m[2]! });
  return out;
}

/** JSON arguments as an object; text that is not JSON stays text (a model may write anything). */
export function readArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
