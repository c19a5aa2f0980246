/**
 * `sampling_params` validation with SGLang's defaults and ranges (spec A.2), so a client bug
 * that a real server would reject with 400 is rejected here too instead of passing silently.
 */
import { SGLANG_SAMPLING_PARAMS } from "envroll/internal/config/sampling-keys.ts";

export interface EngineSampling {
  maxNewTokens: number;
  minNewTokens: number;
  temperature: number;
  /** temperature < 1e-6 means greedy, as in SGLang. */
  greedy: boolean;
  topP: number;
  topK: number;
  minP: number;
  stop: string[];
  stopTokenIds: number[];
  ignoreEos: boolean;
  skipSpecialTokens: boolean;
  spacesBetweenSpecialTokens: boolean;
  noStopTrim: boolean;
  n: number;
  samplingSeed: number | null;
  streamInterval: number | null;
}

/** A client error; the server turns it into 400 `{"error":{"message"}}`. */
export class BadRequest extends Error {}

/** SGLang's `SamplingParams` API fields: the one list, shared with the config's sampling-key check. */
const KNOWN = SGLANG_SAMPLING_PARAMS;

export function parseSampling(raw: unknown): EngineSampling {
  if (raw != null && (typeof raw !== "object" || Array.isArray(raw))) {
    throw new BadRequest("sampling_params must be an object");
  }
  const p = (raw ?? {}) as Record<string, unknown>;
  for (const key of Object.keys(p)) {
    // SGLang builds SamplingParams(**params): an unknown key is a TypeError naming it.
    if (!KNOWN.has(key))
      throw new BadRequest(`SamplingParams.__init__() got an unexpected keyword argument '${key}'`);
  }
  const maxNewTokens = int(p, "max_new_tokens", 128);
  const minNewTokens = int(p, "min_new_tokens", 0);
  const temperature = num(p, "temperature", 1);
  const topP = num(p, "top_p", 1);
  const topK = int(p, "top_k", -1);
  const minP = num(p, "min_p", 0);
  const frequencyPenalty = num(p, "frequency_penalty", 0);
  const presencePenalty = num(p, "presence_penalty", 0);
  const repetitionPenalty = num(p, "repetition_penalty", 1);
  const n = int(p, "n", 1);

  if (!Number.isFinite(temperature) || temperature < 0)
    fail(`temperature must be non-negative, got ${temperature}.`);
  if (!(topP > 0 && topP <= 1)) fail(`top_p must be in (0, 1], got ${topP}.`);
  if (!(minP >= 0 && minP <= 1)) fail(`min_p must be in [0, 1], got ${minP}.`);
  if (!(topK === -1 || topK >= 1)) fail(`top_k must be -1 (disable), or at least 1, got ${topK}.`);
  if (!(frequencyPenalty >= -2 && frequencyPenalty <= 2)) {
    fail(`frequency_penalty must be in [-2, 2], got ${frequencyPenalty}.`);
  }
  if (!(presencePenalty >= -2 && presencePenalty <= 2))
    fail(`presence_penalty must be in [-2, 2], got ${presencePenalty}.`);
  if (!(repetitionPenalty > 0 && repetitionPenalty <= 2)) {
    fail(`repetition_penalty must be in (0, 2], got ${repetitionPenalty}.`);
  }
  if (maxNewTokens < 0) fail(`max_new_tokens must be at least 0, got ${maxNewTokens}.`);
  if (minNewTokens < 0 || minNewTokens > maxNewTokens) {
    fail(`min_new_tokens must be in [0, max_new_tokens], got ${minNewTokens}.`);
  }
  if (n < 1) fail(`n must be at least 1, got ${n}.`);
  const grammars = ["json_schema", "regex", "ebnf"].filter((k) => p[k] != null);
  if (grammars.length > 1) fail("Only one of regex, json_schema, or ebnf can be set.");

  const stop = p.stop == null ? [] : typeof p.stop === "string" ? [p.stop] : p.stop;
  if (!Array.isArray(stop) || !stop.every((s) => typeof s === "string"))
    fail("stop must be a string or a list of strings");
  const stopTokenIds = p.stop_token_ids ?? [];
  if (!Array.isArray(stopTokenIds) || !stopTokenIds.every((t) => Number.isInteger(t))) {
    fail("stop_token_ids must be a list of integers");
  }
  const seed = p.sampling_seed;
  if (seed != null && !Number.isInteger(seed))
    fail(`sampling_seed must be an integer, got ${JSON.stringify(seed)}.`);
  const streamInterval = p.stream_interval == null ? null : int(p, "stream_interval", 1);

  return {
    maxNewTokens,
    minNewTokens,
    temperature,
    greedy: temperature < 1e-6,
    topP,
    topK,
    minP,
    stop: stop as string[],
    stopTokenIds: stopTokenIds as number[],
    ignoreEos: bool(p, "ignore_eos", false),
    skipSpecialTokens: bool(p, "skip_special_tokens", true),
    spacesBetweenSpecialTokens: bool(p, "spaces_between_special_tokens", true),
    noStopTrim: bool(p, "no_stop_trim", false),
    n,
    samplingSeed: (seed as number | null | undefined) ?? null,
    streamInterval,
  };
}

function fail(message: string): never {
  throw new BadRequest(message);
}

/** `null` means "use the default", as in SGLang. */
function num(p: Record<string, unknown>, key: string, dflt: number): number {
  const v = p[key];
  if (v == null) return dflt;
  if (typeof v !== "number") fail(`${key} must be a number, got ${JSON.stringify(v)}.`);
  return v;
}

function int(p: Record<string, unknown>, key: string, dflt: number): number {
  const v = num(p, key, dflt);
  if (!Number.isInteger(v)) fail(`${key} must be an integer, got ${v}.`);
  return v;
}

function bool(p: Record<string, unknown>, key: string, dflt: boolean): boolean {
  const v = p[key];
  if (v == null) return dflt;
  if (typeof v !== "boolean") fail(`${key} must be a boolean, got ${JSON.stringify(v)}.`);
  return v;
}
