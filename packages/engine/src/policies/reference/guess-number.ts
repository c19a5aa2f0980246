/**
 * guess-number: binary search over the simulated user's "higher"/"lower" replies, replayed from
 * the conversation so far; with seeded noise a guess is drawn anywhere in the remaining range
 * instead of the midpoint, so games differ in length and reward.
 */

import type { Rng } from "envroll/internal/random.ts";
import { readGuess } from "envroll/internal/tasksets/guess-number/game.ts";
import { parseChatPrompt } from "../chat-prompt.ts";
import type { ReferenceSolver } from "./types.ts";

const OPENING = /I'm thinking of a whole number between (-?\d+) and (-?\d+)/;
const NOISE_RATE = 0.2;

export const guessNumberSolver: ReferenceSolver = {
  name: "guess-number",
  matches: (promptText) => OPENING.test(promptText),
  solve(promptText, rng: Rng) {
    const turns = parseChatPrompt(promptText);
    const open = OPENING.exec(promptText)!;
    let lo = Number(open[1]);
    let hi = Number(open[2]);
    let last: number | null = null;
    for (const t of turns) {
      if (t.role === "assistant") last = readGuess(t.content);
      else if (t.role === "user" && last !== null) {
        if (/^\s*Higher/.test(t.content)) lo = Math.max(lo, last + 1);
        else if (/^\s*Lower/.test(t.content)) hi = Math.min(hi, last - 1);
      }
    }
    if (hi < lo) hi = lo;
    const guess = rng() < NOISE_RATE ? lo + Math.floor(rng() * (hi - lo + 1)) : Math.floor((lo + hi) / 2);
    return `<guess>${guess}</guess>`;
  },
};
