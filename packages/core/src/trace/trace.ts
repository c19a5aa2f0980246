/**
 * One rollout's record (Verifiers `trace.py`): the message graph plus everything scoring and
 * reports read. It is the only mutable object a rollout shares between interception, harness and
 * scoring; it becomes a plain `TraceRecord` once finished and is then dropped, so a long eval
 * holds only in-flight traces.
 */

import { ProviderError } from "../errors.ts";
import { pyStrip } from "../text/python-str.ts";
import { contentText, type FinishReason, type Message, type TaskData } from "../types.ts";
import { defineBranches } from "./branches.ts";
import { MessageGraph, type TurnPlan } from "./graph.ts";
import type { NodeRecord, TraceRecord } from "./record.ts";
import { newTraceId } from "./trace-id.ts";
import type { ModelResponse } from "./turn.ts";
import type { TraceView } from "./view.ts";

/** Stop conditions that mean the rollout was cut short, not finished by the agent. */
export const TRUNCATING_STOPS: ReadonlySet<string> = new Set([
  "max_turns",
  "max_input_tokens",
  "max_output_tokens",
  "max_total_tokens",
  "context_length",
  "harness_timeout",
]);

export interface TraceError {
  type: string;
  message: string;
  traceback?: string;
}

export class Trace implements TraceView {
  readonly id: string = newTraceId();
  readonly graph = new MessageGraph();
  readonly rewards: Record<string, number> = {};
  readonly metrics: Record<string, number> = {};
  readonly info: Record<string, unknown> = {};
  readonly state: Record<string, unknown> = {};
  errors: TraceError[] = [];
  stopCondition: string | null = null;
  attempts = 0;
  /** Set by the rollout when this attempt ran through scoring without an error. */
  completed = false;
  readonly timing: { start: number; end: number | null; [stage: string]: unknown } = {
    start: Date.now() / 1000,
    end: null,
  };
  private turns = 0;
  private promptTokens = 0;
  private judgePromptTokens = 0;
  private judgeCompletionTokens = 0;
  private completionTokens = 0;
  private cachedTokens = 0;
  private lastFinish: FinishReason = null;

  constructor(
    readonly task: TaskData,
    readonly taskIndex = 0,
    readonly rolloutIndex = 0,
    readonly taskType = "Task",
  ) {}

  /** Builds a finished trace from a conversation offline (assistant messages count as sampled). */
  static fromReplies(task: TaskData, messages: readonly Message[], taskIndex = 0): Trace {
    const t = new Trace(task, taskIndex);
    for (let i = 0; i < messages.length; i++) {
      const m = messages[i]!;
      if (m.role !== "assistant") continue;
      const plan = t.graph.prepareTurn(messages.slice(0, i));
      t.recordTurn(plan, {
        id: `offline-${i}`,
        model: "offline",
        message: m,
        finishReason: "stop",
        usage: { promptTokens: 0, completionTokens: 0 },
        tokens: null,
      });
    }
    t.stop("agent_completed");
    t.completed = true;
    return t;
  }

  recordTurn(plan: TurnPlan, response: ModelResponse): number {
    const idx = this.graph.commit(plan, response);
    this.turns++;
    this.promptTokens += response.usage.promptTokens;
    this.completionTokens += response.usage.completionTokens;
    this.cachedTokens += response.usage.cachedTokens ?? 0;
    this.lastFinish = response.finishReason;
    return idx;
  }

  /** Records the stop condition; only the first one counts. */
  stop(name: string): void {
    if (this.stopCondition === null) this.stopCondition = name;
  }

  /**
   * Records a failure as data and ends the trace with `error`. `after` marks a failure once the
   * program had finished (finalize, scoring, a judge): the rollout's result is the error, so it
   * replaces the stop condition already recorded, as Verifiers V1 reports it.
   */
  captureError(e: unknown, after = false): void {
    const err = e instanceof Error ? e : new Error(String(e));
    const rec: TraceError = { type: err.name || "Error", message: err.message };
    // Provider failures are about the remote side; a local stack trace would only be noise.
    if (!(err instanceof ProviderError) && err.stack) rec.traceback = err.stack;
    this.errors.push(rec);
    if (after) this.stopCondition = null;
    this.stop("error");
  }

  /**
   * Tokens a judge's calls used for this rollout: kept beside the policy's counts (limits, the
   * Miles sample's prefix-cache figures and training read only those), not mixed into them.
   */
  addJudgeUsage(promptTokens: number, completionTokens: number): void {
    this.judgePromptTokens += promptTokens;
    this.judgeCompletionTokens += completionTokens;
  }

  /** Overwrites silently on a repeated key, like Verifiers (which only warns). */
  recordMetric(name: string, value: number): void {
    this.metrics[name] = value;
  }

  /** `value` is already weighted. */
  recordReward(name: string, value: number): void {
    this.rewards[name] = value;
  }

  markStage(stage: string, start: number, end: number): void {
    this.timing[stage] = { start, end };
  }

  get reward(): number {
    let sum = 0;
    for (const v of Object.values(this.rewards)) sum += v;
    return sum;
  }

  get numTurns(): number {
    return this.turns;
  }

  get usage() {
    return { inputTokens: this.promptTokens, outputTokens: this.completionTokens };
  }

  get lastReply(): string {
    const i = this.graph.lastSampled;
    if (i === null) return "";
    const m = this.graph.nodes[i]!.message;
    return m.role === "assistant" ? pyStrip(contentText(m.content)) : "";
  }

  get messages(): readonly Message[] {
    return this.graph.path(this.graph.lastSampled).map((i) => this.graph.nodes[i]!.message);
  }

  get isTruncated(): boolean {
    return (
      (this.stopCondition !== null && TRUNCATING_STOPS.has(this.stopCondition)) ||
      this.lastFinish === "length"
    );
  }

  get hasError(): boolean {
    return this.errors.length > 0;
  }

  toRecord(): TraceRecord {
    const nodes = this.graph.nodes;
    const head = {
      id: this.id,
      task_index: this.taskIndex,
      rollout_index: this.rolloutIndex,
      task: { type: this.taskType, data: this.task },
      nodes: nodes.map(nodeRecord),
    };
    // Between `nodes` and `reward`, as every record has it (the key order is the file's).
    defineBranches(head, nodes, this.graph.leaves());
    return Object.assign(head, {
      reward: this.reward,
      rewards: { ...this.rewards },
      metrics: { ...this.metrics },
      info: this.info,
      errors: this.errors,
      stop_condition: this.stopCondition,
      is_completed: this.completed,
      is_truncated: this.isTruncated,
      num_turns: this.turns,
      last_reply: this.lastReply,
      usage: {
        prompt_tokens: this.promptTokens,
        completion_tokens: this.completionTokens,
        total_tokens: this.promptTokens + this.completionTokens,
        cached_tokens: this.cachedTokens,
        ...(this.judgePromptTokens + this.judgeCompletionTokens > 0
          ? {
              judge_prompt_tokens: this.judgePromptTokens,
              judge_completion_tokens: this.judgeCompletionTokens,
            }
          : {}),
      },
      timing: this.timing,
      attempts: this.attempts,
      ...optional("tool_call_failures", toolCallFailureCounts(nodes)),
    }) as TraceRecord;
  }
}

function nodeRecord(n: MessageGraph["nodes"][number]): NodeRecord {
  const r: NodeRecord = { parent: n.parent, message: n.message, sampled: n.sampled, timestamp: n.timestamp };
  if (n.tokenIds) {
    r.token_ids = n.tokenIds;
    r.mask = n.mask;
    r.logprobs = n.logprobs;
    if (n.isContent) r.is_content = n.isContent;
  }
  if (n.sampled) r.finish_reason = n.finishReason ?? null;
  if (n.weightVersion !== undefined) r.weight_version = n.weightVersion;
  if (n.bridgeDeclined !== undefined) r.bridge_declined = n.bridgeDeclined;
  if (n.tokenBudget)
    r.token_budget = { max_new_tokens: n.tokenBudget.maxNewTokens, capped_by: n.tokenBudget.cappedBy };
  if (n.toolCallFailures) r.tool_call_failures = n.toolCallFailures.map((f) => ({ ...f }));
  return r;
}

/** family → reason → count over the sampled turns, or undefined when no attempt failed. */
function toolCallFailureCounts(
  nodes: readonly MessageGraph["nodes"][number][],
): Record<string, Record<string, number>> | undefined {
  let out: Record<string, Record<string, number>> | undefined;
  for (const n of nodes)
    for (const f of n.toolCallFailures ?? []) {
      out ??= {};
      const byReason = out[f.family] ?? {};
      byReason[f.reason] = (byReason[f.reason] ?? 0) + 1;
      out[f.family] = byReason;
    }
  return out;
}

function optional<K extends string, V>(key: K, value: V | undefined): { [k in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [k in K]?: V };
}
