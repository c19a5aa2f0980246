/**
 * Which `sampling` keys each client really accepts, so a misspelt key is a config error naming
 * it (with a did-you-mean) instead of a 400 on every turn, or a setting silently ignored.
 *
 * - TrainClient: the API fields of SGLang's `SamplingParams` (sgl-project/sglang,
 *   `python/sglang/srt/sampling/sampling_params.py`; the server builds `SamplingParams(**params)`
 *   and rejects anything else), plus the OpenAI spellings the transport renames or drops
 *   (`transport/sampling.ts`).
 * - EvalClient: the OpenAI chat-completions request parameters, plus the sampling extensions
 *   OpenAI-compatible servers (vLLM, SGLang) accept; anything provider-specific goes in
 *   `extra_body`, which is passed through unchecked.
 */
import { ConfigError } from "../errors.ts";
import { didYouMean } from "./issues.ts";

/** `SamplingParams` fields a caller may set (its internal fields are not API). */
export const SGLANG_SAMPLING_PARAMS: ReadonlySet<string> = new Set([
  "max_new_tokens",
  "stop",
  "stop_token_ids",
  "stop_regex",
  "temperature",
  "top_p",
  "top_k",
  "min_p",
  "frequency_penalty",
  "presence_penalty",
  "repetition_penalty",
  "min_new_tokens",
  "n",
  "json_schema",
  "regex",
  "ebnf",
  "structural_tag",
  "ignore_eos",
  "skip_special_tokens",
  "spaces_between_special_tokens",
  "no_stop_trim",
  "custom_params",
  "stream_interval",
  "logit_bias",
  "sampling_seed",
]);

/** OpenAI spellings the SGLang transport renames (max_tokens → max_new_tokens, …) or drops. */
const TRANSPORT_HANDLED = [
  "max_tokens",
  "min_tokens",
  "seed",
  "logprobs",
  "top_logprobs",
  "chat_template_kwargs",
  "reasoning_effort",
  "extra_body",
];

export const TRAIN_SAMPLING_KEYS: ReadonlySet<string> = new Set([
  ...SGLANG_SAMPLING_PARAMS,
  ...TRANSPORT_HANDLED,
]);

/** OpenAI chat-completions parameters that shape sampling or the reply (not messages/tools/stream). */
const OPENAI_CHAT = [
  "temperature",
  "top_p",
  "max_tokens",
  "max_completion_tokens",
  "stop",
  "seed",
  "n",
  "presence_penalty",
  "frequency_penalty",
  "logit_bias",
  "logprobs",
  "top_logprobs",
  "response_format",
  "reasoning_effort",
  "verbosity",
  "service_tier",
  "prediction",
  "modalities",
  "audio",
  "web_search_options",
  "extra_body",
];

/** Sampling extensions vLLM's and SGLang's OpenAI-compatible servers accept in the body. */
const OPENAI_COMPATIBLE_EXTRAS = [
  "top_k",
  "min_p",
  "repetition_penalty",
  "min_tokens",
  "stop_token_ids",
  "ignore_eos",
  "skip_special_tokens",
  "spaces_between_special_tokens",
  "chat_template_kwargs",
  "regex",
  "json_schema",
  "ebnf",
];

export const EVAL_SAMPLING_KEYS: ReadonlySet<string> = new Set([...OPENAI_CHAT, ...OPENAI_COMPATIBLE_EXTRAS]);

/** A client kind, or "any" when the config does not say which client will run it (e.g. `serve`). */
export type ClientKind = "train" | "eval" | "any";

const ANY_SAMPLING_KEYS: ReadonlySet<string> = new Set([...TRAIN_SAMPLING_KEYS, ...EVAL_SAMPLING_KEYS]);

export function samplingKeysFor(kind: ClientKind): ReadonlySet<string> {
  return kind === "train" ? TRAIN_SAMPLING_KEYS : kind === "eval" ? EVAL_SAMPLING_KEYS : ANY_SAMPLING_KEYS;
}

const WHO: Record<ClientKind, string> = {
  train: "the TrainClient (SGLang sampling parameters)",
  eval: "the EvalClient (OpenAI chat-completion parameters; provider-specific keys go in sampling.extra_body)",
  any: "either client (SGLang sampling parameters or OpenAI chat-completion parameters)",
};

/**
 * Throws a ConfigError naming every key `kind`'s client does not accept. For the TrainClient the
 * `extra_body` entries are checked too, as the transport sends them as sampling parameters.
 */
export function checkSamplingKeys(
  sampling: Record<string, unknown>,
  kind: ClientKind,
  where = "sampling",
): void {
  const known = samplingKeysFor(kind);
  const bad: string[] = [];
  for (const key of Object.keys(sampling)) if (!known.has(key)) bad.push(key);
  const extra = sampling["extra_body"];
  if (kind === "train" && extra && typeof extra === "object" && !Array.isArray(extra))
    for (const key of Object.keys(extra)) if (!known.has(key)) bad.push(`extra_body.${key}`);
  if (bad.length === 0) return;
  const lines = bad.map((k) => {
    const leaf = k.replace(/^extra_body\./, "");
    return `${where}.${k}: not a sampling key of ${WHO[kind]}${didYouMean(leaf, [...known])}`;
  });
  throw new ConfigError(lines.join("\n"), { path: `${where}.${bad[0]}` });
}
