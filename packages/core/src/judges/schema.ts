/**
 * The judge keys: the common ones are the config schema's (config/schema.ts, where the validated
 * `EnvConfig` types its judges), re-exported here for the judges; the view a judge grades.
 */
import { z } from "zod";
import { lazySchema } from "../lazy-schema.ts";

export {
  COMMON_JUDGE_KEYS,
  DEFAULT_JUDGE_MODEL,
  JudgeCommonSchema,
  type JudgeConfig,
} from "../config/schema.ts";

export const JudgeViewSchema = lazySchema(() => z.enum(["last_reply", "full_trace"]));
export type JudgeView = z.output<typeof JudgeViewSchema>;
