/**
 * `[client]`: the EvalClient (an OpenAI-compatible provider) or the TrainClient (a renderer plus
 * SGLang's /generate), one union keyed by `type`, and the stall deadline both share.
 */
import { z } from "zod";
import { lazySchema } from "../lazy-schema.ts";
import { headers, httpUrl, onUse, optionOnUse, refused, seconds, whole } from "./schema-parts.ts";

export const DEFAULT_BASE_URL = "https://api.pinference.ai/api/v1";

/**
 * eval's stall deadline: one /generate attempt that runs past `base + max_new_tokens × per_token`
 * seconds is cut, aborted and retried. 30 s covers queueing and the prefill of a long prompt on a
 * busy engine; 0.05 s a token (20 tokens/s) is below the per-request decode rate of a loaded
 * SGLang server, so a healthy generation ends inside it and only a stuck one is cut (a turn of
 * 1,024 tokens gets 81 s). A wrong cut costs a retry, not the rollout.
 */
export const DEFAULT_DEADLINE: Readonly<{ base: number; per_token: number }> = { base: 30, per_token: 0.05 };

export const DeadlineSchema = lazySchema(() =>
  z.strictObject({
    base: z
      .number({ error: "expected a number of seconds > 0" })
      .positive({ error: "expected a number of seconds > 0" })
      .default(DEFAULT_DEADLINE.base),
    per_token: z
      .number({ error: "expected a number of seconds ≥ 0" })
      .min(0, { error: "expected a number of seconds ≥ 0" })
      .default(DEFAULT_DEADLINE.per_token),
  }),
);

/** The client types: each a `type` literal of its table's schema and the union's key for it. */
const EVAL = "eval";
const TRAIN = "train";

export const EvalClientSchema = lazySchema(() =>
  z.strictObject({
    type: z.literal(EVAL),
    base_url: httpUrl.default(DEFAULT_BASE_URL),
    api_key_var: z.string().nullable().default("PRIME_API_KEY"),
    headers: headers.default({}),
    /** A fixed per-request limit; when set it replaces `deadline`. */
    timeout: seconds,
    /**
     * Per-attempt stall deadline, `base + max_tokens × per_token` seconds (32,768 tokens when the
     * request names no max_tokens): a provider that hangs is cut and asked again instead of holding
     * the rollout forever (Verifiers' EvalClient has no limit at all).
     */
    deadline: onUse(() => DeadlineSchema).default(() => ({ ...DEFAULT_DEADLINE })),
  }),
);

/** The TrainClient's keys (renderer + SGLang transport). Extend here as the TrainClient grows. */
export const TrainClientSchema = lazySchema(() =>
  z.strictObject({
    type: z.literal(TRAIN),
    base_url: httpUrl.default("http://127.0.0.1:30000"),
    api_key_var: z.string().nullable().default(null),
    headers: headers.default({}),
    renderer: z
      .union([z.string(), z.record(z.string(), z.unknown())])
      .nullable()
      .default(null),
    renderer_model_name: z.string().nullable().default(null),
    pool_size: refused("one TrainClient keeps one HTTP connection pool per engine"),
    /** A fixed per-request limit; when set it replaces `deadline`. */
    timeout: seconds,
    /** Per-request stall deadline, scaled by each request's token budget (`timeout` replaces it). */
    deadline: onUse(() => DeadlineSchema).default(() => ({ ...DEFAULT_DEADLINE })),
    max_retries: whole(0).optional(),
    routing_key_header: z.string().optional(),
    lora: z.string().nullable().optional(),
    max_context_tokens: whole(1).nullable().optional(),
  }),
);

export const ClientSchema = lazySchema(() =>
  z.discriminatedUnion("type", [
    optionOnUse(EVAL, () => EvalClientSchema),
    optionOnUse(TRAIN, () => TrainClientSchema),
  ]),
);
