/**
 * `reference`: answers built-in tasksets' tasks (correctly, or with seeded noise) through the
 * solver registry, and built-in judge prompts as the `judge` policy does (so one engine serves
 * a judged eval offline); any other prompt gets the echo reply.
 */
import type { PolicyFn } from "../types.ts";
import { echoReply } from "./echo.ts";
import { judgeReply } from "./judge.ts";
import { findSolver } from "./reference/index.ts";

export const referencePolicy: PolicyFn = (ctx) => {
  const text = ctx.promptText;
  const verdict = judgeReply(text);
  if (verdict !== null) return verdict;
  const solver = findSolver(text);
  return solver ? solver.solve(text, ctx.rng) : echoReply(ctx);
};
