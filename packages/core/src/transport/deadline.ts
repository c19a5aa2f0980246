/**
 * How long one /generate attempt may take before it counts as stalled.
 *
 * A non-streaming /generate sends no byte until the generation ends, so a stuck request and a
 * long one look the same from here; the only honest bound is what the request could need: a
 * fixed allowance (queueing, prefill) plus a budget per token it may sample. A fixed timeout
 * would either cut long turns or leave short stuck ones hanging for as long as the longest.
 */

export interface DeadlineOptions {
  /** The allowance every attempt gets, whatever its size. */
  baseMs: number;
  /** Added per token of the request's `max_new_tokens`. */
  perTokenMs: number;
}

/** SGLang's `SamplingParams.max_new_tokens` default, what the server uses when none is sent. */
export const SGLANG_DEFAULT_MAX_NEW_TOKENS = 128;

/** The stall deadline of one attempt that may sample `maxNewTokens` (null: the server default). */
export function attemptDeadlineMs(deadline: DeadlineOptions, maxNewTokens: number | null): number {
  return Math.ceil(deadline.baseMs + (maxNewTokens ?? SGLANG_DEFAULT_MAX_NEW_TOKENS) * deadline.perTokenMs);
}
