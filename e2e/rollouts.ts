/**
 * The rollout half of the end-to-end check: real envroll environments (config → taskset →
 * harness → episode loop) driven through the TrainClient against an SGLang-protocol engine,
 * then converted to Miles sample groups exactly as the rollout service does.
 */
import type { TrainClient } from "../packages/core/src/clients/train.ts";
import { loadEnvironment } from "../packages/core/src/environment.ts";
import { loadConfig } from "../packages/core/src/loaders/config.ts";
import { resolveTaskset } from "../packages/core/src/loaders/taskset.ts";
import { SampleCounter, tracesToGroup } from "../packages/core/src/miles/convert.ts";
import { groupSamples, type MilesSample } from "../packages/core/src/miles/sample.ts";
import type { Reward, Taskset } from "../packages/core/src/task.ts";
import type { TraceRecord } from "../packages/core/src/trace/record.ts";
import { contentText } from "../packages/core/src/types.ts";

export interface TasksetPlan {
  /** Built-in taskset id. */
  taskset: string;
  tasks: number;
  /** Rollouts per task: one GRPO group. More than one, so advantages are not all zero. */
  rollouts: number;
  /** `max_turns`; null = the taskset's own stops only. */
  maxTurns: number | null;
}

export interface RolloutSettings {
  model: string;
  maxTokens: number;
  temperature: number;
  /** Base of the per-rollout `sampling_seed`s, so a run is reproducible on the reference engine. */
  seed: number;
  /** Rollouts in flight (the reference engine serves one at a time; this only keeps its queue full). */
  concurrency: number;
}

export interface TasksetResult {
  plan: TasksetPlan;
  /** One array of traces per task (a group). */
  groups: TraceRecord[][];
}

/**
 * A dense reward added to each taskset for this check: the share of printable-ASCII code points
 * in the assistant's replies. A random model never writes `<reversed_text>` tags nor finds the
 * number, so every built-in reward is 0, every GRPO advantage would be 0 and the training step
 * would be vacuous. This one differs between the rollouts of a group, so the step has a real
 * gradient. It is an extra reward (the built-in ones still run and are recorded), not a patch.
 */
export const SHAPING_REWARD: Reward = {
  name: "e2e_ascii_share",
  weight: 1.0,
  fn: ({ trace }) => {
    const text = trace.messages
      .filter((m) => m.role === "assistant")
      .map((m) => contentText(m.content))
      .join("");
    const chars = [...text];
    if (chars.length === 0) return 0;
    return chars.filter((c) => c >= " " && c <= "~").length / chars.length;
  },
};

async function withShaping(id: string): Promise<Taskset<any, any>> {
  const base = await resolveTaskset(id);
  return { ...base, rewards: [...(base.rewards ?? []), SHAPING_REWARD] };
}

function configToml(plan: TasksetPlan, s: RolloutSettings): string {
  return [
    `model = ${JSON.stringify(s.model)}`,
    `num_tasks = ${plan.tasks}`,
    `num_rollouts = ${plan.rollouts}`,
    `max_concurrent = ${s.concurrency}`,
    plan.maxTurns === null ? "" : `max_turns = ${plan.maxTurns}`,
    "[taskset]",
    `id = ${JSON.stringify(plan.taskset)}`,
    "[sampling]",
    // The engine reports log_softmax(logits / T) before truncation; keeping top_p/top_k at
    // their neutral values means the teacher-forced twin is exactly the sampling distribution.
    `temperature = ${s.temperature}`,
    `max_tokens = ${s.maxTokens}`,
    "",
  ].join("\n");
}

/** Runs every task of a plan as one group each; `onGroup` reports progress. */
export async function runTaskset(
  plan: TasksetPlan,
  settings: RolloutSettings,
  client: TrainClient,
  onGroup: (taskset: string, taskIndex: number, traces: TraceRecord[]) => void,
): Promise<TasksetResult> {
  const taskset = await withShaping(plan.taskset);
  const config = await loadConfig(configToml(plan, settings), undefined, { taskset });
  const env = await loadEnvironment(config, { taskset });
  try {
    const groups = await Promise.all(
      env.tasks.map(async (_, taskIndex) => {
        const traces = await env.runGroup(taskIndex, plan.rollouts, {
          client,
          // Distinct seeds per (task, rollout): the n rollouts of a group must differ.
          samplingFor: (t, r) => ({ seed: settings.seed + t * 1000 + r }),
        });
        onGroup(plan.taskset, taskIndex, traces);
        return traces;
      }),
    );
    return { plan, groups };
  } finally {
    await env.close();
  }
}

/**
 * Traces that cannot be a valid training sample: an errored rollout, or one that sampled
 * nothing. The check is about token exactness, so any of these fails the run with its reason
 * rather than being dropped.
 */
export function badTraces(groups: readonly TraceRecord[][]): string[] {
  const out: string[] = [];
  for (const t of groups.flat()) {
    if (t.errors.length > 0)
      out.push(`${t.id}: ${t.errors.map((e) => `${e.type}: ${e.message}`).join("; ")}`);
    else if (t.branches.length === 0) out.push(`${t.id}: no sampled token`);
  }
  return out;
}

/**
 * Traces → Miles groups with the production converter (`tracesToGroup`), one `SampleCounter`
 * for the whole batch as Miles requires. Compact rollouts are off: with the bridge every
 * multi-turn trace is one branch, and a fork here would mean the bridge was declined — the
 * conversion error then fails the check loudly.
 */
export function toMilesGroups(groups: readonly TraceRecord[][]): MilesSample[][] {
  const counter = new SampleCounter();
  return groups.map((traces) => groupSamples(tracesToGroup(traces, counter, { compact: false })));
}

export function maskedTokens(groups: readonly MilesSample[][]): number {
  let n = 0;
  for (const s of groups.flat()) for (const m of s.loss_mask) n += m;
  return n;
}

/** Samples with more than one sampled turn, i.e. whose later turns were bridged. */
export function multiTurnSamples(groups: readonly MilesSample[][]): number {
  return groups.flat().filter((s) => s.metadata.envroll.num_turns > 1).length;
}
