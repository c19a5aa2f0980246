/** Pulling the program out of a reply, as verifiers 0.2.0 `code_golf_v1.extract_program`. */
import { pyStrip } from "../../text/python-str.ts";

/** First fenced block (optionally tagged `python`), non-greedy across newlines; `[\s\S]` = DOTALL `.`. */
export const PROGRAM_RE = /```(?:python)?\n([\s\S]*?)```/;

/** The first code block's body, else the whole reply; stripped either way. */
export function extractProgram(reply: string): string {
  const m = PROGRAM_RE.exec(reply);
  return pyStrip(m ? m[1]! : reply);
}
