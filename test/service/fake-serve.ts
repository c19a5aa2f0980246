/**
 * `envroll serve` with a fake environment, for the Python package's protocol tests (which must
 * run before, and independently of, the real environment runtime and engine).
 *
 *   node --import tsx test/service/fake-serve.ts serve <fake.json> [--port 0] [--state-dir DIR]
 *
 * fake.json: {num_tasks, num_eval_tasks, delay_ms, slow_tasks: [..], slow_ms, constant_reward_tasks:
 * "odd" | [..], error_tasks: [..], error_message, multi_branch_tasks: [..], empty_tasks: [..],
 * requires_group_scoring, dialect, streaming}
 */
import { readFileSync } from "node:fs";
import { startService } from "../../packages/core/src/service/server.ts";
import { branch } from "../miles/traces.ts";
import { FakeClient, FakeEnv } from "./fake-env.ts";

const argv = process.argv.slice(2).filter((a) => a !== "serve");
const flag = (name: string) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const cfg = JSON.parse(readFileSync(argv[0], "utf8")) as Record<string, any>;
const slow = new Set<number>(cfg.slow_tasks ?? []);
const errors = new Set<number>(cfg.error_tasks ?? []);
const multiBranch = new Set<number>(cfg.multi_branch_tasks ?? []);
const empty = new Set<number>(cfg.empty_tasks ?? []);
const constant = (t: number) =>
  cfg.constant_reward_tasks === "odd" ? t % 2 === 1 : (cfg.constant_reward_tasks ?? []).includes(t);

const env = new FakeEnv({
  numTasks: cfg.num_tasks ?? 10,
  numEvalTasks: cfg.num_eval_tasks ?? 3,
  delay: (t) => (slow.has(t) ? (cfg.slow_ms ?? 60_000) : (cfg.delay_ms ?? 1)),
  shape: (t, k) => ({
    reward: constant(t) ? 1 : k,
    rewards: { correct: constant(t) ? 1 : k },
    ...(errors.has(t)
      ? { errors: [{ type: "ToolsetError", message: cfg.error_message ?? "tool crashed" }] }
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
    ...(empty.has(t) && k === 0 ? { branches: [] } : {}),
  }),
});
Object.assign(env.info, {
  requiresGroupScoring: cfg.requires_group_scoring ?? false,
  dialect: cfg.dialect ?? "chat",
  streaming: cfg.streaming ?? false,
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
