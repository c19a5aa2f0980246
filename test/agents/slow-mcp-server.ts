/**
 * A stdio MCP server that takes `SLOW_MCP_MS` (default 2000) to answer `tools/list`, as a real
 * toolset's server can while it starts (a database, a browser). With it among a rollout's
 * toolsets, an agent that connects MCP servers in the background would sample its first turn
 * without this server's tools unless the harness waits for the agent to list them.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const delayMs = Number(process.env["SLOW_MCP_MS"] ?? 2000);
const server = new Server({ name: "slow", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => {
  await new Promise((r) => setTimeout(r, delayMs));
  return {
    tools: [{ name: "ping", description: "Answer pong.", inputSchema: { type: "object", properties: {} } }],
  };
});
server.setRequestHandler(CallToolRequestSchema, async () => ({ content: [{ type: "text", text: "pong" }] }));
await server.connect(new StdioServerTransport());
