/**
 * reverse-text's reference solution: the user text reversed by code point in
 * `<reversed_text>` tags. About 30% of replies get one to three character edits (swap or drop),
 * so a group of rollouts on one task sees a spread of LCS rewards rather than all-ones.
 */
import { type Rng, randInt } from "../../random.ts";
import type { ReferenceContext, ReferenceSolution } from "../../task.ts";

const NOISE_RATE = 0.3;

/** The reference for conversations opened by `system` (this taskset's system prompt). */
export function reverseTextReference(system: string) {
  return ({ messages, rng }: ReferenceContext): ReferenceSolution | null => {
    if (!messages.some((m) => m.role === "system" && m.content.includes(system))) return null;
    const user = messages.filter((m) => m.role === "user").at(-1);
    const chars = [...(user?.content ?? "")].reverse();
    if (chars.length > 1 && rng() < NOISE_RATE) addNoise(chars, rng);
    return `<reversed_text>\n${chars.join("")}\n</reversed_text>`;
  };
}

function addNoise(chars: string[], rng: Rng): void {
  const edits = 1 + randInt(rng, 3);
  for (let e = 0; e < edits && chars.length > 1; e++) {
    const i = randInt(rng, chars.length - 1);
    if (rng() < 0.5) [chars[i], chars[i + 1]] = [chars[i + 1]!, chars[i]!];
    else chars.splice(i, 1);
  }
}
