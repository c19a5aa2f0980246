/** `null`: a plain chat loop that offers no tools (a stray tool call gets an error tool message). */
import { bareToolkit, chatLoop } from "./chat-loop.ts";
import type { Harness } from "./harness.ts";

export const nullHarness: Harness = {
  id: "null",
  supportsTools: false,
  supportsUserSim: true,
  run: (ctx) => chatLoop(ctx, bareToolkit(ctx, [])),
};
