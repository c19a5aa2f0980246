/**
 * reverse-text's `lcs` reward, exactly as verifiers 0.2.0 `reverse_text_v1`: the first
 * `<reversed_text>…</reversed_text>` (non-greedy, across newlines, case-sensitive), stripped,
 * compared with the code-point reversal of the prompt by difflib's Ratcliff/Obershelp ratio.
 */
import { sequenceMatcherRatio } from "../../difflib/index.ts";
import { pyStrip } from "../../text/python-str.ts";

const OPEN = "<reversed_text>";
const CLOSE = "</reversed_text>";

/**
 * The tagged answer, stripped; "" when the reply has no closed tag pair. The reference's
 * non-greedy DOTALL regex `<reversed_text>(.*?)</reversed_text>` matches from the first opening
 * tag to the first closing tag after it (when none follows the first opening, none follows a
 * later one), which two `indexOf`s find without a match array.
 */
export function extractReversed(reply: string): string {
  const open = reply.indexOf(OPEN);
  if (open < 0) return "";
  const close = reply.indexOf(CLOSE, open + OPEN.length);
  return close < 0 ? "" : pyStrip(reply.slice(open + OPEN.length, close));
}

export function lcsReward(reply: string, answer: string): number {
  return sequenceMatcherRatio(extractReversed(reply), answer);
}
