/**
 * Scoring (Verifiers `Task.score` / `score_group`). Order is the contract: metrics first
 * (recorded unweighted), then rewards (recorded as value × weight), so a reward may read a
 * metric — code-golf's `correct` reads the `passed` metric — then the plugged judges (value ×
 * weight under each judge's name; see `judges/run.ts`). Within a phase handlers run
 * concurrently and are recorded in (−priority, name) order; judges in config order.
 */
import { GroupRewardError, RolloutError, TaskError } from "./errors.ts";
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
import { isThenable } from "./thenable.ts";
import type { Trace } from "./trace/trace.ts";
import type { TaskData } from "./types.ts";

type Ordered = { name: string; priority?: number };

const NONE: readonly never[] = Object.freeze([]);

/** Handlers in evaluation order: higher priority first, then by name (a list of one is its own order). */
export function ordered<H extends Ordered>(handlers: readonly H[] | undefined): readonly H[] {
  if (handlers === undefined || handlers.length === 0) return NONE;
  if (handlers.length === 1) return handlers;
  return [...handlers].sort(
    (a, b) => (b.priority ?? 0) - (a.priority ?? 0) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
}

function checkNumber(kind: string, name: string, v: unknown): number {
  if (typeof v !== "number" || Number.isNaN(v))
    throw new TaskError(`${kind} ${name} returned ${String(v)}, not a number`);
  return v;
}

type Settled<R> = PromiseSettledResult<Awaited<R>>;

/**
 * Runs every handler (all started in order, as if concurrently) and settles each result. When
 * none returned a promise the results are ready without a microtask round trip.
 */
function settle<H extends Ordered, R>(
  handlers: readonly H[],
  run: (h: H) => R,
): Settled<R>[] | Promise<Settled<R>[]> {
  const results: (Settled<R> | PromiseLike<Awaited<R>>)[] = new Array(handlers.length);
  let pending = false;
  for (let i = 0; i < handlers.length; i++) {
    try {
      const value = run(handlers[i]!);
      if (isThenable(value)) {
        pending = true;
        results[i] = value as PromiseLike<Awaited<R>>;
      } else results[i] = { status: "fulfilled", value: value as Awaited<R> };
    } catch (reason) {
      results[i] = { status: "rejected", reason };
    }
  }
  if (!pending) return results as Settled<R>[];
  return Promise.allSettled(results.map((r) => (isThenable(r) ? r : settledValue(r))));
}

/** A settled result as what `Promise.allSettled` turns back into the same result. */
function settledValue<R>(r: Settled<R>): Promise<Awaited<R>> | Awaited<R> {
  return r.status === "fulfilled" ? r.value : Promise.reject(r.reason);
}

/**
 * Scores one finished trace in place. Handlers marked `needsRuntime` are skipped when
 * `ctx.runtime` is null (offline re-scoring). Any handler failure becomes a TaskError — thrown
 * after every sibling in the phase has been recorded, so partial scores remain on the trace.
 */
export function scoreTrace<D extends TaskData>(
  handlers: TaskHandlers<D>,
  trace: Trace,
  ctx: Omit<HandlerContext<D>, "trace">,
  judges: readonly LoadedJudge[] = [],
): Promise<void> | void {
  const hctx: HandlerContext<D> = { ...ctx, trace };
  const offline = ctx.runtime === null;
  const metrics = usable(handlers.metrics, offline);
  const rewards = usable(handlers.rewards, offline);
  const judged = () => (judges.length > 0 ? scoreJudges(judges, trace, ctx.task, ctx.signal) : undefined);
  const rewarded = () => scorePhase("reward", rewards, (h) => h.fn(hctx), trace, recordReward, judged);
  return scorePhase("metric", metrics, (m) => m.fn(hctx), trace, recordMetric, rewarded);
}

/**
 * One phase, then `next`: at once when no handler returned a promise (scoring a chat reply's
 * text then finishes without a microtask round trip), else once every handler settled.
 */
function scorePhase<H extends Ordered, R>(
  kind: string,
  handlers: readonly H[],
  run: (h: H) => R,
  trace: Trace,
  record: (trace: Trace, handler: H, value: Awaited<R>) => void,
  next: () => Promise<void> | void,
): Promise<void> | void {
  if (handlers.length === 0) return next();
  const settled = settle(handlers, run);
  if (Array.isArray(settled)) {
    recordPhase(kind, handlers, settled, trace, record);
    return next();
  }
  return settled.then((results) => {
    recordPhase(kind, handlers, results, trace, record);
    return next();
  });
}

function usable<H extends { needsRuntime?: boolean } & Ordered>(
  hs: readonly H[] | undefined,
  offline: boolean,
): readonly H[] {
  const all = ordered(hs);
  return offline ? all.filter((h) => !h.needsRuntime) : all;
}

function recordMetric(trace: Trace, h: Metric<any>, v: number | Record<string, number>): void {
  if (typeof v === "number") trace.recordMetric(h.name, checkNumber("metric", h.name, v));
  else for (const [k, x] of Object.entries(v)) trace.recordMetric(k, checkNumber("metric", k, x));
}

function recordReward(trace: Trace, h: Reward<any>, v: number): void {
  trace.recordReward(h.name, checkNumber("reward", h.name, v) * (h.weight ?? 1));
}

/** Records every handler of a phase that succeeded, then throws the first failure (in order). */
function recordPhase<H extends Ordered, R>(
  kind: string,
  handlers: readonly H[],
  results: readonly PromiseSettledResult<R>[],
  trace: Trace,
  record: (trace: Trace, handler: H, value: R) => void,
): void {
  let failure: RolloutError | null = null;
  for (let i = 0; i < handlers.length; i++) {
    const handler = handlers[i]!;
    const result = results[i]!;
    try {
      if (result.status === "rejected") throw result.reason;
      record(trace, handler, result.value);
    } catch (e) {
      failure ??= wrap(kind, handler.name, e);
    }
  }
  if (failure) throw failure;
}

/** A plain failure becomes a TaskError; an already-typed one (a SandboxError from the runtime, a
 * dead Python host) passes through, as V1's `boundary` lets a typed RolloutError through. */
function wrap(kind: string, name: string, e: unknown): RolloutError {
  if (e instanceof RolloutError) return e;
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
  for (let i = 0; i < handlers.length; i++) {
    const handler = handlers[i]!;
    const result = results[i]!;
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

/**
 * The first stop condition (by order) that holds, or null; a promise only once a condition
 * returned one (most are plain predicates, checked before every model call). A throwing stop
 * is a TaskError.
 */
export function firedStop<D extends TaskData>(
  stops: readonly StopCondition<D>[] | undefined,
  ctx: HandlerContext<D>,
): string | null | Promise<string | null> {
  const list = ordered(stops);
  for (let i = 0; i < list.length; i++) {
    const s = list[i]!;
    let fired: boolean | PromiseLike<boolean>;
    try {
      fired = s.fn(ctx);
    } catch (e) {
      throw wrap("stop condition", s.name, e);
    }
    if (isThenable(fired)) return firedFrom(list, i, fired, ctx);
    if (fired) return s.name;
  }
  return null;
}

/** `firedStop` from condition `i` on, whose result is still pending. */
async function firedFrom<D extends TaskData>(
  list: readonly StopCondition<D>[],
  i: number,
  pending: PromiseLike<boolean>,
  ctx: HandlerContext<D>,
): Promise<string | null> {
  for (let j = i; j < list.length; j++) {
    const s = list[j]!;
    let fired: boolean;
    try {
      fired = await (j === i ? pending : s.fn(ctx));
    } catch (e) {
      throw wrap("stop condition", s.name, e);
    }
    if (fired) return s.name;
  }
  return null;
}
