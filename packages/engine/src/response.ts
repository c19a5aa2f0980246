/**
 * The /generate response body in SGLang's shapes (spec A.3): `text`, `output_ids`, and
 * `meta_info` with `finish_reason` objects and `[logprob, id, text|null]` tuples.
 */

import { mulberry32 } from "envroll/internal/random.ts";
import { completionText, type PlannedCompletion } from "./completion.ts";
import type { JobResult } from "./core.ts";
import type { GenerateJob } from "./request.ts";
import type { EngineTokenizer } from "./types.ts";

export function buildResponse(
  job: GenerateJob,
  r: JobResult,
  tokenizer: EngineTokenizer,
): Record<string, unknown> {
  const meta: Record<string, unknown> = {
    id: job.rid,
    finish_reason: r.finish,
    prompt_tokens: r.promptTokens,
    weight_version: r.weightVersion,
    completion_tokens: r.ids.length,
    cached_tokens: r.cachedTokens,
    e2e_latency: r.e2eLatency,
  };
  if (job.returnLogprob) addLogprobs(meta, job, r.ids, r.logprobs, tokenizer);
  return {
    text: completionText(r.ids, r.finish, job.sampling, tokenizer),
    output_ids: r.ids,
    meta_info: meta,
  };
}

/** An intermediate streaming chunk: the first `count` planned tokens, no finish reason yet. */
export function buildChunk(
  job: GenerateJob,
  plan: PlannedCompletion,
  count: number,
  from: number,
  weightVersion: string,
  tokenizer: EngineTokenizer,
): Record<string, unknown> {
  const ids = plan.ids.slice(from, count);
  const meta: Record<string, unknown> = {
    id: job.rid,
    finish_reason: null,
    prompt_tokens: job.promptIds.length,
    weight_version: weightVersion,
    completion_tokens: count,
    cached_tokens: 0,
  };
  if (job.returnLogprob) addLogprobs(meta, job, ids, plan.logprobs.slice(from, count), tokenizer);
  return {
    text: tokenizer.decode(ids, { skipSpecialTokens: job.sampling.skipSpecialTokens }),
    output_ids: ids,
    meta_info: meta,
  };
}

function addLogprobs(
  meta: Record<string, unknown>,
  job: GenerateJob,
  ids: readonly number[],
  logprobs: readonly number[],
  tokenizer: EngineTokenizer,
): void {
  const textOf = job.returnTextInLogprobs ? (id: number) => tokenizer.decode([id]) : () => null;
  const tuples = new Array(ids.length);
  for (let i = 0; i < ids.length; i++) tuples[i] = [logprobs[i], ids[i], textOf(ids[i]!)];
  meta.output_token_logprobs = tuples;
  meta.output_token_logprobs_length = tuples.length;
  if (job.logprobStartLen >= 0) {
    // As SGLang: the entry at logprob_start_len itself is None (scoring starts from its logits,
    // which predict the next token); the rest are seeded from the prompt itself.
    const rng = mulberry32(job.promptIds.length * 2654435761);
    const start = Math.min(job.logprobStartLen, job.promptIds.length);
    meta.input_token_logprobs = job.promptIds
      .slice(start)
      .map((id, i) => [i === 0 ? null : Math.log(1 - 0.9 * rng()), id, textOf(id)]);
  }
  if (job.topLogprobsNum > 0) {
    // The sampled token is the top entry; the other candidates are lower, made-up neighbours.
    meta.output_top_logprobs = tuples.map(([lp, id]) =>
      Array.from({ length: job.topLogprobsNum }, (_, k) => [
        lp - k * 0.5,
        k === 0 ? id : (id + k) % 151643,
        null,
      ]),
    );
  }
}
