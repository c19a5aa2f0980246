/**
 * reverse-text — verifiers 0.2.0 `reverse-text-v1`: reverse a text character by character.
 * One model turn (`single_turn` refuses a second), reward = difflib ratio of the tagged answer
 * against `prompt[::-1]`. The hub dataset is unreachable offline, so a seeded dataset ships in
 * data/reverse-text/ (`split = "train" | "test"`), or `dataset_path` points at a user JSONL.
 */
import { z } from "zod";
import { defineTaskset } from "../../task.ts";
import { reverseCodePoints } from "../../text/python-str.ts";
import { TaskDataSchema } from "../../types.ts";
import { builtinDatasetPath, readPrompts } from "./dataset.ts";
import { reverseTextReference } from "./reference.ts";
import { lcsReward } from "./reward.ts";

export const SYSTEM = "Reverse the text character-by-character. Put your answer in <reversed_text> tags.";

export const ReverseTextConfigSchema = z.strictObject({
  id: z.string().optional(),
  task: z.unknown().optional(),
  split: z.enum(["train", "test"]).default("train"),
  /** A JSONL file of `{"prompt": …}` rows, used instead of the shipped split. */
  dataset_path: z.string().nullable().default(null),
});
export type ReverseTextConfig = z.infer<typeof ReverseTextConfigSchema>;

/** A task row; `answer` is derived from the prompt when a row (e.g. an `envroll score` line) omits it. */
export const ReverseTextDataSchema = TaskDataSchema.extend({
  idx: z.number().int().default(0),
  prompt: z.string(),
  system_prompt: z.string().default(SYSTEM),
  answer: z.string().optional(),
}).transform((d) => ({ ...d, answer: d.answer ?? reverseCodePoints(d.prompt) }));
export type ReverseTextData = z.output<typeof ReverseTextDataSchema>;

export function makeTask(idx: number, prompt: string): ReverseTextData {
  return { idx, prompt, system_prompt: SYSTEM, answer: reverseCodePoints(prompt) };
}

export default defineTaskset<ReverseTextData, ReverseTextConfig>({
  id: "reverse-text",
  description: "Reverse a text character by character; reward = difflib ratio against the reversal.",
  configSchema: ReverseTextConfigSchema,
  dataSchema: ReverseTextDataSchema,
  // The answer is as long as the prompt (up to 480 code points; CJK and emoji cost several
  // tokens each), so SGLang's default of 128 new tokens would cut most long answers before the
  // closing tag and score them 0. A config's own sampling.max_tokens still wins.
  defaults: { harness: { id: "null" }, sampling: { max_tokens: 1024 } },
  async load(config, hint) {
    const { split, dataset_path } = ReverseTextConfigSchema.parse(config ?? {});
    const prompts = await readPrompts(dataset_path ?? builtinDatasetPath(split), hint?.limit ?? null);
    return prompts.map((p, i) => makeTask(i, p));
  },
  rewards: [{ name: "lcs", weight: 1.0, fn: ({ task, trace }) => lcsReward(trace.lastReply, task.answer) }],
  stops: [{ name: "single_turn", fn: ({ trace }) => trace.numTurns >= 1 }],
  reference: reverseTextReference(SYSTEM),
});
