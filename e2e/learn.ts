/**
 * `npm run learn`: envroll's samples train. A CPU learning run on the tiny seeded Qwen3 served by
 * envroll_engine: envroll rollouts of the plain-words taskset (learn/taskset.ts) through the
 * TrainClient, Miles sample groups, GRPO steps in `python -m envroll_engine.learner`, and each
 * step's weights pushed to the engine through SGLang's RL contract (pause_generation →
 * update_weights_from_disk with weight_version → continue_generation).
 *
 * Generation is not step-synchronous: groups still in flight when a step's batch is full keep
 * running through the update and join a later batch, so their episodes span weight versions;
 * every turn is teacher-forced against the version that sampled it.
 *
 * Writes learn.json, learn.html and learn.svg (reward per step, self-contained) to --out and prints the
 * path of learn.json last. Exit 1 when the reward did not rise by --min-rise, a step's logprob
 * mismatch reached 1e-4, or no episode spanned an update. See e2e/LEARN.md.
 */
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { TrainClient } from "../packages/core/src/clients/train.ts";
import { loadEnvironment } from "../packages/core/src/environment.ts";
import { loadConfig } from "../packages/core/src/loaders/config.ts";
import { SampleCounter, tracesToGroup } from "../packages/core/src/miles/convert.ts";
import { groupSamples } from "../packages/core/src/miles/sample.ts";
import { applyVersionPolicy } from "../packages/core/src/miles/versions.ts";
import { createRenderer } from "../packages/core/src/renderers/index.ts";
import { SglangTransport } from "../packages/core/src/transport/index.ts";
import { Learner } from "./learn/learner.ts";
import { GroupProducer } from "./learn/producer.ts";
import {
  countTurns,
  type LearnReport,
  mean,
  reportHtml,
  rewardSvg,
  type StepRecord,
  spansUpdate,
  splitTurns,
} from "./learn/report.ts";
import { type GroupRunner, PipelinedBatches } from "./learn/schedule.ts";
import plainWords from "./learn/taskset.ts";
import { type PythonEngine, projectPython, SetupError, startPythonEngine } from "./python.ts";

const TOLERANCE = 1e-4;

const { values: a } = parseArgs({
  options: {
    steps: { type: "string", default: "32" },
    "groups-per-step": { type: "string", default: "4" },
    rollouts: { type: "string", default: "4" },
    "in-flight": { type: "string", default: "6" },
    turns: { type: "string", default: "2" },
    "max-tokens": { type: "string", default: "8" },
    temperature: { type: "string", default: "0.1" },
    lr: { type: "string", default: "0.02" },
    seed: { type: "string", default: "1" },
    "mixed-versions": { type: "string", default: "keep" },
    "max-staleness": { type: "string" },
    "over-staleness": { type: "string", default: "drop" },
    "pause-mode": { type: "string", default: "abort" },
    schedule: { type: "string", default: "pipelined" },
    "min-rise": { type: "string", default: "0.2" },
    out: { type: "string", default: "learn-out" },
  },
});

const t0 = performance.now();
const log = (msg: string) =>
  console.error(`[learn +${((performance.now() - t0) / 1000).toFixed(1)}s] ${msg}`);
const num = (k: keyof typeof a) => {
  const n = Number(a[k]);
  if (!Number.isFinite(n)) throw new SetupError(`--${k}: expected a number, got ${JSON.stringify(a[k])}`);
  return n;
};

function configToml(): string {
  return [
    'model = "qwen3"',
    `num_rollouts = ${num("rollouts")}`,
    `max_concurrent = ${Math.max(num("in-flight"), 2 * num("groups-per-step")) * num("rollouts")}`,
    `max_turns = ${num("turns")}`,
    '[taskset]\nid = "plain-words"',
    // top_p/top_k neutral: the engine's logprob (before truncation) is then the sampling law.
    `[sampling]\ntemperature = ${num("temperature")}\nmax_tokens = ${num("max-tokens")}`,
    `[partial_rollout]\nmixed_versions = ${JSON.stringify(a["mixed-versions"])}`,
    a["max-staleness"] === undefined ? "" : `max_staleness = ${num("max-staleness")}`,
    `over_staleness = ${JSON.stringify(a["over-staleness"])}`,
    "",
  ].join("\n");
}

async function main(): Promise<number> {
  const out = resolve(a.out!);
  await mkdir(out, { recursive: true });
  if (a.schedule !== "pipelined" && a.schedule !== "free")
    throw new SetupError(`--schedule: expected pipelined or free, got ${JSON.stringify(a.schedule)}`);
  const config = await loadConfig(configToml(), undefined, { taskset: plainWords });
  const policy = config.partial_rollout;
  log(`python: ${projectPython()}`);
  let engine: PythonEngine | null = null;
  let learner: Learner | null = null;
  const work = join(out, "work");
  try {
    const weights = ["--tiny", "--seed", "0"];
    // Both load the same seeded weights; they start side by side.
    [engine, learner] = await Promise.all([
      startPythonEngine([...weights, "--weight-version", "0"]),
      Learner.start([
        ...weights,
        ...["--work", work, "--version", "0"],
        ...["--temperature", String(num("temperature")), "--lr", String(num("lr"))],
        ...["--pause-mode", a["pause-mode"]!],
      ]),
    ]);
    log(`engine ${engine.url}; learner ready`);
    const client = new TrainClient({
      renderer: createRenderer("qwen3"),
      // A turn the pause aborted is sent again: it waits at the paused engine and runs on the new weights.
      transport: new SglangTransport({
        baseUrl: engine.url,
        contextLength: engine.maxModelLen,
        retry: { onAbort: true, maxAttempts: 50, baseDelayMs: 20, maxDelayMs: 200 },
      }),
    });
    const env = await loadEnvironment(config, { taskset: plainWords });
    const seed = num("seed");
    const rollouts = num("rollouts");
    const runner: GroupRunner = (serial, taskIndex, c) =>
      env.runGroup(taskIndex, rollouts, {
        client: c,
        samplingFor: (_t, r) => ({ seed: seed * 1_000_000 + serial * 100 + r }),
      });
    const B = num("groups-per-step");
    const producer =
      a.schedule === "free"
        ? new GroupProducer(runner, client, env.tasks.length, num("in-flight"), B)
        : new PipelinedBatches(runner, client, env.tasks.length, B, rollouts);
    const steps: StepRecord[] = [];
    const trainedTurns: Record<string, number> = {};
    const counts: Record<string, number> = {
      mixed: 0,
      masked_out_tokens: 0,
      dropped_mixed: 0,
      stale_groups: 0,
    };
    let spanning = 0;
    let split = 0;
    let version = 0;
    const counter = new SampleCounter();
    for (let step = 1; step <= num("steps"); step++) {
      const s0 = performance.now();
      const batch = await producer.take(step);
      const samples = batch.map((g) => groupSamples(tracesToGroup(g.traces, counter)));
      const applied = applyVersionPolicy(samples, String(version), policy);
      for (const [k, v] of Object.entries(applied.counts)) counts[k] = (counts[k] ?? 0) + v;
      if (policy.over_staleness === "rerun")
        for (const g of applied.stale) producer.rerun(batch[g]!.taskIndex);
      const kept = batch.filter((_, g) => !applied.stale.includes(g)).flatMap((g) => g.traces);
      const path = join(work, `samples-step${step}.json`);
      await writeFile(path, JSON.stringify(applied.groups));
      const r = await learner.step(path, String(version + 1), engine.url);
      await rm(path);
      version++;
      producer.pushed(version);
      const batchTurns = countTurns(kept);
      countTurns(kept, trainedTurns);
      const batchSpanning = kept.filter(spansUpdate).length;
      spanning += batchSpanning;
      split += kept.reduce((n, t) => n + splitTurns(t), 0);
      const rec: StepRecord = {
        step,
        reward_mean: mean(batch.flatMap((g) => g.traces.map((t) => t.reward))),
        logprob_max_abs_diff: r.logprob_max_abs_diff,
        weight_version: r.weight_version,
        batch_turns_by_version: batchTurns,
        batch_spanning: batchSpanning,
        compared_tokens: r.masked_tokens,
        loss: r.loss,
        wall_s: (performance.now() - s0) / 1000,
      };
      steps.push(rec);
      log(
        `step ${step}: reward ${rec.reward_mean.toFixed(3)} max|Δlogprob| ${rec.logprob_max_abs_diff.toExponential(2)} ` +
          `turns ${JSON.stringify(batchTurns)} spanning ${batchSpanning} → v${r.weight_version} ` +
          `(train ${r.train_s}s, update ${r.update_s}s, ${producer.running} groups in flight)`,
      );
    }
    await client.abort(); // the groups still in flight are not trained on
    await producer.stop();
    await client.close();
    await env.close();
    const rewards = steps.map((s) => s.reward_mean);
    const report: LearnReport = {
      command: `npm run learn -- ${process.argv.slice(2).join(" ")}`.trim(),
      config: { ...a, partial_rollout: policy },
      steps,
      episodes_spanning_updates: spanning,
      split_turns: split,
      turns_by_version: trainedTurns,
      version_policy: counts,
      first5_reward_mean: mean(rewards.slice(0, 5)),
      last5_reward_mean: mean(rewards.slice(-5)),
      max_logprob_abs_diff: Math.max(...steps.map((s) => s.logprob_max_abs_diff)),
      wall_s: (performance.now() - t0) / 1000,
    };
    const jsonPath = join(out, "learn.json");
    await writeFile(jsonPath, `${JSON.stringify(report, null, 2)}\n`);
    await writeFile(join(out, "learn.html"), reportHtml(report));
    await writeFile(join(out, "learn.svg"), rewardSvg(report));
    const problems: string[] = [];
    const rise = report.last5_reward_mean - report.first5_reward_mean;
    if (!(rise >= num("min-rise")))
      problems.push(
        `reward rose by ${rise.toFixed(3)} (last five ${report.last5_reward_mean.toFixed(3)} vs first five ${report.first5_reward_mean.toFixed(3)}), under --min-rise ${num("min-rise")}`,
      );
    if (!(report.max_logprob_abs_diff < TOLERANCE))
      problems.push(`logprob mismatch ${report.max_logprob_abs_diff.toExponential(2)} ≥ ${TOLERANCE}`);
    if (spanning === 0) problems.push("no trained episode spanned a weight update");
    for (const p of problems) console.error(`learn FAIL: ${p}`);
    log(
      `${problems.length === 0 ? "PASS" : "FAIL"}: reward ${report.first5_reward_mean.toFixed(3)} → ${report.last5_reward_mean.toFixed(3)}, max|Δlogprob| ${report.max_logprob_abs_diff.toExponential(2)}, ${spanning} episodes spanning updates`,
    );
    console.log(jsonPath);
    return problems.length === 0 ? 0 : 1;
  } finally {
    await learner?.stop();
    await engine?.stop();
    await rm(work, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    if (e instanceof SetupError) console.error(`learn: ${e.message}`);
    else console.error(e instanceof Error ? (e.stack ?? e.message) : e);
    process.exit(1);
  },
);
