/**
 * Tasksets and their handlers — the author-facing API (Verifiers V1 `Taskset`/`Task`).
 *
 * Idiom: a taskset is a plain object made with `defineTaskset`. Data rows (`TaskData`) are
 * separate from behaviour (handlers), because one set of handlers serves every task and every
 * rollout of a group — per-rollout scratch goes on `trace.state`, never on the taskset.
 * Handlers are plain named objects rather than decorators so that their order, weight and
 * name are explicit data the runtime can validate (unique reward keys, group size) before
 * anything runs.
 */
import type { z } from "zod";
import type { McpServerInput } from "./config/mcp-spec.ts";
import type { Runtime } from "./runtimes/runtime.ts";
import type { TraceView } from "./trace/view.ts";
import type { Message, TaskData, Tool } from "./types.ts";

export type { TraceView } from "./trace/view.ts";

export interface HandlerContext<D extends TaskData = TaskData> {
  task: D;
  trace: TraceView;
  /** The rollout's runtime; null when re-scoring offline (`envroll score`). */
  runtime: Runtime | null;
  signal?: AbortSignal;
}

export interface GroupContext<D extends TaskData = TaskData> {
  task: D;
  traces: readonly TraceView[];
}

type MaybePromise<T> = T | Promise<T>;

/** Recorded unweighted; a mapping records one metric per key. Run before rewards. */
export interface Metric<D extends TaskData = TaskData> {
  name: string;
  priority?: number;
  /** Skipped when there is no runtime (offline re-scoring). */
  needsRuntime?: boolean;
  fn(ctx: HandlerContext<D>): MaybePromise<number | Record<string, number>>;
}

/** Recorded as value × weight under `name`; `trace.reward` is the sum of these. */
export interface Reward<D extends TaskData = TaskData> {
  name: string;
  weight?: number;
  priority?: number;
  needsRuntime?: boolean;
  fn(ctx: HandlerContext<D>): MaybePromise<number>;
}

/** Scores a whole group once, after every rollout's runtime is stopped; returns one number per trace. */
export interface GroupReward<D extends TaskData = TaskData> {
  name: string;
  weight?: number;
  priority?: number;
  fn(ctx: GroupContext<D>): MaybePromise<number[]>;
}

/** Checked before each model call (after the limits); when true the rollout stops under `name`. */
export interface StopCondition<D extends TaskData = TaskData> {
  name: string;
  priority?: number;
  fn(ctx: HandlerContext<D>): MaybePromise<boolean>;
}

/** An executable tool offered to the model. */
export interface ToolDefinition<D extends TaskData = TaskData> {
  name: string;
  description: string;
  /** JSON schema of the arguments object (use `z.toJSONSchema` for zod schemas). */
  parameters: Record<string, unknown>;
  /** Optional validator applied to the parsed arguments before `execute`. */
  argsSchema?: z.ZodType;
  /** Returns the tool message content. Throwing produces an error tool message, not a crash. */
  execute(args: any, ctx: HandlerContext<D>): MaybePromise<string>;
}

/** A simulated user: answers each assistant message with zero or more messages. */
export interface UserSimulator {
  /** Called with "" to open a task that has no prompt. */
  respond(message: string): MaybePromise<Message[]>;
}

/** In-process tools under one server name (served over MCP to external programs). */
export interface LocalToolset<D extends TaskData = TaskData> {
  name: string;
  tools: readonly ToolDefinition<D>[] | ((task: D) => readonly ToolDefinition<D>[]);
}

/** A toolset: in-process tools, or an MCP server (stdio command or URL; see config/mcp-spec.ts). */
export type ToolsetDeclaration<D extends TaskData = TaskData> = LocalToolset<D> | McpServerInput;

export function isLocalToolset<D extends TaskData>(t: ToolsetDeclaration<D>): t is LocalToolset<D> {
  return "tools" in t;
}

export interface TaskHandlers<D extends TaskData = TaskData> {
  setup?(ctx: HandlerContext<D>): MaybePromise<void>;
  finalize?(ctx: HandlerContext<D>): MaybePromise<void>;
  /**
   * Grader-owned files (tests, expected outputs), keyed by path in the rollout's working folder:
   * written after the agent's program exited and `finalize` ran, just before scoring, replacing
   * whatever the agent left there (recorded in `info.grader_files`). See grader-files.ts.
   */
  graderFiles?(task: D): MaybePromise<Record<string, string | Uint8Array>>;
  metrics?: Metric<D>[];
  rewards?: Reward<D>[];
  groupRewards?: GroupReward<D>[];
  stops?: StopCondition<D>[];
  /** Tools for a task (the `default` harness executes them). */
  tools?: ToolDefinition<D>[] | ((task: D) => ToolDefinition<D>[]);
  /** A fresh simulator per rollout. */
  user?(ctx: HandlerContext<D>): UserSimulator;
  /**
   * The server name of `tools` when offered as MCP (`<prefix>_<tool>`); default: the taskset id
   * in snake_case.
   */
  toolPrefix?: string;
  /** More toolsets, e.g. MCP servers started per rollout or per worker. */
  toolsets?: readonly ToolsetDeclaration<D>[];
  /** A user simulator that is an MCP server exposing `respond` (instead of `user`). */
  userServer?: McpServerInput;
  /**
   * Task row fields the agent must not read (answers, expected outputs): `GET /task` with the
   * agent program's credential leaves them out; the taskset's own tool and user-simulator
   * servers, which get a credential of their own, see the whole row.
   */
  hiddenFields?: readonly string[];
  /** Validates `PUT /state` bodies from toolset and user servers. */
  stateSchema?: z.ZodType;
  /**
   * Called once when a rollout ends, however it ended (after scoring, before group rewards):
   * frees what the taskset keeps per rollout (the Python host's user simulator and state).
   */
  release?(ctx: HandlerContext<D>): void;
}

/** One message of a conversation as a reference solution sees it: the role and its text. */
export interface ReferenceMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string;
}

/** A tool call a reference plan makes (arguments as a JSON object). */
export interface ReferenceToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

/**
 * A task's reference solution: the reply, or a short plan — one tool call per turn, then the
 * reply once the plan is done.
 */
export type ReferenceSolution = string | { tool_calls: readonly ReferenceToolCall[]; reply: string };

export interface ReferenceContext<D extends TaskData = TaskData> {
  /**
   * The task this conversation opened with (found by its first user message); null when the
   * engine serves conversations without the task rows (a standalone `envroll engine`), where a
   * reference must work from `messages` or return null.
   */
  task: D | null;
  /** The conversation so far, as the model saw it (tool results as `tool` messages). */
  messages: readonly ReferenceMessage[];
  /** Assistant turns already taken in this rollout (the plan step to play next). */
  turn: number;
  /** Seeded per request: noise drawn from it varies across a group, reproducibly. */
  rng: () => number;
}

/** What a run will use of `Taskset.load`'s rows. */
export interface LoadHint {
  limit: number | null;
  /** The `[taskset.task]` table (judges and, for tasksets that declare `taskConfigKeys`, their own keys). */
  task?: Record<string, unknown>;
}

export interface Taskset<D extends TaskData = TaskData, C = Record<string, unknown>> extends TaskHandlers<D> {
  id: string;
  description?: string;
  /** Validates the taskset-specific `[taskset]` keys (besides `id` and `task`). */
  configSchema?: z.ZodType<C>;
  /** Keys besides `judges` accepted under `[taskset.task]` (delivered to `load` as `hint.task`). */
  taskConfigKeys?: readonly string[];
  /** Where the taskset's code comes from; a Python V1 taskset says its module and version. */
  origin?: TasksetOrigin;
  /** Validates one task row (used by `envroll score` and `load`). */
  dataSchema?: z.ZodType<D>;
  /** Config defaults this taskset suggests (e.g. `{ harness: { id: "null" } }`, `num_rollouts`). */
  defaults?: Record<string, unknown>;
  /** Default runtime for scoring model-written code (e.g. `{ type: "sandbox" }`). */
  runtime?: { type: string; [key: string]: unknown };
  /**
   * The task rows. `hint.limit` (null: all) is how many the run uses — the first ones, since a
   * shuffled run asks for all: a taskset may stop reading there (start-up of a short eval), and
   * rows beyond it are ignored either way.
   */
  load(config: C, hint?: LoadHint): MaybePromise<D[]>;
  /**
   * The reference solution the built-in engine's `reference` policy plays, so `validate` and an
   * offline `eval` show a meaningful reward without a model. Called on every turn; null (or no
   * `reference`) makes the engine echo the prompt instead. Must be synchronous.
   */
  reference?(ctx: ReferenceContext<D>): ReferenceSolution | null;
  /** For `envroll validate`: checks the environment (e.g. python3 present). */
  validate?(config: C): MaybePromise<void>;
  /**
   * The taskset's own validator beyond `configSchema` (a Python V1 taskset's pydantic model),
   * called once by the config validator with the `[taskset]` fields and the `[taskset.task]`
   * table (judges left out): each problem as the dotted key it names (`taskset.size`) and what
   * is wrong there, none when the config is valid. It reports; the validator raises the error.
   */
  checkConfig?(config: C, task: Record<string, unknown>): MaybePromise<readonly ConfigIssue[]>;
}

/** One problem a plugin's own validator found: the dotted config key and the message. */
export interface ConfigIssue {
  path: string;
  message: string;
}

/** Which taskset code ran: said when a run starts and recorded in its summary. */
export interface TasksetOrigin {
  language: "python" | "typescript";
  module: string;
  version: string | null;
  class?: string;
  file?: string | null;
  verifiers?: string | null;
  python?: string;
}

/** Identity helper that gives authors type inference for their handlers. */
export function defineTaskset<D extends TaskData, C = Record<string, unknown>>(
  t: Taskset<D, C>,
): Taskset<D, C> {
  return t;
}

/** Tool schemas as the model sees them. */
export function toolSchemas<D extends TaskData>(defs: readonly ToolDefinition<D>[]): Tool[] {
  return defs.map((d) => ({ name: d.name, description: d.description, parameters: d.parameters }));
}
