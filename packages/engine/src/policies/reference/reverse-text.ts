/**
 * reverse-text: reverse the user text by code point and wrap it in `<reversed_text>` tags.
 * About 30% of replies get one to three character edits (swap or drop), so a group of
 * rollouts on one task sees a spread of LCS rewards rather than all-ones.
 */
import { type Rng, randInt } from "envroll/internal/random.ts";
import { parseChatPrompt } from "../chat-prompt.ts";
import type { ReferenceSolver } from "./types.ts";

const SYSTEM = "Reverse the text character-by-character. Put your answer in <reversed_text> tags.";
const NOISE_RATE = 0.3;

export const reverseTextSolver: ReferenceSolver = {
  name: "reverse-text",
  matches: (promptText) => promptText.includes(SYSTEM),
  solve(promptText, rng) {
    const user = parseChatPrompt(promptText)
      .filter((m) => m.role === "user")
      .at(-1);
    const chars = [...(user?.content ?? "")].reverse();
    if (chars.length > 1 && rng() < NOISE_RATE) addNoise(chars, rng);
    return `<reversed_text>\n${chars.join("")}\n</reversed_text>`;
  },
};

function addNoise(chars: string[], rng: Rng): void {
  const edits = 1 + randInt(rng, 3);
  for (let e = 0; e < edits && chars.length > 1; e++) {
    const i = randInt(rng, chars.length - 1);
    if (rng() < 0.5) [chars[i], chars[i + 1]] = [chars[i + 1], chars[i]];
    else chars.splice(i, 1);
  }
}
