/**
 * A Python Verifiers V1 taskset as an envroll `Taskset`: every hook is a request to the shared
 * Python host (host.ts), which runs the environment's own code. Downstream (episode loop,
 * interception, tokens, traces, Miles samples) nothing knows the taskset is Python.
 *
 * Mapping (V1 → envroll):
 *   config fields      → `configSchema` keys (unknown keys are caught with did-you-mean at config
 *                        time); values by the taskset's pydantic model, through `checkConfig`,
 *                        which the config validator calls (the host's `check_config`)
 *   `@vf.stop`         → one stop per function; the first in V1 order asks Python for all of them
 *   `Task.score`       → one call per rollout; its metrics are recorded as returned, each reward
 *                        as V1 stored it (already weighted, so the envroll weight is 1)
 *   `@vf.group_reward` → one call per group, the same way
 *   `vf.User`          → an instance per rollout in the host, `respond` per turn
 *   runtime            → callbacks from Python to the rollout's envroll runtime
 */
import { z } from "zod";
import { TaskError } from "../errors.ts";
import type { Runtime } from "../runtimes/runtime.ts";
import type {
  ConfigIssue,
  GroupReward,
  HandlerContext,
  LocalToolset,
  Metric,
  Reward,
  StopCondition,
  Taskset,
  TasksetOrigin,
  TraceView,
  UserSimulator,
} from "../task.ts";
import type { Message, TaskData } from "../types.ts";
import { fromPython } from "./errors.ts";
import { type HostOptions, PythonError, type PythonHost, PythonHostError, sharedHost } from "./host.ts";

export interface HandlerInfo {
  name: string;
  priority: number;
  weight: number | null;
  needs_runtime: boolean;
}

/** What `describe` says of a Python taskset (see envroll_v1host/ops.py). */
export interface PythonTasksetInfo {
  module: string;
  class: string;
  file: string | null;
  version: string | null;
  verifiers_version: string | null;
  config_fields: string[];
  task_config_fields: string[];
  task_class: string;
  stops: HandlerInfo[];
  metrics: HandlerInfo[];
  rewards: HandlerInfo[];
  group_rewards: HandlerInfo[];
  user: string | null;
  /** `Task.tools` and `Taskset.tools`: each server's name and its tools as FastMCP advertises them. */
  toolsets: {
    server: string;
    /** A taskset-level toolset: one instance for the loaded taskset, called with each rollout's state. */
    shared: boolean;
    tools: { name: string; description: string; parameters: Record<string, unknown> }[];
  }[];
  setup: boolean;
  finalize: boolean;
  /** `hidden_fields` on the Taskset or Task class: `Taskset.hiddenFields`. */
  hidden_fields: string[];
}

/** The snapshot of a rollout Python rebuilds its `Trace` from (envroll_v1host/trace.py). */
export function snapshot(trace: TraceView): Record<string, unknown> {
  const messages = trace.messages;
  // The model's turns are the last `numTurns` assistant messages; earlier ones came with the prompt.
  const sampled: number[] = [];
  for (let i = messages.length - 1, left = trace.numTurns; i >= 0 && left > 0; i--) {
    if (messages[i]!.role === "assistant") {
      sampled.push(i);
      left--;
    }
  }
  return {
    id: trace.id,
    messages,
    sampled,
    metrics: trace.metrics,
    rewards: trace.rewards,
    info: trace.info,
    stop_condition: trace.stopCondition,
  };
}

interface ScoreResult {
  metrics: Record<string, number>;
  rewards: Record<string, number>;
  info: Record<string, unknown>;
}

/** A Python module of the id exists but does not import as a taskset (the loader reports it as taskset.id). */
export class PythonImportError extends Error {
  override name = "PythonImportError";
}

/** Resolves `id` in Python; null when no Python module of that name is importable. */
export async function resolvePythonTaskset(
  id: string,
  opts: HostOptions = {},
): Promise<Taskset<any, any> | null> {
  const host = sharedHost(opts);
  let info: PythonTasksetInfo;
  try {
    info = await host.request<PythonTasksetInfo>("describe", { taskset_id: id, path: opts.path ?? [] });
  } catch (e) {
    if (e instanceof PythonError && e.record.type === "NotFound") return null;
    // No interpreter at all: this id is simply not a Python taskset here.
    if (e instanceof PythonHostError && /could not run/.test(e.message)) return null;
    const detail = e instanceof PythonError ? (e.record.traceback ?? e.message) : String(e);
    throw new PythonImportError(`Python taskset "${id}" (${host.python}) could not be imported:\n${detail}`);
  }
  return pythonTaskset(id, info, host);
}

/** The `[taskset.task]` table as Python gets it: the judges are envroll's. */
function pythonTask(task: Record<string, unknown>): Record<string, unknown> {
  const { judges: _, ...rest } = task;
  return rest;
}

export function pythonTaskset(id: string, info: PythonTasksetInfo, host: PythonHost): Taskset<any, any> {
  let loadRequest: Record<string, unknown> | null = null;
  let loaded: { gen: number; result: Promise<{ handle: number; rows: TaskData[] }> } | null = null;
  const runtimes = new Map<string, Runtime>();
  const scores = new Map<string, Promise<ScoreResult>>();
  const stopsFired = new Map<string, Promise<string | null>>();
  const groups = new WeakMap<readonly TraceView[], Promise<Record<string, number>[]>>();

  host.onCallback(async (op, msg) => {
    if (!op.startsWith("runtime.")) return undefined;
    const rt = runtimes.get(String(msg["rollout"]));
    if (!rt) return undefined;
    if (op === "runtime.run") {
      const r = await rt.run(msg["argv"] as string[], { env: msg["env"] as Record<string, string> });
      return { exit_code: r.exitCode, stdout: r.stdout, stderr: r.stderr };
    }
    if (op === "runtime.read")
      return { data: Buffer.from(await rt.readFile(String(msg["path"]))).toString("base64") };
    if (op === "runtime.write") {
      await rt.writeFile(String(msg["path"]), Buffer.from(String(msg["data"]), "base64"));
      return {};
    }
    return undefined;
  });

  /** The taskset loaded in the running host; loaded again after a restart. */
  function loadedTaskset(): Promise<{ handle: number; rows: TaskData[] }> {
    if (loaded && loaded.gen === host.gen && host.pid !== null) return loaded.result;
    if (!loadRequest) throw new Error(`taskset "${id}" used before load()`);
    const p = host.request<{ handle: number; rows: TaskData[] }>("load", loadRequest);
    // The generation is read after request() started the process, so it names that process.
    const entry = { gen: host.gen, result: p };
    loaded = entry;
    p.catch(() => {
      if (loaded === entry) loaded = null;
    });
    return p;
  }
  const handle = async () => (await loadedTaskset()).handle;

  async function call<T>(
    op: string,
    ctx: HandlerContext<TaskData>,
    extra: Record<string, unknown>,
    boundary: "TaskError" | "UserError" | "ToolsetError",
  ) {
    try {
      const rollout = ctx.trace.id;
      if (ctx.runtime) runtimes.set(rollout, ctx.runtime);
      return await host.request<T>(op, {
        handle: await handle(),
        idx: ctx.task.idx,
        rollout,
        runtime: ctx.runtime ? ctx.runtime.kind : null,
        trace: snapshot(ctx.trace),
        ...extra,
      });
    } catch (e) {
      throw fromPython(e, boundary);
    }
  }

  function score(ctx: HandlerContext<TaskData>): Promise<ScoreResult> {
    let p = scores.get(ctx.trace.id);
    if (!p) {
      p = call<ScoreResult>("score", ctx, {}, "TaskError").then((r) => {
        Object.assign(ctx.trace.info, r.info);
        return r;
      });
      scores.set(ctx.trace.id, p);
    }
    return p;
  }

  const stopOrder = [...info.stops].sort(
    (a, b) => b.priority - a.priority || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
  const stops: StopCondition[] = stopOrder.map((s, i) => ({
    name: s.name,
    priority: s.priority,
    fn: async (ctx) => {
      let fired = i === 0 ? undefined : stopsFired.get(ctx.trace.id);
      if (fired === undefined) {
        fired = call<string | null>("stop", ctx, {}, "TaskError");
        stopsFired.set(ctx.trace.id, fired);
      }
      return (await fired) === s.name;
    },
  }));

  const metrics: Metric[] =
    info.metrics.length + info.rewards.length > 0
      ? [{ name: `${info.task_class}.score`, fn: async (ctx) => (await score(ctx)).metrics }]
      : [];
  const rewards: Reward[] = info.rewards.map((r) => ({
    name: r.name,
    priority: r.priority,
    weight: 1, // Python already stored value × weight, as V1 records it
    needsRuntime: r.needs_runtime,
    fn: async (ctx) => {
      const v = (await score(ctx)).rewards[r.name];
      if (typeof v !== "number") throw new TaskError(`reward ${r.name} recorded no value`);
      return v;
    },
  }));
  const groupRewards: GroupReward[] = info.group_rewards.map((g) => ({
    name: g.name,
    priority: g.priority,
    weight: 1,
    fn: async ({ task, traces }) => {
      let p = groups.get(traces);
      if (!p) {
        p = (async () => {
          try {
            return await host.request<Record<string, number>[]>("score_group", {
              handle: await handle(),
              idx: task.idx,
              traces: traces.map(snapshot),
            });
          } catch (e) {
            throw fromPython(e, "TaskError");
          }
        })();
        groups.set(traces, p);
      }
      return (await p).map((r) => r[g.name] ?? 0);
    },
  }));

  const origin: TasksetOrigin = {
    language: "python",
    module: info.module,
    version: info.version,
    class: info.class,
    file: info.file,
    verifiers: info.verifiers_version,
    python: host.python,
  };
  const configSchema = z.strictObject(
    Object.fromEntries(info.config_fields.map((k) => [k, z.unknown().optional()])),
  ) as z.ZodType<Record<string, unknown>>;

  const taskset: Taskset<any, any> = {
    id,
    description: `Python Verifiers V1 taskset ${info.module}.${info.class}`,
    origin,
    configSchema,
    taskConfigKeys: info.task_config_fields,
    async checkConfig(config: Record<string, unknown>, task: Record<string, unknown>) {
      const request = { taskset_id: id, path: host.path, config: { ...config, task: pythonTask(task) } };
      return (await host.request<{ issues: ConfigIssue[] }>("check_config", request)).issues;
    },
    async load(config: Record<string, unknown>, hint) {
      const task = pythonTask(hint?.task ?? {});
      loadRequest = { taskset_id: id, path: host.path, config: { ...config, task } };
      loaded = null;
      try {
        return (await loadedTaskset()).rows;
      } catch (e) {
        throw fromPython(e, "TaskError");
      }
    },
    stops,
    metrics,
    rewards,
    groupRewards,
    release(ctx) {
      const rollout = ctx.trace.id;
      runtimes.delete(rollout);
      scores.delete(rollout);
      stopsFired.delete(rollout);
      if (host.pid !== null) host.request("release", { rollout }).catch(() => {});
    },
  };
  if (info.setup)
    taskset.setup = (ctx) =>
      call("setup", ctx, {}, "TaskError").then((r: any) => void Object.assign(ctx.trace.info, r.info));
  if (info.finalize)
    taskset.finalize = (ctx) =>
      call("finalize", ctx, {}, "TaskError").then((r: any) => void Object.assign(ctx.trace.info, r.info));
  if (info.hidden_fields.length > 0) taskset.hiddenFields = info.hidden_fields;
  if (info.toolsets.length > 0)
    taskset.toolsets = info.toolsets.map(
      (ts): LocalToolset => ({
        name: ts.server,
        tools: ts.tools.map((t) => ({
          name: t.name,
          description: t.description,
          parameters: t.parameters,
          execute: (args: Record<string, unknown>, ctx: HandlerContext<TaskData>) =>
            call<string>(
              "tool",
              ctx,
              { server: ts.server, tool: t.name, args, shared: ts.shared },
              "ToolsetError",
            ),
        })),
      }),
    );
  if (info.user)
    taskset.user = (ctx): UserSimulator => ({
      respond: (message: string) => call<Message[]>("user", ctx, { message }, "UserError"),
    });
  return taskset;
}
