/**
 * Rollout limits (Verifiers `RolloutLimits`): checked by the framework before every model call,
 * ahead of the task's own stop conditions. Token caps compare against the usage recorded so far,
 * so they are soft by one turn — a turn is never cut mid-generation by them.
 */

export interface RolloutLimits {
  maxTurns: number | null;
  maxInputTokens: number | null;
  maxOutputTokens: number | null;
  maxTotalTokens: number | null;
}

export interface LimitCounters {
  numTurns: number;
  inputTokens: number;
  outputTokens: number;
}

export const noLimits: RolloutLimits = {
  maxTurns: null,
  maxInputTokens: null,
  maxOutputTokens: null,
  maxTotalTokens: null,
};

/** The name of the first limit reached (the stop condition to record), or null. */
export function reachedLimit(limits: RolloutLimits, c: LimitCounters): string | null {
  if (limits.maxTurns != null && c.numTurns >= limits.maxTurns) return "max_turns";
  if (limits.maxInputTokens != null && c.inputTokens >= limits.maxInputTokens) return "max_input_tokens";
  if (limits.maxOutputTokens != null && c.outputTokens >= limits.maxOutputTokens) return "max_output_tokens";
  if (limits.maxTotalTokens != null && c.inputTokens + c.outputTokens >= limits.maxTotalTokens)
    return "max_total_tokens";
  return null;
}
