/**
 * `envroll replay <traces.jsonl>`: plays recorded episodes again — the model's turns from the
 * recording (the built-in engine answers each prompt with the ids and logprobs recorded for
 * exactly that prompt), everything else live: the taskset's setup, the harness and its tools,
 * the runtime, stop conditions, and scoring with the reward functions as they are now. So a
 * changed reward re-scores yesterday's episodes without a model, and a changed taskset, tool or
 * template shows the first token where the episode now differs from the recording.
 *
 * The config is the run's own `config.toml` (beside the traces) unless `--config` names
 * another. Groups are replayed whole where the taskset scores groups. Exit 0 when every episode
 * replayed identically (re-scoring is reported, not a failure), 1 when any diverged.
 */
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { recordedPolicy } from "@envroll/engine/internal/policies/recorded.ts";
import type { Command } from "commander";
import { loadConfigAndTaskset } from "envroll/internal/loaders/config.ts";
import { readTraces, TracesWriter } from "envroll/internal/outputs/traces-file.ts";
import { compareEpisodes, type ReplayVerdict } from "envroll/internal/replay/divergence.ts";
import { pairRecording, recordedTurns, unreplayable } from "envroll/internal/replay/recording.ts";
import { isCheckpointFolder, isQwen3HubName, loadTokenizer } from "envroll/internal/tokenizer/index.ts";
import type { TraceRecord } from "envroll/internal/trace/record.ts";
import { UsageError } from "./args.ts";
import { BUILTIN_MODEL, openBackend } from "./eval-backend.ts";

export interface ReplayFlags {
  trace?: string[];
  config?: string;
  model?: string;
  json?: boolean;
  output?: string;
}

function select(traces: TraceRecord[], ids: string[] | undefined): TraceRecord[] {
  if (!ids?.length) return traces;
  return ids.map((id) => {
    const hits = traces.filter((t) => t.id === id || (id.length >= 6 && t.id.startsWith(id)));
    if (hits.length !== 1)
      throw new UsageError(
        `--trace ${id}: ${hits.length === 0 ? "no trace has that id" : `${hits.length} traces start with it; give more of the id`}`,
      );
    return hits[0]!;
  });
}

/** The built-in engine carries the Qwen3 tokenizer; any other model needs its checkpoint folder. */
function checkServable(model: string): void {
  if (model === BUILTIN_MODEL || isQwen3HubName(model) || isCheckpointFolder(model)) return;
  throw new UsageError(
    `the recording's model is ${model}: replay answers from the built-in engine, which carries only ` +
      "the Qwen3 tokenizer; pass --model DIR (a checkpoint folder with that model's tokenizer)",
  );
}

function verdictLine(t: TraceRecord, v: ReplayVerdict, decode: (ids: number[]) => string): string[] {
  const head = `task ${t.task_index} rollout ${t.rollout_index} (${t.id.slice(0, 8)})`;
  const rescored = v.rescored.length
    ? `re-scored: ${v.rescored.map((c) => `${c.key} ${c.recorded ?? "-"} → ${c.now ?? "-"}`).join(", ")}`
    : "";
  if (!v.divergence) return [`${head}: identical${rescored ? `; ${rescored}` : ""}`];
  const d = v.divergence;
  const lines = [`${head}: diverged at turn ${d.turn}: ${d.detail}`];
  if (d.index >= 0) {
    lines.push(`    recorded: ${JSON.stringify(decode(d.recordedIds))}`);
    lines.push(`    replayed: ${JSON.stringify(decode(d.nowIds))}`);
  }
  if (rescored) lines.push(`    ${rescored}`);
  return lines;
}

export async function runReplay(file: string, flags: ReplayFlags): Promise<number> {
  const path = resolve(file);
  if (!existsSync(path)) throw new UsageError(`${file}: no such file`);
  const { traces: all, badLines } = readTraces(path);
  if (all.length === 0)
    throw new UsageError(
      `${file}: no trace in it${badLines.length ? ` (${badLines.length} unreadable line(s), first at line ${badLines[0]})` : ""}`,
    );
  const chosen = select(all, flags.trace);
  for (const t of chosen) {
    const why = unreplayable(t);
    if (why) throw new UsageError(`trace ${t.id} cannot be replayed: ${why}`);
  }
  const configPath = resolve(flags.config ?? join(dirname(path), "config.toml"));
  if (!existsSync(configPath))
    throw new UsageError(
      `no config at ${configPath}: pass --config (the run's config.toml or a changed one)`,
    );
  const overrides: [string, unknown][] = flags.model ? [["model", flags.model]] : [];
  const { config, taskset } = await loadConfigAndTaskset(configPath, overrides);
  checkServable(config.model);

  const say = (line: string) => process.stderr.write(`${line}\n`);
  // The policy is filled once the backend says whether groups must replay whole.
  const recorded = recordedPolicy([]);
  let episodes: TraceRecord[] = chosen;
  let play = recorded;
  const backend = await openBackend(
    config,
    { kind: "builtin", policy: (ctx) => play.policy(ctx) },
    say,
    taskset,
  );
  const replayed: TraceRecord[] = [];
  try {
    const grouped = chosen.some((t) => backend.isGroupTask(t.task_index));
    if (grouped) {
      const tasks = new Set(chosen.map((t) => t.task_index));
      episodes = all.filter((t) => tasks.has(t.task_index));
    }
    play = recordedPolicy(episodes.flatMap(recordedTurns));
    const work = new Map<number, number[]>();
    for (const t of episodes) work.set(t.task_index, [...(work.get(t.task_index) ?? []), t.rollout_index]);
    say(
      `replaying ${episodes.length} episode(s) of ${file} with ${configPath}: model turns from the recording; ` +
        "harness, tools, runtime and scoring live",
    );
    const writer = flags.output ? new TracesWriter(resolve(flags.output)) : null;
    await backend.run(
      [...work].map(([taskIndex, rolloutIndices]) => ({ taskIndex, rolloutIndices })),
      {
        concurrency: Math.min(config.max_concurrent, 16),
        signal: new AbortController().signal,
        onTrace: (t) => {
          replayed.push(t);
          writer?.append(t);
        },
        onWarning: say,
      },
    );
    writer?.close();
  } finally {
    await backend.close();
  }

  const tokenizer = loadTokenizer(isCheckpointFolder(config.model) ? config.model : "qwen3");
  const decode = (ids: number[]) => tokenizer.decode(ids);
  let diverged = 0;
  let rescored = 0;
  // Rollouts of a group share a first prompt, so a replay is paired with the recording it followed.
  const taken = new Set<string>();
  const paired = new Map<string, TraceRecord>();
  for (const now of replayed) {
    const rec = pairRecording(now, episodes, taken);
    if (rec) paired.set(rec.id, now);
  }
  for (const t of episodes) {
    const now = paired.get(t.id);
    const verdict: ReplayVerdict = now
      ? compareEpisodes(t, now)
      : {
          divergence: {
            turn: 1,
            branch: 0,
            index: -1,
            role: null,
            recordedIds: [],
            nowIds: [],
            detail: "the replay produced no trace",
          },
          rescored: [],
        };
    if (verdict.divergence) diverged++;
    if (verdict.rescored.length) rescored++;
    if (flags.json)
      process.stdout.write(
        `${JSON.stringify({ id: t.id, task_index: t.task_index, rollout_index: t.rollout_index, replayed_id: now?.id ?? null, identical: !verdict.divergence, ...verdict })}\n`,
      );
    else for (const line of verdictLine(t, verdict, decode)) process.stdout.write(`${line}\n`);
  }
  say(
    `${episodes.length} replayed: ${episodes.length - diverged} identical, ${diverged} diverged, ${rescored} re-scored` +
      (play.misses ? ` (${play.misses} prompt(s) the recording never saw)` : ""),
  );
  return diverged > 0 ? 1 : 0;
}

export function registerReplayCommand(program: Command): void {
  program
    .command("replay")
    .description("Replay recorded episodes: model turns from traces.jsonl, harness, tools and scoring live")
    .argument("<traces>", "a run's traces.jsonl")
    .option("--trace <id...>", "only these traces (an id or a unique prefix of 6+ characters)")
    .option("--config <file>", "config to replay with (default: config.toml beside the traces)")
    .option("--model <dir>", "checkpoint folder whose tokenizer the recording used (non-Qwen3 models)")
    .option("--json", "one JSON verdict per episode on stdout")
    .option("-o, --output <file>", "also write the replayed traces to this JSONL file")
    .action(async (file: string, flags: ReplayFlags) => {
      process.exitCode = await runReplay(file, flags);
    });
}
