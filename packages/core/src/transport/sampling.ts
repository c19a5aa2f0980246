/**
 * OpenAI-style sampling → SGLang `sampling_params`, and the per-turn token budget.
 *
 * The renames and forced keys follow Miles' SGLang transport so an envroll rollout sends the
 * bytes a Miles rollout would: `no_stop_trim` and `spaces_between_special_tokens: false` keep
 * the text faithful to the ids, and `n: 1` because one request must be one abortable sample.
 */
import { OverlongPromptError } from "./errors.ts";
import type { SamplingInput, TokenCap } from "./types.ts";

const RENAMES: Record<string, string> = {
  max_tokens: "max_new_tokens",
  min_tokens: "min_new_tokens",
  seed: "sampling_seed",
};

/**
 * Keys a chat client may carry that have no meaning on /generate: logprobs are always returned
 * and one request is one sample; `chat_template_kwargs` is the renderer's business (e.g.
 * `enable_thinking`, read when the client is built); `reasoning_effort` is an OpenAI knob that
 * the config schema accepts. SGLang builds `SamplingParams(**params)`, so any of these sent on
 * would fail every turn with 400 "unexpected keyword argument".
 */
const DROPPED = new Set(["logprobs", "top_logprobs", "n", "chat_template_kwargs", "reasoning_effort"]);

/**
 * `extra_body` entries as top-level keys, as the OpenAI SDK sends them (they win over the
 * top-level ones); the verifiers config passes `extra_body` through in `sampling`.
 */
function flattenExtraBody(input: SamplingInput | undefined): SamplingInput | undefined {
  const extra = input?.extra_body;
  if (input === undefined || extra === undefined) return input;
  const { extra_body: _, ...rest } = input;
  return extra !== null && typeof extra === "object" && !Array.isArray(extra)
    ? { ...rest, ...(extra as Record<string, unknown>) }
    : rest;
}

export interface SamplingContext {
  stopTokenIds: readonly number[];
  defaultStop: readonly string[] | undefined;
  skipSpecialTokens: boolean;
  maxNewTokens: number | null;
}

/** Builds the exact `sampling_params` object. Pure; exported for tests and tooling. */
export function buildSamplingParams(
  input: SamplingInput | undefined,
  ctx: SamplingContext,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  input = flattenExtraBody(input);
  if (input) {
    for (const key of Object.keys(input)) {
      const value = input[key];
      if (value === undefined || DROPPED.has(key)) continue;
      out[RENAMES[key] ?? key] = value;
    }
  }
  if (out.stop == null && ctx.defaultStop && ctx.defaultStop.length > 0) out.stop = [...ctx.defaultStop];
  if (out.stop == null) delete out.stop;
  const stopIds = unionIds(ctx.stopTokenIds, out.stop_token_ids as number[] | null | undefined);
  if (stopIds.length > 0) out.stop_token_ids = stopIds;
  else delete out.stop_token_ids;
  if (ctx.maxNewTokens !== null) out.max_new_tokens = ctx.maxNewTokens;
  out.skip_special_tokens = ctx.skipSpecialTokens;
  out.no_stop_trim = true;
  out.spaces_between_special_tokens = false;
  out.n = 1;
  return out;
}

/** Ordered union: first-seen order, no duplicates (renderer ids first, then configured ones). */
/** `a` then the ids of `b` not in it, each once (stop lists are short: a scan beats a Set). */
export function unionIds(a: readonly number[], b: readonly number[] | null | undefined): number[] {
  const out: number[] = [];
  for (const id of a) if (!out.includes(id)) out.push(id);
  if (b) for (const id of b) if (!out.includes(id)) out.push(id);
  return out;
}

export interface BudgetLimits {
  contextLength: number | undefined;
  maxResponseLength: number | undefined;
}

/**
 * `min(requested, context − prompt, max_response)` over the limits that are set, or null when
 * none is (the server default applies). Throws OverlongPromptError when nothing is left, so no
 * request is sent for a turn that could not produce a token.
 */
export function capMaxNewTokens(
  requested: number | undefined,
  promptLen: number,
  limits: BudgetLimits,
): number | null {
  // The least of the limits that apply (no array: this runs per request).
  let budget: number | null = requested ?? null;
  const context = limits.contextLength === undefined ? null : limits.contextLength - promptLen;
  if (context !== null) budget = budget === null ? context : Math.min(budget, context);
  const response = limits.maxResponseLength ?? null;
  if (response !== null) budget = budget === null ? response : Math.min(budget, response);
  if (budget === null) return null;
  if (budget <= 0) {
    const limit = limits.contextLength ?? budget;
    throw new OverlongPromptError(
      `no room for new tokens: prompt ${promptLen}, context ${limits.contextLength ?? "∞"}, budget ${budget}`,
      promptLen,
      limit,
    );
  }
  return budget;
}

/**
 * Which limit set the budget `capMaxNewTokens` returned (the smallest wins; the request first
 * on a tie), or null when none was set and the server's own default applies.
 */
export function budgetCap(
  requested: number | undefined,
  promptLen: number,
  limits: BudgetLimits,
  budget: number | null,
): TokenCap | null {
  if (budget === null) return null;
  if (requested === budget) return "requested";
  if (limits.maxResponseLength === budget) return "max_response_length";
  if (limits.contextLength !== undefined && limits.contextLength - promptLen === budget)
    return "context_length";
  return null;
}

/** The requested budget under either name (native wins, as the server would see it last). */
export function requestedMaxTokens(input: SamplingInput | undefined): number | undefined {
  const flat = flattenExtraBody(input);
  const v = flat?.max_new_tokens ?? flat?.max_tokens;
  return typeof v === "number" ? v : undefined;
}
