/**
 * tool-math: recover the problem from its question, replay the plan against the tool results
 * already in the prompt, and emit the next `<tool_call>` — or, when the plan is done, the final
 * `<answer>`. Seeded noise: sometimes a wrong final answer, sometimes a guess without tools.
 */

import type { Rng } from "envroll/internal/random.ts";
import { SYSTEM } from "envroll/internal/tasksets/tool-math/index.ts";
import { parseQuestion } from "envroll/internal/tasksets/tool-math/problems.ts";
import { parseChatPrompt } from "../chat-prompt.ts";
import { offeredTools, toolName } from "./tool-names.ts";
import type { ReferenceSolver } from "./types.ts";

const TOOL_RESPONSE = /<tool_response>\n?([\s\S]*?)\n?<\/tool_response>/g;

export const toolMathSolver: ReferenceSolver = {
  name: "tool-math",
  matches: (promptText) => promptText.includes(SYSTEM),
  solve(promptText, rng: Rng) {
    const turns = parseChatPrompt(promptText);
    // The question is the last user turn that is not a batch of tool responses.
    const qi = turns.findLastIndex(
      (t) => t.role === "user" && !t.content.trimStart().startsWith("<tool_response>"),
    );
    const problem = qi >= 0 ? parseQuestion(turns[qi]!.content) : null;
    if (!problem) return "<answer>0</answer>";
    const results = turns
      .slice(qi + 1)
      .filter((t) => t.role === "user")
      .flatMap((t) => [...t.content.matchAll(TOOL_RESPONSE)].map((m) => Number(m[1]!.trim())));
    if (results.length === 0 && rng() < 0.1) return "That is roughly <answer>100</answer>.";
    const next = problem.template.step(problem.params, results);
    if (next) {
      // Bare under the `tools` harness, `math_calculate` under `default`, whatever the prompt offers.
      const name = toolName(offeredTools(promptText), next.name) ?? next.name;
      return `Step ${results.length + 1}.\n<tool_call>\n${JSON.stringify({ name, arguments: next.arguments })}\n</tool_call>`;
    }
    const answer = results.at(-1) ?? 0;
    const given = rng() < 0.15 ? answer * 1.1 + 1 : answer;
    return `The result is <answer>${given.toFixed(2)}</answer>.`;
  },
};
