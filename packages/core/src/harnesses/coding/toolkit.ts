/**
 * What the coding agent's model can call, and how a call is dispatched — V1's default program:
 * arguments that are not JSON, or not a JSON object, and unknown names are error tool messages
 * in V1's words; `<server>_<tool>` names go to the rollout's toolsets (over MCP where they are
 * MCP servers); `bash` and `edit` run in the rollout's runtime.
 */
import { executeToolCall } from "../../interception/tools.ts";
import { type ToolDefinition, toolSchemas } from "../../task.ts";
import type { TaskData } from "../../types.ts";
import type { Toolkit } from "../chat-loop.ts";
import type { HarnessContext } from "../harness.ts";
import { bashTool } from "./bash.ts";
import { editTool } from "./edit.ts";

/** bash and edit, less those in `harness.disabled_tools`. */
export function codingTools(disabled: readonly string[] | null): ToolDefinition<TaskData>[] {
  return [bashTool, editTool].filter((t) => !disabled?.includes(t.name));
}

function typeName(v: unknown): string {
  if (v === null) return "NoneType";
  if (Array.isArray(v)) return "list";
  if (typeof v === "number") return Number.isInteger(v) ? "int" : "float";
  if (typeof v === "string") return "str";
  if (typeof v === "boolean") return "bool";
  return typeof v;
}

export async function codingToolkit<D extends TaskData>(ctx: HarnessContext<D>): Promise<Toolkit> {
  const native = codingTools(ctx.config.disabled_tools);
  const remote = await ctx.toolbox.tools();
  const handlerCtx = { task: ctx.task, trace: ctx.session.trace, runtime: ctx.runtime, signal: ctx.signal };
  return {
    schemas: [...toolSchemas(native), ...remote.map((t) => t.schema)],
    async run(call) {
      let args: unknown;
      try {
        args = JSON.parse(call.arguments.trim() === "" ? "{}" : call.arguments);
      } catch (e) {
        return `error: invalid JSON in tool arguments (${e instanceof Error ? e.message : String(e)}); resend the call with valid JSON`;
      }
      if (typeof args !== "object" || args === null || Array.isArray(args))
        return `error: tool arguments must be a JSON object, got ${typeName(args)}; resend as an object`;
      const obj = args as Record<string, unknown>;
      if (remote.some((t) => t.name === call.name)) return (await ctx.toolbox.callQualified(call.name, obj))!;
      if (native.some((t) => t.name === call.name))
        return (await executeToolCall(native, call.name, obj, handlerCtx)).content;
      return `error: unknown tool '${call.name}'`;
    },
  };
}
