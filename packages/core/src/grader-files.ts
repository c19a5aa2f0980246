/**
 * Grader-owned files (issue 36): tests, expected outputs, answer keys a taskset declares with
 * `graderFiles`. The agent never sees them — they are put into the rollout's working folder only
 * after its program has exited and `finalize` ran, just before scoring — and whatever the agent
 * left at those paths (a test rewritten to pass, a planted result file) is replaced. Which paths
 * the agent had written is recorded in `info.grader_files`, so an attempt shows on the trace.
 */
import { TaskError } from "./errors.ts";
import type { Runtime } from "./runtimes/runtime.ts";
import type { HandlerContext, Taskset } from "./task.ts";
import type { TaskData } from "./types.ts";

/** Per path: "placed" (nothing was there) or "replaced" (the agent had left a file there). */
export type GraderFileStatus = "placed" | "replaced";

async function exists(runtime: Runtime, path: string): Promise<boolean> {
  try {
    await runtime.readFile(path);
    return true;
  } catch {
    return false;
  }
}

export async function placeGraderFiles<D extends TaskData>(
  taskset: Taskset<D, any>,
  ctx: HandlerContext<D>,
): Promise<void> {
  const declare = taskset.graderFiles;
  if (!declare) return;
  const files = await declare(ctx.task);
  const runtime = ctx.runtime;
  if (!runtime) throw new TaskError(`taskset "${taskset.id}": graderFiles need the rollout's runtime`);
  const status: Record<string, GraderFileStatus> = {};
  for (const [path, data] of Object.entries(files)) {
    status[path] = (await exists(runtime, path)) ? "replaced" : "placed";
    await runtime.writeFile(path, data);
  }
  ctx.trace.info["grader_files"] = status;
}
