/**
 * The `rubric` judge (Verifiers V1 `judges/rubric.py`): grades the response on each criterion
 * of a rubric file, scores each verdict by its rank among the criterion's choices, records one
 * metric per criterion (`<name>/<criterion>`) and returns the weighted mean. The reply is read
 * as JSON (plain mode: the first object with `verdicts` in the text; structured mode: the whole
 * content, requested with `response_format`); any deviation is a JudgeError.
 */
import { z } from "zod";
import { JudgeError } from "../errors.ts";
import { lazySchema } from "../lazy-schema.ts";
import { defineJudge, type JudgeContext } from "./judge.ts";
import { type Criterion, firstVerdictsObject, loadCriteria, scoreVerdicts } from "./rubric-criteria.ts";
import { JudgeViewSchema } from "./schema.ts";
import { fenceFor } from "./template.ts";
import { judgeAnswer, judgeQuestion, judgeResponse } from "./view.ts";

/** Placeholders: {question}, {reference} (empty or a fenced section), {response}, {criteria}. */
export const RUBRIC_PROMPT = `Grade a response to a task against a list of criteria: for each criterion, decide how well the response meets it.

Task:
\`\`\`
{question}
\`\`\`
{reference}
Response:
\`\`\`
{response}
\`\`\`

Criteria:
{criteria}

Give every criterion, under its exact name, exactly one of the options listed after it.
`;

export const RUBRIC_FIELDS = ["question", "reference", "response", "criteria"] as const;

/** Appended in plain mode. The `...` keeps an echoed example from parsing as the answer. */
export const RUBRIC_JSON_INSTRUCTION = `

Reply with a JSON object and nothing else, shaped like this:
{"verdicts": [{"name": "<criterion name>", "reason": "<one sentence on the evidence in the response>", "verdict": "<option>"}, ...]}
One entry per criterion, named exactly as listed. Write the reason first, then pick the verdict from that criterion's options.`;

export const RUBRIC_CRITERION_LINE = (c: Pick<Criterion, "name" | "text" | "choices">) =>
  `- ${c.name}: ${c.text} (options, worst to best: ${c.choices.join(", ")})`;

const REFERENCE_HEADING = "Reference answer (a correct solution, for comparison):";

/** The reference section {reference} expands to; its fence outgrows any backtick run inside. */
export function referenceSection(answer: string): string {
  const fence = fenceFor(answer);
  return `\n${REFERENCE_HEADING}\n${fence}\n${answer}\n${fence}\n`;
}

/** The answer inside a `referenceSection`, or null for an empty or foreign section. */
export function sectionReference(section: string): string | null {
  const m = /^\n(.*)\n(`{3,})\n([\s\S]*)\n\2\n$/.exec(section);
  return m && m[1] === REFERENCE_HEADING ? m[3]! : null;
}

const VERDICTS_SCHEMA = {
  type: "json_schema",
  json_schema: {
    name: "RubricVerdicts",
    strict: true,
    schema: {
      type: "object",
      additionalProperties: false,
      required: ["verdicts"],
      properties: {
        verdicts: {
          type: "array",
          items: {
            type: "object",
            additionalProperties: false,
            required: ["name", "reason", "verdict"],
            properties: { name: { type: "string" }, reason: { type: "string" }, verdict: { type: "string" } },
          },
        },
      },
    },
  },
};

export const RubricJudgeOptions = lazySchema(() =>
  z
    .strictObject({
      /** A `.toml` or `.json` file with a `criteria` list (relative to the working directory). */
      path: z.string({ error: "required: the rubric file (.toml or .json)" }),
      weights: z.record(z.string(), z.number().min(0, { error: "expected a finite weight ≥ 0" })).default({}),
      question_field: z.string().default(""),
      /** Task field with a reference solution to show the judge; empty = none. */
      answer_field: z.string().default(""),
      view: JudgeViewSchema.default("full_trace"),
      /** Criteria per judge call; null = all in one call. */
      max_criteria: z.int().min(1).nullable().default(null),
      structured_output: z.boolean().default(false),
    })
    // The rubric file is part of the config: read and checked with it, so a bad file is a config
    // error naming `path` (or `weights`) before anything runs; `create` reads it again to build.
    .superRefine((o, ctx) => {
      try {
        loadCriteria(o.path, o.weights);
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e);
        const weights = message.startsWith("weights: ");
        ctx.addIssue({
          code: "custom",
          message: weights ? message.slice("weights: ".length) : message,
          path: [weights ? "weights" : "path"],
        });
      }
    }),
);
export type RubricJudgeOptions = z.output<typeof RubricJudgeOptions>;

function parseStructured(text: string): unknown {
  if (text.trim() === "") throw new JudgeError("judge returned no structured output (empty content)");
  try {
    return JSON.parse(text);
  } catch {
    throw new JudgeError(`judge structured output is not JSON: ${JSON.stringify(text.slice(0, 300))}`);
  }
}

function parsePlain(text: string): unknown {
  const obj = firstVerdictsObject(text);
  if (obj === null)
    throw new JudgeError(`judge returned no verdicts JSON object: ${JSON.stringify(text.slice(0, 300))}`);
  return obj;
}

export default defineJudge({
  id: "rubric",
  description: "Grades the response on each rubric criterion; the weighted mean of rank scores.",
  configSchema: RubricJudgeOptions,
  prompt: RUBRIC_PROMPT,
  create(config) {
    const criteria = loadCriteria(config.path, config.weights);
    const k = config.max_criteria ?? criteria.length;
    const batches: Criterion[][] = [];
    for (let i = 0; i < criteria.length; i += k) batches.push(criteria.slice(i, i + k));
    const total = criteria.reduce((s, c) => s + c.weight, 0);

    const grade = async (ctx: JudgeContext, batch: Criterion[], signal: AbortSignal) => {
      const reference = config.answer_field
        ? referenceSection(judgeAnswer(ctx.task, config.answer_field, ctx.name))
        : "";
      const prompt = ctx.render({
        question: judgeQuestion(ctx.task, config.question_field, ctx.name),
        reference,
        response: judgeResponse(ctx.trace, config.view),
        criteria: batch.map(RUBRIC_CRITERION_LINE).join("\n"),
      });
      const structured = config.structured_output;
      const reply = await ctx.complete(structured ? prompt : prompt + RUBRIC_JSON_INSTRUCTION, {
        parse: (text) => scoreVerdicts(structured ? parseStructured(text) : parsePlain(text), batch),
        body: structured ? { response_format: VERDICTS_SCHEMA } : undefined,
        signal,
      });
      return reply.parsed;
    };

    return {
      async score(ctx) {
        // The first failing batch cancels its siblings: no more judge calls are spent on a lost cause.
        const cancel = new AbortController();
        const onOuter = () => cancel.abort(ctx.signal?.reason);
        ctx.signal?.addEventListener("abort", onOuter, { once: true });
        let first: unknown = null;
        let settled: PromiseSettledResult<Record<string, number>>[];
        try {
          settled = await Promise.allSettled(
            batches.map((b) =>
              grade(ctx, b, cancel.signal).catch((e) => {
                if (first === null) {
                  first = e;
                  cancel.abort(e);
                }
                throw e;
              }),
            ),
          );
        } finally {
          ctx.signal?.removeEventListener("abort", onOuter);
        }
        if (first !== null) throw first;
        const results = settled.map((r) => (r as PromiseFulfilledResult<Record<string, number>>).value);
        const byName: Record<string, number> = Object.assign({}, ...results);
        for (const c of criteria) ctx.recordMetric(`${ctx.name}/${c.name}`, byName[c.name]!);
        return criteria.reduce((s, c) => s + c.weight * byName[c.name]!, 0) / total;
      },
    };
  },
});
