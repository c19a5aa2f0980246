/**
 * The group-failure policy (`retries.group`): what an episode does with members whose final
 * attempt failed, once `retries.rollout` has run. It decides here, once, for eval, `envroll
 * serve` and Miles alike; what each consumer does with the outcome is in the trace's
 * `info.group_failure` (`excluded` members are kept out of the group's scores and trained with
 * no loss; a `dropped` group trains nothing).
 *
 * - `retry`: each failed member re-runs (a fresh rollout) up to `max_retries` times;
 * - `retry-group`: the whole group re-runs up to `max_retries` times while any member fails;
 * - `shrink`: the survivors stay a group on their own (two at least where group rewards compare
 *   members, else the group is dropped);
 * - `drop-group`: nothing of the group is trained.
 * `retry` and `retry-group` end in `fallback` (`shrink` or `drop-group`) when re-runs are spent.
 */
import type { GroupFailurePolicy } from "./config/schema.ts";
import type { Trace } from "./trace/trace.ts";

export type MemberOutcome = "kept" | "excluded" | "dropped";

/** What `info.group_failure` holds on every member of a group the policy touched. */
export interface GroupFailureInfo {
  policy: GroupFailurePolicy["policy"];
  outcome: MemberOutcome;
  /** Times this member was re-run by `retry`. */
  member_retries: number;
  /** Times the whole group was re-run by `retry-group`. */
  group_retries: number;
}

/**
 * A rollout whose final attempt failed: it has errors and was not retried into a completed
 * attempt (earlier attempts' errors stay on a trace that later succeeded).
 */
export function finalAttemptFailed(t: {
  errors: readonly unknown[];
  attempts: number;
  completed: boolean;
}): boolean {
  return t.errors.length > 0 && !(t.attempts > 0 && t.completed);
}

const failed = (t: Trace) => finalAttemptFailed(t);

/** A re-run replaces a failed member; the failures before it stay visible on the new trace. */
function replace(old: Trace, fresh: Trace): Trace {
  fresh.errors = [...old.errors, ...fresh.errors];
  fresh.attempts += old.attempts + 1;
  return fresh;
}

/**
 * Applies `policy` to a finished group. `rerun(i)` runs member i afresh (with its own
 * `retries.rollout`); `minSurvivors` is 2 where group rewards compare members, else 1.
 * Returns the group's final members (re-runs replace the failed ones, in place): at once, not
 * as a promise, when no member failed.
 */
export function applyGroupFailure(
  group: Trace[],
  policy: GroupFailurePolicy,
  rerun: (i: number) => Promise<Trace>,
  minSurvivors: number,
  signal?: AbortSignal,
): Trace[] | Promise<Trace[]> {
  if (!group.some(failed)) return group;
  return settleFailures(group, policy, rerun, minSurvivors, signal);
}

async function settleFailures(
  group: Trace[],
  policy: GroupFailurePolicy,
  rerun: (i: number) => Promise<Trace>,
  minSurvivors: number,
  signal: AbortSignal | undefined,
): Promise<Trace[]> {
  let members = group;
  const memberRetries = new Array<number>(group.length).fill(0);
  let groupRetries = 0;
  let mode: GroupFailurePolicy["policy"] = policy.policy;
  if (mode === "retry") {
    for (let k = 0; k < policy.max_retries && members.some(failed) && !signal?.aborted; k++)
      members = await Promise.all(
        members.map(async (t, i) => {
          if (!failed(t)) return t;
          memberRetries[i]!++;
          return replace(t, await rerun(i));
        }),
      );
    mode = policy.fallback;
  } else if (mode === "retry-group") {
    for (let k = 0; k < policy.max_retries && members.some(failed) && !signal?.aborted; k++) {
      groupRetries++;
      members = await Promise.all(members.map(async (t, i) => replace(t, await rerun(i))));
    }
    mode = policy.fallback;
  }
  const survivors = members.filter((t) => !failed(t)).length;
  const drop = members.some(failed) && (mode === "drop-group" || survivors < minSurvivors);
  members.forEach((t, i) => {
    const outcome: MemberOutcome = drop ? "dropped" : failed(t) ? "excluded" : "kept";
    const info: GroupFailureInfo = {
      policy: policy.policy,
      outcome,
      member_retries: memberRetries[i]!,
      group_retries: groupRetries,
    };
    t.info.group_failure = info;
  });
  return members;
}

/** Members whose scores count for the group (all but `excluded` ones). */
export function scoredMembers(group: readonly Trace[]): Trace[] {
  return group.filter((t) => (t.info.group_failure as GroupFailureInfo | undefined)?.outcome !== "excluded");
}
