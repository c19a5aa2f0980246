/**
 * bash and edit as a toolset (`coding`), so that they are called — and recorded on the trace —
 * like any other toolset: in-process by the `default` harness (which shows them bare, as V1's
 * `bash` and `edit`) and over MCP by programs (as `coding_bash`, `coding_edit`).
 */
import type { HarnessConfig } from "../../config/schema.ts";
import { LocalToolProvider, type ToolProvider } from "../../mcp/provider.ts";
import type { Isolation } from "../../runtimes/auto.ts";
import type { HandlerContext, ToolDefinition } from "../../task.ts";
import type { TaskData } from "../../types.ts";
import { bashTool } from "./bash.ts";
import { editTool } from "./edit.ts";

export const CODING_SERVER = "coding";

/** bash and edit, less those in `harness.disabled_tools` (bare or as `coding_<tool>`). */
export function codingTools(disabled: readonly string[] | null): ToolDefinition<TaskData>[] {
  const off = (name: string) => disabled?.includes(name) || disabled?.includes(`${CODING_SERVER}_${name}`);
  return [bashTool, editTool].filter((t) => !off(t.name));
}

export function codingToolsets(
  context: () => HandlerContext<TaskData>,
  config: HarnessConfig,
): ToolProvider[] {
  const tools = codingTools(config.disabled_tools);
  return tools.length > 0 ? [new LocalToolProvider(CODING_SERVER, tools, context)] : [];
}

/** A harness offering `bash` needs the sandbox by default; with bash disabled nothing does. */
export function codingIsolation(config: HarnessConfig): Isolation {
  return codingTools(config.disabled_tools).includes(bashTool) ? "sandbox" : "none";
}
