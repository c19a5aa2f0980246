/**
 * What a rollout does with a sampled turn whose text looked like a tool call but did not parse
 * (config `[tool_call_failures]`): `count` records it (on the turn's node, the trace and the
 * summary) and lets the harness answer the broken call; `error` ends the rollout on that turn
 * with a `ToolCallParseError`; `penalty` subtracts `penalty` from the reward per such turn, as
 * the reward term `tool_call_failure_penalty`. Other rollout systems were reported to reach
 * high rewards with every call silently unparsed; this makes the failure visible or costly.
 */
import type { ModelResponse } from "./clients/client.ts";
import { ToolCallParseError } from "./errors.ts";
import type { Trace } from "./trace/trace.ts";

export interface ToolCallFailurePolicy {
  action: "count" | "error" | "penalty";
  /** Subtracted from the reward per failed turn (`action = "penalty"`). */
  penalty: number;
}

export const PENALTY_REWARD = "tool_call_failure_penalty";

/** The typed error a failed turn becomes under `action = "error"`, else null. */
export function failedTurnError(
  policy: ToolCallFailurePolicy | undefined,
  response: ModelResponse,
  turn: number,
): ToolCallParseError | null {
  const failures = response.toolCallFailures ?? [];
  if (policy?.action !== "error" || failures.length === 0) return null;
  const what = failures
    .map(
      (f) =>
        `${f.family} ${f.reason}: ${JSON.stringify(f.raw.length > 120 ? `${f.raw.slice(0, 120)}…` : f.raw)}`,
    )
    .join("; ");
  return new ToolCallParseError(`turn ${turn}: a tool call did not parse (${what})`);
}

/** Records the reward term for `action = "penalty"` (after scoring, so the sum includes it). */
export function applyFailurePenalty(policy: ToolCallFailurePolicy | undefined, trace: Trace): void {
  if (policy?.action !== "penalty") return;
  const turns = trace.graph.nodes.filter((n) => (n.toolCallFailures?.length ?? 0) > 0).length;
  if (turns > 0) trace.recordReward(PENALTY_REWARD, -policy.penalty * turns);
}
