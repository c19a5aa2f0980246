/**
 * The simulated user: opens the game (the task has no prompt), then answers each guess. Game
 * progress lives on `trace.state` (per rollout), where the task's stop conditions read it.
 */
import type { HandlerContext, UserSimulator } from "../../task.ts";
import type { Message } from "../../types.ts";
import type { GuessNumberData } from "./data.ts";
import { judge, openingText, readGuess, verdictText } from "./game.ts";

export interface GameState {
  guesses: number;
  solved: boolean;
}

export const STATE_KEY = "guess_number";

export function gameState(state: Record<string, unknown>): GameState {
  const s = state[STATE_KEY] as GameState | undefined;
  if (s) return s;
  const fresh: GameState = { guesses: 0, solved: false };
  state[STATE_KEY] = fresh;
  return fresh;
}

export function createUser(ctx: HandlerContext<GuessNumberData>): UserSimulator {
  const { secret, low, high, max_guesses } = ctx.task;
  return {
    respond(message: string): Message[] {
      const game = gameState(ctx.trace.state);
      if (message === "") return [{ role: "user", content: openingText(low, high, max_guesses) }];
      game.guesses++;
      const verdict = judge(readGuess(message), secret);
      if (verdict === "correct") game.solved = true;
      return [{ role: "user", content: verdictText(verdict, max_guesses - game.guesses, low, high) }];
    },
  };
}
