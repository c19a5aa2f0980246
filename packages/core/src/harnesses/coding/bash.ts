/**
 * V1's `bash` tool: `bash -c <command>` in the rollout's runtime (so inside the sandbox when the
 * runtime is one), in its working directory, with a one-hour wall clock. The result is stdout
 * followed by stderr; the exit status is not reported. A timeout or a runtime failure is
 * `error: …`. V1 truncates nothing; the runtime's per-stream output cap still applies here, and
 * a cut stream says so.
 */
import { z } from "zod";
import { ToolFailure } from "../../interception/tools.ts";
import type { ToolDefinition } from "../../task.ts";
import type { TaskData } from "../../types.ts";
import { jsonSchema } from "./schema.ts";

export const BASH_TIMEOUT_MS = 3_600_000;

const BashArgs = z.object({ command: z.string().describe("The bash command to run.") });

export const bashTool: ToolDefinition<TaskData> = {
  name: "bash",
  description: "Run a bash command and return its combined stdout and stderr.",
  parameters: jsonSchema(BashArgs),
  async execute(args: { command?: unknown }, ctx) {
    const runtime = ctx.runtime;
    if (!runtime) throw new ToolFailure("error: bash needs the rollout's runtime");
    // V1 runs a missing command as "" (bash -c "" succeeds with no output).
    const command = args.command ?? "";
    if (typeof command !== "string") throw new ToolFailure("error: 'command' must be a string");
    let r: Awaited<ReturnType<typeof runtime.run>>;
    try {
      r = await runtime.run(["bash", "-c", command], { timeoutMs: BASH_TIMEOUT_MS, signal: ctx.signal });
    } catch (e) {
      throw new ToolFailure(`error: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (r.timedOut) throw new ToolFailure(`error: command timed out after ${BASH_TIMEOUT_MS / 1000} seconds`);
    const cut = r.outputTruncated ? "\n[output cut at the runtime's output limit]" : "";
    return r.stdout + r.stderr + cut;
  },
};
