/**
 * `command`: any external program (`harness.command = ["python3", "agent.py"]`) run in the
 * rollout's runtime and pointed at the interception server. Its environment:
 *
 * - `OPENAI_BASE_URL` — the interception endpoint, ending in `/v1`;
 * - `OPENAI_API_KEY` — this rollout's secret (the bearer token for every route);
 * - `ENVROLL_PROMPT` — JSON array of the opening messages in OpenAI form (the system prompt
 *   only, or `[]`, when the user simulator opens: the server injects its opening);
 * - `ENVROLL_TOOLS` — JSON array of the task's tools as `{type: "function", function: {…}}`;
 * - `ENVROLL_MODEL` — the configured model name.
 *
 * The program executes a task tool with `POST {OPENAI_BASE_URL}/tools/{name}` (same bearer, body
 * = the arguments object) and gets `{"content": "…"}` back, so it never reimplements task code.
 */
import { HarnessError } from "../errors.ts";
import { messageToWire, toolToWire } from "../interception/wire.ts";
import { toolSchemas } from "../task.ts";
import type { Harness } from "./harness.ts";

const STDERR_TAIL = 2000;

export const commandHarness: Harness = {
  id: "command",
  supportsTools: true,
  supportsUserSim: true,
  async run(ctx) {
    const argv = ctx.config.command;
    if (!argv || argv.length === 0)
      throw new HarnessError('harness.command is empty (required for harness "command")');
    const server = await ctx.interception();
    const reg = await server.register(ctx.session);
    try {
      const result = await ctx.runtime.run(argv, {
        env: {
          ...ctx.config.env,
          OPENAI_BASE_URL: reg.baseUrl,
          OPENAI_API_KEY: reg.secret,
          ENVROLL_PROMPT: JSON.stringify(ctx.prompt.map(messageToWire)),
          ENVROLL_TOOLS: JSON.stringify(toolSchemas(ctx.tools).map(toolToWire)),
          ENVROLL_MODEL: ctx.session.model,
        },
        signal: ctx.signal,
        timeoutMs: ctx.timeoutMs ?? undefined,
      });
      // Whichever timer fires first (the runtime's or the rollout's) it is the harness timeout,
      // recorded here too so the rollout cannot mistake the kill for `agent_completed`.
      if (result.timedOut) ctx.session.trace.stop("harness_timeout");
      // A refused request (stop condition) may make the program exit non-zero; that is clean.
      if (ctx.session.error || ctx.session.trace.stopCondition !== null) return;
      if (result.exitCode !== 0) {
        const how = result.exitCode === null ? `signal ${result.signal}` : `code ${result.exitCode}`;
        throw new HarnessError(`${argv.join(" ")} exited with ${how}: ${result.stderr.slice(-STDERR_TAIL)}`);
      }
    } finally {
      reg.dispose();
    }
  },
};
