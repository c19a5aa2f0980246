/**
 * tool-math: recover the problem from its question, replay the plan against the tool results
 * already in the conversation, and call the next tool — or, when the plan is done, give the
 * final `<answer>`. A prompt that offers no tools (a template that writes none) gets the plan's
 * answer at once, as a model would compute it unaided. Seeded noise: sometimes a wrong final
 * answer, sometimes a guess without tools.
 */

import type { Rng } from "envroll/internal/random.ts";
import { SYSTEM } from "envroll/internal/tasksets/tool-math/index.ts";
import { parseQuestion, planFor } from "envroll/internal/tasksets/tool-math/problems.ts";
import type { ReferenceTurn } from "../../types.ts";
import { toolName } from "./tool-names.ts";
import { carries, paragraphTails, type ReferenceSolver, type SolverInput } from "./types.ts";

const say = (content: string): ReferenceTurn => ({ content, tool_calls: [] });

function answer(result: number, rng: Rng): ReferenceTurn {
  const given = rng() < 0.15 ? result * 1.1 + 1 : result;
  return say(`The result is <answer>${given.toFixed(2)}</answer>.`);
}

export const toolMathSolver: ReferenceSolver = {
  name: "tool-math",
  matches: (input) => carries(input, SYSTEM),
  solve({ messages, tools }: SolverInput, rng: Rng) {
    // The question is the last user message that states a problem.
    const question = (content: string) =>
      paragraphTails(content)
        .map(parseQuestion)
        .find((q) => q) ?? null;
    const qi = messages.findLastIndex((m) => m.role === "user" && question(m.content) !== null);
    const problem = qi >= 0 ? question(messages[qi]!.content) : null;
    if (!problem) return say("<answer>0</answer>");
    const results = messages
      .slice(qi + 1)
      .filter((m) => m.role === "tool")
      .map((m) => Number(m.content.trim()));
    if (results.length === 0 && rng() < 0.1) return say("That is roughly <answer>100</answer>.");
    const next = problem.template.step(problem.params, results);
    if (!next) return answer(results.at(-1) ?? 0, rng);
    // Bare under the `tools` harness, `math_calculate` under `default`, whatever the prompt offers.
    const name = toolName(tools, next.name);
    if (name === null) return answer(planFor(problem.template, problem.params).answer, rng);
    return { content: `Step ${results.length + 1}.`, tool_calls: [{ name, arguments: next.arguments }] };
  },
};
