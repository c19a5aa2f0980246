/**
 * The `claude_code` preset: Claude Code through `@agentclientprotocol/claude-agent-acp` (whose
 * Agent SDK dependency carries the `claude` binary). As V1 configures it: the interception
 * endpoint as `ANTHROPIC_BASE_URL`, the configured model as `ANTHROPIC_MODEL`, a per-rollout
 * `CLAUDE_CONFIG_DIR`, no non-essential traffic or auto-update, `IS_SANDBOX=1` (Claude Code
 * refuses to skip permissions as root otherwise), strict MCP config (only the rollout's
 * servers), and the system prompt appended to Claude Code's own.
 */
import type { AcpConfig } from "../../config/acp-schema.ts";
import type { AcpPlan } from "./run.ts";

export const CLAUDE_CODE_PACKAGES = ["@agentclientprotocol/claude-agent-acp@0.67.0"];

export function claudeCodePlan(acp: AcpConfig): AcpPlan {
  const config: AcpConfig = { command: ["claude-agent-acp"], packages: CLAUDE_CODE_PACKAGES, ...acp };
  return {
    acp: config,
    async setup(ctx, ep, system, state) {
      const dir = await state.make("claude");
      return {
        env: {
          ANTHROPIC_BASE_URL: ep.baseUrl.replace(/\/v1$/, ""),
          ANTHROPIC_API_KEY: ep.secret,
          ANTHROPIC_MODEL: ctx.session.model,
          CLAUDE_CONFIG_DIR: dir,
          // Claude Code also writes its install state and per-project history under HOME.
          HOME: dir,
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
          DISABLE_AUTOUPDATER: "1",
          DISABLE_TELEMETRY: "1",
          IS_SANDBOX: "1",
        },
        systemInMeta: true,
        sessionMeta: {
          claudeCode: {
            options: { strictMcpConfig: true, disallowedTools: ctx.config.disabled_tools ?? [] },
          },
          ...(system ? { systemPrompt: { append: system } } : {}),
        },
      };
    },
  };
}
