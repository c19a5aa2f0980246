/**
 * One rollout (Verifiers `Rollout.run`): runtime.start → task setup → harness (through the
 * interception session) → finalize → score → runtime.stop. Every failure becomes a typed error on
 * the trace — a failed rollout is data, not a crash. A harness that runs out of time is not an
 * error either: it stops as `harness_timeout` and is still finalized and scored.
 */
import { setMaxListeners } from "node:events";
import type { Client, Sampling } from "./clients/client.ts";
import type { McpServerSpec } from "./config/mcp-spec.ts";
import { argvFiles } from "./config/paths.ts";
import type { HarnessConfig, TimeoutConfig } from "./config/schema.ts";
import {
  asTyped,
  boundary,
  RequestCancelledError,
  SandboxError,
  TaskError,
  ToolsetError,
  UserError,
} from "./errors.ts";
import { placeGraderFiles } from "./grader-files.ts";
import type { Harness } from "./harnesses/harness.ts";
import { taskPrompt } from "./harnesses/prompt.ts";
import type { InterceptionServer } from "./interception/server.ts";
import { RolloutSession } from "./interception/session.ts";
import type { LoadedJudge } from "./judges/loader.ts";
import type { RolloutLimits } from "./limits.ts";
import type { RolloutToolbox } from "./mcp/toolbox.ts";
import { RolloutWiring } from "./mcp/wiring.ts";
import type { RuntimeFactory } from "./runtimes/index.ts";
import type { ReapReport, Runtime, RuntimeSpec } from "./runtimes/runtime.ts";
import { scoreTrace } from "./scoring.ts";
import type { HandlerContext, Taskset, ToolDefinition, UserSimulator } from "./task.ts";
import { isThenable } from "./thenable.ts";
import { applyFailurePenalty, type ToolCallFailurePolicy } from "./tool-call-failures.ts";
import { noteGuard } from "./trace/guard.ts";
import { Trace } from "./trace/trace.ts";
import type { TaskData } from "./types.ts";

export interface RolloutSpec<D extends TaskData = TaskData> {
  taskset: Taskset<D, any>;
  task: D;
  taskIndex: number;
  rolloutIndex: number;
  harness: Harness;
  harnessConfig: HarnessConfig;
  runtime: { spec: RuntimeSpec; factory: RuntimeFactory };
  client: Client;
  model: string;
  sampling: Sampling;
  limits: RolloutLimits;
  timeouts: TimeoutConfig;
  interception(): Promise<InterceptionServer>;
  /** Config `[[toolsets]]` (MCP servers offered with the taskset's own). */
  toolsets?: readonly McpServerSpec[];
  signal?: AbortSignal;
  /** Plugged judges (`taskset.task.judges`), scored after the rewards. */
  judges?: readonly LoadedJudge[];
  /** What a turn with an unparsable tool call does (config `tool_call_failures`; default: counted). */
  toolCallFailures?: ToolCallFailurePolicy;
  /** Rollouts of this rollout's group (1: none shares its prompt; undefined: unknown). */
  groupSize?: number;
}

const now = () => Date.now() / 1000;
const seconds = (s: number | null | undefined) => (s == null ? null : s * 1000);

/**
 * Runs a stage's work and records its timing. Under a deadline an expired stage fails as
 * `TaskError` (the work is abandoned); without one the work runs directly, and work that
 * finished at once (returned no promise) leaves nothing to wait for.
 */
function staged(
  trace: Trace,
  stage: string,
  ms: number | null,
  /** A promise to wait for, or anything else when the work finished at once. */
  work: () => unknown,
): PromiseLike<void> | void {
  const start = now();
  const mark = () => trace.markStage(stage, start, now());
  let pending: unknown;
  try {
    pending = ms === null ? work() : withDeadline(stage, ms, work);
  } catch (e) {
    mark();
    throw e;
  }
  if (!isThenable(pending)) return mark();
  return pending.then(mark, (e: unknown) => {
    mark();
    throw e;
  });
}

async function withDeadline(stage: string, ms: number, work: () => unknown): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new TaskError(`${stage} timed out after ${ms / 1000}s`)), ms);
    });
    await Promise.race([work(), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

function taskTools<D extends TaskData>(spec: RolloutSpec<D>): readonly ToolDefinition<D>[] {
  const t = spec.taskset.tools;
  if (t === undefined) return NO_TOOLS;
  const all = typeof t === "function" ? t(spec.task) : t;
  const disabled = spec.harnessConfig.disabled_tools;
  return disabled ? all.filter((d) => !disabled.includes(d.name)) : all;
}

const NO_TOOLS: readonly ToolDefinition<any>[] = Object.freeze([]);

/** The signal of a rollout nothing can abort (no run signal, no deadline). */
const NEVER_ABORTED = new AbortController().signal;
// Every rollout in flight may listen on it at once.
setMaxListeners(0, NEVER_ABORTED);

/**
 * The host files the rollout's own programs are started from (the command harness's program and
 * its file arguments, colocated toolsets' commands): made absolute when the config was loaded,
 * and shown read-only by a runtime that hides the host.
 */
function programFiles(harness: HarnessConfig, toolsets: readonly McpServerSpec[] = NO_TOOLSETS): string[] {
  // The same two config objects for every rollout of a run: worked out once per pair.
  let byToolsets = programFilesMemo.get(harness);
  if (byToolsets === undefined) {
    byToolsets = new WeakMap();
    programFilesMemo.set(harness, byToolsets);
  }
  let files = byToolsets.get(toolsets);
  if (files === undefined) {
    const argvs = [harness.id === "command" ? harness.command : undefined];
    for (const t of toolsets) if (t.colocated) argvs.push(t.command);
    files = [...new Set(argvs.flatMap((a) => argvFiles(a)))];
    byToolsets.set(toolsets, files);
  }
  // A copy: the runtime factory owns what it is given.
  return files.slice();
}
const NO_TOOLSETS: readonly McpServerSpec[] = Object.freeze([]);
const programFilesMemo = new WeakMap<HarnessConfig, WeakMap<readonly McpServerSpec[], string[]>>();

/** The runtime from its factory (synchronous by contract); a failure is a SandboxError. */
function createRuntime(spec: RolloutSpec<any>): Runtime {
  try {
    return spec.runtime.factory(spec.runtime.spec, {
      forwardEnv: spec.harnessConfig.forward_env,
      readOnlyPaths: programFiles(spec.harnessConfig, spec.toolsets),
    });
  } catch (e) {
    throw asTyped(SandboxError, "runtime create", e);
  }
}

/** The setup stage: the runtime's start, then the task's own setup (when it has one). */
function setUp<D extends TaskData>(
  spec: RolloutSpec<D>,
  runtime: Runtime,
  ctx: () => HandlerContext<D>,
): Promise<void> | void {
  const setup = spec.taskset.setup;
  const taskSetup = setup && (() => boundary(TaskError, "task setup", () => setup(ctx())));
  let started: Promise<void> | void;
  try {
    started = runtime.start();
  } catch (e) {
    throw asTyped(SandboxError, "runtime start", e);
  }
  if (!started) return taskSetup?.();
  return started.then(taskSetup, (e: unknown) => {
    throw asTyped(SandboxError, "runtime start", e);
  });
}

export async function runRollout<D extends TaskData>(spec: RolloutSpec<D>): Promise<Trace> {
  const { taskset, task, timeouts } = spec;
  const trace = new Trace(task, spec.taskIndex, spec.rolloutIndex, taskset.id);
  let runtime: Runtime | null = null;
  // Past the program: a failure now (finalize, scoring, a judge) is the rollout's stop condition.
  let finished = false;
  try {
    if (spec.signal?.aborted) throw new RequestCancelledError("rollout aborted before it started");
    const ctx = (): HandlerContext<D> => ({ task, trace, runtime, signal: spec.signal });
    // Created before the setup deadline so that a start abandoned by the deadline is still stopped.
    runtime = createRuntime(spec);
    const rt = runtime;
    // Each step below may finish at once (no promise): a rollout that starts no program, has no
    // toolsets and no deadlines then waits only for its model calls.
    const setup = staged(trace, "setup", seconds(timeouts.setup ?? task.timeout?.setup), () =>
      setUp(spec, rt, ctx),
    );
    if (setup) await setup;
    const user = taskset.user
      ? await boundary(UserError, "user simulator", () => taskset.user!(ctx()))
      : null;
    await runHarness(spec, trace, rt, user);
    trace.stop("agent_completed");
    finished = true;
    const ended = endAgent(trace, runtime);
    if (ended) await ended;
    const finalize = taskset.finalize;
    if (finalize)
      await staged(trace, "finalize", seconds(timeouts.finalize ?? task.timeout?.finalize), () =>
        boundary(TaskError, "task finalize", () => finalize(ctx())),
      );
    else {
      const at = now();
      trace.markStage("finalize", at, at);
    }
    const score = () => scoreTrace(taskset, trace, { task, runtime, signal: spec.signal }, spec.judges);
    const scored = staged(trace, "scoring", seconds(timeouts.scoring ?? task.timeout?.scoring), () =>
      // The agent can no longer act: its program exited and endAgent ended what it left.
      taskset.graderFiles
        ? boundary(TaskError, "grader files", () => placeGraderFiles(taskset, ctx())).then(score)
        : score(),
    );
    if (scored) await scored;
    applyFailurePenalty(spec.toolCallFailures, trace);
    trace.completed = true;
  } catch (e) {
    trace.captureError(e, finished);
  } finally {
    if (runtime !== null) {
      try {
        const stopped = runtime.stop();
        if (stopped) await stopped;
      } catch (e) {
        const message = `runtime stop: ${e instanceof Error ? e.message : String(e)}`;
        // After scoring the rollout's result is final: a failed cleanup is recorded, but it must
        // not turn a scored rollout into a failed one (or have retries run it again).
        if (trace.completed) trace.info["runtime_stop_error"] = message;
        else trace.captureError(new SandboxError(message));
      }
    }
    spec.client.endSession?.(trace.id);
    if (taskset.release) {
      try {
        taskset.release({ task, trace, runtime: null });
      } catch {
        // Freeing per-rollout resources must not change a finished rollout's result.
      }
    }
    trace.timing.end = now();
  }
  return trace;
}

/**
 * Before finalize and grading: every process the agent's program (or the model's shell) started
 * is ended and waited for, however it detached, so nothing it left behind rewrites the tests
 * or the result files while they are read. What that took is on the trace (`info.guard`).
 */
function endAgent(trace: Trace, runtime: Runtime): Promise<void> | void {
  if (!runtime.reap) {
    noteGuard(trace, `runtime "${runtime.kind}" cannot end processes the agent detached before grading`);
    return;
  }
  let report: Promise<ReapReport> | ReapReport;
  try {
    report = runtime.reap();
  } catch (e) {
    throw asTyped(SandboxError, "runtime reap", e);
  }
  if (!isThenable(report)) return noteReaped(trace, report);
  return report.then(
    (r) => noteReaped(trace, r),
    (e: unknown) => {
      throw asTyped(SandboxError, "runtime reap", e);
    },
  );
}

function noteReaped(trace: Trace, report: ReapReport): void {
  if (report.killed > 0)
    noteGuard(
      trace,
      `${report.killed} process(es) the agent left running were killed before grading (found by ${report.how === "marker" ? "inherited marker or working folder" : report.how})`,
    );
}

/**
 * The generation stage. The deadline aborts in-flight model calls and kills the program's process
 * group through the signal, and the race makes sure a harness that ignores the signal cannot
 * hold the rollout past its budget.
 */
async function runHarness<D extends TaskData>(
  spec: RolloutSpec<D>,
  trace: Trace,
  runtime: Runtime,
  user: UserSimulator | null,
): Promise<void> {
  const limitMs = seconds(spec.timeouts.rollout ?? spec.task.timeout?.harness);
  const outer = spec.signal;
  // A controller of the rollout's own only when a deadline can abort it: without one it would
  // only forward the run's signal, and making it (an EventTarget) and listening on the run's
  // signal was ~3% of a single-turn rollout's CPU. Listeners on the shared signal are removed
  // by whoever adds them, as they must be on the run's signal already.
  const abort = limitMs === null ? null : new AbortController();
  const signal = abort?.signal ?? outer ?? NEVER_ABORTED;
  const onOuterAbort = abort && outer && (() => abort.abort(outer.reason));
  if (onOuterAbort) outer!.addEventListener("abort", onOuterAbort, { once: true });
  const tools = taskTools(spec);
  const wiring = new RolloutWiring<D>({
    taskset: spec.taskset,
    task: spec.task,
    runtime,
    harnessConfig: spec.harnessConfig,
    configured: spec.toolsets ?? [],
    interception: spec.interception,
    signal,
  });
  user ??= wiring.mcpUser();
  const drives = spec.harness.drivesUserTurns === true;
  const session = new RolloutSession<D>({
    task: spec.task,
    handlers: spec.taskset,
    trace,
    client: spec.client,
    model: spec.model,
    sampling: spec.sampling,
    limits: spec.limits,
    runtime,
    tools,
    user: drives ? null : user,
    signal,
    refuseHostedTools: spec.harnessConfig.hosted_tools === "refuse",
    toolCallFailures: spec.toolCallFailures,
    promptShared: spec.groupSize === undefined ? undefined : spec.groupSize > 1,
  });
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  const start = now();
  try {
    const context = () => ({ task: spec.task, trace, runtime, signal });
    const extra = spec.harness.toolsets?.(context, spec.harnessConfig) ?? [];
    let toolbox: RolloutToolbox;
    try {
      const bound = wiring.bind(session, tools, context, extra);
      toolbox = isThenable<RolloutToolbox>(bound) ? await bound : bound;
    } catch (e) {
      throw asTyped(ToolsetError, "toolsets", e);
    }
    const run = spec.harness.run({
      task: spec.task,
      session,
      runtime,
      config: spec.harnessConfig,
      prompt: taskPrompt(spec.task),
      tools,
      signal,
      timeoutMs: limitMs,
      interception: spec.interception,
      toolbox,
      endpoint: wiring.endpoint,
      user: drives ? user : null,
    });
    if (limitMs === null) await run;
    else {
      run.catch(() => {}); // settled by the race below; a late rejection must not go unhandled
      const expired = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          timedOut = true;
          abort!.abort(new Error("harness timeout"));
          resolve();
        }, limitMs);
      });
      await Promise.race([run, expired]);
    }
  } catch (e) {
    if (!timedOut) throw e;
  } finally {
    clearTimeout(timer);
    if (onOuterAbort) outer!.removeEventListener("abort", onOuterAbort);
    const closed = wiring.close();
    if (closed) await closed;
    trace.markStage("generation", start, now());
  }
  if (timedOut) {
    trace.stop("harness_timeout");
    return;
  }
  // Over HTTP the program only saw a status; the real cause of its failure is re-raised here.
  if (session.error) throw session.error;
}
