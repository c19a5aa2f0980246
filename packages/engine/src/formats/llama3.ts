/**
 * Llama 3: `<|start_header_id|>role<|end_header_id|>\n\ncontent<|eot_id|>`; tool results are
 * turns of their own (`ipython` in Meta's template, `tool` in minimal ones).
 */
import { type ChatFormat, closedTurns, roleMessages } from "./format.ts";

const TURN =
  /<\|start_header_id\|>([^<\n]*)<\|end_header_id\|>\n\n([\s\S]*?)(?:(<\|eot_id\|>|<\|eom_id\|>)|$)/g;

const turns = (text: string) => closedTurns(text, TURN, (r) => (r === "ipython" ? "tool" : r));

export const llama3Format: ChatFormat = {
  family: "llama-3",
  turnStartId: 128006,
  turns,
  messages: (text) => roleMessages(turns(text)),
};
