/**
 * A guess-the-number game: no prompt, so the simulated user opens; it answers each guess with
 * "higher"/"lower" and ends the game by setting state that the task's stop condition reads.
 * The policy bisects using only what the model would see.
 */
import { defineTaskset, type UserSimulator } from "../../../packages/core/src/task.ts";
import type { Message, TaskData } from "../../../packages/core/src/types.ts";
import { say } from "./scripted-client.ts";

interface GuessData extends TaskData {
  secret: number;
}

const taskset = defineTaskset<GuessData>({
  id: "guess-number",
  load: () => [
    {
      idx: 0,
      prompt: null,
      system_prompt: "Guess my number (1-100). Answer with a number only.",
      secret: 37,
    },
  ],
  user: ({ task, trace }): UserSimulator => ({
    respond(message) {
      if (message === "") return [{ role: "user", content: "I picked a number between 1 and 100." }];
      const guess = Number.parseInt(message, 10);
      if (guess === task.secret) {
        trace.state["solved"] = true;
        return [{ role: "user", content: "correct!" }];
      }
      return [{ role: "user", content: guess < task.secret ? "higher" : "lower" }];
    },
  }),
  stops: [{ name: "solved", fn: ({ trace }) => trace.state["solved"] === true }],
  rewards: [{ name: "won", fn: ({ trace }) => (trace.state["solved"] ? 1 : 0) }],
  metrics: [{ name: "guesses", fn: ({ trace }) => trace.numTurns }],
});

function policy(messages: readonly Message[]) {
  let lo = 1;
  let hi = 100;
  let last = 0;
  for (const m of messages) {
    if (m.role === "assistant") last = Number(m.content);
    if (m.role === "user" && m.content === "higher") lo = last + 1;
    if (m.role === "user" && m.content === "lower") hi = last - 1;
  }
  return say(String(Math.floor((lo + hi) / 2)));
}

export const bisectGame = { taskset, policy };
