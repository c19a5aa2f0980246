/**
 * The one file of the CLI that knows the environment runtime's API: it turns a resolved config
 * plus an endpoint choice into something that runs (task, rollout) work and streams finished
 * TraceRecords. `eval` and `validate` only see the narrow `EvalBackend` port, so they are
 * testable with a fake and unaffected by changes inside the runtime.
 */
import type { ClientConfig, EnvConfig } from "../config/schema.ts";
import type { ResumeWork } from "../outputs/resume.ts";
import type { TraceRecord } from "../trace/record.ts";

/** Where model calls go: the configured client, or the built-in engine started in-process. */
export type EndpointChoice = { kind: "builtin" } | { kind: "client"; client: ClientConfig };

export interface RunOptions {
  /** Rollouts in flight at once. */
  concurrency: number;
  /** Aborting stops scheduling; in-flight rollouts end (errored) and are still delivered. */
  signal: AbortSignal;
  /** Called once per finished rollout — for group-reward tasks once the group is scored. */
  onTrace(trace: TraceRecord): void;
}

export interface EvalBackend {
  /** Task indices the config selects (num_tasks, shuffle), in run order. */
  readonly taskIndices: readonly number[];
  isGroupTask(taskIndex: number): boolean;
  run(work: readonly ResumeWork[], opts: RunOptions): Promise<void>;
  /** Aborts in-flight model requests. */
  abort(): Promise<void>;
  close(): Promise<void>;
}

export async function openBackend(
  _config: EnvConfig,
  _endpoint: EndpointChoice,
  _say: (line: string) => void,
): Promise<EvalBackend> {
  throw new Error("the environment runtime is not available yet");
}
