/**
 * The rollout service's wire protocol (requests validated with zod; responses are NDJSON lines).
 * Strict objects: a misspelled key is a 400 naming it, not a silently ignored setting.
 */
import { z } from "zod";
import type { GroupElement } from "../miles/sample.ts";

const int = z.number().int();

export const RolloutRequestSchema = z.strictObject({
  /** Client-chosen id, needed only to `/release` unused groups of this request later. */
  request_id: z.string().min(1).max(128).optional(),
  /** Miles' rollout step; the train cursor is saved per step. */
  rollout_id: int.min(0),
  evaluation: z.boolean().default(false),
  /** Train: groups to run (over-sampling batch). Eval: ignored (every eval task runs). */
  count: int.min(1).max(1_000_000).optional(),
  /** Rollouts per group (`n_samples_per_prompt` / `n_samples_per_eval_prompt`). */
  n: int.min(1).max(65_536),
  engine_url: z.url({ protocol: /^https?$/ }),
  /** Renderer identity (Miles: `--sglang-tokenizer-path` or `--hf-checkpoint`); default: the config's model. */
  model: z.string().min(1).optional(),
  /** A tokenizer folder (tokenizer.json + tokenizer_config.json) to render with. */
  tokenizer_path: z.string().min(1).optional(),
  routing_policy: z.string().min(1).optional(),
  lora: z.string().min(1).nullable().default(null),
  /** OpenAI-vocabulary sampling (temperature, top_p, top_k, max_tokens, min_tokens, stop, …). */
  sampling: z.record(z.string(), z.unknown()).default({}),
  limits: z
    .strictObject({
      max_context_len: int.min(1).optional(),
      max_prompt_len: int.min(1).optional(),
      max_response_len: int.min(1).optional(),
    })
    .default({}),
  skip_special_tokens: z.boolean().default(false),
  stop_token_ids: z.array(int.min(0)).default([]),
  chat_template_kwargs: z.record(z.string(), z.unknown()).default({}),
  /** Rollouts in flight for this request (Miles: server concurrency × engines). */
  concurrency: int.min(1).max(1_000_000).default(512),
  /** Seeds are `seed_base + slot × n + offset` when `deterministic` (slot: the cursor's running index; eval: the task index). */
  seed_base: int.nullable().default(null),
  deterministic: z.boolean().default(false),
  /** Reward shape: a key makes `reward` the dict `{...rewards, reward}` (Miles `--reward-key`). */
  reward_key: z.string().min(1).nullable().default(null),
  /** Multi-branch traces become compact rollouts instead of an error. */
  compact: z.boolean().default(false),
  /**
   * Run exactly these groups, in this order, instead of drawing from the service's cursor: the
   * client owns the task cursor (several replicas behind one trainer). Train: `slot` is the
   * running index that seeds the group; eval: the task index again. The service's cursor is
   * neither read nor saved, and `count` / `cursor` are ignored.
   */
  tasks: z
    .array(z.strictObject({ task: int.min(0), slot: int.min(0) }))
    .min(1)
    .max(1_000_000)
    .optional(),
  cursor: z
    .strictObject({
      /** "start": a new step (restore the state after step rollout_id − 1); "continue": a refill of this step. */
      mode: z.enum(["start", "continue"]).default("start"),
      shuffle: z.boolean().default(false),
      seed: int.default(0),
    })
    .default({ mode: "start", shuffle: false, seed: 0 }),
});
export type RolloutRequest = z.infer<typeof RolloutRequestSchema>;

export const AbortRequestSchema = z.strictObject({
  /** Abort the requests of this step only; omitted = every active request. */
  rollout_id: int.min(0).optional(),
});

/**
 * The client judged only the group lines whose `seq` is in `used` (it had enough): the tasks of
 * every other line it was sent go back to the cursor, and the request is aborted if it still runs
 * (its unfinished groups go back too).
 */
export const ReleaseRequestSchema = z.strictObject({
  request_id: z.string().min(1).max(128),
  used: z.array(int.min(0)).max(1_000_000),
});

/** Why a group the service ran is not a trainable group; Python counts these as drop reasons. */
/** `conversion_error`: the group's traces cannot become samples (a fork without compact rollouts). */
export type DropReason = "episode_error" | "trace_error" | "empty_trace" | "conversion_error";

/** One line per finished group. */
export interface GroupLine {
  type: "group";
  rollout_id: number;
  evaluation: boolean;
  task_index: number;
  /** Launch position within this request (0 = launched first): the order the client judges in. */
  seq: number;
  group_index: number;
  group: GroupElement[];
  /** Set when the group should not be trained as is (Python drops it by default). */
  drop_reason: DropReason | null;
  /** The failure when `drop_reason` is `episode_error` or `conversion_error` (then `group` is empty). */
  error: string | null;
}

/** The last line of every stream. */
export interface SummaryLine {
  type: "summary";
  rollout_id: number;
  evaluation: boolean;
  requested: number;
  delivered: number;
  aborted: number;
  dropped: Record<string, number>;
  /** Set when the request stopped on an error (e.g. a multi-branch trace without `compact`). */
  error: string | null;
  elapsed_s: number;
  /** Model requests of the delivered groups by dialect (`{"chat": 40, "responses+stream": 8}`). */
  dialects: Record<string, number>;
  /** Train only: where the task cursor now stands. */
  cursor: {
    epoch: number;
    offset: number;
    returned: number;
    completed_total: number;
    file: string | null;
  } | null;
}

export type StreamLine = GroupLine | SummaryLine;

/** zod issues as one line: `path: message; …` (never a stack). */
export function formatIssues(error: z.ZodError): string {
  return error.issues
    .map((i) => `${i.path.length > 0 ? i.path.join(".") : "(body)"}: ${i.message}`)
    .join("; ");
}
