/**
 * The environment API that the eval CLI, the Miles rollout service and benchmarks build on:
 * a validated config plus its taskset, harness and runtime resolved once, and two ways to run —
 * one group (`runGroup`) or the whole eval (`runEval`). Results stream out through callbacks as
 * plain `TraceRecord`s and are not retained, so memory is bounded by the rollouts in flight.
 */
import pLimit, { type LimitFunction } from "p-limit";
import type { Client, Sampling } from "./clients/client.ts";
import { configErrorFromIssues } from "./config/issues.ts";
import { tasksetFields } from "./config/load.ts";
import type { EnvConfig } from "./config/schema.ts";
import { checkGroupSize, runEpisode } from "./episode.ts";
import { ConfigError, errorMessage } from "./errors.ts";
import type { Harness } from "./harnesses/harness.ts";
import { getHarness } from "./harnesses/index.ts";
import { InterceptionServer } from "./interception/server.ts";
import type { RolloutLimits } from "./limits.ts";
import { resolveTaskset } from "./loaders.ts";
import { type RuntimeFactory, runtimeFactory, runtimeSchema } from "./runtimes/index.ts";
import type { Taskset } from "./task.ts";
import type { TraceRecord } from "./trace/record.ts";
import type { Trace } from "./trace/trace.ts";
import type { TaskData } from "./types.ts";

export interface RunGroupOptions {
  client: Client;
  /** Stops scheduling new rollouts and aborts in-flight turns and programs. */
  signal?: AbortSignal;
  /** Each finished trace, as soon as it is final (after group scoring when the task has group rewards). */
  onTrace?: (trace: TraceRecord) => void;
  /** Per-rollout sampling over the config's (e.g. a derived `seed`). */
  samplingFor?: (taskIndex: number, rolloutIndex: number) => Sampling | undefined;
}

export interface RunEvalOptions extends RunGroupOptions {
  /** Overrides `max_concurrent` (the global rollout semaphore) for this run. */
  concurrency?: number;
  /** Each finished group. */
  onGroup?: (taskIndex: number, traces: TraceRecord[]) => void;
  /** Which tasks to run (indices into `tasks`); default all. */
  taskIndices?: readonly number[];
}

export interface EvalSummary {
  numTasks: number;
  numTraces: number;
  numErrored: number;
  /** Mean reward over all traces (errored included, as Verifiers' global mean). */
  meanReward: number;
  rewards: Record<string, number>;
  metrics: Record<string, number>;
}

export interface LoadEnvironmentOptions {
  /** Use this taskset instead of resolving `config.taskset.id`. */
  taskset?: Taskset<any, any>;
}

/** Seeded Fisher–Yates (mulberry32): the same order on every run for the same seed. */
function shuffled<T>(items: T[], seed: number): T[] {
  let a = seed >>> 0;
  const rand = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

export async function loadEnvironment(
  config: EnvConfig,
  options: LoadEnvironmentOptions = {},
): Promise<Environment> {
  const taskset = options.taskset ?? (await resolveTaskset(config.taskset.id));
  const harness = getHarness(config.harness.id);
  if (config.taskset.task.judges.length > 0)
    throw new ConfigError("taskset.task.judges: judges are not implemented in envroll yet", {
      path: "taskset.task.judges",
    });
  if (taskset.user && !harness.supportsUserSim)
    throw new ConfigError(
      `harness.id: harness "${harness.id}" cannot drive the user simulator of "${taskset.id}"`,
      {
        path: "harness.id",
      },
    );
  if (taskset.tools && !harness.supportsTools)
    throw new ConfigError(
      `harness.id: taskset "${taskset.id}" has tools, which harness "${harness.id}" does not offer (use "default" or "command")`,
      { path: "harness.id" },
    );
  checkGroupSize(taskset, config.num_rollouts);
  const factory = await runtimeFactory(config.harness.runtime.type);
  const schema = await runtimeSchema(config.harness.runtime.type);
  const checked = schema?.safeParse(config.harness.runtime);
  if (checked && !checked.success)
    throw configErrorFromIssues(checked.error.issues, config.harness.runtime, schema, "harness.runtime");

  let rows: TaskData[];
  try {
    rows = await taskset.load(tasksetFields(config));
  } catch (e) {
    if (e instanceof ConfigError) throw e;
    throw new ConfigError(`taskset: loading "${taskset.id}" failed: ${errorMessage(e)}`, { path: "taskset" });
  }
  if (taskset.dataSchema) {
    rows = rows.map((r, i) => {
      const p = taskset.dataSchema!.safeParse(r);
      if (!p.success)
        throw new ConfigError(`taskset: row ${i} of "${taskset.id}" is invalid: ${p.error.message}`);
      return p.data as TaskData;
    });
  }
  if (config.shuffle) rows = shuffled(rows, 0);
  if (config.num_tasks !== null) rows = rows.slice(0, config.num_tasks);
  return new Environment(config, taskset, harness, factory, rows);
}

export class Environment {
  private limiter: LimitFunction;
  private server: InterceptionServer | null = null;
  private readonly limits: RolloutLimits;

  constructor(
    readonly config: EnvConfig,
    readonly taskset: Taskset<any, any>,
    readonly harness: Harness,
    private readonly runtimeFactory: RuntimeFactory,
    readonly tasks: readonly TaskData[],
  ) {
    this.limiter = pLimit(config.max_concurrent);
    this.limits = {
      maxTurns: config.max_turns,
      maxInputTokens: config.max_input_tokens,
      maxOutputTokens: config.max_output_tokens,
      maxTotalTokens: config.max_total_tokens,
    };
  }

  /** True when groups must be scored together (callers should then run whole groups). */
  get requiresGroupScoring(): boolean {
    return (this.taskset.groupRewards?.length ?? 0) > 0;
  }

  private interception = async (): Promise<InterceptionServer> => {
    this.server ??= new InterceptionServer();
    return this.server;
  };

  /**
   * Runs the n rollouts of one task (the global semaphore is shared with every other call).
   * Rejects only with ConfigError (bad n) or GroupRewardError; rollout failures are on the traces.
   */
  async runGroup(
    taskIndex: number,
    n = this.config.num_rollouts,
    options: RunGroupOptions,
  ): Promise<TraceRecord[]> {
    const task = this.tasks[taskIndex];
    if (task === undefined)
      throw new RangeError(`task index ${taskIndex} out of range (0..${this.tasks.length - 1})`);
    const grouped = this.requiresGroupScoring;
    const records: TraceRecord[] = new Array(n);
    const emit = (t: Trace) => {
      const r = t.toRecord();
      records[t.rolloutIndex] = r;
      options.onTrace?.(r);
    };
    const traces = await runEpisode({
      taskset: this.taskset,
      task,
      taskIndex,
      n,
      harness: this.harness,
      harnessConfig: this.config.harness,
      runtime: { spec: this.config.harness.runtime, factory: this.runtimeFactory },
      client: options.client,
      model: this.config.model,
      sampling: this.config.sampling,
      limits: this.limits,
      timeouts: this.config.timeout,
      interception: this.interception,
      signal: options.signal,
      limit: this.limiter,
      retry: this.config.retries.rollout,
      samplingFor: options.samplingFor ? (i) => options.samplingFor!(taskIndex, i) : undefined,
      // Without group rewards a trace is final as soon as its rollout ends: stream it right away.
      onTrace: grouped ? undefined : emit,
    });
    if (grouped) for (const t of traces) emit(t);
    return records;
  }

  /**
   * Runs every task's group. Only enough groups are started to keep the semaphore busy, so a
   * large eval never holds more than the in-flight rollouts. A GroupRewardError stops scheduling
   * and rejects once in-flight groups have finished.
   */
  async runEval(options: RunEvalOptions): Promise<EvalSummary> {
    if (options.concurrency === undefined) return this.evalAll(options);
    // For this run only: the limiter is shared with every later runGroup/runEval.
    const configured = this.limiter.concurrency;
    this.limiter.concurrency = options.concurrency;
    try {
      return await this.evalAll(options);
    } finally {
      this.limiter.concurrency = configured;
    }
  }

  private async evalAll(options: RunEvalOptions): Promise<EvalSummary> {
    const indices = options.taskIndices ?? this.tasks.map((_, i) => i);
    const n = this.config.num_rollouts;
    const summary = new SummaryBuilder(indices.length);
    const workers = Math.min(indices.length, Math.ceil(this.limiter.concurrency / n) + 1);
    let next = 0;
    let failure: unknown = null;
    const worker = async () => {
      while (failure === null && !options.signal?.aborted && next < indices.length) {
        const taskIndex = indices[next++]!;
        try {
          const records = await this.runGroup(taskIndex, n, {
            ...options,
            onTrace: (r) => {
              summary.add(r);
              options.onTrace?.(r);
            },
          });
          options.onGroup?.(taskIndex, records);
        } catch (e) {
          failure ??= e;
        }
      }
    };
    await Promise.all(Array.from({ length: workers }, worker));
    if (failure !== null) throw failure;
    return summary.result();
  }

  async close(): Promise<void> {
    await this.server?.close();
    this.server = null;
  }
}

class SummaryBuilder {
  private traces = 0;
  private errored = 0;
  private rewardSum = 0;
  private readonly rewards = new Map<string, [number, number]>();
  private readonly metrics = new Map<string, [number, number]>();
  constructor(private readonly numTasks: number) {}

  add(r: TraceRecord): void {
    this.traces++;
    if (r.errors.length > 0) this.errored++;
    this.rewardSum += r.reward;
    accumulate(this.rewards, r.rewards);
    accumulate(this.metrics, r.metrics);
  }

  result(): EvalSummary {
    return {
      numTasks: this.numTasks,
      numTraces: this.traces,
      numErrored: this.errored,
      meanReward: this.traces ? this.rewardSum / this.traces : 0,
      rewards: means(this.rewards),
      metrics: means(this.metrics),
    };
  }
}

function accumulate(acc: Map<string, [number, number]>, values: Record<string, number>): void {
  for (const [k, v] of Object.entries(values)) {
    const cur = acc.get(k) ?? [0, 0];
    cur[0] += v;
    cur[1]++;
    acc.set(k, cur);
  }
}

function means(acc: Map<string, [number, number]>): Record<string, number> {
  return Object.fromEntries([...acc].map(([k, [s, c]]) => [k, s / c]));
}
