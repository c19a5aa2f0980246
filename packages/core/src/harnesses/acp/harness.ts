/**
 * `acp`: any Agent Client Protocol agent as the harness (`[harness.acp] command = [...]`,
 * optionally `packages` installed into the shared agent cache), and the presets `codex` and
 * `claude_code` (V1's ids), which pin the agent and adapter versions and configure them.
 * `[harness.acp]` keys override a preset's defaults.
 */
import type { AcpConfig } from "../../config/acp-schema.ts";
import type { Harness } from "../harness.ts";
import type { AcpPlan } from "./run.ts";

function acpHarness(id: string, plan: (config: AcpConfig) => Promise<AcpPlan>): Harness {
  return {
    id,
    supportsTools: true,
    // The user simulator's replies are further prompts in the rollout's one ACP session.
    supportsUserSim: true,
    drivesUserTurns: true,
    // The agent gives the model a shell: by default it runs in the sandbox with the network shared
    // (it must reach the interception server), its install shown read-only (install.ts mirrors it).
    isolation: () => "program",
    async run(ctx) {
      const { runAcp } = await import("./run.ts");
      await runAcp(ctx, await plan(ctx.config.acp ?? {}));
    },
  };
}

export const genericAcpHarness = acpHarness("acp", async (acp) => ({ acp }));

export const codexHarness = acpHarness("codex", async (acp) => (await import("./codex.ts")).codexPlan(acp));

export const claudeCodeHarness = acpHarness("claude_code", async (acp) =>
  (await import("./claude-code.ts")).claudeCodePlan(acp),
);
