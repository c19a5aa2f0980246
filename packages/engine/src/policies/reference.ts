/**
 * `reference`: answers built-in tasksets' tasks (correctly, or with seeded noise) through the
 * solver registry; any other prompt gets the echo reply.
 */
import type { PolicyFn } from "../types.ts";
import { echoReply } from "./echo.ts";
import { findSolver } from "./reference/index.ts";

export const referencePolicy: PolicyFn = (ctx) => {
  const text = ctx.promptText;
  const solver = findSolver(text);
  return solver ? solver.solve(text, ctx.rng) : echoReply(ctx);
};
