/**
 * One toolset as a streamable-HTTP MCP endpoint, the way V1 serves its tool servers: stateless
 * (each POST stands alone, no `Mcp-Session-Id`) and answered with plain JSON rather than an SSE
 * stream. A fresh SDK `Server` per request is what the SDK prescribes for stateless serving; it
 * costs microseconds beside the tool call itself.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { errorMessage } from "../errors.ts";
import type { ToolProvider } from "./provider.ts";

/** What serving needs of a toolset: a provider's name, listing and calls (not its lifetime). */
export type ServedToolset = Pick<ToolProvider, "name" | "listTools" | "callTool">;

export async function serveToolset(
  toolset: ServedToolset,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const server = new Server({ name: toolset.name, version: "0.1.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async (_r, extra) => ({
    tools: await toolset.listTools(extra.signal),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (r) => {
    try {
      return await toolset.callTool(r.params.name, r.params.arguments ?? {}, { meta: r.params._meta });
    } catch (e) {
      // The program asked for a tool the toolset could not run (its server is gone): an error
      // result it can show the model, rather than a protocol failure that crashes its client.
      return { content: [{ type: "text", text: `error: ${errorMessage(e)}` }], isError: true };
    }
  });
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  res.on("close", () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res);
}
