/**
 * The built-in agent loop shared by the in-process harnesses: call the model; stop when it
 * answers without tool calls or the session refuses; otherwise run each call, in order, and loop.
 * What a tool call does is the toolkit's business; its failures are tool messages, never throws.
 */
import { runToolCall } from "../interception/tools.ts";
import { type ToolDefinition, toolSchemas } from "../task.ts";
import type { Content, Message, TaskData, Tool, ToolCall } from "../types.ts";
import type { HarnessContext } from "./harness.ts";

export interface Toolkit {
  schemas: Tool[];
  run(call: ToolCall): Promise<Content>;
}

export async function chatLoop<D extends TaskData>(ctx: HarnessContext<D>, toolkit: Toolkit): Promise<void> {
  const messages: Message[] = [...ctx.prompt];
  for (;;) {
    const result = await ctx.session.complete(messages, toolkit.schemas);
    if (result.kind === "stopped") return;
    const reply = result.response.message;
    messages.push(reply);
    const calls = reply.tool_calls ?? [];
    if (calls.length === 0) return;
    for (const call of calls) {
      const content = await toolkit.run(call);
      messages.push({ role: "tool", tool_call_id: call.id, name: call.name, content });
    }
  }
}

/** The task's in-process tools under their own names (the `tools` and `null` harnesses). */
export function bareToolkit<D extends TaskData>(
  ctx: HarnessContext<D>,
  tools: readonly ToolDefinition<D>[],
): Toolkit {
  const handlerCtx = { task: ctx.task, trace: ctx.session.trace, runtime: ctx.runtime, signal: ctx.signal };
  return {
    schemas: toolSchemas(tools),
    run: (call) => runToolCall(tools, call.name, call.arguments, handlerCtx),
  };
}
