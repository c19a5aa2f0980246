/**
 * `envroll validate <taskset | config.toml>`: the checks a taskset author runs before an eval —
 * the config resolves, the tasks load (and match the taskset's `dataSchema`), the taskset's own
 * `validate` passes, and one task really rolls out against the built-in engine (the taskset's
 * reference solution answering, when it has one). Every check `eval` applies to the config is
 * applied here too. Each step prints one ✓/✗ line; the first failure stops with exit code 1.
 */
import type { Command } from "commander";
import { tasksetFields } from "envroll/internal/config/index.ts";
import { checkSamplingKeys } from "envroll/internal/config/sampling-keys.ts";
import { loadEnvironment } from "envroll/internal/environment.ts";
import { loadConfigAndTaskset } from "envroll/internal/loaders/config.ts";
import type { TraceRecord } from "envroll/internal/trace/record.ts";
import { resolveTarget, splitArgs, UsageError } from "./args.ts";
import { type EvalBackend, openBackend } from "./eval-backend.ts";

type Say = (line: string) => void;

class StepFailed extends Error {}

async function step<T>(say: Say, label: string, fn: () => Promise<[T, string]>): Promise<T> {
  try {
    const [value, detail] = await fn();
    say(`✓ ${label}${detail ? `: ${detail}` : ""}`);
    return value;
  } catch (e) {
    say(`✗ ${label}: ${e instanceof Error ? e.message : String(e)}`);
    throw new StepFailed(label);
  }
}

/** Runs every check; resolves true when all pass. */
export async function runValidate(
  target: string,
  overrides: Record<string, unknown>,
  say: Say,
): Promise<boolean> {
  const t = resolveTarget(target);
  try {
    const { config, taskset } = await step(say, "config", async () => {
      const loaded = await loadConfigAndTaskset(t.kind === "config" ? t.path : null, {
        ...(t.kind === "taskset" ? { "taskset.id": t.id } : {}),
        ...overrides,
      });
      const c = loaded.config;
      return [
        loaded,
        `taskset ${c.taskset.id}, harness ${c.harness.id}, ${c.num_rollouts} rollout(s) per task`,
      ];
    });
    await step(say, "taskset", async () => {
      const handlers = [
        `${taskset.rewards?.length ?? 0} reward(s)`,
        `${taskset.metrics?.length ?? 0} metric(s)`,
        `${taskset.groupRewards?.length ?? 0} group reward(s)`,
        `${taskset.stops?.length ?? 0} stop condition(s)`,
        taskset.reference ? "a reference solution" : "no reference solution",
      ];
      return [null, `${taskset.id} — ${handlers.join(", ")}`];
    });
    // The environment eval would build from the validated config (the config step applied every
    // config rule: group size, harness and runtime fit, judges): its rows, against dataSchema.
    await step(say, "tasks", async () => {
      const e = await loadEnvironment(config, { taskset });
      const n = e.tasks.length;
      await e.close();
      if (n === 0) throw new Error("load() returned no tasks");
      return [n, `${n} to run${taskset.dataSchema ? ", all match dataSchema" : ""}`];
    });
    await step(say, "taskset validation", async () => {
      if (!taskset.validate) return [null, "none defined"];
      await taskset.validate(tasksetFields(config));
      return [null, "passed"];
    });
    await step(say, "dry rollout", async () => {
      // The built-in engine speaks SGLang: the config's sampling keys must be ones it takes.
      checkSamplingKeys(config.sampling, "train");
      const dry = { ...config, num_tasks: 1 };
      const backend = await openBackend(dry, { kind: "builtin" }, () => {}, taskset);
      const traces: TraceRecord[] = [];
      try {
        // One rollout, or the whole group when group rewards need it.
        const rolloutIndices = backend.isGroupTask(0)
          ? Array.from({ length: config.num_rollouts }, (_, r) => r)
          : [0];
        await backend.run([{ taskIndex: backend.taskIndices[0]!, rolloutIndices }], {
          concurrency: rolloutIndices.length,
          signal: new AbortController().signal,
          onTrace: (tr) => traces.push(tr),
        });
      } finally {
        await backend.close();
      }
      const failed = traces.find((tr) => tr.errors.length > 0);
      if (failed) {
        const e = failed.errors[failed.errors.length - 1]!;
        throw new Error(`rollout ${failed.rollout_index} errored: ${e.type}: ${e.message}`);
      }
      const tr = traces[0];
      if (!tr) throw new Error("the rollout produced no trace");
      return [
        traces,
        `task ${tr.task_index}: reward ${tr.reward.toFixed(3)}, stop ${tr.stop_condition ?? "none"}, ${tr.num_turns} turn(s); ${answeredBy(backend.reference)}`,
      ];
    });
    return true;
  } catch (e) {
    if (e instanceof StepFailed) return false;
    throw e;
  }
}

/** Which policy of the built-in engine answered, and what that means for the reward. */
function answeredBy(ref: EvalBackend["reference"]): string {
  if (!ref?.defined)
    return "answered by the engine's echo policy (the taskset defines no reference solution, so the reply repeats the prompt and a reward of 0 says nothing about the taskset; add `reference` to it)";
  if (ref.unanswered === 0) return "answered by the taskset's reference solution (reference policy)";
  if (ref.answered === 0)
    return "the taskset's reference returned nothing, so the engine echoed the prompt (a reward of 0 says nothing about the taskset)";
  return `${ref.answered} turn(s) answered by the taskset's reference solution, ${ref.unanswered} echoed`;
}

export function registerValidateCommand(program: Command): void {
  program
    .command("validate")
    .description(
      "Check a taskset: config, task loading, its own validation, one dry rollout on the built-in engine",
    )
    .argument("[target]", "taskset id, taskset package/module path, or config.toml")
    .allowUnknownOption()
    .allowExcessArguments()
    .action(async (_target: string | undefined, _opts: unknown, cmd: Command) => {
      const { positionals, overrides } = splitArgs(cmd.args);
      if (positionals.length !== 1) throw new UsageError("name one taskset or config.toml");
      const ok = await runValidate(positionals[0]!, overrides, (l) => process.stdout.write(`${l}\n`));
      process.exitCode = ok ? 0 : 1;
    });
}
