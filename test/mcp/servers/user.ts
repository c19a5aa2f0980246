/**
 * A user simulator as a stdio MCP server (V1's `User`): `respond(message)` answers with
 * `{"messages": [...]}`. It opens with a question (message ""), says "again" once, and on the
 * second reply marks the rollout done through `PUT /state`, which the task's stop reads.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

let replies = 0;
const server = new McpServer({ name: "user", version: "1.0.0" });

server.registerTool("respond", { inputSchema: { message: z.string() } }, async ({ message }) => {
  let text: string;
  if (message === "") text = "Say hello.";
  else if (++replies === 1) text = `You said "${message}". Again.`;
  else {
    await fetch(process.env["VF_STATE_URL"]!, {
      method: "PUT",
      headers: { authorization: `Bearer ${process.env["VF_STATE_SECRET"]}` },
      body: JSON.stringify({ done: true }),
    });
    text = "Thanks.";
  }
  return {
    content: [{ type: "text", text: JSON.stringify({ messages: [{ role: "user", content: text }] }) }],
  };
});

await server.connect(new StdioServerTransport());
