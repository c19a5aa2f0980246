/**
 * Reads a /generate response body into a GenerateResult, checking the invariants RL depends on.
 *
 * Sampled ids and logprobs come from `meta_info.output_token_logprobs` (`[logprob, id, text]`),
 * not `output_ids`, because that list is what covers every sampled token including the
 * terminating one; its length must equal `completion_tokens` or the sample would misalign
 * logprobs with tokens — a silent training bug, so it is a typed error here.
 */
import { ResponseShapeError } from "./errors.ts";
import type { GenerateFinishReason, GenerateResult } from "./types.ts";

type Meta = Record<string, unknown>;

/**
 * `read`: the list's ids and logprobs when they were already read from the reply's bytes
 * (generate-reply.ts), the list in `body` then being empty.
 */
export function parseGenerateBody(
  body: unknown,
  rid: string,
  read?: { ids: number[]; logprobs: number[] },
): GenerateResult {
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw shape(`expected a JSON object, got ${Array.isArray(body) ? "an array" : typeof body}`);
  }
  const obj = body as Record<string, unknown>;
  const meta = obj.meta_info as Meta | undefined;
  if (!meta || typeof meta !== "object") throw shape("missing meta_info");
  const tuples = meta.output_token_logprobs;
  if (!Array.isArray(tuples))
    throw shape("missing meta_info.output_token_logprobs (was return_logprob dropped?)");
  const completionTokens = meta.completion_tokens;
  if (typeof completionTokens !== "number") throw shape("missing meta_info.completion_tokens");
  const { outputIds, logprobs } = read
    ? { outputIds: read.ids, logprobs: read.logprobs }
    : fromTuples(tuples);
  if (outputIds.length !== completionTokens) {
    throw shape(
      `output_token_logprobs has ${outputIds.length} entries but completion_tokens is ${completionTokens}`,
    );
  }
  const finish = meta.finish_reason as Record<string, unknown> | null | undefined;
  const type = finish?.type;
  if (type !== "stop" && type !== "length" && type !== "abort") {
    throw shape(`finish_reason.type must be stop|length|abort, got ${JSON.stringify(type)}`);
  }
  const weightVersion = meta.weight_version;
  const spans = meta.weight_versions;
  return {
    outputIds,
    logprobs,
    finishReason: type as GenerateFinishReason,
    matchedStop: type === "stop" ? ((finish?.matched as GenerateResult["matchedStop"]) ?? null) : null,
    abortMessage: type === "abort" ? String(finish?.message ?? "") : null,
    promptTokens: numberOr(meta.prompt_tokens, 0),
    completionTokens,
    cachedTokens: numberOr(meta.cached_tokens, 0),
    weightVersion: weightVersion == null ? null : String(weightVersion),
    weightVersions: Array.isArray(spans) ? (spans as GenerateResult["weightVersions"]) : null,
    e2eLatency: numberOr(meta.e2e_latency, 0),
    rid: typeof meta.id === "string" ? meta.id : rid,
    text: typeof obj.text === "string" ? obj.text : null,
    // The request's side, filled in by the transport (one object per reply, no copy).
    clientLatency: 0,
    attempts: 1,
    maxNewTokens: null,
    cappedBy: null,
  };
}

function fromTuples(tuples: unknown[]): { outputIds: number[]; logprobs: number[] } {
  const outputIds = new Array<number>(tuples.length);
  const logprobs = new Array<number>(tuples.length);
  for (let i = 0; i < tuples.length; i++) {
    const t = tuples[i] as unknown[];
    const lp = t?.[0];
    const id = t?.[1];
    if (typeof id !== "number" || typeof lp !== "number")
      throw shape(`output_token_logprobs[${i}] is not [logprob, id, …]`);
    outputIds[i] = id;
    logprobs[i] = lp;
  }
  return { outputIds, logprobs };
}

/** The human message in an SGLang error body (`{"error":{"message"}}` or `{"message"}`), else the raw text. */
export function errorMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown }; message?: unknown };
    const msg = body?.error?.message ?? body?.message;
    if (typeof msg === "string") return msg;
  } catch {
    // not JSON: fall through to the raw text
  }
  return text.slice(0, 500);
}

function numberOr(v: unknown, fallback: number): number {
  return typeof v === "number" ? v : fallback;
}

function shape(message: string): ResponseShapeError {
  return new ResponseShapeError(`/generate response: ${message}`);
}
