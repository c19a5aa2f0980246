/**
 * A toolset as the rollout sees it: something that lists MCP tools and calls them. The taskset's
 * in-process tools, a stdio server and a remote URL all look alike behind it, so the interception
 * server can serve any of them over MCP and the built-in harnesses can call any of them directly.
 */
import type { CallToolResult, Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { executeToolCall } from "../interception/tools.ts";
import type { HandlerContext, ToolDefinition } from "../task.ts";
import type { TaskData } from "../types.ts";

export type { CallToolResult, McpTool };

export interface ToolProvider {
  /** The server name: the `<prefix>` of `<prefix>_<tool>` and the last segment of its MCP URL. */
  readonly name: string;
  listTools(signal?: AbortSignal): Promise<McpTool[]>;
  /** A failing tool is an `isError` result; this throws only when the server itself is unreachable. */
  callTool(
    tool: string,
    args: Record<string, unknown>,
    options?: { meta?: Record<string, unknown>; signal?: AbortSignal },
  ): Promise<CallToolResult>;
  close(): Promise<void>;
}

/** The JSON schema MCP wants: an object schema (zod's draft-7 `$schema` key is dropped). */
function inputSchema(parameters: Record<string, unknown>): McpTool["inputSchema"] {
  const { $schema: _drop, ...rest } = parameters;
  return { ...rest, type: "object" } as McpTool["inputSchema"];
}

/** In-process tools (the taskset's `ToolDefinition`s, zod-validated) as a toolset. */
export class LocalToolProvider<D extends TaskData> implements ToolProvider {
  constructor(
    readonly name: string,
    private readonly tools: readonly ToolDefinition<D>[],
    private readonly ctx: () => HandlerContext<D>,
  ) {}

  async listTools(): Promise<McpTool[]> {
    return this.tools.map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: inputSchema(t.parameters),
    }));
  }

  async callTool(tool: string, args: Record<string, unknown>): Promise<CallToolResult> {
    const out = await executeToolCall(this.tools, tool, args, this.ctx());
    return { content: [{ type: "text", text: out.content }], isError: out.isError };
  }

  async close(): Promise<void> {}
}
