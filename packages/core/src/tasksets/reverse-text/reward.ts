/**
 * reverse-text's `lcs` reward, exactly as verifiers 0.2.0 `reverse_text_v1`: the first
 * `<reversed_text>…</reversed_text>` (non-greedy, across newlines, case-sensitive), stripped,
 * compared with the code-point reversal of the prompt by difflib's Ratcliff/Obershelp ratio.
 */
import { sequenceMatcherRatio } from "../../difflib/index.ts";
import { pyStrip } from "../../text/python-str.ts";

/** `[\s\S]` is Python's `.` under DOTALL. */
const TAG_RE = /<reversed_text>([\s\S]*?)<\/reversed_text>/;

/** The tagged answer, stripped; "" when the reply has no closed tag pair. */
export function extractReversed(reply: string): string {
  const m = TAG_RE.exec(reply);
  return m ? pyStrip(m[1]!) : "";
}

export function lcsReward(reply: string, answer: string): number {
  return sequenceMatcherRatio(extractReversed(reply), answer);
}
