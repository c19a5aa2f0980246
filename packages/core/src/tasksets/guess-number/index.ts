/**
 * guess-number — a user-simulator task. The task has no prompt: the simulated user opens with
 * the rules, then answers each guess "higher", "lower" or "correct". Stops: `guessed` (set by
 * the simulator on trace.state) and `out_of_guesses`. Reward `solved` = 1 − (guesses − 1) /
 * max_guesses when found, else 0 — computed from the transcript, so offline re-scoring agrees
 * with the live game. Secrets are seeded per task (`seed`, `size`, `low`, `high`).
 */
import { defineTaskset, type TraceView } from "../../task.ts";
import { contentText } from "../../types.ts";
import {
  type GuessNumberConfig,
  GuessNumberConfigSchema,
  type GuessNumberData,
  GuessNumberDataSchema,
  secretFor,
} from "./data.ts";
import { solvedAt } from "./game.ts";
import { guessNumberReference } from "./reference.ts";
import { createUser, gameState } from "./user.ts";

function replies(trace: TraceView): string[] {
  return trace.messages.filter((m) => m.role === "assistant").map((m) => contentText(m.content));
}

export default defineTaskset<GuessNumberData, GuessNumberConfig>({
  id: "guess-number",
  description: "Find the simulated user's number from higher/lower hints in as few guesses as possible.",
  configSchema: GuessNumberConfigSchema,
  dataSchema: GuessNumberDataSchema,
  defaults: { harness: { id: "null" } },
  load(config) {
    const { size, seed, low, high, max_guesses } = GuessNumberConfigSchema.parse(config ?? {});
    return Array.from({ length: size }, (_, idx) => ({
      idx,
      prompt: null,
      secret: secretFor(seed, idx, low, high),
      low,
      high,
      max_guesses,
    }));
  },
  user: createUser,
  reference: guessNumberReference,
  stops: [
    { name: "guessed", priority: 1, fn: ({ trace }) => gameState(trace.state).solved },
    { name: "out_of_guesses", fn: ({ task, trace }) => trace.numTurns >= task.max_guesses },
  ],
  metrics: [
    { name: "guesses", fn: ({ trace }) => trace.numTurns },
    {
      name: "solved",
      fn: ({ task, trace }) => (solvedAt(replies(trace), task.secret, task.max_guesses) === null ? 0 : 1),
    },
  ],
  rewards: [
    {
      name: "win",
      weight: 1.0,
      fn: ({ task, trace }) => {
        const at = solvedAt(replies(trace), task.secret, task.max_guesses);
        return at === null ? 0 : 1 - (at - 1) / task.max_guesses;
      },
    },
  ],
});

export type { GuessNumberConfig, GuessNumberData } from "./data.ts";
export { GuessNumberConfigSchema, GuessNumberDataSchema, secretFor } from "./data.ts";
