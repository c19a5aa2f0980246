/**
 * Llama 3: `<|start_header_id|>role<|end_header_id|>\n\ncontent<|eot_id|>`; tool results are
 * turns of their own (`ipython` in Meta's template, `tool` in minimal ones). Meta's Llama 3.1
 * template offers tools in the first user turn (a preamble, then each tool as indented JSON,
 * then the user's text), writes a call as the assistant's whole content
 * `{"name": …, "parameters": …}` (or after `<|python_tag|>`), and a string tool result as JSON
 * (a str is `iterable` to Jinja2); all three are read back here.
 */
import type { ChatMessage, PromptMessage } from "../types.ts";
import { type ChatFormat, closedTurns, readArguments, roleMessages } from "./format.ts";

const TURN =
  /<\|start_header_id\|>([^<\n]*)<\|end_header_id\|>\n\n([\s\S]*?)(?:(<\|eot_id\|>|<\|eom_id\|>)|$)/g;

const turns = (text: string) => closedTurns(text, TURN, (r) => (r === "ipython" ? "tool" : r));

const TOOLS_PREAMBLE = "Given the following functions, please respond with a JSON for a function call";
/** The end of the last tool's indented JSON in the first user turn. */
const LAST_TOOL_END = "\n}\n\n";

function message(t: PromptMessage): PromptMessage {
  if (t.role === "user" && t.content.startsWith(TOOLS_PREAMBLE)) {
    const end = t.content.lastIndexOf(LAST_TOOL_END);
    return { ...t, content: end < 0 ? t.content : t.content.slice(end + LAST_TOOL_END.length) };
  }
  if (t.role === "tool") {
    const value = readArguments(t.content);
    return typeof value === "string" && t.content.startsWith('"') ? { ...t, content: value } : t;
  }
  return t;
}

function withToolCall(m: ChatMessage): ChatMessage {
  if (m.role !== "assistant") return m;
  const body = m.content.replace(/^<\|python_tag\|>/, "").trim();
  const call = body.startsWith("{") ? readArguments(body) : null;
  if (call === null || typeof call !== "object" || !("name" in call)) return m;
  const c = call as { name: unknown; parameters?: unknown; arguments?: unknown };
  if (typeof c.name !== "string" || !("parameters" in c || "arguments" in c)) return m;
  return { ...m, tool_calls: [{ name: c.name, arguments: c.parameters ?? c.arguments }] };
}

/** The tools the first user turn offers (each `tojson(indent=4)`: the function's name at depth 2). */
function tools(text: string): string[] {
  const at = text.indexOf(TOOLS_PREAMBLE);
  if (at < 0) return [];
  const end = text.indexOf("<|eot_id|>", at);
  const block = text.slice(at, end < 0 ? text.length : end);
  return [...block.matchAll(/^ {8}"name": "([^"\n]+)"/gm)].map((m) => m[1]!);
}

export const llama3Format: ChatFormat = {
  family: "llama-3",
  turnStartId: 128006,
  turns,
  messages: (text) => roleMessages(turns(text).map(message)).map(withToolCall),
  tools,
};
