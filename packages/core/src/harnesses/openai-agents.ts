/**
 * `openai-agents`: a real SDK agent as the harness — the TypeScript program in `@envroll/agents`
 * built on `@openai/agents`, talking chat completions to the interception server (so it trains
 * token-exactly through the TrainClient) and reaching every tool over MCP: the task's toolsets
 * and a `coding` toolset with V1's `bash` and `edit`, which run in the rollout's runtime. The
 * agent process itself is trusted code and runs on the host (it needs the network and its
 * packages, which the sandbox has neither of); the model's commands run where the runtime says.
 */
import { fileURLToPath } from "node:url";
import { HarnessError } from "../errors.ts";
import { SubprocessRuntime } from "../runtimes/subprocess.ts";
import { codingPrompt } from "./coding/prompt.ts";
import { codingIsolation, codingToolsets } from "./coding/toolset.ts";
import type { Harness } from "./harness.ts";
import { programEnv, runProgram } from "./program.ts";

const PROGRAM = "@envroll/agents/openai-agents";
const LOADER = "tsx";

/**
 * Where a specifier resolves from here, or the resolver's complaint. Awaited: inside the CLI's
 * bundle (CommonJS) import.meta.resolve goes through its loader's import() (scripts/bundle-cli.mjs).
 */
async function resolved(specifier: string): Promise<{ url: string } | { missing: string }> {
  try {
    return { url: await import.meta.resolve(specifier) };
  } catch (e) {
    return { missing: e instanceof Error ? e.message : String(e) };
  }
}

/** What the harness cannot find of the agent program and its TypeScript loader (null: both found). */
async function missingProgram(): Promise<string | null> {
  for (const [specifier, what] of [
    [PROGRAM, "the agent program"],
    [LOADER, "the TypeScript loader"],
  ] as const) {
    const r = await resolved(specifier);
    if ("missing" in r)
      return `"openai-agents" needs ${what} (${specifier}), which cannot be found: ${r.missing}. Install @envroll/agents beside envroll.`;
  }
  return null;
}

export async function agentProgramArgv(): Promise<string[]> {
  const program = await resolved(PROGRAM);
  const loader = await resolved(LOADER);
  // The validator checked both with the config; gone since is a failure of this rollout's program.
  if ("missing" in program || "missing" in loader)
    throw new HarnessError((await missingProgram()) ?? "agent program missing");
  return [process.execPath, "--import", loader.url, fileURLToPath(program.url)];
}

export const openaiAgentsHarness: Harness = {
  id: "openai-agents",
  supportsTools: true,
  supportsUserSim: false,
  // bash and edit reach the program over MCP as coding_bash and coding_edit.
  toolsets: codingToolsets,
  isolation: codingIsolation,
  requirements: missingProgram,
  async run(ctx) {
    const argv = await agentProgramArgv();
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
