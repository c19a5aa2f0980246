/**
 * A bare interception session (no task handlers, tools or limits unless given) around a client:
 * the layer harnesses call, for tests of what the session and trace make of the model's turns,
 * and for tests and benches that wire a rollout by hand (a runtime, a taskset's handlers and tools).
 */
import type { Client, Sampling } from "../../../packages/core/src/clients/client.ts";
import type { InterceptionServer } from "../../../packages/core/src/interception/server.ts";
import { RolloutSession } from "../../../packages/core/src/interception/session.ts";
import { noLimits } from "../../../packages/core/src/limits.ts";
import { RolloutWiring } from "../../../packages/core/src/mcp/wiring.ts";
import type { Runtime } from "../../../packages/core/src/runtimes/runtime.ts";
import type { TaskHandlers, Taskset, ToolDefinition } from "../../../packages/core/src/task.ts";
import { Trace } from "../../../packages/core/src/trace/trace.ts";
import type { TaskData } from "../../../packages/core/src/types.ts";

/** The MCP/state wiring of a hand-built rollout on `server` (no configured toolsets, nothing disabled). */
export function bareWiring<D extends TaskData>(
  taskset: Taskset<D, any>,
  task: D,
  runtime: Runtime,
  server: InterceptionServer,
  signal: AbortSignal,
): RolloutWiring<D> {
  return new RolloutWiring({
    taskset,
    task,
    runtime,
    harnessConfig: { disabled_tools: null } as never,
    configured: [],
    interception: async () => server,
    signal,
  });
}

export interface BareSessionOptions<D extends TaskData> {
  sampling?: Sampling;
  task?: D;
  handlers?: TaskHandlers<any>;
  tools?: readonly ToolDefinition<any>[];
  runtime?: Runtime | null;
  signal?: AbortSignal;
}

export function bareSession<D extends TaskData = TaskData>(
  client: Client,
  options: BareSessionOptions<D> = {},
): { session: RolloutSession<D>; trace: Trace; task: D; signal: AbortSignal } {
  const task = options.task ?? ({ idx: 0, prompt: "q" } as TaskData as D);
  const trace = new Trace(task);
  const signal = options.signal ?? new AbortController().signal;
  const session = new RolloutSession<D>({
    task,
    handlers: options.handlers ?? {},
    trace,
    client,
    model: "m",
    sampling: options.sampling ?? {},
    limits: noLimits,
    runtime: options.runtime ?? null,
    tools: (options.tools ?? []) as ToolDefinition<any>[],
    user: null,
    signal,
  });
  return { session, trace, task, signal };
}
