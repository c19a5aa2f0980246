/**
 * `command`: any external program (`harness.command = ["python3", "agent.py"]`) run in the
 * rollout's runtime and pointed at the interception server. Its environment:
 *
 * - `OPENAI_BASE_URL` — the interception endpoint, ending in `/v1`;
 * - `OPENAI_API_KEY` — this rollout's secret (the bearer token for every route);
 * - `ANTHROPIC_BASE_URL` / `ANTHROPIC_API_KEY` — the same server and secret the way the
 *   Anthropic SDKs read them (the base URL without `/v1`; the key goes in `x-api-key`);
 * - `ENVROLL_PROMPT` — JSON array of the opening messages in OpenAI form (the system prompt
 *   only, or `[]`, when the user simulator opens: the server injects its opening);
 * - `ENVROLL_TOOLS` — JSON array of the task's tools as `{type: "function", function: {…}}`;
 * - `ENVROLL_MODEL` — the configured model name;
 * - `ENVROLL_MCP_CONFIG` (and `RLM_MCP_CONFIG`, V1's name for it) — the rollout's toolsets as
 *   `{"mcpServers": {"<server>": {"url": "…/mcp/<server>", "headers": {"Authorization": …}}}}`;
 *   a program names their tools `<server>_<tool>`, as V1's agents do.
 *
 * A program may also run a task tool with `POST {OPENAI_BASE_URL}/tools/{name}` (same bearer,
 * body = the arguments object; answers `{"content": "…"}`), the pre-MCP route.
 */
import type { Harness } from "./harness.ts";
import { programEnv, runProgram } from "./program.ts";

export const commandHarness: Harness = {
  id: "command",
  supportsTools: true,
  supportsUserSim: true,
  isolation: () => "program",
  async run(ctx) {
    // The schema requires a non-empty argv when harness.id = "command" (validated with the config).
    const argv = ctx.config.command!;
    // As it ran: relative file paths were made absolute when the config was loaded.
    ctx.session.trace.info["harness_command"] = [...argv];
    await runProgram(ctx, ctx.runtime, argv, await programEnv(ctx));
  },
};
