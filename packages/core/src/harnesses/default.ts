/**
 * `default`: the chat loop with the task's tools. Unlike Verifiers' coding agent it adds no
 * bash/edit tools of its own: model-written code runs only through tools the task declares, so
 * what a model can do on the host is decided by the taskset, not by the harness.
 */
import { chatLoop } from "./chat-loop.ts";
import type { Harness } from "./harness.ts";

export const defaultHarness: Harness = {
  id: "default",
  supportsTools: true,
  supportsUserSim: true,
  run: (ctx) => chatLoop(ctx, ctx.tools),
};
