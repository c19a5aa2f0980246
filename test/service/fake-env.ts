/** A fake RolloutEnvironment and Client for service tests: no engine, controllable timing. */
import type { Client, ModelRequest, ModelResponse } from "../../packages/core/src/clients/client.ts";
import type {
  EnvironmentInfo,
  GroupRun,
  RolloutEnvironment,
} from "../../packages/core/src/service/backend.ts";
import type { TraceRecord } from "../../packages/core/src/trace/record.ts";
import { branch, trace } from "../miles/traces.ts";

export class FakeClient implements Client {
  readonly kind = "train" as const;
  aborts = 0;
  closed = false;
  async getResponse(_r: ModelRequest): Promise<ModelResponse> {
    throw new Error("not used");
  }
  async abort(): Promise<void> {
    this.aborts++;
  }
  async close(): Promise<void> {
    this.closed = true;
  }
}

export interface FakeEnvOptions {
  numTasks?: number;
  numEvalTasks?: number;
  /** Milliseconds a group takes (per task index). */
  delay?: (taskIndex: number) => number;
  /** Make a group's traces special. */
  shape?: (taskIndex: number, k: number) => Partial<TraceRecord>;
  /** Reject the group (a group-reward failure). */
  fail?: (taskIndex: number) => boolean;
}

export class FakeEnv implements RolloutEnvironment {
  readonly info: EnvironmentInfo;
  readonly runs: { taskIndex: number; split: string; n: number; seeds: number[] | null }[] = [];
  aborted = 0;
  closed = false;

  constructor(private readonly opts: FakeEnvOptions = {}) {
    this.info = {
      tasksetId: "fake-v1",
      numTasks: opts.numTasks ?? 10,
      numEvalTasks: opts.numEvalTasks ?? 3,
      requiresGroupScoring: false,
      minGroupSize: 1,
    };
  }

  async runGroup(run: GroupRun): Promise<TraceRecord[]> {
    this.runs.push({ taskIndex: run.taskIndex, split: run.split, n: run.n, seeds: run.seeds });
    const ms = this.opts.delay?.(run.taskIndex) ?? 1;
    await new Promise<void>((resolve) => {
      const onAbort = () => {
        clearTimeout(timer);
        this.aborted++;
        resolve();
      };
      const timer = setTimeout(() => {
        run.signal.removeEventListener("abort", onAbort);
        resolve();
      }, ms);
      run.signal.addEventListener("abort", onAbort, { once: true });
    });
    if (this.opts.fail?.(run.taskIndex)) throw new Error("group reward failed");
    return Array.from({ length: run.n }, (_, k) =>
      trace({
        task_index: run.taskIndex,
        rollout_index: k,
        reward: k,
        branches: [
          branch([
            [[1, 2, run.taskIndex], false],
            [[100 + k, 101], true],
          ]),
        ],
        ...this.opts.shape?.(run.taskIndex, k),
      }),
    );
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}
