/**
 * A toolset served by an MCP server envroll does not implement: a stdio program or a remote
 * streamable-HTTP URL, reached through the official SDK client. It connects on first use (a
 * rollout whose harness never lists tools never starts the server) and says what went wrong —
 * with the tail of the server's stderr — when the server cannot be reached.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { errorMessage, ToolsetError } from "../errors.ts";
import type { CallToolResult, McpTool, ToolProvider } from "./provider.ts";

const STDERR_TAIL = 2000;

/** The SDK's client side, imported on the first connect: most runs never start an MCP server. */
let sdk:
  | Promise<{
      client: typeof import("@modelcontextprotocol/sdk/client/index.js");
      stdio: typeof import("@modelcontextprotocol/sdk/client/stdio.js");
      http: typeof import("@modelcontextprotocol/sdk/client/streamableHttp.js");
      types: typeof import("@modelcontextprotocol/sdk/types.js");
    }>
  | undefined;
function loadSdk() {
  sdk ??= Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/stdio.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/types.js"),
  ]).then(([client, stdio, http, types]) => ({ client, stdio, http, types }));
  return sdk;
}

export type McpEndpoint =
  | { kind: "stdio"; argv: readonly string[]; env: Record<string, string>; cwd?: string }
  | { kind: "http"; url: string; headers: Record<string, string> };

export class McpClientProvider implements ToolProvider {
  private client: Promise<Client> | null = null;
  private tools: Promise<McpTool[]> | null = null;
  private stderr = "";
  private closed = false;

  constructor(
    readonly name: string,
    private readonly endpoint: McpEndpoint,
    private readonly timeoutMs: number,
  ) {}

  private async transport(): Promise<Transport> {
    const { http, stdio } = await loadSdk();
    const e = this.endpoint;
    if (e.kind === "http")
      return new http.StreamableHTTPClientTransport(new URL(e.url), { requestInit: { headers: e.headers } });
    const t = new stdio.StdioClientTransport({
      command: e.argv[0]!,
      args: e.argv.slice(1),
      env: e.env,
      cwd: e.cwd,
      stderr: "pipe",
    });
    t.stderr?.on("data", (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString("utf8")).slice(-STDERR_TAIL);
    });
    return t;
  }

  private where(): string {
    const e = this.endpoint;
    return e.kind === "http" ? e.url : e.argv.join(" ");
  }

  private fail(what: string, e: unknown): ToolsetError {
    const tail = this.stderr.trim() ? `; stderr: ${this.stderr.trim()}` : "";
    return new ToolsetError(
      `MCP server "${this.name}" (${this.where()}): ${what}: ${errorMessage(e)}${tail}`,
      {
        cause: e,
      },
    );
  }

  private connect(): Promise<Client> {
    if (this.closed) return Promise.reject(new ToolsetError(`MCP server "${this.name}" is closed`));
    this.client ??= (async () => {
      const client = new (await loadSdk()).client.Client({ name: "envroll", version: "0.1.0" });
      try {
        await client.connect(await this.transport(), { timeout: this.timeoutMs });
      } catch (e) {
        throw this.fail("cannot connect", e);
      }
      return client;
    })();
    // A failed start is not cached: the next rollout (or retry) tries again.
    this.client.catch(() => {
      this.client = null;
    });
    return this.client;
  }

  listTools(signal?: AbortSignal): Promise<McpTool[]> {
    this.tools ??= (async () => {
      const client = await this.connect();
      try {
        const out: McpTool[] = [];
        let cursor: string | undefined;
        do {
          const page = await client.listTools(cursor ? { cursor } : {}, { timeout: this.timeoutMs, signal });
          out.push(...page.tools);
          cursor = page.nextCursor;
        } while (cursor);
        return out;
      } catch (e) {
        throw this.fail("tools/list failed", e);
      }
    })();
    this.tools.catch(() => {
      this.tools = null;
    });
    return this.tools;
  }

  async callTool(
    tool: string,
    args: Record<string, unknown>,
    options: { meta?: Record<string, unknown>; signal?: AbortSignal } = {},
  ): Promise<CallToolResult> {
    const client = await this.connect();
    try {
      const params: Parameters<Client["callTool"]>[0] = { name: tool, arguments: args };
      if (options.meta) params._meta = options.meta;
      return (await client.callTool(params, undefined, {
        timeout: this.timeoutMs,
        signal: options.signal,
      })) as CallToolResult;
    } catch (e) {
      // The server answered with an error (unknown tool, bad arguments) or did not answer in
      // time: the model's call failed, which it sees. A lost connection is the server's failure.
      const { McpError, ErrorCode } = (await loadSdk()).types;
      if (e instanceof McpError && e.code !== ErrorCode.ConnectionClosed)
        return { content: [{ type: "text", text: `error: ${e.message}` }], isError: true };
      throw this.fail(`tools/call ${tool} failed`, e);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = null;
    if (client) await (await client.catch(() => null))?.close();
  }
}
