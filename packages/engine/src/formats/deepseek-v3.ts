/**
 * DeepSeek-V3: `<｜begin▁of▁sentence｜>` + every system prompt, then `<｜User｜>content` and
 * `<｜Assistant｜>content<｜end▁of▁sentence｜>`; tool results sit in a
 * `<｜tool▁outputs▁begin｜>…<｜tool▁outputs▁end｜>` section, each output in
 * `<｜tool▁output▁begin｜>…<｜tool▁output▁end｜>`, and the assistant turn after them has no role
 * marker of its own. Tool-call markup stays in the assistant's content and is read into its
 * `tool_calls` (`<｜tool▁call▁begin｜>TYPE<｜tool▁sep｜>NAME` + a ```json block); the template writes
 * no tools block, so the prompt offers no tool names.
 */
import type { ChatMessage, PromptMessage, ReadToolCall } from "../types.ts";
import { type ChatFormat, readArguments, roleMessages } from "./format.ts";

// In the regexes over the special tokens `｜` is \uff5c and `▁` is \u2581: the CLI bundle must be
// ASCII (it is read as Latin-1 at start-up), and esbuild leaves regex literals as written.
const MARK =
  /<\uff5c(begin\u2581of\u2581sentence|User|Assistant|end\u2581of\u2581sentence|tool\u2581output\u2581begin|tool\u2581output\u2581end|tool\u2581outputs\u2581end)\uff5c>/g;

function turns(text: string): PromptMessage[] {
  const out: PromptMessage[] = [];
  let open: { role: string; from: number } | null = null;
  const close = (at: number) => {
    if (open) out.push({ role: open.role, content: text.slice(open.from, at) });
    open = null;
  };
  for (const m of text.matchAll(MARK)) {
    const at = m.index;
    const end = at + m[0].length;
    switch (m[1]) {
      case "begin▁of▁sentence":
        open = { role: "system", from: end };
        break;
      case "User":
        // The system prompt (possibly empty) ends where the first user turn begins.
        if (open?.role === "system" && at === open.from) open = null;
        close(at);
        open = { role: "user", from: end };
        break;
      case "Assistant":
        close(at);
        open = { role: "assistant", from: end };
        break;
      case "tool▁output▁begin":
        close(at);
        open = { role: "tool", from: end };
        break;
      case "tool▁outputs▁end":
        open = { role: "assistant", from: end };
        break;
      default:
        // end▁of▁sentence, tool▁output▁end: the open turn is complete.
        close(at);
    }
  }
  // A user turn runs until the next marker; one left open at the end is still a complete turn.
  if (open !== null && (open as { role: string }).role === "user") close(text.length);
  return out;
}

const CALL =
  /<\uff5ctool\u2581call\u2581begin\uff5c>[^<]*<\uff5ctool\u2581sep\uff5c>([^\n]+)\n```json\n([\s\S]*?)\n```<\uff5ctool\u2581call\u2581end\uff5c>/g;

function withToolCalls(m: ChatMessage): ChatMessage {
  if (m.role !== "assistant") return m;
  const calls: ReadToolCall[] = [...m.content.matchAll(CALL)].map((c) => ({
    name: c[1]!.trim(),
    arguments: readArguments(c[2]!),
  }));
  return calls.length > 0 ? { ...m, tool_calls: calls } : m;
}

export const deepseekV3Format: ChatFormat = {
  family: "deepseek-v3",
  turns,
  messages: (text) => roleMessages(turns(text)).map(withToolCalls),
};
