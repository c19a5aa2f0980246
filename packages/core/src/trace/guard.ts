/**
 * `info.guard` on a trace: what envroll refused or undid because the agent tried to reach past
 * its episode (issue 36) — a refused state write, withheld task fields, processes left running
 * into grading, a grader path the agent had planted. One readable line per event, so a reward
 * that stayed low for a reason shows that reason beside it.
 */
interface HasInfo {
  readonly info: Record<string, unknown>;
}

export function noteGuard(trace: HasInfo, event: string): void {
  const list = trace.info["guard"];
  if (Array.isArray(list)) {
    // A program that repeats a refused request a thousand times is recorded once per kind.
    if (!list.includes(event)) list.push(event);
  } else trace.info["guard"] = [event];
}
