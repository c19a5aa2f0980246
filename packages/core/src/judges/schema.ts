/**
 * The keys every plugged judge has (Verifiers V1 `JudgeConfig`, which extends the client config):
 * which judge, its reward key and weight, the judge model and its sampling, the prompt template,
 * and the OpenAI-compatible endpoint. A judge's own keys (`answer_field`, `path`, …) are checked
 * by its definition's `configSchema`.
 */
import { z } from "zod";
import { DEFAULT_BASE_URL, headers, httpUrl, SamplingSchema } from "../config/schema.ts";

export const DEFAULT_JUDGE_MODEL = "openai/gpt-5.4-nano";

const idMessage = 'required: a judge id ("reference", "rubric" or a path to a judge module)';

export const judgeCommonShape = {
  id: z.string({ error: idMessage }).min(1, { error: idMessage }),
  name: z.string().default(""),
  weight: z.number({ error: "expected a finite number" }).default(1),
  model: z.string().min(1, { error: "expected a non-empty model name" }).default(DEFAULT_JUDGE_MODEL),
  sampling: SamplingSchema.default({}),
  /** An inline template. */
  prompt: z.string().nullable().default(null),
  /** A template file (mutually exclusive with `prompt`). */
  prompt_file: z.string().nullable().default(null),
  base_url: httpUrl.default(DEFAULT_BASE_URL),
  api_key_var: z.string().nullable().default("PRIME_API_KEY"),
  headers: headers.default({}),
};

export const COMMON_JUDGE_KEYS: readonly string[] = Object.keys(judgeCommonShape);

export const JudgeCommonSchema = z
  .strictObject(judgeCommonShape)
  .refine((j) => j.prompt === null || j.prompt_file === null, {
    error: "give prompt or prompt_file, not both",
    path: ["prompt_file"],
  });

/** A resolved judge entry: the common keys plus the judge's own (already validated) keys. */
export type JudgeConfig = z.output<typeof JudgeCommonSchema> & Record<string, unknown>;

export const JudgeViewSchema = z.enum(["last_reply", "full_trace"]);
export type JudgeView = z.output<typeof JudgeViewSchema>;
