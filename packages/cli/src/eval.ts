/**
 * `envroll eval <taskset | config.toml>`: runs tasks × rollouts and writes the run folder
 * (config.toml, traces.jsonl, summary.json, report.html).
 *
 * Before scheduling anything the endpoint is checked (and asked which model it serves when none
 * was named). Traces are appended as each rollout finishes, so an interrupted or killed run keeps
 * everything that completed, and `--resume DIR` finishes it. A run in which every rollout errored
 * (or more than `--max-error-rate` of them) exits 1.
 */

import { setMaxListeners } from "node:events";
import { mkdirSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import type { Command } from "commander";
import type { EnvConfig } from "envroll/internal/config/schema.ts";
import { planResume, type ResumeWork } from "envroll/internal/outputs/resume.ts";
import { FILES, newRunId, runFolder, writeDerived } from "envroll/internal/outputs/run-folder.ts";
import { effectiveTraces } from "envroll/internal/outputs/trace-set.ts";
import { readTraces, TracesWriter } from "envroll/internal/outputs/traces-file.ts";
import { namesRenderer } from "envroll/internal/renderers/index.ts";
import type { TraceRecord } from "envroll/internal/trace/record.ts";
import { finiteNumber, positiveInt, splitArgs, UsageError } from "./args.ts";
import { openBackend } from "./eval-backend.ts";
import { failureLines, retryLine, summaryLines } from "./eval-outcome.ts";
import { configToml, type EvalFlags, type EvalPlan, planEval } from "./eval-plan.ts";
import { preflight } from "./preflight.ts";
import { Progress } from "./progress.ts";

export { configToml, type EvalFlags } from "./eval-plan.ts";

type Say = (line: string) => void;

/**
 * Checks the endpoint, and for a TrainClient without a named model takes the one the engine
 * serves (it decides the renderer and tokenizer, so a guess would make wrong token ids).
 */
async function identifyEndpoint(p: EvalPlan, say: Say): Promise<void> {
  if (p.endpoint.kind !== "client") return;
  const client = p.endpoint.client;
  const found = await preflight(client);
  if (client.type !== "train") return;
  if (p.modelGiven) {
    if (found.model && found.model !== p.config.model)
      say(`note: ${client.base_url} serves ${found.model}; --model ${p.config.model} decides the renderer`);
    return;
  }
  if (found.model) {
    // A served name that selects no renderer (an engine's alias) says less than the tokenizer
    // SGLang renders with, which is then what decides the token ids.
    const byTokenizer = !namesRenderer(found.model) && found.tokenizer && namesRenderer(found.tokenizer);
    p.config.model = byTokenizer ? found.tokenizer! : found.model;
    say(
      byTokenizer
        ? `model: ${p.config.model} (tokenizer_path from ${found.source}, which serves ${found.model})`
        : `model: ${found.model} (from ${found.source})`,
    );
    return;
  }
  if (client.renderer === null && client.renderer_model_name === null)
    throw new UsageError(
      `${client.base_url} did not say which model it serves (${found.source}); pass --model NAME (it picks the renderer and tokenizer)`,
    );
}

function traceLine(t: TraceRecord): string {
  const where = `task ${t.task_index} rollout ${t.rollout_index}`;
  const e = t.errors[t.errors.length - 1];
  if (e) return `${where}: error ${e.type}: ${e.message.split("\n")[0]}`;
  return `${where}: reward ${t.reward.toFixed(3)}, stop ${t.stop_condition ?? "none"}, ${t.num_turns} turn(s)`;
}

export async function runEval(
  target: string | undefined,
  flags: EvalFlags,
  extra: Record<string, unknown>,
): Promise<number> {
  const p = await planEval(target, flags, extra);
  const { config } = p;
  if (flags.dryRun || config.dry_run) {
    process.stdout.write(configToml(config, ["envroll eval --dry-run: the resolved config"]));
    return 0;
  }
  const say: Say = (line) => process.stderr.write(`${line}\n`);
  // The endpoint check is a round trip to another process: the tasks load (and the tokenizer is
  // read) while it is in flight.
  const backend = await openBackend(config, p.endpoint, say, p.taskset, identifyEndpoint(p, say));
  const origin = p.taskset.origin;
  // Which code runs is said up front: an id never silently means a port of a similar name.
  if (origin)
    say(
      `taskset ${config.taskset.id}: ${origin.language} module ${origin.module}${origin.version ? ` ${origin.version}` : ""}${origin.class ? ` (${origin.class})` : ""}${origin.python ? `, hosted by ${origin.python}` : ""}`,
    );
  const controller = new AbortController();
  // Every in-flight rollout listens on this one signal; the default cap of 10 would warn.
  setMaxListeners(0, controller.signal);
  let signalled: NodeJS.Signals | null = null;
  let aborting: Promise<void> = Promise.resolve();
  const onSignal = (sig: NodeJS.Signals) => {
    if (signalled) process.exit(sig === "SIGINT" ? 130 : 143); // a second signal: leave now
    signalled = sig;
    say(`\n${sig}: stopping — aborting in-flight rollouts, keeping finished ones…`);
    controller.abort();
    // Best effort: the engine may already be gone; close() waits for this before tearing down.
    aborting = backend.abort().catch(() => {});
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  let writer: TracesWriter | null = null;
  try {
    const dir =
      p.resumeDir ??
      runFolder(
        config.output_dir ?? "outputs",
        backend.tasksetId,
        config.model,
        config.harness.id,
        newRunId(),
      );
    // The run id is the folder's name, however the folder was spelled (`--resume runs/x/`).
    const runId = basename(resolve(dir));
    mkdirSync(dir, { recursive: true });
    const previous = p.resumeDir ? readTraces(join(dir, FILES.traces), { slim: true }).traces : [];
    if (!p.resumeDir) {
      const header = [
        `envroll eval: the resolved config of run ${runId}; re-run with \`npx envroll eval config.toml\``,
        ...(p.endpoint.kind === "builtin"
          ? ["client: none given, so the built-in engine (reference policy) is started"]
          : []),
      ];
      const saved = p.endpoint.kind === "builtin" ? { ...config, client: undefined } : config;
      writeFileSync(join(dir, FILES.config), configToml(saved as EnvConfig, header));
    }
    const work: ResumeWork[] = p.resumeDir
      ? planResume(previous, {
          taskIndices: backend.taskIndices,
          numRollouts: config.num_rollouts,
          isGroupTask: (i) => backend.isGroupTask(i),
        }).work
      : backend.taskIndices.map((taskIndex) => ({
          taskIndex,
          rolloutIndices: Array.from({ length: config.num_rollouts }, (_, r) => r),
        }));
    const total = backend.taskIndices.length * config.num_rollouts;
    const todo = work.reduce((a, w) => a + w.rolloutIndices.length, 0);
    say(p.resumeDir ? `resuming ${dir}: ${total - todo} rollout(s) done, ${todo} to run` : `writing ${dir}`);
    writer = new TracesWriter(join(dir, FILES.traces));
    // Per-rollout lines (verbose) would be torn by a bar redrawn in place.
    const progress = new Progress({
      total,
      initial: total - todo,
      ...(config.verbose || !config.rich ? { tty: false } : {}),
    });
    await progress.start();
    const started = Date.now();
    const w = writer;
    let delivered = 0;
    let cutShort = 0;
    // A failure that escapes the run (a group reward throwing) still leaves a summary and report
    // over what finished before it is reported.
    let runError: unknown = null;
    try {
      await backend.run(work, {
        concurrency: config.max_concurrent,
        signal: controller.signal,
        onWarning: (m) => say(`warning: ${m}`),
        onTrace: (trace) => {
          delivered++;
          // A rollout cut short by the interrupt is not a result: leave it out, and resume reruns it.
          if (signalled && trace.errors.length > 0) {
            cutShort++;
            return;
          }
          w.append(trace);
          if (config.verbose) say(traceLine(trace));
          progress.add(trace.reward, trace.errors.length > 0);
        },
      });
    } catch (e) {
      runError = e;
    }
    progress.stop();
    writer.close();
    const { summary } = writeDerived(dir, {
      taskset: backend.tasksetId,
      ...(origin ? { taskset_origin: origin } : {}),
      model: config.model,
      harness: config.harness.id,
      run_id: runId,
      num_tasks: config.num_tasks,
      num_rollouts: config.num_rollouts,
      pass_threshold: config.pass_threshold,
      // A resumed run spans several sessions, so no single wall time describes it.
      wall_seconds: p.resumeDir ? null : (Date.now() - started) / 1000,
    });
    const retried = retryLine(backend.retries());
    process.stdout.write(`${[...summaryLines(summary, dir), ...(retried ? [retried] : [])].join("\n")}\n`);
    const resumeHint = `resume with: npx envroll eval --resume ${dir}`;
    if (runError !== null) {
      const msg = runError instanceof Error ? `${runError.name}: ${runError.message}` : String(runError);
      say(`run failed: ${msg}\nfinished rollouts are kept; ${resumeHint}`);
      return 1;
    }
    if (signalled) {
      const done = effectiveTraces(readTraces(join(dir, FILES.traces), { slim: true }).traces).filter(
        (t) => t.errors.length === 0,
      ).length;
      say(
        `interrupted: ${done}/${total} rollouts done in ${dir}; ${cutShort} cut short (left out), ` +
          `${todo - delivered} never started\n${resumeHint}`,
      );
      return signalled === "SIGINT" ? 130 : 143;
    }
    const failed = failureLines(
      summary,
      config.max_error_rate,
      () => readTraces(join(dir, FILES.traces), { slim: true }).traces,
    );
    if (failed) {
      say([...failed, `errored rollouts rerun with: npx envroll eval --resume ${dir}`].join("\n"));
      return 1;
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

export function registerEvalCommand(program: Command): void {
  program
    .command("eval")
    .description("Evaluate a model on a taskset: traces.jsonl, summary.json (pass@k), report.html")
    .argument("[target]", "taskset id, taskset package/module path, or config.toml")
    .option("--engine <url>", "SGLang-protocol endpoint (token-exact TrainClient)")
    .option("--openai <url>", "any OpenAI-compatible endpoint (EvalClient)")
    .option("-m, --model <name>", "model name (default with --engine: the one the engine serves)")
    .option("-n, --num-tasks <n>", "number of tasks (default: all)", positiveInt("-n"))
    .option("-r, --num-rollouts <r>", "rollouts per task (group size)", positiveInt("-r"))
    .option("-c, --max-concurrent <c>", "rollouts in flight", positiveInt("-c"))
    .option("-s, --shuffle", "shuffle tasks (seed 0)")
    .option("-o, --output-dir <dir>", "base output folder (default: outputs)")
    .option("--resume <dir>", "finish an earlier run folder: rerun missing or errored rollouts")
    .option(
      "--pass-threshold <x>",
      "reward counted as correct for pass@k (default 0.5; saved with the run)",
      finiteNumber("--pass-threshold"),
    )
    .option(
      "--max-error-rate <x>",
      "fail (exit 1) when more than this fraction of rollouts errored (default: only when all did)",
      finiteNumber("--max-error-rate"),
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
