/**
 * `envroll score <taskset> --jsonl`: re-score replies offline, without a model. Each stdin line
 * is `{"task": {…}, "reply": "…"}` (or `"messages": […]` for a whole conversation, or
 * `"replies": […]` — strings or conversations — for a group); each output line is
 * `{"reward", "rewards", "metrics"}`, or a list of those for a group. A bad line prints
 * `{"error": "line N: …"}` and scoring continues (exit code 1 at the end).
 *
 * The reply becomes a finished trace (`Trace.fromReplies`) behind the task's prompt, and goes
 * through the same scoring as a live rollout: metrics, rewards, the config's judges (see
 * score-judges.ts; `--no-judges` leaves them out), then group rewards for groups of two or more. Handlers that need a runtime get a fresh one of the taskset's declared type
 * per reply (the sandbox for code-golf) unless `--no-runtime`, which skips them instead.
 */
import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import type { Command } from "commander";
import { taskPrompt } from "envroll/internal/harnesses/prompt.ts";
import type { LoadedJudge } from "envroll/internal/judges/loader.ts";
import { loadConfigAndTaskset } from "envroll/internal/loaders/config.ts";
import { createRuntime } from "envroll/internal/runtimes/index.ts";
import type { Runtime } from "envroll/internal/runtimes/runtime.ts";
import { scoreGroup, scoreTrace } from "envroll/internal/scoring.ts";
import type { Taskset } from "envroll/internal/task.ts";
import { Trace } from "envroll/internal/trace/trace.ts";
import { type Message, MessageSchema, type TaskData, TaskDataSchema } from "envroll/internal/types.ts";
import { resolveTarget, splitArgs, UsageError } from "./args.ts";
import { scoreJudges } from "./score-judges.ts";

export interface ScoreOptions {
  /** Give runtime-needing handlers a runtime (default true). */
  runtime: boolean;
  /** Let a sandbox runtime fall back to rlimits-only subprocesses where bubblewrap cannot run. */
  allowUnsandboxed?: boolean;
  /** Plugged judges, scored after the rewards (a failure is the line's JudgeError). */
  judges?: readonly LoadedJudge[];
}

export interface ScoredReply {
  reward: number;
  rewards: Record<string, number>;
  metrics: Record<string, number>;
}

class LineError extends Error {}

function parseTask(taskset: Taskset<any, any>, raw: unknown): TaskData {
  const r = (taskset.dataSchema ?? TaskDataSchema).safeParse(raw);
  if (!r.success)
    throw new LineError(
      `task: ${r.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}`,
    );
  return r.data as TaskData;
}

/** One conversation: a reply string (after the task's prompt) or explicit messages. */
function conversation(task: TaskData, item: unknown, where: string): Message[] {
  if (typeof item === "string") return [...taskPrompt(task), { role: "assistant", content: item }];
  if (Array.isArray(item)) {
    const r = MessageSchema.array().safeParse(item);
    if (!r.success) throw new LineError(`${where}: not a list of messages (${r.error.issues[0]?.message})`);
    return r.data;
  }
  throw new LineError(`${where}: expected a string or a list of messages`);
}

async function scoreOne(
  taskset: Taskset<any, any>,
  task: TaskData,
  messages: Message[],
  options: ScoreOptions,
): Promise<Trace> {
  const trace = Trace.fromReplies(task, messages);
  let runtime: Runtime | null = null;
  const needsRuntime = [...(taskset.metrics ?? []), ...(taskset.rewards ?? [])].some((h) => h.needsRuntime);
  if (options.runtime && needsRuntime) {
    const spec = taskset.runtime ?? { type: "subprocess" };
    runtime = await createRuntime(
      options.allowUnsandboxed && spec.type === "sandbox" ? { ...spec, allow_unsandboxed: true } : spec,
    );
    await runtime.start();
  }
  try {
    await scoreTrace(taskset, trace, { task, runtime }, options.judges ?? []);
  } finally {
    await runtime?.stop();
  }
  return trace;
}

const result = (t: Trace): ScoredReply => ({
  reward: t.reward,
  rewards: { ...t.rewards },
  metrics: { ...t.metrics },
});

/** Scores one input line; throws LineError/TaskError for a bad line. */
export async function scoreLine(
  taskset: Taskset<any, any>,
  line: string,
  options: ScoreOptions,
): Promise<ScoredReply | ScoredReply[]> {
  let row: unknown;
  try {
    row = JSON.parse(line);
  } catch (e) {
    throw new LineError(`invalid JSON (${(e as Error).message})`);
  }
  if (typeof row !== "object" || row === null || Array.isArray(row))
    throw new LineError("expected a JSON object");
  const { task: rawTask, reply, messages, replies } = row as Record<string, unknown>;
  const given = [reply, messages, replies].filter((x) => x !== undefined).length;
  if (given !== 1) throw new LineError('give exactly one of "reply", "messages" or "replies"');
  const task = parseTask(taskset, rawTask ?? {});
  if (replies === undefined) {
    const conv = conversation(task, reply ?? messages, reply !== undefined ? "reply" : "messages");
    return result(await scoreOne(taskset, task, conv, options));
  }
  if (!Array.isArray(replies) || replies.length === 0)
    throw new LineError('"replies" must be a non-empty list');
  const convs = replies.map((r, i) => conversation(task, r, `replies[${i}]`));
  const traces = await Promise.all(convs.map((c) => scoreOne(taskset, task, c, options)));
  // Group rewards compare rollouts; a group of one has nothing to compare (Verifiers requires ≥ 2).
  if (traces.length >= 2) await scoreGroup(taskset.groupRewards, task, traces);
  return traces.map(result);
}

/** Scores every line in order; returns the number of failed lines. */
export async function scoreStream(
  taskset: Taskset<any, any>,
  lines: AsyncIterable<string>,
  write: (line: string) => void,
  options: ScoreOptions,
): Promise<number> {
  let n = 0;
  let failed = 0;
  for await (const line of lines) {
    n++;
    if (line.trim() === "") continue;
    try {
      write(JSON.stringify(await scoreLine(taskset, line, options)));
    } catch (e) {
      failed++;
      const msg = e instanceof LineError ? e.message : `${(e as Error).name}: ${(e as Error).message}`;
      write(JSON.stringify({ error: `line ${n}: ${msg}` }));
    }
  }
  return failed;
}

export function registerScoreCommand(program: Command): void {
  program
    .command("score")
    .description(
      "Re-score replies offline: one {task, reply | messages | replies} JSON object per stdin line",
    )
    .argument("<taskset>", "built-in taskset id, a taskset module or package path, or a config.toml")
    .option("--jsonl", "read JSON Lines (the only input format; accepted for explicitness)")
    .option("-i, --input <file>", "read this file instead of stdin")
    .option(
      "--no-runtime",
      "skip handlers that need a runtime (e.g. code-golf's evaluate) instead of running them",
    )
    .option(
      "--allow-unsandboxed",
      "without bubblewrap, run programs as plain subprocesses with rlimits (no isolation)",
    )
    .option("--no-judges", "leave out the config's judges (taskset.task.judges)")
    .allowUnknownOption()
    .allowExcessArguments()
    .addHelpText("after", "\nAny config key can be set with --KEY.PATH VALUE (the judges' too), as for eval")
    .action(
      async (
        _target: string,
        opts: { input?: string; runtime: boolean; allowUnsandboxed?: boolean; judges: boolean },
        cmd: Command,
      ) => {
        const { positionals, overrides } = splitArgs(cmd.args);
        if (positionals.length !== 1)
          throw new UsageError(`name one taskset or config.toml, got ${positionals.length}`);
        const t = resolveTarget(positionals[0]!);
        const { config, taskset } = await loadConfigAndTaskset(
          t.kind === "config" ? t.path : { taskset: { id: t.id } },
          overrides,
        );
        const say = (line: string) => process.stderr.write(`${line}\n`);
        const judges = opts.judges ? await scoreJudges(config, say) : null;
        try {
          const input = opts.input ? createReadStream(opts.input, "utf8") : process.stdin;
          const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
          const failed = await scoreStream(taskset, lines, (l) => process.stdout.write(`${l}\n`), {
            runtime: opts.runtime,
            allowUnsandboxed: opts.allowUnsandboxed === true,
            judges: judges?.judges ?? [],
          });
          if (failed > 0) process.exitCode = 1;
        } finally {
          await judges?.close();
        }
      },
    );
}
