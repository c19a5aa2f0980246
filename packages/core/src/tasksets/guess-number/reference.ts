/**
 * guess-number's reference solution: binary search over the simulated user's "higher"/"lower"
 * replies, replayed from the conversation so far; with seeded noise a guess is drawn anywhere in
 * the remaining range instead of the midpoint, so games differ in length and reward.
 */
import type { ReferenceContext, ReferenceSolution } from "../../task.ts";
import { readGuess } from "./game.ts";

const OPENING = /I'm thinking of a whole number between (-?\d+) and (-?\d+)/;
const NOISE_RATE = 0.2;

export function guessNumberReference({ messages, rng }: ReferenceContext): ReferenceSolution | null {
  const open = messages.map((m) => (m.role === "user" ? OPENING.exec(m.content) : null)).find(Boolean);
  if (!open) return null;
  let lo = Number(open[1]);
  let hi = Number(open[2]);
  let last: number | null = null;
  for (const m of messages) {
    if (m.role === "assistant") last = readGuess(m.content);
    else if (m.role === "user" && last !== null) {
      if (/^\s*Higher/.test(m.content)) lo = Math.max(lo, last + 1);
      else if (/^\s*Lower/.test(m.content)) hi = Math.min(hi, last - 1);
    }
  }
  if (hi < lo) hi = lo;
  const guess = rng() < NOISE_RATE ? lo + Math.floor(rng() * (hi - lo + 1)) : Math.floor((lo + hi) / 2);
  return `<guess>${guess}</guess>`;
}
