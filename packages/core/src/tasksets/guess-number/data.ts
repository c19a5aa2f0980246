/** guess-number's config keys and task rows. */
import { z } from "zod";
import { TaskDataSchema } from "../../types.ts";

export const GuessNumberConfigSchema = z
  .strictObject({
    id: z.string().optional(),
    task: z.unknown().optional(),
    size: z.number().int().positive().default(200),
    seed: z.number().int().default(0),
    low: z.number().int().default(1),
    high: z.number().int().default(100),
    /** 7 suffices for 1–100 with binary search. */
    max_guesses: z.number().int().positive().default(7),
  })
  // A rule of the config, so the validator reports it (naming taskset.high) before anything loads.
  .refine((c) => c.high > c.low, { error: "must be greater than taskset.low", path: ["high"] });
export type GuessNumberConfig = z.infer<typeof GuessNumberConfigSchema>;

export const GuessNumberDataSchema = TaskDataSchema.extend({
  idx: z.number().int().default(0),
  prompt: z.null().default(null),
  secret: z.number().int(),
  low: z.number().int().default(1),
  high: z.number().int().default(100),
  max_guesses: z.number().int().positive().default(7),
});
export type GuessNumberData = z.output<typeof GuessNumberDataSchema>;

/** A per-task secret that does not depend on the order tasks are loaded in. */
export function secretFor(seed: number, idx: number, low: number, high: number): number {
  let h = (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(idx + 1, 0xc2b2ae35)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d) >>> 0;
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b) >>> 0;
  return low + (((h ^ (h >>> 16)) >>> 0) % (high - low + 1));
}
