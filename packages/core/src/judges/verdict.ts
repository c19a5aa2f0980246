/**
 * Reading a label verdict out of a judge's free-text reply (Verifiers `parse_judge_choice`).
 *
 * The rules, in order: no verdict from an empty reply or an unfinished `<think>`; only the text
 * after the last `</think>` counts; a `\boxed{…}` narrows it to the last box; a line opening with
 * a verdict marker ("FINAL ANSWER:", "Verdict -", …) takes the first label after the marker;
 * otherwise the last label mentioned wins. Labels match case-insensitively and only as whole
 * words (Python's Unicode `\w`, hence the property classes).
 */

import { pyStrip } from "../text/python-str.ts";
import { escapeRegExp } from "../text/regexp.ts";

const BOXED = "\\boxed{";
const THINK_END = "</think>";
const WORD = "[\\p{L}\\p{N}_]";
const MARKER =
  /^(?:[\s\S]*?\n)??\s*(?:FINAL\s+JUDGMENT|FINAL\s+ANSWER|FINAL\s+VERDICT|JUDGMENT|VERDICT|ANSWER)\s*(?:IS\s*)?[:-]?\s*/u;

/** The content of the last `\boxed{…}` (braces balanced), or "" when there is none or it is unclosed. */
export function lastBoxed(text: string): string {
  const start = text.lastIndexOf(BOXED);
  if (start < 0) return "";
  let depth = 1;
  for (let i = start + BOXED.length; i < text.length; i++) {
    const c = text[i];
    if (c === "{") depth++;
    else if (c === "}" && --depth === 0) return text.slice(start + BOXED.length, i);
  }
  return "";
}

/** The label the reply settles on (as spelt in `choices`), or null when it names none. */
export function parseJudgeChoice(
  content: string | null | undefined,
  choices: readonly string[],
): string | null {
  if (!content || (content.includes("<think>") && !content.includes("</think>"))) return null;
  const cut = content.lastIndexOf(THINK_END);
  const afterThinking = pyStrip(cut < 0 ? content : content.slice(cut + THINK_END.length));
  const text = pyStrip(lastBoxed(afterThinking)) || afterThinking;
  const upper = text.toUpperCase();
  const byUpper = new Map(choices.map((c) => [c.toUpperCase(), c]));
  const alternatives = [...byUpper.keys()].map(escapeRegExp).join("|");
  const choice = new RegExp(`(?<!${WORD})(${alternatives})(?!${WORD})`, "gu");
  const marker = firstMarkerEnd(upper);
  if (marker !== null) {
    // The rest is searched as its own string, so a label glued to the marker still counts.
    const m = choice.exec(upper.slice(marker));
    return m ? (byUpper.get(m[1]!) ?? null) : null;
  }
  let last: string | null = null;
  for (const m of upper.matchAll(choice)) last = m[1]!;
  return last === null ? null : (byUpper.get(last) ?? null);
}

/**
 * Where the first verdict marker ends: at the very start or right after a newline. The
 * lazy `[\s\S]*?\n` prefix finds the earliest such line, as Python's unanchored search does.
 */
function firstMarkerEnd(upper: string): number | null {
  const m = MARKER.exec(upper);
  return m ? m[0].length : null;
}
