/**
 * The coding agent's opening: its own framing (a bash tool; an edit tool when enabled) as the
 * system message, with the task's system prompt after a blank line, then the task's prompt.
 */
import type { Message } from "../../types.ts";
import { contentText } from "../../types.ts";

const BASH =
  "You are a coding agent: you solve the task by running shell commands with the `bash` tool in your working directory.";
const EDIT =
  "To change a file, use the `edit` tool, which replaces one exact occurrence of `old_str` with `new_str`.";

export function codingPreamble(edit: boolean): string {
  return edit ? `${BASH} ${EDIT}` : BASH;
}

/** `prompt` is the task's opening (its system message first, if it has one). */
export function codingPrompt(prompt: readonly Message[], edit: boolean): Message[] {
  const preamble = codingPreamble(edit);
  const first = prompt[0];
  if (first?.role === "system")
    return [{ role: "system", content: `${preamble}\n\n${contentText(first.content)}` }, ...prompt.slice(1)];
  return [{ role: "system", content: preamble }, ...prompt];
}
