/**
 * `judge`: deterministic verdicts for the built-in judges' prompts. The last user message is read
 * back against the `reference` and `rubric` templates (their placeholders become the captured
 * fields), and the verdict follows from the reference answer the prompt carries:
 *
 * - reference: the positive label when the response states one of the reference answers (words
 *   in order, case and punctuation aside), else the negative one;
 * - rubric: per criterion the best option when the response states the reference (or, with no
 *   reference, is non-empty), else the worst; answered as the JSON object the judge asks for.
 *
 * Not a grader: it exists so that judged environments run offline with verdicts that a test can
 * predict. A prompt that is not a built-in judge prompt gets the echo reply.
 */
import { REFERENCE_FIELDS, REFERENCE_PROMPT } from "envroll/internal/judges/reference.ts";
import {
  RUBRIC_FIELDS,
  RUBRIC_JSON_INSTRUCTION,
  RUBRIC_PROMPT,
  sectionReference,
} from "envroll/internal/judges/rubric.ts";
import { templatePattern } from "envroll/internal/judges/template.ts";
import { containsAnswer } from "envroll/internal/text/answer-match.ts";
import type { ChatMessage, PolicyFn } from "../types.ts";
import { lastUserContent } from "./chat-prompt.ts";
import { echoReply } from "./echo.ts";

const REFERENCE = templatePattern(REFERENCE_PROMPT, REFERENCE_FIELDS);
const RUBRIC_PLAIN = templatePattern(RUBRIC_PROMPT + RUBRIC_JSON_INSTRUCTION, RUBRIC_FIELDS);
const RUBRIC_STRUCTURED = templatePattern(RUBRIC_PROMPT, RUBRIC_FIELDS);
const CRITERION = /^- (.+?): (.*) \(options, worst to best: (.*)\)$/;
/** The templates' fixed openings: a cheap test before any prompt is parsed. */
const OPENINGS = [REFERENCE_PROMPT, RUBRIC_PROMPT].map((t) => t.slice(0, t.indexOf("{")).slice(0, 60));

const lines = (text: string) => text.split("\n").filter((l) => l.trim() !== "");

function referenceVerdict(g: Record<string, string>): string {
  return containsAnswer(g.response!, lines(g.answer!)) ? g.positive! : g.negative!;
}

function rubricVerdicts(g: Record<string, string>): string {
  const reference = sectionReference(g.reference!);
  const met = reference === null ? g.response!.trim() !== "" : containsAnswer(g.response!, lines(reference));
  const verdicts = lines(g.criteria!).flatMap((line) => {
    const m = CRITERION.exec(line);
    if (!m) return [];
    const options = m[3]!.split(", ");
    const verdict = met ? options.at(-1)! : options[0]!;
    const reason = met ? "The response meets this criterion." : "The response does not meet this criterion.";
    return [{ name: m[1]!, reason, verdict }];
  });
  return JSON.stringify({ verdicts });
}

/** The verdict for a built-in judge prompt, or null when `promptText` is not one. */
export function judgeReply(promptText: string, messages: readonly ChatMessage[]): string | null {
  if (!OPENINGS.some((o) => promptText.includes(o))) return null;
  const last = lastUserContent(messages);
  if (last === undefined) return null;
  const reference = REFERENCE.exec(last)?.groups;
  if (reference) return referenceVerdict(reference);
  const rubric = (RUBRIC_PLAIN.exec(last) ?? RUBRIC_STRUCTURED.exec(last))?.groups;
  return rubric ? rubricVerdicts(rubric) : null;
}

export const judgePolicy: PolicyFn = (ctx) => judgeReply(ctx.promptText, ctx.messages) ?? echoReply(ctx);
