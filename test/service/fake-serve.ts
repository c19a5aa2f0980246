/**
 * `envroll serve` with a fake environment, for the Python package's protocol tests (which must
 * run before, and independently of, the real environment runtime and engine).
 *
 *   node --import tsx test/service/fake-serve.ts serve <fake.json> [--port 0] [--state-dir DIR]
 *
 * fake.json: {num_tasks, num_eval_tasks, delay_ms, slow_tasks: [..], slow_ms, slow_every (every
 * k-th task is slow), constant_reward_tasks: "odd" | [..], error_tasks: [..], error_message,
 * error_type, failing_groups: [..] (group-reward failures), multi_branch_tasks: [..], empty_tasks:
 * [..], empty_all (every trace of every group), shrink_tasks: [..] (member 0 failed and excluded
 * by `retries.group = shrink`, as the episode marks it), cached_tokens, runs_log (a file: one line
 * "<split> <task>" per group run), requires_group_scoring}
 */
import { appendFileSync, readFileSync } from "node:fs";
import { startService } from "../../packages/core/src/service/server.ts";
import { branch } from "../miles/traces.ts";
import { FakeClient, FakeEnv } from "./fake-env.ts";

const argv = process.argv.slice(2).filter((a) => a !== "serve");
const flag = (name: string) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const cfg = JSON.parse(readFileSync(argv[0]!, "utf8")) as Record<string, any>;
const slow = new Set<number>(cfg.slow_tasks ?? []);
const errors = new Set<number>(cfg.error_tasks ?? []);
const multiBranch = new Set<number>(cfg.multi_branch_tasks ?? []);
const empty = new Set<number>(cfg.empty_tasks ?? []);
const shrink = new Set<number>(cfg.shrink_tasks ?? []);
const groupFailure = (outcome: string) => ({
  info: { group_failure: { policy: "shrink", outcome, member_retries: 0, group_retries: 0 } },
});
const constant = (t: number) =>
  cfg.constant_reward_tasks === "odd" ? t % 2 === 1 : (cfg.constant_reward_tasks ?? []).includes(t);

const failing = new Set<number>(cfg.failing_groups ?? []);
const isSlow = (t: number) =>
  slow.has(t) || (cfg.slow_every ? t % cfg.slow_every === cfg.slow_every - 1 : false);

const env = new FakeEnv({
  numTasks: cfg.num_tasks ?? 10,
  numEvalTasks: cfg.num_eval_tasks ?? 3,
  delay: (t) => (isSlow(t) ? (cfg.slow_ms ?? 60_000) : (cfg.delay_ms ?? 1)),
  fail: (t) => failing.has(t),
  shape: (t, k) => ({
    reward: constant(t) ? 1 : k,
    rewards: { correct: constant(t) ? 1 : k },
    ...(cfg.cached_tokens !== undefined
      ? {
          usage: {
            prompt_tokens: 3,
            completion_tokens: 2,
            total_tokens: 5,
            cached_tokens: cfg.cached_tokens,
          },
        }
      : {}),
    ...(errors.has(t)
      ? { errors: [{ type: cfg.error_type ?? "ToolsetError", message: cfg.error_message ?? "tool crashed" }] }
      : {}),
    ...(t % 3 === 2 ? { is_truncated: true, stop_condition: "max_turns" } : {}),
    ...(multiBranch.has(t)
      ? {
          branches: [
            branch([
              [[1, 2], false],
              [[3, 4], true],
            ]),
            branch([
              [[5], false],
              [[6, 7, 8], true],
            ]),
          ],
        }
      : {}),
    ...((empty.has(t) && k === 0) || cfg.empty_all ? { branches: [] } : {}),
    ...(shrink.has(t)
      ? k === 0
        ? { ...groupFailure("excluded"), errors: [{ type: "ToolsetError", message: "tool crashed" }] }
        : groupFailure("kept")
      : {}),
  }),
});
if (cfg.runs_log) {
  const runGroup = env.runGroup.bind(env);
  env.runGroup = (run) => {
    appendFileSync(cfg.runs_log, `${run.split} ${run.taskIndex}\n`);
    return runGroup(run);
  };
}
Object.assign(env.info, {
  requiresGroupScoring: cfg.requires_group_scoring ?? false,
  minGroupSize: cfg.requires_group_scoring ? 2 : 1,
});

const svc = await startService({
  env,
  makeClient: () => new FakeClient(),
  port: Number(flag("--port") ?? 0),
  stateDir: flag("--state-dir") ?? null,
  log: (m) => process.stderr.write(`${m}\n`),
});
process.stdout.write(`envroll serve listening on ${svc.url}\n`);
const stop = async () => {
  await svc.close();
  process.exit(0);
};
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
