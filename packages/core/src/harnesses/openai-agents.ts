/**
 * `openai-agents`: a real SDK agent as the harness — the TypeScript program in `@envroll/agents`
 * built on `@openai/agents`, talking chat completions to the interception server (so it trains
 * token-exactly through the TrainClient) and reaching every tool over MCP: the task's toolsets
 * and a `coding` toolset with V1's `bash` and `edit`, which run in the rollout's runtime. The
 * agent process itself is trusted code and runs on the host (it needs the network and its
 * packages, which the sandbox has neither of); the model's commands run where the runtime says.
 */
import { fileURLToPath } from "node:url";
import { ConfigError } from "../errors.ts";
import { SubprocessRuntime } from "../runtimes/subprocess.ts";
import { codingPrompt } from "./coding/prompt.ts";
import { codingIsolation, codingToolsets } from "./coding/toolset.ts";
import type { Harness } from "./harness.ts";
import { programEnv, runProgram } from "./program.ts";

function resolveUrl(specifier: string, what: string): string {
  try {
    return import.meta.resolve(specifier);
  } catch (e) {
    throw new ConfigError(
      `harness.id: "openai-agents" needs ${what} (${specifier}), which cannot be found: ${e instanceof Error ? e.message : String(e)}. Install @envroll/agents beside envroll.`,
      { path: "harness.id" },
    );
  }
}

export function agentProgramArgv(): string[] {
  const program = fileURLToPath(resolveUrl("@envroll/agents/openai-agents", "the agent program"));
  const loader = resolveUrl("tsx", "the TypeScript loader");
  return [process.execPath, "--import", loader, program];
}

export const openaiAgentsHarness: Harness = {
  id: "openai-agents",
  supportsTools: true,
  supportsUserSim: false,
  // bash and edit reach the program over MCP as coding_bash and coding_edit.
  toolsets: codingToolsets,
  isolation: codingIsolation,
  async run(ctx) {
    const argv = agentProgramArgv();
    const edit = !ctx.config.disabled_tools?.includes("edit");
    const env = await programEnv(ctx, codingPrompt(ctx.prompt, edit));
    const host = new SubprocessRuntime({ forwardEnv: ctx.config.forward_env });
    await host.start();
    try {
      await runProgram(ctx, host, argv, env);
    } finally {
      await host.stop();
    }
  },
};
