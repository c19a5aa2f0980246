/**
 * `default`: Verifiers V1's coding agent. The model gets `bash` and `edit` — run in the rollout's
 * runtime, so in the bubblewrap sandbox when `harness.runtime.type = "sandbox"` — plus every
 * tool of the task's toolsets as `<server>_<tool>`. The loop is in-process (no HTTP hop per
 * turn); the task's toolsets are the same ones external programs reach over MCP.
 *
 * The default runtime ("auto") is the sandbox where bubblewrap runs. On the subprocess runtime
 * `bash` is a shell on the host, as in V1 (which warns likewise).
 */
import { warnUnisolated } from "../../runtimes/auto.ts";
import { chatLoop } from "../chat-loop.ts";
import type { Harness } from "../harness.ts";
import { codingPrompt } from "./prompt.ts";
import { codingToolkit } from "./toolkit.ts";
import { codingIsolation, codingToolsets } from "./toolset.ts";

export const codingHarness: Harness = {
  id: "default",
  supportsTools: true,
  supportsUserSim: true,
  toolsets: codingToolsets,
  isolation: codingIsolation,
  async run(ctx) {
    if (ctx.runtime.kind === "subprocess" && codingIsolation(ctx.config) === "sandbox")
      warnUnisolated(
        "default",
        'harness "default" runs the model\'s bash commands on the subprocess runtime, i.e. on this host; use harness.runtime.type = "sandbox" to contain them',
      );
    const edit = !ctx.config.disabled_tools?.includes("edit");
    await chatLoop({ ...ctx, prompt: codingPrompt(ctx.prompt, edit) }, await codingToolkit(ctx));
  },
};
