/**
 * reverse-text with a member that fails (issue 36's group-failure policies through `envroll
 * serve` and Miles): in the group of task 0, rollout 0's setup throws a TaskError — on its first
 * attempt only with FLAKY_MODE=first (so `retry` and `retry-group` recover), on every attempt with
 * FLAKY_MODE=always (so `shrink` excludes it and `drop-group` drops the group). Attempts are
 * counted in this serve process, which is the one that re-runs them. Everything else is
 * reverse-text's, so the built-in engine's reference policy answers it.
 */
import { TaskError } from "../../packages/core/src/errors.ts";
import { defineTaskset } from "../../packages/core/src/task.ts";
import reverseText from "../../packages/core/src/tasksets/reverse-text/index.ts";

const attempts = new Map<number, number>();

export default defineTaskset({
  ...reverseText,
  id: "flaky-reverse-text",
  setup({ task, trace }) {
    if (task.idx !== 0) return;
    const member = (trace as unknown as { rolloutIndex: number }).rolloutIndex;
    if (member !== 0) return;
    const n = (attempts.get(task.idx) ?? 0) + 1;
    attempts.set(task.idx, n);
    const mode = process.env["FLAKY_MODE"] ?? "always";
    if (mode === "always" || n === 1)
      throw new TaskError(`flaky: task 0 member 0 fails (attempt ${n}, ${mode})`);
  },
});
