/**
 * The built-in agent loop shared by the `null` and `default` harnesses: call the model; stop
 * when it answers without tool calls or the session refuses; otherwise run each call and loop.
 * Tool failures are tool messages (see `runToolCall`), never exceptions.
 */
import { runToolCall } from "../interception/tools.ts";
import { type ToolDefinition, toolSchemas } from "../task.ts";
import type { Message, TaskData } from "../types.ts";
import type { HarnessContext } from "./harness.ts";

export async function chatLoop<D extends TaskData>(
  ctx: HarnessContext<D>,
  tools: readonly ToolDefinition<D>[],
): Promise<void> {
  const schemas = toolSchemas(tools);
  const messages: Message[] = [...ctx.prompt];
  const handlerCtx = { task: ctx.task, trace: ctx.session.trace, runtime: ctx.runtime, signal: ctx.signal };
  for (;;) {
    const result = await ctx.session.complete(messages, schemas);
    if (result.kind === "stopped") return;
    const reply = result.response.message;
    messages.push(reply);
    const calls = reply.tool_calls ?? [];
    if (calls.length === 0) return;
    for (const call of calls) {
      const content = await runToolCall(tools, call.name, call.arguments, handlerCtx);
      messages.push({ role: "tool", tool_call_id: call.id, name: call.name, content });
    }
  }
}
