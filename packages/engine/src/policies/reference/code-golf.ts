/**
 * code-golf: find the problem by its description and answer with its reference program — or,
 * under seeded noise, a longer correct one, a wrong one, a crashing one, or prose without a
 * code block — so a group's correct/most_concise/fastest rewards actually differ.
 */

import type { Rng } from "envroll/internal/random.ts";
import { SYSTEM } from "envroll/internal/tasksets/code-golf/index.ts";
import { ALL_SPECS, type GolfSpec } from "envroll/internal/tasksets/code-golf/specs.ts";
import { parseChatPrompt } from "../chat-prompt.ts";
import type { ReferenceSolver } from "./types.ts";

const fence = (program: string) => `\`\`\`python\n${program}\n\`\`\``;

/** A Python string literal for `s` (JSON escapes are valid Python for the ASCII outputs here). */
const pyLiteral = (s: string) => JSON.stringify(s);

function findSpec(promptText: string): GolfSpec | null {
  const user = parseChatPrompt(promptText)
    .filter((m) => m.role === "user")
    .at(-1);
  const m = /\n\nPrint ([\s\S]*)\.\s*$/.exec(user?.content ?? "");
  return m ? (ALL_SPECS.find((s) => s.description === m[1]) ?? null) : null;
}

export const codeGolfSolver: ReferenceSolver = {
  name: "code-golf",
  matches: (promptText) => promptText.includes(SYSTEM),
  solve(promptText, rng: Rng) {
    const spec = findSpec(promptText);
    if (!spec) return fence("print()");
    const u = rng();
    if (u < 0.55) return fence(spec.solution);
    if (u < 0.7)
      return `Here is a straightforward version:\n${fence(`result = ${pyLiteral(spec.expected)}\nprint(result)`)}`;
    if (u < 0.85) return fence(`print(${pyLiteral(`${spec.expected}?`)})`);
    if (u < 0.95) return fence(`${spec.solution}\nraise SystemExit(1)`);
    return "I am not sure how to solve this one.";
  },
};
