/**
 * One ACP agent process and its client side, through the official SDK
 * (`@agentclientprotocol/sdk`): JSON-RPC over the agent's stdin/stdout, stderr kept as a log.
 * The order of calls is V1's: `initialize`, `session/new` (the rollout's MCP servers), then one
 * `session/prompt` per interaction turn on the same session, `session/close` when the agent
 * offers it, then the process (group) is ended. Permission requests are answered by config; the
 * agent's updates are only read for its last message (the trace comes from interception).
 */
import type { ChildProcess } from "node:child_process";
import { Readable, Writable } from "node:stream";
import type * as acp from "@agentclientprotocol/sdk";
import { HarnessError } from "../../errors.ts";
import { killGroup } from "../../runtimes/spawn.ts";

const STDERR_KEEP = 16_000;
/** How long `session/close` and a polite SIGTERM may take before the group is killed. */
const CLOSE_GRACE_MS = 5000;

export type PermissionPolicy = "allow" | "deny";

export interface AcpAgentOptions {
  argv: string[];
  env: Record<string, string>;
  cwd: string;
  permission: PermissionPolicy;
}

export interface PromptOutcome {
  stopReason: string;
  /** The agent's last message (a new messageId restarts it), as V1's runner reads it. */
  reply: string;
}

export class AcpAgent {
  private stderr = "";
  private exited: string | null = null;
  private capabilities: acp.AgentCapabilities = {};
  private sessionId: string | null = null;
  private reply = "";
  private replyId: string | null = null;

  private constructor(
    private readonly child: ChildProcess,
    private readonly connection: acp.ClientConnection,
  ) {}

  static async start(o: AcpAgentOptions): Promise<AcpAgent> {
    const { spawn } = await import("node:child_process");
    const sdk = await import("@agentclientprotocol/sdk");
    const child = spawn(o.argv[0]!, o.argv.slice(1), {
      cwd: o.cwd,
      env: o.env,
      detached: true,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let self: AcpAgent | null = null;
    const app = sdk
      .client()
      .onRequest("session/request_permission", ({ params }) => answerPermission(params, o.permission))
      .onNotification("session/update", ({ params }) => self?.onUpdate(params));
    const stream = sdk.ndJsonStream(
      Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
      Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>,
    );
    self = new AcpAgent(child, app.connect(stream));
    const agent = self;
    child.stderr!.setEncoding("utf8");
    child.stderr!.on("data", (d: string) => {
      agent.stderr = (agent.stderr + d).slice(-STDERR_KEEP);
    });
    // A missing binary is an 'error' event, not an exit: both end the connection.
    child.on("error", (e) => {
      agent.exited ??= `could not start ${o.argv[0]}: ${e.message}`;
      agent.connection.close(e);
    });
    child.on("exit", (code, signal) => {
      agent.exited ??= code === null ? `killed by ${signal}` : `exited with code ${code}`;
      agent.connection.close(new Error(`agent ${agent.exited}`));
    });
    return agent;
  }

  /** The last `chars` of the agent's stderr (its log), for error messages. */
  stderrTail(chars = 2000): string {
    return this.stderr.slice(-chars).trim();
  }

  private fail(what: string, e: unknown): never {
    const data = (e as { data?: { details?: unknown } })?.data?.details;
    const why = typeof data === "string" ? data : e instanceof Error ? e.message : String(e);
    const state = this.exited ? ` (agent ${this.exited})` : "";
    throw new HarnessError(`ACP ${what} failed${state}: ${why}\n--- agent stderr ---\n${this.stderrTail()}`);
  }

  private async call<T>(what: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (e) {
      return this.fail(what, e);
    }
  }

  async initialize(): Promise<void> {
    const r = await this.call("initialize", () =>
      this.connection.agent.request("initialize", {
        protocolVersion: 1,
        clientCapabilities: {},
        clientInfo: { name: "envroll", version: "0" },
      }),
    );
    this.capabilities = r.agentCapabilities ?? {};
  }

  async authenticate(methodId: string): Promise<void> {
    await this.call(`authenticate (${methodId})`, () =>
      this.connection.agent.request("authenticate", { methodId }),
    );
  }

  async newSession(params: acp.NewSessionRequest): Promise<void> {
    const r = await this.call("session/new", () => this.connection.agent.request("session/new", params));
    this.sessionId = r.sessionId;
  }

  /**
   * Names the session (`session/set_title`). An agent that titles sessions itself with an
   * extra model call (codex-acp does, after the first turn) then makes none; an agent without
   * the method is left as it is.
   */
  async setTitle(title: string): Promise<boolean> {
    const sessionId = this.sessionId;
    if (sessionId === null) return false;
    try {
      await this.connection.agent.request("session/set_title", { sessionId, title });
      return true;
    } catch {
      return false;
    }
  }

  /** One interaction turn; `timeoutMs` bounds it (the prompt is cancelled, then it fails). */
  async prompt(text: string, timeoutMs: number | null, stop: AbortSignal): Promise<PromptOutcome> {
    const sessionId = this.sessionId;
    if (sessionId === null) throw new HarnessError("ACP prompt before session/new");
    this.reply = "";
    this.replyId = null;
    const abort = new AbortController();
    const timer = timeoutMs === null ? null : setTimeout(() => abort.abort("timeout"), timeoutMs);
    const onStop = () => abort.abort("stop");
    stop.addEventListener("abort", onStop, { once: true });
    if (stop.aborted) onStop();
    try {
      const pending = this.connection.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text }],
      });
      const cut = new Promise<never>((_, reject) =>
        abort.signal.addEventListener("abort", () => reject(abort.signal.reason), { once: true }),
      );
      try {
        const r = await Promise.race([pending, cut]);
        return { stopReason: r.stopReason, reply: this.reply };
      } catch (e) {
        if (!abort.signal.aborted) return this.fail("session/prompt", e);
        pending.catch(() => {});
        await this.connection.agent.notify("session/cancel", { sessionId }).catch(() => {});
        if (abort.signal.reason === "timeout")
          throw new HarnessError(
            `ACP prompt timed out after ${timeoutMs} ms (cancelled)\n--- agent stderr ---\n${this.stderrTail()}`,
          );
        return { stopReason: "cancelled", reply: this.reply };
      }
    } finally {
      if (timer) clearTimeout(timer);
      stop.removeEventListener("abort", onStop);
    }
  }

  private onUpdate(n: acp.SessionNotification): void {
    const u = n.update;
    if (u.sessionUpdate !== "agent_message_chunk" || u.content.type !== "text") return;
    const id = (u as { messageId?: string | null }).messageId ?? null;
    if (id !== null && id !== this.replyId) {
      this.replyId = id;
      this.reply = "";
    }
    this.reply += u.content.text;
  }

  /** `session/close` when offered, then the process group ends (TERM, then KILL). */
  async close(): Promise<void> {
    const pid = this.child.pid;
    if (this.exited === null && this.sessionId !== null && this.capabilities.sessionCapabilities?.close) {
      const closing = this.connection.agent.request("session/close", { sessionId: this.sessionId });
      await Promise.race([closing.catch(() => {}), delay(CLOSE_GRACE_MS)]);
    }
    this.connection.close();
    if (pid === undefined || this.exited !== null) return;
    const gone = new Promise<void>((r) => this.child.once("exit", () => r()));
    try {
      process.kill(-pid, "SIGTERM");
    } catch {
      return;
    }
    await Promise.race([gone, delay(CLOSE_GRACE_MS)]);
    killGroup(pid);
  }
}

function answerPermission(
  req: acp.RequestPermissionRequest,
  policy: PermissionPolicy,
): acp.RequestPermissionResponse {
  const wanted = policy === "allow" ? ["allow_once", "allow_always"] : ["reject_once", "reject_always"];
  const option = req.options.find((o) => wanted.includes(o.kind));
  return { outcome: option ? { outcome: "selected", optionId: option.optionId } : { outcome: "cancelled" } };
}

function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms).unref());
}
