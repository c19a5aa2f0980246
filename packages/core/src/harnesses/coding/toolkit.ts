/**
 * What the coding agent's model can call, and how a call is dispatched — V1's default program:
 * arguments that are not JSON, or not a JSON object, and unknown names are error tool messages
 * in V1's words. `bash` and `edit` (the `coding` toolset, shown bare) run in the rollout's
 * runtime; `<server>_<tool>` names go to the task's toolsets (over MCP where they are servers).
 */
import type { TaskData, Tool } from "../../types.ts";
import type { Toolkit } from "../chat-loop.ts";
import type { HarnessContext } from "../harness.ts";
import { CODING_SERVER } from "./toolset.ts";

function typeName(v: unknown): string {
  if (v === null) return "NoneType";
  if (Array.isArray(v)) return "list";
  if (typeof v === "number") return Number.isInteger(v) ? "int" : "float";
  if (typeof v === "string") return "str";
  if (typeof v === "boolean") return "bool";
  return typeof v;
}

export async function codingToolkit<D extends TaskData>(ctx: HarnessContext<D>): Promise<Toolkit> {
  // V1's order: bash and edit first, then the toolsets' tools.
  const listed = await ctx.toolbox.tools();
  const all = [
    ...listed.filter((t) => t.server === CODING_SERVER),
    ...listed.filter((t) => t.server !== CODING_SERVER),
  ];
  // The model's name for each tool → its qualified toolbox name.
  const route = new Map<string, string>();
  const schemas: Tool[] = [];
  for (const t of all) {
    const shown = t.server === CODING_SERVER ? t.tool : t.name;
    route.set(shown, t.name);
    schemas.push({ ...t.schema, name: shown });
  }
  return {
    schemas,
    async run(call) {
      let args: unknown;
      try {
        args = JSON.parse(call.arguments.trim() === "" ? "{}" : call.arguments);
      } catch (e) {
        return `error: invalid JSON in tool arguments (${e instanceof Error ? e.message : String(e)}); resend the call with valid JSON`;
      }
      if (typeof args !== "object" || args === null || Array.isArray(args))
        return `error: tool arguments must be a JSON object, got ${typeName(args)}; resend as an object`;
      const target = route.get(call.name);
      if (target === undefined) return `error: unknown tool '${call.name}'`;
      return (await ctx.toolbox.callQualified(target, args as Record<string, unknown>))!;
    },
  };
}
