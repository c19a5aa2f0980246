/**
 * `reference`: built-in judge prompts get the `judge` policy's verdict (so one engine serves a
 * judged eval offline); everything else gets the answers of a reference source (tasksets'
 * reference solutions, handed in by whoever starts the engine) in Qwen3's chat format; a
 * conversation the source has no answer for gets the echo reply. The engine knows no taskset.
 */
import type { PolicyFn, ReferenceSource, ReferenceTurn } from "../types.ts";
import { chatMessages } from "./chat-prompt.ts";
import { echoReply } from "./echo.ts";
import { judgeReply } from "./judge.ts";
import { findSolver } from "./reference/index.ts";

/** The reply text: content, then each call as a Hermes-style `<tool_call>` block. */
export function formatReferenceTurn(turn: ReferenceTurn): string {
  const calls = turn.tool_calls.map(
    (c) => `<tool_call>\n${JSON.stringify({ name: c.name, arguments: c.arguments })}\n</tool_call>`,
  );
  return [turn.content, ...calls].filter((part) => part !== "").join("\n");
}

export function referencePolicy(source: ReferenceSource | undefined): PolicyFn {
  return (ctx) => {
    const verdict = judgeReply(ctx.promptText);
    if (verdict !== null) return verdict;
    const turn = source?.(chatMessages(ctx.promptText), ctx.rng);
    if (turn) return formatReferenceTurn(turn);
    const solver = findSolver(ctx.promptText);
    return solver ? solver.solve(ctx.promptText, ctx.rng) : echoReply(ctx);
  };
}
