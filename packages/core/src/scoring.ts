/**
 * Scoring (Verifiers `Task.score` / `score_group`). Order is the contract: metrics first
 * (recorded unweighted), then rewards (recorded as value × weight), so a reward may read a
 * metric — code-golf's `correct` reads the `passed` metric — then the plugged judges (value ×
 * weight under each judge's name; see `judges/run.ts`). Within a phase handlers run
 * concurrently and are recorded in (−priority, name) order; judges in config order.
 */
import { GroupRewardError, TaskError } from "./errors.ts";
import type { LoadedJudge } from "./judges/loader.ts";
import { scoreJudges } from "./judges/run.ts";
import type {
  GroupReward,
  HandlerContext,
  Metric,
  Reward,
  StopCondition,
  TaskHandlers,
  TraceView,
} from "./task.ts";
import type { Trace } from "./trace/trace.ts";
import type { TaskData } from "./types.ts";

type Ordered = { name: string; priority?: number };

/** Handlers in evaluation order: higher priority first, then by name. */
export function ordered<H extends Ordered>(handlers: readonly H[] | undefined): H[] {
  return [...(handlers ?? [])].sort(
    (a, b) => (b.priority ?? 0) - (a.priority ?? 0) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
}

function checkNumber(kind: string, name: string, v: unknown): number {
  if (typeof v !== "number" || Number.isNaN(v))
    throw new TaskError(`${kind} ${name} returned ${String(v)}, not a number`);
  return v;
}

async function settle<H extends Ordered, R>(handlers: H[], run: (h: H) => Promise<R> | R) {
  const results = await Promise.allSettled(handlers.map(async (h) => run(h)));
  return results.map((r, i) => ({ handler: handlers[i]!, result: r }));
}

/**
 * Scores one finished trace in place. Handlers marked `needsRuntime` are skipped when
 * `ctx.runtime` is null (offline re-scoring). Any handler failure becomes a TaskError — thrown
 * after every sibling in the phase has been recorded, so partial scores remain on the trace.
 */
export async function scoreTrace<D extends TaskData>(
  handlers: TaskHandlers<D>,
  trace: Trace,
  ctx: Omit<HandlerContext<D>, "trace">,
  judges: readonly LoadedJudge[] = [],
): Promise<void> {
  const hctx: HandlerContext<D> = { ...ctx, trace };
  const usable = <H extends Metric<D> | Reward<D>>(hs: H[] | undefined) =>
    ordered(hs).filter((h) => !(h.needsRuntime && ctx.runtime === null));

  recordPhase("metric", await settle(usable(handlers.metrics), (m) => m.fn(hctx)), (h, v) => {
    if (typeof v === "number") trace.recordMetric(h.name, checkNumber("metric", h.name, v));
    else for (const [k, x] of Object.entries(v)) trace.recordMetric(k, checkNumber("metric", k, x));
  });
  recordPhase("reward", await settle(usable(handlers.rewards), (h) => h.fn(hctx)), (h, v) => {
    trace.recordReward(h.name, checkNumber("reward", h.name, v) * (h.weight ?? 1));
  });
  await scoreJudges(judges, trace, ctx.task, ctx.signal);
}

/** Records every handler of a phase that succeeded, then throws the first failure (in order). */
function recordPhase<H extends Ordered, R>(
  kind: string,
  results: { handler: H; result: PromiseSettledResult<R> }[],
  record: (handler: H, value: R) => void,
): void {
  let failure: TaskError | null = null;
  for (const { handler, result } of results) {
    try {
      if (result.status === "rejected") throw result.reason;
      record(handler, result.value);
    } catch (e) {
      failure ??= wrap(kind, handler.name, e);
    }
  }
  if (failure) throw failure;
}

function wrap(kind: string, name: string, e: unknown): TaskError {
  if (e instanceof TaskError) return e;
  return new TaskError(`${kind} ${name} failed: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
}

/**
 * Group rewards over all n traces of a task, errored ones included. Each must return exactly n
 * numbers; anything else fails the group loudly (GroupRewardError), because a wrong-length
 * answer means the scores cannot be attributed to traces.
 */
export async function scoreGroup<D extends TaskData>(
  groupRewards: readonly GroupReward<D>[] | undefined,
  task: D,
  traces: readonly Trace[],
): Promise<void> {
  const handlers = ordered(groupRewards);
  const views: readonly TraceView[] = traces;
  const results = await settle(handlers, (g) => g.fn({ task, traces: views }));
  for (const { handler, result } of results) {
    if (result.status === "rejected") {
      const msg = result.reason instanceof Error ? result.reason.message : String(result.reason);
      throw new GroupRewardError(`group reward ${handler.name} failed: ${msg}`, { cause: result.reason });
    }
    const scores = result.value;
    if (!Array.isArray(scores) || scores.length !== traces.length)
      throw new GroupRewardError(
        `group reward ${handler.name} returned ${Array.isArray(scores) ? scores.length : typeof scores} values for ${traces.length} traces`,
      );
    scores.forEach((s, i) => {
      if (typeof s !== "number" || Number.isNaN(s))
        throw new GroupRewardError(`group reward ${handler.name} returned ${String(s)} at index ${i}`);
      traces[i]!.recordReward(handler.name, s * (handler.weight ?? 1));
    });
  }
}

/** The first stop condition (by order) that holds, or null. A throwing stop is a TaskError. */
export async function firedStop<D extends TaskData>(
  stops: readonly StopCondition<D>[] | undefined,
  ctx: HandlerContext<D>,
): Promise<string | null> {
  for (const s of ordered(stops)) {
    let fired: boolean;
    try {
      fired = await s.fn(ctx);
    } catch (e) {
      throw wrap("stop condition", s.name, e);
    }
    if (fired) return s.name;
  }
  return null;
}
