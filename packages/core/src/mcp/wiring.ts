/**
 * The MCP side of one rollout, opened before its harness runs and closed after: the rollout's
 * registration with the interception server (made on first need: an in-process loop without
 * external servers never opens a socket), its toolbox, and a user simulator that is an MCP
 * server. Everything it starts is stopped by `close`, whatever the harness did.
 */

import { type McpServerSpec, parseServerSpec } from "../config/mcp-spec.ts";
import type { HarnessConfig } from "../config/schema.ts";
import type { ToolsetError } from "../errors.ts";
import type { InterceptionServer, Registration } from "../interception/server.ts";
import type { RolloutSession } from "../interception/session.ts";
import type { Runtime } from "../runtimes/runtime.ts";
import type { HandlerContext, Taskset, ToolDefinition, UserSimulator } from "../task.ts";
import { isThenable } from "../thenable.ts";
import type { Message, TaskData } from "../types.ts";
import { attachRollout, type RolloutAttachments } from "./attach.ts";
import type { RolloutEndpoint } from "./endpoint.ts";
import { openServer, type StateChannel } from "./launch.ts";
import { mcpOn } from "./mount.ts";
import { openToolbox } from "./open.ts";
import type { ToolProvider } from "./provider.ts";
import type { RolloutToolbox } from "./toolbox.ts";
import { type McpUser, mcpUser } from "./user.ts";

export interface WiringOptions<D extends TaskData> {
  taskset: Taskset<D, any>;
  task: D;
  runtime: Runtime;
  harnessConfig: HarnessConfig;
  /** Config `[[toolsets]]`. */
  configured: readonly McpServerSpec[];
  interception(): Promise<InterceptionServer>;
  signal: AbortSignal;
}

export class RolloutWiring<D extends TaskData> {
  private session: RolloutSession<D> | null = null;
  private registration: Promise<Registration> | null = null;
  private user: McpUser | null = null;
  private toolbox: RolloutToolbox | null = null;
  private attachments: RolloutAttachments | null = null;

  constructor(private readonly o: WiringOptions<D>) {}

  /** The taskset's `userServer` as a simulator (started on its first `respond`), or null. */
  mcpUser(): UserSimulator | null {
    const declared = this.o.taskset.userServer;
    if (!declared) return null;
    const spec = parseServerSpec(declared, `taskset "${this.o.taskset.id}" userServer`);
    let opening: Promise<McpUser> | null = null;
    const open = (): Promise<McpUser> => {
      opening ??= (async () => {
        const state = spec.command !== undefined ? await this.state() : null;
        this.user = mcpUser(openServer(spec, this.o.runtime, state));
        return this.user;
      })();
      return opening;
    };
    return { respond: async (message: string): Promise<Message[]> => (await open()).respond(message) };
  }

  readonly endpoint = async (): Promise<RolloutEndpoint> => {
    const session = this.session;
    if (!session) throw new Error("RolloutWiring.endpoint() before bind()");
    if (!this.registration) {
      // The interception server's MCP and state routes are the only readers of a rollout's
      // attachments, and they reach it only through this registration.
      // Registered while the toolbox opens (a command server needs the state channel) the
      // toolbox is filled in by `bind` once it is open.
      this.attachments = {
        toolbox: this.toolbox,
        tasksetId: this.o.taskset.id,
        stateSchema: this.o.taskset.stateSchema,
        hiddenFields: this.o.taskset.hiddenFields,
      };
      attachRollout(session, this.attachments);
      this.registration = this.o.interception().then((s) => {
        mcpOn(s);
        return s.register(session);
      });
    }
    const reg = await this.registration;
    return {
      baseUrl: reg.baseUrl,
      origin: reg.baseUrl.replace(/\/v1$/, ""),
      secret: reg.secret,
      serverSecret: reg.serverSecret,
    };
  };

  private async state(): Promise<StateChannel> {
    const ep = await this.endpoint();
    // The environment's servers, not the agent: they may read the task's hidden fields.
    return { url: `${ep.origin}/state`, secret: ep.serverSecret };
  }

  /** Opens the toolbox of the rollout whose session is `session` (at once when it has no servers). */
  bind(
    session: RolloutSession<D>,
    tools: readonly ToolDefinition<D>[],
    context: () => HandlerContext<D>,
    extra: readonly ToolProvider[],
  ): RolloutToolbox | Promise<RolloutToolbox> {
    this.session = session;
    const o = this.o;
    const opened = openToolbox({
      taskset: o.taskset,
      task: o.task,
      tools,
      configured: o.configured,
      context,
      runtime: o.runtime,
      // A rollout without worker-scoped servers never starts the interception server (nor loads
      // node:http for it) just to open its toolbox.
      shared: async () => mcpOn(await o.interception()),
      state: () => this.state(),
      extra,
      trace: session.trace,
      disabled: o.harnessConfig.disabled_tools,
      signal: o.signal,
      // Over HTTP the program sees an error result; the cause fails the rollout afterwards.
      onFailure: (e: ToolsetError) => {
        session.error ??= e;
      },
    });
    return isThenable<RolloutToolbox>(opened) ? opened.then((t) => this.opened(t)) : this.opened(opened);
  }

  private opened(toolbox: RolloutToolbox): RolloutToolbox {
    this.toolbox = toolbox;
    if (this.attachments) this.attachments.toolbox = toolbox;
    return toolbox;
  }

  /** Stops what the rollout opened; nothing to wait for (no promise) when it opened nothing. */
  close(): Promise<void> | void {
    const toolbox = this.toolbox?.isEmpty ? null : this.toolbox;
    if (!toolbox && !this.user && !this.registration) return;
    return this.closeOpened(toolbox);
  }

  private async closeOpened(toolbox: RolloutToolbox | null): Promise<void> {
    if (toolbox || this.user) await Promise.allSettled([toolbox?.close(), this.user?.close()]);
    const reg = this.registration;
    this.registration = null;
    if (reg) (await reg.catch(() => null))?.dispose();
  }
}
