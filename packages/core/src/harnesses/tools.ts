/**
 * `tools`: the chat loop with the task's own tools under their own names and nothing else — no
 * shell, no MCP names. Model-written code runs only through tools the task declares, so what a
 * model can do on the host is decided by the taskset. (`default` is V1's coding agent.)
 */
import { bareToolkit, chatLoop } from "./chat-loop.ts";
import type { Harness } from "./harness.ts";

export const toolsHarness: Harness = {
  id: "tools",
  supportsTools: true,
  supportsUserSim: true,
  run: (ctx) => chatLoop(ctx, bareToolkit(ctx, ctx.tools)),
};
