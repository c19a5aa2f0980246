/**
 * `envroll eval <taskset | config.toml>`: runs tasks × rollouts and writes the run folder
 * (config.toml, traces.jsonl, summary.json, report.html).
 *
 * Precedence is CLI over TOML over taskset defaults over built-in defaults, as in Verifiers:
 * the named flags (-n, -r, -c, -s, -m, -o) and every `--KEY.PATH VALUE` become dotted overrides
 * handed to `loadConfig`. Traces are appended as each rollout finishes, so an interrupted or
 * killed run keeps everything that completed, and `--resume DIR` finishes it.
 */

import { setMaxListeners } from "node:events";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { loadConfigAndTaskset, readConfigFile } from "envroll/internal/config/index.ts";
import type { EnvConfig } from "envroll/internal/config/schema.ts";
import { planResume, type ResumeWork } from "envroll/internal/outputs/resume.ts";
import { FILES, newRunId, runFolder, writeDerived } from "envroll/internal/outputs/run-folder.ts";
import type { Summary } from "envroll/internal/outputs/summary.ts";
import { effectiveTraces } from "envroll/internal/outputs/trace-set.ts";
import { readTraces, TracesWriter } from "envroll/internal/outputs/traces-file.ts";
import type { Taskset } from "envroll/internal/task.ts";
import { stringify as stringifyToml } from "smol-toml";
import { finiteNumber, positiveInt, resolveTarget, splitArgs, UsageError } from "./args.ts";
import { BUILTIN_MODEL, type EndpointChoice, openBackend } from "./eval-backend.ts";
import { Progress } from "./progress.ts";

export interface EvalFlags {
  engine?: string;
  openai?: string;
  model?: string;
  numTasks?: number;
  numRollouts?: number;
  maxConcurrent?: number;
  shuffle?: boolean;
  outputDir?: string;
  resume?: string;
  passThreshold?: number;
  dryRun?: boolean;
}

/** Keys a resumed run must keep: changing them would change which rollouts exist. */
const FIXED_ON_RESUME = ["taskset", "num_tasks", "num_rollouts", "shuffle"];

function flagOverrides(flags: EvalFlags): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  if (flags.model !== undefined) o["model"] = flags.model;
  if (flags.numTasks !== undefined) o["num_tasks"] = flags.numTasks;
  if (flags.numRollouts !== undefined) o["num_rollouts"] = flags.numRollouts;
  if (flags.maxConcurrent !== undefined) o["max_concurrent"] = flags.maxConcurrent;
  if (flags.shuffle) o["shuffle"] = true;
  if (flags.outputDir !== undefined) o["output_dir"] = flags.outputDir;
  if (flags.engine) Object.assign(o, { "client.type": "train", "client.base_url": flags.engine });
  if (flags.openai) Object.assign(o, { "client.type": "eval", "client.base_url": flags.openai });
  return o;
}

/** The resolved config as re-runnable TOML (nulls dropped: TOML has none, and they are defaults). */
export function configToml(config: EnvConfig, header: string[]): string {
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip);
    if (v && typeof v === "object") {
      return Object.fromEntries(
        Object.entries(v)
          .filter(([, x]) => x !== null && x !== undefined)
          .map(([k, x]) => [k, strip(x)]),
      );
    }
    return v;
  };
  const { resume: _r, dry_run: _d, ...rest } = config;
  // The one null that is not a default: "no API key variable" is spelled "" so it survives TOML.
  if (rest.client?.api_key_var === null) rest.client = { ...rest.client, api_key_var: "" };
  return `${header.map((l) => `# ${l}`).join("\n")}\n${stringifyToml(strip(rest) as Record<string, unknown>)}\n`;
}

interface Plan {
  config: EnvConfig;
  taskset: Taskset<any, any>;
  endpoint: EndpointChoice;
  dir: string | null;
  resumeDir: string | null;
}

async function plan(
  target: string | undefined,
  flags: EvalFlags,
  extra: Record<string, unknown>,
): Promise<Plan> {
  if (flags.engine && flags.openai) throw new UsageError("give --engine or --openai, not both");
  const overrides: Record<string, unknown> = { ...extra, ...flagOverrides(flags) };
  let source: string | null = null;
  let resumeDir: string | null = null;
  if (flags.resume) {
    resumeDir = flags.resume;
    source = join(resumeDir, FILES.config);
    if (!existsSync(source)) throw new UsageError(`--resume ${resumeDir}: no ${FILES.config} there`);
    const bad = Object.keys(overrides).filter((k) => FIXED_ON_RESUME.includes(k.split(".")[0]!));
    if (bad.length > 0)
      throw new UsageError(`--resume keeps the run's ${bad.join(", ")}; drop those options`);
  } else {
    if (!target) throw new UsageError("name a taskset or a config.toml (or --resume DIR)");
    const t = resolveTarget(target);
    if (t.kind === "config") source = t.path;
    else overrides["taskset.id"] = t.id;
  }
  // Read once: its keys decide the defaults below, and the same table is what gets validated.
  const raw = source ? await readConfigFile(source) : {};
  // No client anywhere (flags, TOML, overrides) means the offline quickstart: the built-in engine.
  const explicitClient =
    Boolean(flags.engine || flags.openai) ||
    raw["client"] !== undefined ||
    Object.keys(overrides).some((k) => k === "client" || k.startsWith("client."));
  const modelDefault =
    explicitClient || raw["model"] !== undefined || raw["m"] !== undefined ? {} : { model: BUILTIN_MODEL };
  const { config, taskset } = await loadConfigAndTaskset(raw, { ...modelDefault, ...overrides });
  const endpoint: EndpointChoice = explicitClient
    ? { kind: "client", client: config.client }
    : { kind: "builtin" };
  return { config, taskset, endpoint, dir: resumeDir, resumeDir };
}

export async function runEval(
  target: string | undefined,
  flags: EvalFlags,
  extra: Record<string, unknown>,
): Promise<number> {
  const p = await plan(target, flags, extra);
  const { config } = p;
  if (flags.dryRun || config.dry_run) {
    process.stdout.write(configToml(config, ["envroll eval --dry-run: the resolved config"]));
    return 0;
  }
  const backend = await openBackend(
    config,
    p.endpoint,
    (line) => process.stderr.write(`${line}\n`),
    p.taskset,
  );
  const controller = new AbortController();
  // Every in-flight rollout listens on this one signal; the default cap of 10 would warn.
  setMaxListeners(0, controller.signal);
  let signalled: NodeJS.Signals | null = null;
  const onSignal = (sig: NodeJS.Signals) => {
    if (signalled) process.exit(sig === "SIGINT" ? 130 : 143); // a second signal: leave now
    signalled = sig;
    process.stderr.write(`\n${sig}: stopping — aborting in-flight rollouts, keeping finished ones…\n`);
    controller.abort();
    // Best effort: the engine may already be gone; close() waits for this before tearing down.
    aborting = backend.abort().catch(() => {});
  };
  let aborting: Promise<void> = Promise.resolve();
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  let writer: TracesWriter | null = null;
  try {
    const dir =
      p.dir ??
      runFolder(
        config.output_dir ?? "outputs",
        backend.tasksetId,
        config.model,
        config.harness.id,
        newRunId(),
      );
    mkdirSync(dir, { recursive: true });
    const previous = p.resumeDir ? readTraces(join(dir, FILES.traces), { slim: true }).traces : [];
    if (!p.resumeDir) {
      const header = [
        `envroll eval: the resolved config of run ${dir.split(/[\\/]/).pop()}; re-run with \`npx envroll eval config.toml\``,
        ...(p.endpoint.kind === "builtin"
          ? ["client: none given, so the built-in engine (reference policy) is started"]
          : []),
      ];
      const saved = p.endpoint.kind === "builtin" ? { ...config, client: undefined } : config;
      writeFileSync(join(dir, FILES.config), configToml(saved as EnvConfig, header));
    }
    const all = backend.taskIndices.map((taskIndex) => ({
      taskIndex,
      rolloutIndices: Array.from({ length: config.num_rollouts }, (_, r) => r),
    }));
    const work: ResumeWork[] = p.resumeDir
      ? planResume(previous, {
          taskIndices: backend.taskIndices,
          numRollouts: config.num_rollouts,
          isGroupTask: (i) => backend.isGroupTask(i),
        }).work
      : all;
    const total = backend.taskIndices.length * config.num_rollouts;
    const todo = work.reduce((a, w) => a + w.rolloutIndices.length, 0);
    if (p.resumeDir)
      process.stderr.write(`resuming ${dir}: ${total - todo} rollout(s) done, ${todo} to run\n`);
    else process.stderr.write(`writing ${dir}\n`);
    writer = new TracesWriter(join(dir, FILES.traces));
    const progress = new Progress({ total, initial: total - todo });
    progress.start();
    const started = Date.now();
    const w = writer;
    let cancelled = 0;
    // A failure that escapes the run (a group reward throwing) still leaves a summary and report
    // over what finished before it is reported.
    let runError: unknown = null;
    try {
      await backend.run(work, {
        concurrency: config.max_concurrent,
        signal: controller.signal,
        onTrace: (trace) => {
          // A rollout cut short by the interrupt is not a result: leave it out, and resume reruns it.
          if (signalled && trace.errors.length > 0) {
            cancelled += 1;
            return;
          }
          w.append(trace);
          progress.add(trace.reward, trace.errors.length > 0);
        },
      });
    } catch (e) {
      runError = e;
    }
    progress.stop();
    writer.close();
    const meta = {
      taskset: backend.tasksetId,
      model: config.model,
      harness: config.harness.id,
      run_id: dir.split(/[\\/]/).pop()!,
      num_tasks: config.num_tasks,
      num_rollouts: config.num_rollouts,
      pass_threshold: flags.passThreshold,
      // A resumed run spans several sessions, so no single wall time describes it.
      wall_seconds: p.resumeDir ? null : (Date.now() - started) / 1000,
    };
    const { summary } = writeDerived(dir, meta);
    printSummary(summary, dir);
    if (runError !== null) {
      const msg = runError instanceof Error ? `${runError.name}: ${runError.message}` : String(runError);
      process.stderr.write(
        `run failed: ${msg}\nfinished rollouts are kept; resume with: npx envroll eval --resume ${dir}\n`,
      );
      return 1;
    }
    if (signalled) {
      const done = effectiveTraces(readTraces(join(dir, FILES.traces), { slim: true }).traces).filter(
        (t) => t.errors.length === 0,
      ).length;
      process.stderr.write(
        `interrupted: ${done}/${total} rollouts done in ${dir} (${cancelled} in-flight or queued rollout(s) cancelled)\n` +
          `resume with: npx envroll eval --resume ${dir}\n`,
      );
      return signalled === "SIGINT" ? 130 : 143;
    }
    return 0;
  } finally {
    writer?.close();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await aborting;
    await backend.close();
  }
}

function printSummary(s: Summary, dir: string): void {
  const f = (x: number | null) => (x === null ? "–" : x.toFixed(3));
  const lines = [
    `reward ${f(s.reward.mean)} ± ${f(s.reward.std)} (non-errored ${f(s.reward.mean_non_errored)}) over ${s.num_traces} rollouts of ${s.num_tasks} tasks`,
    `errors ${(s.error_rate * 100).toFixed(1)}%  truncated ${(s.truncation_rate * 100).toFixed(1)}%`,
  ];
  const ks = Object.keys(s.pass_at_k);
  if (ks.length)
    lines.push(
      ks.map((k) => `pass@${k} ${f(s.pass_at_k[k]!)}  pass^${k} ${f(s.pass_all_k[k]!)}`).join("  |  "),
    );
  for (const [k, v] of Object.entries(s.rewards)) lines.push(`  reward ${k}: ${f(v)}`);
  for (const [k, v] of Object.entries(s.metrics)) lines.push(`  metric ${k}: ${f(v)}`);
  lines.push(`outputs: ${dir}/{${FILES.traces},${FILES.summary},${FILES.report},${FILES.config}}`);
  process.stdout.write(`${lines.join("\n")}\n`);
}

export function registerEvalCommand(program: Command): void {
  program
    .command("eval")
    .description("Evaluate a model on a taskset: traces.jsonl, summary.json (pass@k), report.html")
    .argument("[target]", "taskset id, taskset package/module path, or config.toml")
    .option("--engine <url>", "SGLang-protocol endpoint (token-exact TrainClient)")
    .option("--openai <url>", "any OpenAI-compatible endpoint (EvalClient)")
    .option("-m, --model <name>", "model name")
    .option("-n, --num-tasks <n>", "number of tasks (default: all)", positiveInt("-n"))
    .option("-r, --num-rollouts <r>", "rollouts per task (group size)", positiveInt("-r"))
    .option("-c, --max-concurrent <c>", "rollouts in flight", positiveInt("-c"))
    .option("-s, --shuffle", "shuffle tasks (seed 0)")
    .option("-o, --output-dir <dir>", "base output folder (default: outputs)")
    .option("--resume <dir>", "finish an earlier run folder: rerun missing or errored rollouts")
    .option(
      "--pass-threshold <x>",
      "reward counted as correct for pass@k (default 0.5)",
      finiteNumber("--pass-threshold"),
    )
    .option("--dry-run", "print the resolved config and exit")
    .allowUnknownOption()
    .allowExcessArguments()
    .addHelpText(
      "after",
      "\nAny config key can be set with --KEY.PATH VALUE, e.g. --sampling.temperature 0.7 --harness.id null",
    )
    .action(async (_target: string | undefined, flags: EvalFlags, cmd: Command) => {
      const { positionals, overrides } = splitArgs(cmd.args);
      if (positionals.length > 1)
        throw new UsageError(`unexpected argument(s): ${positionals.slice(1).join(" ")}`);
      process.exitCode = await runEval(positionals[0], flags, overrides);
    });
}
