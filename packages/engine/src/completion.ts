/**
 * Turning a policy's reply into what the sampler would have produced under the request's
 * sampling rules: `min_new_tokens` masks stops, stop ids and stop strings end the turn (the stop
 * token stays in `output_ids`), `max_new_tokens` cuts with finish `length`, and every sampled
 * token gets a seeded logprob ≤ 0.
 */
import type { Rng } from "envroll/internal/random.ts";
import type { EngineSampling } from "./sampling.ts";
import type { ServedModel } from "./served-model.ts";
import type { EngineTokenizer } from "./types.ts";

export type FinishReason =
  | { type: "stop"; matched: number | string }
  | { type: "length"; length: number }
  | { type: "abort"; message: string; status_code: number | null; err_type: string | null };

export interface PlannedCompletion {
  ids: number[];
  logprobs: number[];
  finish: FinishReason;
}

/**
 * `replyIds` is the policy's full intended reply. When it runs out before a stop, the model
 * "would" close its turn: its close id (`<|im_end|>` for Qwen3) is emitted, or with
 * `ignore_eos` the reply repeats. The model's stop ids are its EOS.
 */
export function planCompletion(
  replyIds: readonly number[],
  sampling: EngineSampling,
  model: Pick<ServedModel, "tokenizer" | "stopIds" | "closeId">,
  rng: Rng,
  originalLogprob: boolean,
): PlannedCompletion {
  const { maxNewTokens } = sampling;
  const { tokenizer, closeId } = model;
  const stopIds = new Set<number>(sampling.stopTokenIds);
  if (!sampling.ignoreEos) for (const id of model.stopIds) stopIds.add(id);
  const filler = replyIds.filter((id) => !stopIds.has(id));
  const stopStrings = sampling.stop;
  // How many trailing tokens can hold a stop string: a byte-level token may carry a single byte,
  // and a UTF-16 unit is at most 3 UTF-8 bytes, so 3 tokens per unit (+2 for partial tokens at
  // the edges). Fewer missed stops made of rare characters (e.g. "ꙮꙮꙮ" is 6 tokens).
  const tailTokens = stopStrings.length ? 3 * Math.max(...stopStrings.map((s) => s.length)) + 2 : 0;

  const ids: number[] = [];
  let finish: FinishReason | null = null;
  let cursor = 0;
  let fillerAt = 0;
  while (finish === null) {
    if (ids.length >= maxNewTokens) {
      finish = { type: "length", length: maxNewTokens };
      break;
    }
    let tok: number;
    if (cursor < replyIds.length) tok = replyIds[cursor++]!;
    else if (!sampling.ignoreEos && ids.length >= sampling.minNewTokens) tok = closeId;
    else tok = filler.length ? filler[fillerAt++ % filler.length]! : closeId;
    // Before min_new_tokens SGLang masks stop tokens out of the distribution: never sampled.
    if (stopIds.has(tok) && ids.length < sampling.minNewTokens) {
      if (cursor >= replyIds.length && filler.length === 0) tok = tokenizer.encode(" ")[0]!;
      else continue;
    }
    ids.push(tok);
    if (stopIds.has(tok)) finish = { type: "stop", matched: tok };
    else if (tailTokens > 0) {
      const tail = tokenizer.decode(ids.slice(-tailTokens));
      const hit = stopStrings.find((s) => tail.includes(s));
      if (hit !== undefined) finish = { type: "stop", matched: hit };
    }
  }
  return { ids, logprobs: sampleLogprobs(ids.length, sampling, rng, originalLogprob), finish };
}

/**
 * Seeded logprobs in (−2.3, 0]. Greedy decoding picks the argmax, so its tokens sit closer to 0.
 * SGLang reports log_softmax(logits / T) by default; the "original" mode reports the
 * pre-temperature value, modelled here as the tempered one scaled by T (equal at T = 1).
 */
export function sampleLogprobs(n: number, sampling: EngineSampling, rng: Rng, original: boolean): number[] {
  const spread = sampling.greedy ? 0.3 : 0.9;
  const scale = original && !sampling.greedy ? sampling.temperature : 1;
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    const lp = Math.log(1 - spread * rng()) * scale;
    out[i] = lp === 0 ? 0 : lp; // normalise -0 so JSON shows 0
  }
  return out;
}

/** The response `text`: special tokens per `skip_special_tokens`, stop trimmed unless `no_stop_trim`. */
export function completionText(
  ids: readonly number[],
  finish: FinishReason,
  sampling: EngineSampling,
  tokenizer: EngineTokenizer,
): string {
  let textIds = ids as number[];
  if (finish.type === "stop" && typeof finish.matched === "number" && !sampling.noStopTrim)
    textIds = ids.slice(0, -1);
  let text = tokenizer.decode(textIds, { skipSpecialTokens: sampling.skipSpecialTokens });
  if (finish.type === "stop" && typeof finish.matched === "string" && !sampling.noStopTrim) {
    const at = text.lastIndexOf(finish.matched);
    if (at >= 0) text = text.slice(0, at);
  }
  return text;
}
