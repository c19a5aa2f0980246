/**
 * The environment API that the eval CLI, the Miles rollout service and benchmarks build on:
 * a validated config plus its taskset, harness and runtime resolved once, and two ways to run —
 * one group (`runGroup`) or a list of work items (`run`, the one scheduler). Results stream out through callbacks as
 * plain `TraceRecord`s and are not retained, so memory is bounded by the rollouts in flight.
 */
import { setMaxListeners } from "node:events";
import type { Client, Sampling } from "./clients/client.ts";
import { ONCE, tasksetFields } from "./config/load.ts";
import type { EnvConfig } from "./config/schema.ts";
import { type RolloutLimit, runEpisode } from "./episode.ts";
import { errorMessage, LoadError } from "./errors.ts";
import type { Harness } from "./harnesses/harness.ts";
import { getHarness } from "./harnesses/index.ts";
import type { InterceptionServer } from "./interception/server.ts";
import { DROPPED_SAMPLING_INFO } from "./interception/trace-info.ts";
import { type LoadedJudge, type LoadJudgesOptions, loadJudges } from "./judges/loader.ts";
import { createLimiter, type Limiter } from "./limiter.ts";
import type { RolloutLimits } from "./limits.ts";
import { minGroupSize } from "./loaders/checks.ts";
import { resolveTaskset } from "./loaders/taskset.ts";
import { type Summary, SummaryBuilder } from "./outputs/summary.ts";
import { mulberry32, shuffle } from "./random.ts";
import { resolveAutoRuntime, warnUnisolated } from "./runtimes/auto.ts";
import { type RuntimeFactory, runtimeFactory } from "./runtimes/index.ts";
import type { Taskset } from "./task.ts";
import type { TraceRecord } from "./trace/record.ts";
import type { Trace } from "./trace/trace.ts";
import type { TaskData } from "./types.ts";
import { runPulled } from "./workers.ts";

export interface RunGroupOptions {
  client: Client;
  /** Stops scheduling new rollouts and aborts in-flight turns and programs. */
  signal?: AbortSignal;
  /** Each finished trace, as soon as it is final (after group scoring when the task has group rewards). */
  onTrace?: (trace: TraceRecord) => void;
  /** Per-rollout sampling over the config's (e.g. a derived `seed`). */
  samplingFor?: (taskIndex: number, rolloutIndex: number) => Sampling | undefined;
}

/** One unit of work: a task's rollouts (default: all `num_rollouts` of them, as one group). */
export interface WorkItem {
  taskIndex: number;
  /**
   * A subset of rollout slots (resuming). Tasks without group rewards run each as a one-rollout
   * episode filed under its slot; a task with group rewards always runs its whole group.
   */
  rolloutIndices?: readonly number[];
}

export interface EnvironmentRunOptions extends RunGroupOptions {
  /**
   * Rollouts of this run in flight at once, under the environment's shared `max_concurrent`
   * semaphore (which later runs keep unchanged).
   */
  concurrency?: number;
  /** Each finished group (or resumed rollout), with its traces. */
  onGroup?: (taskIndex: number, traces: TraceRecord[]) => void;
  /** Recorded in the summary (default ""). */
  runId?: string;
  /** Reward counted as correct for pass@k (default: the config's `pass_threshold`). */
  passThreshold?: number;
  /** Run-level warnings, each said once per run (e.g. sampling keys a harness sent that were dropped). */
  onWarning?: (message: string) => void;
}

export interface LoadEnvironmentOptions {
  /** Use this taskset instead of resolving `config.taskset.id`. */
  taskset?: Taskset<any, any>;
  /** Where judges at the default endpoint go (the built-in engine offline), judge retry policy. */
  judges?: LoadJudgesOptions;
}

/**
 * Builds the environment a validated config describes (from `loadConfig`, i.e. `validateConfig`):
 * the taskset's rows, the harness, the runtime factory, the judges. It checks nothing of the
 * config; what fails here is loading (a LoadError), not configuration.
 */
export async function loadEnvironment(
  config: EnvConfig,
  options: LoadEnvironmentOptions = {},
): Promise<Environment> {
  const taskset =
    options.taskset ??
    (await resolveTaskset(config.taskset.id, process.cwd(), {
      python: config.python.executable,
      path: config.python.path,
    }));
  // The config was validated (loaders/validate.ts): its harness, runtime and judges are known
  // and fit the taskset, so nothing here checks them again.
  const harness = await getHarness(config.harness.id);
  if (config.harness.runtime.type === "auto") {
    const { type: _, ...extra } = config.harness.runtime;
    const isolation = harness.isolation?.(config.harness) ?? "none";
    const auto = await resolveAutoRuntime(harness.id, isolation, extra);
    if (auto.unisolated !== null) warnUnisolated(harness.id, auto.unisolated);
    // The chosen runtime is what the run records and what rollouts build.
    config = { ...config, harness: { ...config.harness, runtime: auto.spec } };
  }
  const factory = await runtimeFactory(config.harness.runtime.type);

  let loaded: TaskData[];
  try {
    loaded = await taskset.load(tasksetFields(config), {
      limit: config.shuffle ? null : config.num_tasks,
      ...(taskset.taskConfigKeys ? { task: config.taskset.task } : {}),
    });
  } catch (e) {
    throw new LoadError(`taskset: loading "${taskset.id}" failed: ${errorMessage(e)}`, { cause: e });
  }
  // Positions in the loaded rows (the same permutation as shuffling the rows themselves), so an
  // invalid row is named by its place in the dataset.
  let picked = loaded.map((_, i) => i);
  if (config.shuffle) picked = shuffle(picked, mulberry32(0));
  if (config.num_tasks !== null) picked = picked.slice(0, config.num_tasks);
  // Only the rows the run uses are validated: checking all 2,400 of a dataset for `-n 1` was a
  // tenth of an eval's start-up.
  const dataSchema = taskset.dataSchema;
  const once = picked.length <= FEW_ROWS ? ONCE : undefined;
  const rows = picked.map((i) => {
    if (!dataSchema) return loaded[i]!;
    const p = dataSchema.safeParse(loaded[i], once);
    if (!p.success)
      throw new LoadError(`taskset: row ${i} of "${taskset.id}" is invalid: ${p.error.message}`);
    return p.data as TaskData;
  });
  // Last: judges open clients, so nothing that can still fail comes after them.
  const judges = await loadJudges(config.taskset.task.judges, options.judges);
  return new Environment(config, taskset, harness, factory, rows, judges);
}

/**
 * Up to this many rows are parsed without zod's compiled fast path: compiling it (`new Function`,
 * which no code cache keeps) costs more than a few parses take without it.
 */
const FEW_ROWS = 32;

export class Environment {
  private limiter: Limiter;
  private server: Promise<InterceptionServer> | null = null;
  private readonly limits: RolloutLimits;

  constructor(
    readonly config: EnvConfig,
    readonly taskset: Taskset<any, any>,
    readonly harness: Harness,
    private readonly runtimeFactory: RuntimeFactory,
    readonly tasks: readonly TaskData[],
    readonly judges: readonly LoadedJudge[] = [],
  ) {
    this.limiter = createLimiter(config.max_concurrent);
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

  /** Started on first use, and imported then: only program harnesses talk to it. */
  private interception = (): Promise<InterceptionServer> => {
    this.server ??= import("./interception/server.ts").then((m) => new m.InterceptionServer());
    return this.server;
  };

  /**
   * Runs the n rollouts of one task (the global semaphore is shared with every other call).
   * Rejects only with RangeError (n below the group rewards' minimum) or GroupRewardError;
   * rollout failures are on the traces.
   */
  runGroup(
    taskIndex: number,
    n = this.config.num_rollouts,
    options: RunGroupOptions,
  ): Promise<TraceRecord[]> {
    return this.episode(taskIndex, n, options, options.onTrace, this.limiter);
  }

  private async episode(
    taskIndex: number,
    n: number,
    options: RunGroupOptions,
    onTrace: ((r: TraceRecord) => void) | undefined,
    limit: RolloutLimit,
  ): Promise<TraceRecord[]> {
    // A caller's group size (the service's, per request) is an argument, not config: num_rollouts
    // was checked against the group rewards when the config was validated.
    if (n < minGroupSize(this.taskset))
      throw new RangeError(
        `taskset "${this.taskset.id}" has group rewards, which need at least 2 rollouts per task, got ${n}`,
      );
    const task = this.tasks[taskIndex];
    if (task === undefined)
      throw new RangeError(`task index ${taskIndex} out of range (0..${this.tasks.length - 1})`);
    const records: TraceRecord[] = new Array(n);
    const emit = (t: Trace) => {
      const r = t.toRecord();
      records[t.rolloutIndex] = r;
      onTrace?.(r);
    };
    const samplingFor = options.samplingFor;
    await runEpisode({
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
      toolsets: this.config.toolsets,
      toolCallFailures: this.config.tool_call_failures,
      signal: options.signal,
      limit,
      retry: this.config.retries.rollout,
      groupFailure: this.config.retries.group,
      judges: this.judges,
      samplingFor: samplingFor ? (i) => samplingFor(taskIndex, i) : undefined,
      onTrace: emit,
    });
    return records;
  }

  /**
   * The one scheduler (eval, validate, bench): runs the work items in order, starting only
   * enough of them to keep the semaphore busy, so a large eval never holds more than the
   * rollouts in flight. Traces stream out through `onTrace` and into the returned summary. A
   * GroupRewardError stops scheduling and rejects once in-flight groups have finished; an abort
   * stops scheduling, and items never started produce no trace.
   */
  async run(work: readonly WorkItem[] | undefined, options: EnvironmentRunOptions): Promise<Summary> {
    const n = this.config.num_rollouts;
    // Rollouts without a deadline listen on the run's signal itself (rollout.ts), every one in
    // flight at once: past Node's default of 10 it would warn of a leak.
    if (options.signal) setMaxListeners(0, options.signal);
    const items: readonly WorkItem[] = work ?? this.tasks.map((_, taskIndex) => ({ taskIndex }));
    const summary = new SummaryBuilder({
      taskset: this.taskset.id,
      model: this.config.model,
      harness: this.config.harness.id,
      run_id: options.runId ?? "",
      num_tasks: this.config.num_tasks,
      num_rollouts: n,
      pass_threshold: options.passThreshold ?? this.config.pass_threshold,
    });
    const warned = new Set<string>();
    const onTrace = (r: TraceRecord) => {
      summary.add(r);
      for (const w of traceWarnings(r)) {
        if (warned.has(w)) continue;
        warned.add(w);
        options.onWarning?.(w);
      }
      options.onTrace?.(r);
    };
    const perRun = options.concurrency === undefined ? null : createLimiter(options.concurrency);
    const limit: RolloutLimit = perRun ? (fn) => perRun(() => this.limiter(fn)) : this.limiter;
    const whole = (item: WorkItem) =>
      item.rolloutIndices === undefined || item.rolloutIndices.length === n || this.requiresGroupScoring;
    const runItem = async (item: WorkItem): Promise<void> => {
      const records = await this.episode(item.taskIndex, n, options, onTrace, limit);
      options.onGroup?.(item.taskIndex, records);
    };
    const runSlot = async (taskIndex: number, slot: number): Promise<void> => {
      const sampling = options.samplingFor;
      const file = (r: TraceRecord) => ({ ...r, rollout_index: slot });
      const [record] = await this.episode(
        taskIndex,
        1,
        { ...options, samplingFor: sampling && ((t) => sampling(t, slot)) },
        (r) => onTrace(file(r)),
        limit,
      );
      if (record) options.onGroup?.(taskIndex, [file(record)]);
    };
    // Jobs are made as workers pull them, so 100,000 queued rollouts cost nothing up front.
    function* jobs(): Generator<() => Promise<void>> {
      for (const item of items) {
        if (whole(item)) yield () => runItem(item);
        else for (const slot of item.rolloutIndices!) yield () => runSlot(item.taskIndex, slot);
      }
    }
    const smallest = items.every(whole) ? n : 1;
    const capacity = options.concurrency ?? this.limiter.concurrency;
    const workers = Math.min(items.length * n, Math.ceil(capacity / smallest) + 1);
    await runPulled(jobs(), workers, (job) => job(), options.signal);
    return summary.result();
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = null;
    await server?.then(
      (s) => s.close(),
      () => {},
    );
    await Promise.all(this.judges.map((j) => j.close()));
  }
}

/** Warnings a finished trace carries for the whole run to hear once. */
function traceWarnings(r: TraceRecord): string[] {
  const dropped = r.info[DROPPED_SAMPLING_INFO];
  if (!Array.isArray(dropped)) return [];
  return dropped.map(
    (k) =>
      `the harness program sent sampling key "${String(k)}", which the engine does not accept: dropped (listed in each trace's info.${DROPPED_SAMPLING_INFO})`,
  );
}
