/**
 * The EnvConfig / EvalConfig keys of Verifiers V1 (`v1/env.py`, `v1/configs/eval.py`) as zod
 * schemas. Objects are strict so a misspelt key is an error instead of a silently ignored
 * setting; `sampling` alone is open, because provider-specific sampling keys must pass through.
 * Built-in defaults live here; taskset defaults and the TOML are merged over them by `load.ts`.
 */
import { z } from "zod";
import { lazySchema } from "../lazy-schema.ts";
import { AcpSchema } from "./acp-schema.ts";
import {
  ClientSchema,
  DEFAULT_BASE_URL,
  DEFAULT_DEADLINE,
  type EvalClientSchema,
  type TrainClientSchema,
} from "./client-schema.ts";
import { McpServerSpecSchema } from "./mcp-spec.ts";
import {
  headers,
  httpUrl,
  names,
  onUse,
  optionalOnUse,
  optionalWhole,
  refused,
  refusedSwitch,
  seconds,
  whole,
} from "./schema-parts.ts";

export {
  ClientSchema,
  DEFAULT_BASE_URL,
  DEFAULT_DEADLINE,
  DeadlineSchema,
  EvalClientSchema,
  TrainClientSchema,
} from "./client-schema.ts";
export { headers, httpUrl, whole } from "./schema-parts.ts";

/**
 * One `[[taskset.task.judges]]` table, as the schema takes it: its keys depend on the judge id,
 * so the validator (loaders/judges.ts) checks them against `JudgeCommonSchema` and the judge's
 * own schema once the judge is known, and `EnvConfig` carries the result (`JudgeConfig`).
 */
export const JudgeConfigSchema = lazySchema(() =>
  z.record(z.string(), z.unknown(), { error: "expected a table" }),
);

/**
 * `[taskset.task]`: judges, plus the keys a taskset declares (`taskConfigKeys`, e.g. a Python V1
 * taskset's TaskConfig fields), which the validator checks once the taskset is known.
 */
export const TaskConfigSchema = lazySchema(() =>
  z.looseObject({
    judges: z.array(JudgeConfigSchema).default([]),
  }),
);

/**
 * `[python]`: the interpreter that hosts Python Verifiers V1 tasksets (default
 * $ENVROLL_TASKSET_PYTHON, else the first `python3` on PATH) and folders put first on its
 * sys.path (local environment modules).
 */
export const PythonSchema = lazySchema(() =>
  z.strictObject({
    executable: z.string().min(1).nullable().default(null),
    path: names.default([]),
  }),
);

/** `id` and `task`; the taskset's own fields are validated by its `configSchema`. */
export const TasksetBaseSchema = lazySchema(() =>
  z.looseObject({
    id: z.string({ error: "required: name a taskset" }).min(1, { error: "required: name a taskset" }),
    task: onUse(() => TaskConfigSchema).default({ judges: [] }),
  }),
);

export const SubprocessRuntimeSchema = lazySchema(() =>
  z.strictObject({
    type: z.literal("subprocess"),
    output_limit_bytes: whole(1).optional(),
  }),
);
/** The default: the sandbox for a harness that gives the model a shell (see runtimes/auto.ts). */
export const AutoRuntimeSchema = lazySchema(() =>
  z.strictObject({
    type: z.literal("auto"),
    /** Host paths shown read-only when auto picks the sandbox (what an agent program needs besides its files). */
    ro_bind: z.array(z.string()).optional(),
  }),
);
/**
 * Other runtime types (sandbox, …) own their options, so only the subprocess and auto runtimes
 * are checked strictly here; a refinement rather than a union keeps the error about the key,
 * not the union.
 */
export const RuntimeSchema = lazySchema(() =>
  z.looseObject({ type: z.string().default("auto") }).superRefine((r, ctx) => {
    const own =
      r.type === "subprocess" ? SubprocessRuntimeSchema : r.type === "auto" ? AutoRuntimeSchema : null;
    if (own === null) return;
    const res = own.safeParse(r);
    if (!res.success) for (const issue of res.error.issues) ctx.addIssue({ ...(issue as any) });
  }),
);

export const HarnessSchema = lazySchema(() =>
  z
    .strictObject({
      id: z.string().min(1).default("default"),
      runtime: onUse(() => RuntimeSchema).default({ type: "auto" }),
      env: headers.default({}),
      forward_env: names.default([]),
      disabled_tools: names.nullable().default(null),
      command: z.array(z.string(), { error: "expected an argv array of strings" }).min(1).optional(),
      acp: optionalOnUse(() => AcpSchema),
      /** Hosted tools a program offers (Responses `web_search`, …): left out and listed on the trace, or refused. */
      hosted_tools: z.enum(["drop", "refuse"]).optional(),
    })
    .refine((h) => h.id !== "command" || h.command !== undefined, {
      error: 'required when harness.id = "command"',
      path: ["command"],
    })
    .refine((h) => h.id !== "acp" || h.acp?.command !== undefined, {
      error: 'required when harness.id = "acp"',
      path: ["acp", "command"],
    }),
);

export const TimeoutSchema = lazySchema(() =>
  z.strictObject({
    setup: seconds,
    rollout: seconds,
    finalize: seconds,
    scoring: seconds,
  }),
);

export const RolloutRetrySchema = lazySchema(() =>
  z.strictObject({
    max_retries: whole(0).default(0),
    include: names.default([]),
    exclude: names.default([]),
  }),
);

/**
 * What a group does with members whose final attempt failed (after `retries.rollout`), the same
 * in eval, `envroll serve` and Miles (episode.ts applies it; docs: README "Failed members of a
 * group"). `drop-group` is the default: dropping single failures skews the survivors' advantages
 * toward the episodes that did not fail (often the short, easy ones), while dropping the group
 * only skips that task for the step.
 */
export const GroupFailureSchema = lazySchema(() =>
  z.strictObject({
    policy: z.enum(["retry", "shrink", "drop-group", "retry-group"]).default("drop-group"),
    /** Re-runs for `retry` (per failed member) and `retry-group` (whole group). */
    max_retries: whole(0).default(2),
    /** What `retry` and `retry-group` do once their re-runs are spent. */
    fallback: z.enum(["shrink", "drop-group"]).default("drop-group"),
  }),
);

export const RetriesSchema = lazySchema(() =>
  z.strictObject({
    rollout: onUse(() => RolloutRetrySchema).default({ max_retries: 0, include: [], exclude: [] }),
    group: onUse(() => GroupFailureSchema).default({
      policy: "drop-group",
      max_retries: 2,
      fallback: "drop-group",
    }),
  }),
);

export const SamplingSchema = lazySchema(() =>
  z.looseObject({
    temperature: z.number().min(0).optional(),
    top_p: z.number().gt(0).max(1).optional(),
    top_k: z.int().optional(),
    min_p: z.number().min(0).max(1).optional(),
    max_tokens: whole(1).optional(),
    seed: z.int().optional(),
    stop: names.optional(),
    reasoning_effort: z.string().optional(),
  }),
);

export const DEFAULT_JUDGE_MODEL = "openai/gpt-5.4-nano";

const judgeIdMessage = 'required: a judge id ("reference", "rubric" or a path to a judge module)';

/**
 * The keys every plugged judge has (Verifiers V1 `JudgeConfig`, which extends the client config):
 * which judge, its reward key and weight, the judge model and its sampling, the prompt template,
 * and the OpenAI-compatible endpoint. A judge's own keys (`answer_field`, `path`, …) are checked
 * by its definition's `configSchema`.
 */
const judgeCommonShape = {
  id: () => z.string({ error: judgeIdMessage }).min(1, { error: judgeIdMessage }),
  name: () => z.string().default(""),
  weight: () => z.number({ error: "expected a finite number" }).default(1),
  model: () => z.string().min(1, { error: "expected a non-empty model name" }).default(DEFAULT_JUDGE_MODEL),
  sampling: () => SamplingSchema.default({}),
  /** An inline template. */
  prompt: () => z.string().nullable().default(null),
  /** A template file (mutually exclusive with `prompt`). */
  prompt_file: () => z.string().nullable().default(null),
  base_url: () => httpUrl.default(DEFAULT_BASE_URL),
  api_key_var: () => z.string().nullable().default("PRIME_API_KEY"),
  headers: () => headers.default({}),
};

export const COMMON_JUDGE_KEYS: readonly string[] = Object.keys(judgeCommonShape);

type Built<S extends Record<string, () => z.ZodType>> = { [K in keyof S]: ReturnType<S[K]> };
const buildShape = <S extends Record<string, () => z.ZodType>>(shape: S): Built<S> =>
  Object.fromEntries(Object.entries(shape).map(([k, build]) => [k, build()])) as Built<S>;

export const JudgeCommonSchema = lazySchema(() =>
  z.strictObject(buildShape(judgeCommonShape)).refine((j) => j.prompt === null || j.prompt_file === null, {
    error: "give prompt or prompt_file, not both",
    path: ["prompt_file"],
  }),
);

/** A validated judge entry: the common keys plus the judge's own (already validated) keys. */
export type JudgeConfig = z.output<typeof JudgeCommonSchema> & Record<string, unknown>;

/**
 * Episodes kept alive across weight updates (training): what the trainer gets for an episode
 * whose turns came from several weight versions, and how stale an episode may be.
 */
export const PartialRolloutSchema = lazySchema(() =>
  z.strictObject({
    /** keep: every turn trains; mask: only the newest version's turns keep their loss mask; drop: remove_sample. */
    mixed_versions: z.enum(["keep", "mask", "drop"]).default("keep"),
    /** Versions an episode's oldest turn may lag the trainer's; null = unbounded. */
    max_staleness: optionalWhole(0),
    /** A group holding an episode over max_staleness is dropped, or dropped and its task run again. */
    over_staleness: z.enum(["drop", "rerun"]).default("drop"),
  }),
);
export const PARTIAL_ROLLOUT_DEFAULTS = {
  mixed_versions: "keep",
  max_staleness: null,
  over_staleness: "drop",
} as const;

export const EnvConfigSchema = lazySchema(() =>
  z.strictObject({
    taskset: TasksetBaseSchema,
    harness: onUse(() => HarnessSchema).default({
      id: "default",
      runtime: { type: "auto" },
      env: {},
      forward_env: [],
      disabled_tools: null,
    }),
    timeout: onUse(() => TimeoutSchema).default({
      setup: null,
      rollout: null,
      finalize: null,
      scoring: null,
    }),
    retries: onUse(() => RetriesSchema).default({
      rollout: { max_retries: 0, include: [], exclude: [] },
      group: { policy: "drop-group", max_retries: 2, fallback: "drop-group" },
    }),
    python: onUse(() => PythonSchema).default({ executable: null, path: [] }),
    /** MCP servers offered as toolsets beside the taskset's own (see config/mcp-spec.ts). */
    toolsets: onUse(() => z.array(McpServerSpecSchema)).default([]),
    max_turns: onUse(() => whole(1).nullable()).default(null),
    max_input_tokens: onUse(() => whole(1).nullable()).default(null),
    max_output_tokens: onUse(() => whole(1).nullable()).default(null),
    max_total_tokens: onUse(() => whole(1).nullable()).default(null),
    multiplex: refused("rollouts share one interception server; max_concurrent bounds them"),
    // An empty name would only fail at the provider, per request, as an opaque 4xx.
    model: onUse(() => z.string().min(1, "expected a non-empty model name")).default(
      "deepseek/deepseek-v4-flash",
    ),
    client: onUse(() => ClientSchema).default({
      type: "eval",
      base_url: DEFAULT_BASE_URL,
      api_key_var: "PRIME_API_KEY",
      headers: {},
      timeout: null,
      deadline: { ...DEFAULT_DEADLINE },
    }),
    sampling: onUse(() => SamplingSchema).default({}),
    partial_rollout: onUse(() => PartialRolloutSchema).default({ ...PARTIAL_ROLLOUT_DEFAULTS }),
    num_tasks: onUse(() => whole(1).nullable()).default(null),
    num_rollouts: onUse(() => whole(1)).default(1),
    shuffle: onUse(() => z.boolean()).default(false),
    max_concurrent: onUse(() => whole(1)).default(128),
    /** eval: one line per finished rollout on stderr (task, rollout, reward, stop, error). */
    verbose: onUse(() => z.boolean()).default(false),
    dry_run: onUse(() => z.boolean()).default(false),
    /** eval: the progress line redrawn in place on a terminal; false prints plain lines. */
    rich: onUse(() => z.boolean()).default(true),
    server: refusedSwitch("environment servers; `envroll serve` is the rollout service for Miles"),
    push: refusedSwitch("results stay in the local run folder (output_dir)"),
    /** eval: a reward at or above this counts as correct for pass@k. */
    pass_threshold: onUse(() => z.number({ error: "expected a number" }).finite()).default(0.5),
    /** eval: a run whose error rate is above this fails (exit 1); null: only an all-errored run fails. */
    max_error_rate: onUse(() =>
      z
        .number({ error: "expected a number in [0, 1] or null" })
        .min(0, { error: "expected a number in [0, 1] or null" })
        .max(1, { error: "expected a number in [0, 1] or null" })
        .nullable(),
    ).default(null),
    output_dir: onUse(() => z.string().nullable()).default(null),
    resume: onUse(() => z.string().nullable()).default(null),
    /**
     * A sampled turn whose tool call did not parse: `count` (recorded on the trace and in the
     * summary), `error` (the rollout fails with ToolCallParseError), or `penalty` (the reward
     * loses `penalty` per such turn).
     */
    tool_call_failures: onUse(() =>
      z.strictObject({
        action: z.enum(["count", "error", "penalty"]).default("count"),
        penalty: z.number({ error: "expected a number ≥ 0" }).finite().min(0).default(1),
      }),
    ).default({ action: "count", penalty: 1 }),
  }),
);

/** What the zod schema alone gives: judges are still raw tables (their keys depend on the judge). */
export type SchemaOutput = z.output<typeof EnvConfigSchema>;
/** `[taskset.task]` once validated: the judges typed, plus the keys the taskset declares. */
export type TaskConfig = { judges: JudgeConfig[] } & Record<string, unknown>;
/** `[taskset]` once validated: the id, the task table, the taskset's own (validated) fields. */
export type TasksetConfig = { id: string; task: TaskConfig } & Record<string, unknown>;
/**
 * A validated config, as `validateConfig` (loaders/validate.ts) returns it and everything
 * downstream receives it: nothing below re-checks or casts it.
 */
export type EnvConfig = Omit<SchemaOutput, "taskset"> & { taskset: TasksetConfig };
export type HarnessConfig = EnvConfig["harness"];
export type ClientConfig = EnvConfig["client"];
export type EvalClientConfig = z.output<typeof EvalClientSchema>;
export type TrainClientConfig = z.output<typeof TrainClientSchema>;
export type RetryPolicy = z.output<typeof RolloutRetrySchema>;
export type GroupFailurePolicy = z.output<typeof GroupFailureSchema>;
export type TimeoutConfig = EnvConfig["timeout"];
export type PartialRolloutConfig = EnvConfig["partial_rollout"];
/** Verifiers calls the same keys EvalConfig when run by the eval CLI. */
export type EvalConfig = EnvConfig;
