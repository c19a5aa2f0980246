/**
 * A bare interception session (no task handlers, tools or limits) around a client: the layer
 * harnesses call, for tests of what the session and trace make of the model's turns.
 */
import type { Client, Sampling } from "../../../packages/core/src/clients/client.ts";
import { RolloutSession } from "../../../packages/core/src/interception/session.ts";
import { noLimits } from "../../../packages/core/src/limits.ts";
import { Trace } from "../../../packages/core/src/trace/trace.ts";
import type { TaskData } from "../../../packages/core/src/types.ts";

export function bareSession(
  client: Client,
  options: { sampling?: Sampling } = {},
): { session: RolloutSession; trace: Trace } {
  const task: TaskData = { idx: 0, prompt: "q" };
  const trace = new Trace(task);
  const session = new RolloutSession({
    task,
    handlers: {},
    trace,
    client,
    model: "m",
    sampling: options.sampling ?? {},
    limits: noLimits,
    runtime: null,
    tools: [],
    user: null,
    signal: new AbortController().signal,
  });
  return { session, trace };
}
