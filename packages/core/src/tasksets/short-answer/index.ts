/**
 * short-answer — a judged taskset: general-knowledge questions answered in a word, graded by the
 * built-in `reference` judge (plugged through the taskset's config defaults, so it is config, not
 * code). The task has no reward of its own; `exact_match` is a metric (the reply is one of the
 * accepted answers, up to case and punctuation), so a report shows how the judge's leniency
 * compares with strict matching. Offline, the built-in engine answers both the questions (with
 * this taskset's reference solution) and the judge (packages/engine/src/policies/judge.ts).
 */
import { z } from "zod";
import { defineTaskset } from "../../task.ts";
import { equalsAnswer } from "../../text/answer-match.ts";
import { TaskDataSchema } from "../../types.ts";
import { QUESTIONS } from "./questions.ts";
import { shortAnswerReference } from "./reference.ts";

export const SYSTEM = "Answer the question with a short answer: a word, a name or a number.";

export const ShortAnswerDataSchema = TaskDataSchema.extend({
  idx: z.number().int().default(0),
  prompt: z.string(),
  system_prompt: z.string().default(SYSTEM),
  /** Accepted answers; the reference judge shows them one per line ("any one of these"). */
  answer: z.array(z.string()).min(1),
});
export type ShortAnswerData = z.output<typeof ShortAnswerDataSchema>;

export default defineTaskset<ShortAnswerData>({
  id: "short-answer",
  description: "Short general-knowledge answers, graded by the reference judge.",
  dataSchema: ShortAnswerDataSchema,
  defaults: {
    harness: { id: "null" },
    sampling: { max_tokens: 64 },
    taskset: { task: { judges: [{ id: "reference" }] } },
  },
  load: () =>
    QUESTIONS.map((q, idx) => ({ idx, prompt: q.question, system_prompt: SYSTEM, answer: [...q.answers] })),
  metrics: [
    { name: "exact_match", fn: ({ task, trace }) => (equalsAnswer(trace.lastReply, task.answer) ? 1 : 0) },
  ],
  stops: [{ name: "single_turn", fn: ({ trace }) => trace.numTurns >= 1 }],
  reference: shortAnswerReference(SYSTEM),
});
