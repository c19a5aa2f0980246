/**
 * Gemma 3: `<start_of_turn>role\ncontent<end_of_turn>\n` with the assistant called `model`. The
 * template has no system turn: it writes the system prompt and a blank line at the start of the
 * first user turn, so the first user turn is read back as system + user split at its first
 * blank line (a first user message that itself holds one, with no system prompt, reads as both).
 */
import type { PromptMessage } from "../types.ts";
import { type ChatFormat, closedTurns, roleMessages } from "./format.ts";

const TURN = /<start_of_turn>([^\n]*)\n([\s\S]*?)(?:(<end_of_turn>)|$)/g;

const turns = (text: string) => closedTurns(text, TURN, (r) => (r === "model" ? "assistant" : r));

function unfoldSystem(turns: PromptMessage[]): PromptMessage[] {
  const first = turns[0];
  const blank = first?.role === "user" ? first.content.indexOf("\n\n") : -1;
  if (blank < 0) return turns;
  return [
    { role: "system", content: first!.content.slice(0, blank) },
    { role: "user", content: first!.content.slice(blank + 2) },
    ...turns.slice(1),
  ];
}

export const gemma3Format: ChatFormat = {
  family: "gemma-3",
  turnStartId: 105,
  turns,
  messages: (text) => roleMessages(unfoldSystem(turns(text))),
};
