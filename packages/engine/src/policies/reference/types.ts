/**
 * The solver contract of the `reference` policy: one file per built-in taskset.
 */
import type { Rng } from "envroll/internal/random.ts";

export interface ReferenceSolver {
  /** Taskset name, for logs and stats. */
  name: string;
  /** True when the prompt (Qwen3 chat text, special tokens kept) is one of this taskset's tasks. */
  matches(promptText: string): boolean;
  /** The assistant reply: correct, or with seeded noise so that rewards vary across a group. */
  solve(promptText: string, rng: Rng): string;
}
