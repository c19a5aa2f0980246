/**
 * The harness contract: the agent program of a rollout. Built-in loops talk to the interception
 * session in-process; the command harness runs any external program against the HTTP endpoint.
 * A harness returns normally when the program finished (or was refused by a stop condition) and
 * throws a typed error when it failed; the rollout decides the stop condition.
 */
import type { HarnessConfig } from "../config/schema.ts";
import type { InterceptionServer } from "../interception/server.ts";
import type { RolloutSession } from "../interception/session.ts";
import type { RolloutEndpoint } from "../mcp/endpoint.ts";
import type { ToolProvider } from "../mcp/provider.ts";
import type { RolloutToolbox } from "../mcp/toolbox.ts";
import type { Isolation } from "../runtimes/auto.ts";
import type { Runtime } from "../runtimes/runtime.ts";
import type { HandlerContext, ToolDefinition, UserSimulator } from "../task.ts";
import type { Message, TaskData } from "../types.ts";

export interface HarnessContext<D extends TaskData = TaskData> {
  task: D;
  session: RolloutSession<D>;
  runtime: Runtime;
  config: HarnessConfig;
  /** The opening messages: the system prompt as a system message, then the task prompt. */
  prompt: Message[];
  /** The task's tools after `harness.disabled_tools`. */
  tools: readonly ToolDefinition<D>[];
  signal: AbortSignal;
  /** The rollout's time budget, for programs that must be killed when it runs out. */
  timeoutMs: number | null;
  /** The shared interception server, started on first use. */
  interception(): Promise<InterceptionServer>;
  /** The rollout's toolsets (MCP-named `<server>_<tool>`; empty when the task has none). */
  toolbox: RolloutToolbox;
  /** Registers the rollout with the interception server (once) and says where programs reach it. */
  endpoint(): Promise<RolloutEndpoint>;
  /**
   * The task's user simulator, given only to a harness that `drivesUserTurns` (then the
   * interception session simulates nothing in-band); null when the task has none.
   */
  user?: UserSimulator | null;
}

export interface Harness {
  readonly id: string;
  /** Whether it offers the task's tools to the model (pairing is checked before running). */
  readonly supportsTools: boolean;
  readonly supportsUserSim: boolean;
  /**
   * The harness takes the user simulator's turns to its program itself, as interaction turns
   * (an ACP agent: each reply is a new `session/prompt` in the same session), instead of the
   * interception session answering the model's final message with the user's reply in-band.
   */
  readonly drivesUserTurns?: boolean;
  /**
   * What the default runtime (`harness.runtime.type = "auto"`) is for it: "sandbox" when the
   * model gets a shell the sandbox can contain, "program" for an external agent program (the
   * sandbox with the network shared); absent is "none".
   */
  isolation?(config: HarnessConfig): Isolation;
  /**
   * What the harness needs besides its config keys, for the validator to report before anything
   * runs (e.g. the agent program it launches is installed): a sentence saying what is missing,
   * or null. A pure check: it reports, the validator (loaders/) decides it is a config error.
   * May be asynchronous (resolving a module is, inside the CLI's bundle).
   */
  requirements?(config: HarnessConfig): string | null | Promise<string | null>;
  /** Toolsets the harness adds to the task's (e.g. bash and edit for programs that use MCP). */
  toolsets?(context: () => HandlerContext<TaskData>, config: HarnessConfig): readonly ToolProvider[];
  run<D extends TaskData>(ctx: HarnessContext<D>): Promise<void>;
}
