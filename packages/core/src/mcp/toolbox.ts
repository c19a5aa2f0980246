/**
 * A rollout's toolsets: the taskset's in-process tools, its declared MCP servers and the config's,
 * each under its server name. Built-in harnesses call tools by their V1 name `<server>_<tool>`;
 * the interception server serves each toolset at `/mcp/<server>` for external programs. Every
 * call, either way, is recorded on the trace (`info.tool_calls`: server, tool, arguments,
 * is_error, ms) — an external program's calls exist there even if it never sends the result back
 * to the model — and a toolset that cannot be reached fails the rollout as a ToolsetError.
 */
import { errorMessage, ToolsetError } from "../errors.ts";
import type { TraceView } from "../task.ts";
import type { Content, Tool } from "../types.ts";
import { toolResultContent } from "./content.ts";
import type { CallToolResult, McpTool, ToolProvider } from "./provider.ts";

export interface QualifiedTool {
  /** `<server>_<tool>`: what the model calls. */
  name: string;
  server: string;
  tool: string;
  schema: Tool;
}

export interface ToolCallRecord {
  server: string;
  tool: string;
  arguments: Record<string, unknown>;
  is_error: boolean;
  ms: number;
}

export interface ToolboxOptions {
  trace: TraceView;
  /** Extra `_meta` per call of a server (worker-scoped servers learn the rollout's state channel). */
  meta?: (server: string) => Record<string, unknown> | undefined;
  /** Called with a toolset failure (kept on the session, re-raised when the harness ends). */
  onFailure?: (e: ToolsetError) => void;
  /** Names the model already has (e.g. bash, edit): a toolset tool may not shadow them. */
  reserved?: readonly string[];
  /** `harness.disabled_tools`: qualified names hidden from listings and refused when called. */
  disabled?: readonly string[] | null;
  signal?: AbortSignal;
}

export class RolloutToolbox {
  private readonly providers = new Map<string, ToolProvider>();
  private listing: Promise<QualifiedTool[]> | null = null;
  /** Servers whose tools the program has listed through its MCP endpoint, and who waits on them. */
  private readonly served = new Set<string>();
  private servedWaiters: (() => void)[] = [];

  constructor(
    providers: readonly ToolProvider[],
    private readonly o: ToolboxOptions,
  ) {
    for (const p of providers) {
      if (this.providers.has(p.name)) throw new ToolsetError(`two toolsets are named "${p.name}"`);
      this.providers.set(p.name, p);
    }
  }

  get serverNames(): string[] {
    return [...this.providers.keys()];
  }

  get isEmpty(): boolean {
    return this.providers.size === 0;
  }

  /** Every tool under its qualified name; a collision is a ToolsetError (the model could not tell them apart). */
  tools(): Promise<QualifiedTool[]> {
    this.listing ??= (async () => {
      const out: QualifiedTool[] = [];
      const seen = new Set(this.o.reserved ?? []);
      for (const server of this.providers.keys()) {
        for (const t of await this.listServer(server, this.o.signal)) {
          const name = `${server}_${t.name}`;
          if (seen.has(name)) throw this.failed(new ToolsetError(`tool name "${name}" is offered twice`));
          seen.add(name);
          out.push({ name, server, tool: t.name, schema: toolSchema(name, t) });
        }
      }
      return out;
    })();
    return this.listing;
  }

  /** The tools of one server, bare-named (what its MCP endpoint lists). */
  async listServer(server: string, signal?: AbortSignal): Promise<McpTool[]> {
    const tools = await this.guard(() => this.provider(server).listTools(signal));
    return tools.filter((t) => !this.disabled(server, t.name));
  }

  /** One call on one server (recorded); `meta` is the caller's own `_meta`. */
  async callServer(
    server: string,
    tool: string,
    args: Record<string, unknown>,
    meta?: Record<string, unknown>,
  ): Promise<CallToolResult> {
    const p = this.provider(server);
    if (this.disabled(server, tool))
      return {
        content: [{ type: "text", text: `error: tool '${server}_${tool}' is disabled` }],
        isError: true,
      };
    const started = performance.now();
    const extra = this.o.meta?.(server);
    const result = await this.guard(() =>
      p.callTool(tool, args, {
        meta: extra || meta ? { ...meta, ...extra } : undefined,
        signal: this.o.signal,
      }),
    );
    this.record({
      server,
      tool,
      arguments: args,
      is_error: result.isError === true,
      ms: Math.round((performance.now() - started) * 1000) / 1000,
    });
    return result;
  }

  /** A model's call by qualified name, as tool message content; null when no toolset has that name. */
  async callQualified(name: string, args: Record<string, unknown>): Promise<Content | null> {
    const t = (await this.tools()).find((q) => q.name === name);
    if (!t) return null;
    return toolResultContent(await this.callServer(t.server, t.tool, args));
  }

  /** The program listed `server`'s tools through its MCP endpoint (the answer has been sent). */
  noteServed(server: string): void {
    this.served.add(server);
    const waiters = this.servedWaiters;
    this.servedWaiters = [];
    for (const w of waiters) w();
  }

  /**
   * Waits until the program has listed every one of `servers` through its MCP endpoint, for at
   * most `ms`; answers the ones it has not. An agent that connects its MCP servers in the
   * background (codex-acp, for servers given in `session/new`) would otherwise start its first
   * turn without their tools and add them from a later turn: a different prompt, a forked trace.
   */
  async whenServed(servers: readonly string[], ms: number, signal?: AbortSignal): Promise<string[]> {
    const missing = () => servers.filter((s) => !this.served.has(s));
    const deadline = Date.now() + ms;
    while (missing().length > 0 && Date.now() < deadline && !signal?.aborted) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, deadline - Date.now());
        this.servedWaiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return missing();
  }

  has(server: string): boolean {
    return this.providers.has(server);
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.providers.values()].map((p) => p.close()));
  }

  private provider(server: string): ToolProvider {
    const p = this.providers.get(server);
    if (!p)
      throw new ToolsetError(`no toolset named "${server}" (have: ${this.serverNames.join(", ") || "none"})`);
    return p;
  }

  private disabled(server: string, tool: string): boolean {
    return this.o.disabled?.includes(`${server}_${tool}`) ?? false;
  }

  private record(r: ToolCallRecord): void {
    const info = this.o.trace.info;
    if (!Array.isArray(info["tool_calls"])) info["tool_calls"] = [];
    (info["tool_calls"] as ToolCallRecord[]).push(r);
  }

  private failed(e: ToolsetError): ToolsetError {
    this.o.onFailure?.(e);
    return e;
  }

  private async guard<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      throw this.failed(e instanceof ToolsetError ? e : new ToolsetError(errorMessage(e), { cause: e }));
    }
  }
}

function toolSchema(name: string, t: McpTool): Tool {
  return { name, description: t.description ?? "", parameters: t.inputSchema as Record<string, unknown> };
}
