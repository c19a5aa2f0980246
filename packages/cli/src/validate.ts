/**
 * `envroll validate <taskset | config.toml>`: the checks a taskset author runs before an eval —
 * the config resolves, the tasks load (and match the taskset's `dataSchema`), the taskset's own
 * `validate` passes, and one task really rolls out against the built-in engine. Each step prints
 * one ✓/✗ line; the first failure stops the run with exit code 1.
 */
import type { Command } from "commander";
import { loadConfig, tasksetFields } from "envroll/internal/config/index.ts";
import type { EnvConfig } from "envroll/internal/config/schema.ts";
import { resolveTaskset } from "envroll/internal/loaders.ts";
import type { Taskset } from "envroll/internal/task.ts";
import type { TraceRecord } from "envroll/internal/trace/record.ts";
import { resolveTarget, splitArgs, UsageError } from "./args.ts";
import { openBackend } from "./eval-backend.ts";

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
    const config = await step<EnvConfig>(say, "config", async () => {
      const c = await loadConfig(t.kind === "config" ? t.path : null, {
        ...(t.kind === "taskset" ? { "taskset.id": t.id } : {}),
        ...overrides,
      });
      return [c, `taskset ${c.taskset.id}, harness ${c.harness.id}, ${c.num_rollouts} rollout(s) per task`];
    });
    const taskset = await step<Taskset<any, any>>(say, "taskset", async () => {
      const ts = await resolveTaskset(config.taskset.id);
      const handlers = [
        `${ts.rewards?.length ?? 0} reward(s)`,
        `${ts.metrics?.length ?? 0} metric(s)`,
        `${ts.groupRewards?.length ?? 0} group reward(s)`,
        `${ts.stops?.length ?? 0} stop condition(s)`,
      ];
      return [ts, `${ts.id} — ${handlers.join(", ")}`];
    });
    const fields = tasksetFields(config);
    await step(say, "tasks", async () => {
      const tasks = await taskset.load(fields);
      if (!Array.isArray(tasks) || tasks.length === 0) throw new Error("load() returned no tasks");
      if (taskset.dataSchema) {
        tasks.forEach((task, i) => {
          const r = taskset.dataSchema!.safeParse(task);
          if (!r.success)
            throw new Error(`task ${i} does not match dataSchema: ${r.error.issues[0]?.message}`);
        });
      }
      return [tasks, `${tasks.length} loaded${taskset.dataSchema ? ", all match dataSchema" : ""}`];
    });
    await step(say, "taskset validation", async () => {
      if (!taskset.validate) return [null, "none defined"];
      await taskset.validate(fields);
      return [null, "passed"];
    });
    await step(say, "dry rollout", async () => {
      const n = (taskset.groupRewards?.length ?? 0) > 0 ? 2 : 1;
      const dry = await loadConfig(t.kind === "config" ? t.path : null, {
        ...(t.kind === "taskset" ? { "taskset.id": t.id } : {}),
        ...overrides,
        num_tasks: 1,
        num_rollouts: n,
        model: "envroll-engine/reference",
      });
      const backend = await openBackend(dry, { kind: "builtin" }, () => {});
      const traces: TraceRecord[] = [];
      try {
        const rolloutIndices = Array.from({ length: n }, (_, r) => r);
        await backend.run([{ taskIndex: backend.taskIndices[0]!, rolloutIndices }], {
          concurrency: n,
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
      if (traces.length !== n) throw new Error(`expected ${n} trace(s), got ${traces.length}`);
      const tr = traces[0]!;
      return [
        traces,
        `task ${tr.task_index} on the built-in engine (reference policy): reward ${tr.reward.toFixed(3)}, ` +
          `stop ${tr.stop_condition ?? "none"}, ${tr.num_turns} turn(s)`,
      ];
    });
    return true;
  } catch (e) {
    if (e instanceof StepFailed) return false;
    throw e;
  }
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
