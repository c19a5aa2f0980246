/**
 * A stdio MCP server written against the official SDK's high-level API (zod schemas), the kind of
 * toolset a taskset declares as a command. `bump` counts calls in this process (so per-rollout
 * and per-worker scopes can be told apart by pid), `task_prompt` reads the rollout's task over
 * `GET /task` (`task_row` answers the whole row it read), and `remember` writes the rollout's state with `PUT /state`.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

let count = 0;
const server = new McpServer({ name: "counter", version: "1.0.0" });

async function channel(path: string, init: RequestInit = {}): Promise<Response> {
  const url = process.env["VF_STATE_URL"];
  const secret = process.env["VF_STATE_SECRET"];
  if (!url || !secret) throw new Error("no state channel (VF_STATE_URL / VF_STATE_SECRET)");
  return fetch(url.replace(/\/state$/, path), {
    ...init,
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
  });
}

server.registerTool(
  "bump",
  { description: "Count a call.", inputSchema: { by: z.number().int().default(1) } },
  async ({ by }) => {
    count += by;
    return { content: [{ type: "text", text: `${process.pid}:${count}` }] };
  },
);

server.registerTool("task_prompt", { description: "The task's prompt." }, async () => {
  const { task } = (await (await channel("/task")).json()) as { task: string };
  return { content: [{ type: "text", text: String(JSON.parse(task).prompt) }] };
});

server.registerTool("task_row", { description: "The task row as this server reads it." }, async () => {
  const { task } = (await (await channel("/task")).json()) as { task: string };
  return { content: [{ type: "text", text: task }] };
});

server.registerTool(
  "remember",
  { description: "Store a note in the rollout state.", inputSchema: { note: z.string() } },
  async ({ note }) => {
    const r = await channel("/state", { method: "PUT", body: JSON.stringify({ note }) });
    return { content: [{ type: "text", text: r.ok ? "stored" : `failed ${r.status}` }], isError: !r.ok };
  },
);

await server.connect(new StdioServerTransport());
