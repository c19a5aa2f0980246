/**
 * Running an external harness program against the rollout: it gets the interception endpoint
 * and secret, the opening messages, the task's tools and its MCP servers in its environment
 * (names in command.ts). Its exit decides nothing when the session already stopped (a refused
 * request may make it exit non-zero) or failed (that cause is re-raised instead); otherwise a
 * non-zero exit is a HarnessError with the tail of its stderr.
 */

import { messageToWire, toolToWire } from "../clients/wire.ts";
import { HarnessError } from "../errors.ts";
import { mcpEnv } from "../mcp/endpoint.ts";
import type { Runtime } from "../runtimes/runtime.ts";
import { toolSchemas } from "../task.ts";
import type { Message, TaskData } from "../types.ts";
import type { HarnessContext } from "./harness.ts";

const STDERR_TAIL = 2000;

export async function programEnv<D extends TaskData>(
  ctx: HarnessContext<D>,
  prompt: readonly Message[] = ctx.prompt,
): Promise<Record<string, string>> {
  const ep = await ctx.endpoint();
  return {
    OPENAI_BASE_URL: ep.baseUrl,
    OPENAI_API_KEY: ep.secret,
    ANTHROPIC_BASE_URL: ep.baseUrl.replace(/\/v1$/, ""),
    ANTHROPIC_API_KEY: ep.secret,
    ENVROLL_PROMPT: JSON.stringify(prompt.map(messageToWire)),
    ENVROLL_TOOLS: JSON.stringify(toolSchemas(ctx.tools).map(toolToWire)),
    ENVROLL_MODEL: ctx.session.model,
    ...mcpEnv(ctx.toolbox, ep),
  };
}

export async function runProgram<D extends TaskData>(
  ctx: HarnessContext<D>,
  runtime: Runtime,
  argv: string[],
  env: Record<string, string>,
): Promise<void> {
  const result = await runtime.run(argv, {
    env: { ...ctx.config.env, ...env },
    signal: ctx.signal,
    timeoutMs: ctx.timeoutMs ?? undefined,
  });
  // Whichever timer fires first (the runtime's or the rollout's) it is the harness timeout,
  // recorded here too so the rollout cannot mistake the kill for `agent_completed`.
  if (result.timedOut) ctx.session.trace.stop("harness_timeout");
  if (ctx.session.error || ctx.session.trace.stopCondition !== null) return;
  if (result.exitCode !== 0) {
    const how = result.exitCode === null ? `signal ${result.signal}` : `code ${result.exitCode}`;
    const tail = (result.stderr.trim() ? result.stderr : result.stdout).slice(-STDERR_TAIL);
    // The usual cause of a program failing only by default: it needs host files the sandbox hides.
    const where =
      runtime.kind === "sandbox"
        ? ` (it ran in the sandbox, which shows /usr, the program's own files and the working folder only: add host paths with harness.runtime.ro_bind, or set harness.runtime.type = "subprocess" to run it on the host, unisolated)`
        : "";
    throw new HarnessError(`${argv.join(" ")} exited with ${how}${where}: ${tail}`);
  }
}
