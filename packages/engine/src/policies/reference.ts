/**
 * `reference`: built-in judge prompts get the `judge` policy's verdict (so one engine serves a
 * judged eval offline); everything else gets the answers of a reference source (tasksets'
 * reference solutions, handed in by whoever starts the engine), written in the served model's
 * chat format; a conversation the source has no answer for gets the echo reply. The engine
 * knows no taskset. The solvers still in the engine read the conversation as the served family's
 * format reads it back (messages, tool calls, offered tools), so they answer every family's prompts.
 */
import type { PolicyFn, ReferenceSource } from "../types.ts";
import { echoReply } from "./echo.ts";
import { judgeReply } from "./judge.ts";
import { findSolver } from "./reference/index.ts";

export { formatReferenceTurn } from "../formats/index.ts";

export function referencePolicy(source: ReferenceSource | undefined): PolicyFn {
  return (ctx) => {
    const verdict = judgeReply(ctx.promptText, ctx.messages);
    if (verdict !== null) return verdict;
    const turn = source?.(ctx.messages, ctx.rng);
    if (turn) return { turn };
    const solver = ctx.family === null ? null : findSolver(ctx);
    return solver ? { turn: solver.solve(ctx, ctx.rng) } : echoReply(ctx);
  };
}
