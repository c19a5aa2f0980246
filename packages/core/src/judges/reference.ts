/**
 * The `reference` judge (Verifiers V1 `judges/reference.py`): does the response agree with the
 * task's reference answer? One call, a two-label verdict, positive = 1.0 and negative = 0.0.
 * An empty response scores 0.0 without a call (nothing to grade); a reply naming neither label
 * is a JudgeError, so a judge that rambles never scores the model 0.
 */
import { z } from "zod";
import { JudgeError } from "../errors.ts";
import { lazySchema } from "../lazy-schema.ts";
import { pyStrip } from "../text/python-str.ts";
import { defineJudge } from "./judge.ts";
import { JudgeViewSchema } from "./schema.ts";
import { parseJudgeChoice } from "./verdict.ts";
import { judgeAnswer, judgeQuestion, judgeResponse } from "./view.ts";

/** Placeholders: {question}, {answer}, {response}, {positive}, {negative}. */
export const REFERENCE_PROMPT = `Decide whether a response solves a task, judging it against a reference answer. The response is correct when it agrees in substance with the reference (with any one of the references, if several are listed one per line); wording, formatting and extra explanation do not matter.

Task:
\`\`\`
{question}
\`\`\`

Reference answer:
\`\`\`
{answer}
\`\`\`

Response:
\`\`\`
{response}
\`\`\`

Reply with one word only: "{positive}" if the response is correct, "{negative}" if it is not.
`;

export const REFERENCE_FIELDS = ["question", "answer", "response", "positive", "negative"] as const;

export const ReferenceJudgeOptions = lazySchema(() =>
  z.strictObject({
    /** Task field with the reference answer; a list is any-of, one per line. */
    answer_field: z.string().default("answer"),
    /** Task field for {question}; empty = the task prompt as text. */
    question_field: z.string().default(""),
    view: JudgeViewSchema.default("last_reply"),
    /** (positive, negative) labels. */
    choices: z
      .tuple([z.string(), z.string()], { error: "expected two labels, [positive, negative]" })
      .default(["yes", "no"])
      .refine(([p, n]) => p !== "" && n !== "" && p.toUpperCase() !== n.toUpperCase(), {
        error: "expected two non-empty labels that differ (case-insensitively)",
      }),
  }),
);
export type ReferenceJudgeOptions = z.output<typeof ReferenceJudgeOptions>;

/** The positive label → 1.0, the negative → 0.0; neither → an error naming the reply. */
export function referenceVerdict(text: string, choices: readonly [string, string]): number {
  const verdict = parseJudgeChoice(text, choices);
  if (verdict === null)
    throw new JudgeError(
      `judge returned no ${choices.join("/")} verdict: ${JSON.stringify(text.slice(0, 300))}`,
    );
  return verdict === choices[0] ? 1 : 0;
}

export default defineJudge({
  id: "reference",
  description: "Does the response agree with the task's reference answer? yes = 1, no = 0.",
  configSchema: ReferenceJudgeOptions,
  prompt: REFERENCE_PROMPT,
  create(config) {
    const [positive, negative] = config.choices;
    return {
      async score({ task, trace, name, render, complete }) {
        const answer = judgeAnswer(task, config.answer_field, name);
        const response = judgeResponse(trace, config.view);
        if (pyStrip(response) === "") return 0;
        const prompt = render({
          question: judgeQuestion(task, config.question_field, name),
          answer,
          response,
          positive,
          negative,
        });
        const reply = await complete(prompt, { parse: (text) => referenceVerdict(text, config.choices) });
        return reply.parsed;
      },
    };
  },
});
