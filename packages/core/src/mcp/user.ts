/**
 * A user simulator that is an MCP server (V1's `User`): one tool, `respond(message: str)`,
 * returning the JSON text `{"messages": [chat-wire messages]}`. The host drives it — called with
 * "" to open a task without a prompt, then with each assistant reply that has no tool calls —
 * and the simulator ends the conversation by writing state (`PUT /state`) that a stop condition
 * of the task reads.
 */

import { messagesFromWire } from "../clients/wire.ts";
import { UserError } from "../errors.ts";
import type { UserSimulator } from "../task.ts";
import type { Message } from "../types.ts";
import { toolResultText } from "./content.ts";
import type { ToolProvider } from "./provider.ts";

export interface McpUser extends UserSimulator {
  close(): Promise<void>;
}

export function mcpUser(server: ToolProvider): McpUser {
  return {
    async respond(message: string): Promise<Message[]> {
      const result = await server.callTool("respond", { message });
      const text = toolResultText(result);
      if (result.isError) throw new UserError(`user simulator "${server.name}": respond failed: ${text}`);
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new UserError(
          `user simulator "${server.name}": respond returned no JSON: ${text.slice(0, 200)}`,
        );
      }
      const messages = (parsed as { messages?: unknown } | null)?.messages;
      if (!Array.isArray(messages))
        throw new UserError(
          `user simulator "${server.name}": respond must return {"messages": [...]}, got ${text.slice(0, 200)}`,
        );
      try {
        return messagesFromWire(messages);
      } catch (e) {
        throw new UserError(`user simulator "${server.name}": ${e instanceof Error ? e.message : String(e)}`);
      }
    },
    close: () => server.close(),
  };
}
