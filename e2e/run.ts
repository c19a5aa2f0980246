/**
 * `npm run e2e`: the end-to-end training check (issue 8).
 *
 * Phase 1 (must pass): starts the reference engine (`python -m envroll_engine --tiny`), runs
 * envroll rollouts through the TrainClient on reverse-text (single turn) and guess-number (a
 * user simulator, so every turn after the first is bridged), converts them to Miles sample
 * groups with the production converter, and hands them to `envroll_engine.train_check`, which
 * teacher-forces every sample through the same weights, compares logprobs on loss-masked
 * tokens, takes one GRPO step and reloads the engine with the new weights.
 *
 * Phase 2 (must fail): the same multi-turn traces converted the non-token-exact way (re-render
 * the final conversation, attach the sampled logprobs; see naive.ts) and checked against the
 * weights that sampled them. If that passed, the check could not tell exact samples from
 * re-rendered ones, and phase 1 would prove nothing.
 *
 * stdout: phase 1's `e2e samples=… weight_version=…` line, then one `e2e-negative …` line.
 * Progress goes to stderr. Exit 0 only when phase 1 passed and phase 2 failed on logprobs.
 * Flags (see e2e/README.md): --arch qwen3|llama, --engine URL, --model DIR, --renderer, --max-tokens,
 * --keep DIR. `--arch llama` serves a seeded tiny Llama with the real Llama 3.1 tokenizer and chat
 * template (`--tiny-from`), rendered by the generic template renderer from that folder.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { TrainClient } from "../packages/core/src/clients/train.ts";
import type { MilesSample } from "../packages/core/src/miles/sample.ts";
import { createRenderer } from "../packages/core/src/renderers/index.ts";
import { isCheckpointFolder } from "../packages/core/src/tokenizer/index.ts";
import { SglangTransport } from "../packages/core/src/transport/index.ts";
import { naiveGroups } from "./naive.ts";
import {
  type PythonEngine,
  projectPython,
  runTrainCheck,
  SetupError,
  startPythonEngine,
  type TrainCheckResult,
  writeTinyFolder,
} from "./python.ts";
import {
  badTraces,
  maskedTokens,
  multiTurnSamples,
  runTaskset,
  type TasksetPlan,
  toMilesGroups,
} from "./rollouts.ts";

const MIN_MASKED_TOKENS = 2000;
const TOLERANCE = 1e-4;

const { values: args } = parseArgs({
  options: {
    arch: { type: "string", default: "qwen3" },
    engine: { type: "string" },
    model: { type: "string" },
    renderer: { type: "string" },
    "max-tokens": { type: "string", default: "48" },
    "context-length": { type: "string" },
    keep: { type: "string" },
  },
});

// 4×4 single-turn + 3×4 three-turn rollouts of ≤48 tokens: ≈2,500 masked tokens, over half of
// them in bridged multi-turn samples, in about a minute of tiny-model generation on 2 cores.
const PLANS: TasksetPlan[] = [
  { taskset: "reverse-text", tasks: 4, rollouts: 4, maxTurns: null },
  { taskset: "guess-number", tasks: 3, rollouts: 4, maxTurns: 3 },
];

const t0 = performance.now();
const log = (msg: string) => console.error(`[e2e +${((performance.now() - t0) / 1000).toFixed(1)}s] ${msg}`);

/** Context length from the server: envroll_engine and SGLang both list it on /v1/models. */
async function contextLength(url: string): Promise<number> {
  if (args["context-length"]) return Number(args["context-length"]);
  const models = (await (await fetch(`${url}/v1/models`)).json()) as { data?: { max_model_len?: number }[] };
  const n = models.data?.[0]?.max_model_len;
  if (typeof n !== "number") throw new Error(`${url}/v1/models has no max_model_len; pass --context-length`);
  return n;
}

/** The `--tiny-from` folder of a second architecture (`--arch llama`), or null for the tiny Qwen3. */
let tinyFolder: string | null = null;

function weightsArgs(): string[] {
  if (args.model) return ["--model", resolve(args.model)];
  return tinyFolder ? ["--tiny-from", tinyFolder, "--seed", "0"] : ["--tiny", "--seed", "0"];
}

const ARCHS = ["qwen3", "llama"];

async function main(): Promise<number> {
  if (!ARCHS.includes(args.arch!))
    throw new SetupError(`--arch ${args.arch}: expected one of ${ARCHS.join(", ")}`);
  if (args.arch !== "qwen3" && args.model) throw new SetupError("--arch and --model exclude each other");
  const work = args.keep ? resolve(args.keep) : await mkdtemp(join(tmpdir(), "envroll-e2e-"));
  await mkdir(work, { recursive: true });
  let engine: PythonEngine | null = null;
  // Before any rollout: a first run on a fresh clone builds .venv here (about a minute).
  log(`python: ${projectPython()}`);
  try {
    if (args.arch !== "qwen3") tinyFolder = writeTinyFolder(args.arch!, join(work, `tiny-${args.arch}`));
    let url = args.engine;
    if (!url) {
      log(`starting envroll_engine ${weightsArgs().join(" ")}`);
      engine = await startPythonEngine(weightsArgs());
      url = engine.url;
    }
    const ctx = await contextLength(url);
    log(`engine ${url} (context length ${ctx})`);

    // The renderer follows the served folder's chat template (the tiny folder, or a --model
    // checkpoint with tokenizer files) unless one is named; without a folder, the carried Qwen3.
    const folder = tinyFolder ?? (args.model && isCheckpointFolder(args.model) ? resolve(args.model) : null);
    const renderer = args.renderer
      ? createRenderer(args.renderer, folder ? { tokenizerPath: folder } : {})
      : createRenderer(folder ?? "qwen3");
    log(`renderer ${renderer.constructor.name}${folder ? ` from ${folder}` : ""}`);
    const client = new TrainClient({
      renderer,
      transport: new SglangTransport({ baseUrl: url, contextLength: ctx }),
    });
    const settings = {
      model: tinyFolder ? `tiny-${args.arch}` : (args.renderer ?? "qwen3"),
      maxTokens: Number(args["max-tokens"]),
      temperature: 1.0,
      seed: 1,
      concurrency: 8,
    };
    let done = 0;
    const total = PLANS.reduce((a, p) => a + p.tasks, 0);
    const results = await Promise.all(
      PLANS.map((plan) =>
        runTaskset(plan, settings, client, (taskset, i, traces) => {
          const turns = traces.map((t) => t.num_turns).join(",");
          log(`rollouts: ${taskset} task ${i} done (turns ${turns}) [${++done}/${total} groups]`);
        }),
      ),
    );
    const traceGroups = results.flatMap((r) => r.groups);
    const bad = badTraces(traceGroups);
    if (bad.length > 0) throw new Error(`rollouts failed:\n  ${bad.join("\n  ")}`);

    const groups = toMilesGroups(traceGroups);
    const masked = maskedTokens(groups);
    const multi = multiTurnSamples(groups);
    log(
      `samples: ${groups.flat().length} in ${groups.length} groups, ${masked} masked tokens, ` +
        `${multi} multi-turn; TrainClient turns ${JSON.stringify(client.counts)}`,
    );
    const problems: string[] = [];
    if (masked < MIN_MASKED_TOKENS) problems.push(`only ${masked} masked tokens (< ${MIN_MASKED_TOKENS})`);
    if (client.counts.bridged === 0) problems.push("no turn was bridged");
    if (client.counts.bridgeDeclined > 0) problems.push(`${client.counts.bridgeDeclined} bridges declined`);
    if (multi === 0) problems.push("no multi-turn sample");

    // Phase 2's samples: the multi-turn traces converted by re-rendering (see naive.ts).
    const multiIdx = results.findIndex((r) => r.plan.maxTurns !== null);
    const firstGroup = results.slice(0, multiIdx).reduce((a, r) => a + r.groups.length, 0);
    const exactMulti = groups.slice(firstGroup, firstGroup + results[multiIdx]!.groups.length);
    const naive = naiveGroups(results[multiIdx]!.groups, exactMulti, renderer);
    const samplesPath = join(work, "samples.json");
    const naivePath = join(work, "samples-naive.json");
    await writeJson(samplesPath, groups);
    await writeJson(naivePath, naive.groups);
    log(`phase 1: train_check on ${samplesPath}`);
    log(`phase 2 (must fail): train_check on naive re-rendered samples ${JSON.stringify(naive.stats)}`);
    const temperature = ["--temperature", String(settings.temperature)];
    // Both checks are single-threaded and independent, so they share the two cores. Phase 1 must
    // match teacher forcing and reloads the engine; phase 2 is scored with the weights that
    // sampled (never the updated ones) and never touches the engine.
    const [exact, neg] = await Promise.all([
      runTrainCheck([
        ...["--samples", samplesPath, ...weightsArgs(), "--engine", url],
        ...["--out-model", join(work, "model-step1"), ...temperature],
      ]),
      runTrainCheck([
        ...["--samples", naivePath, ...weightsArgs()],
        ...["--out-model", join(work, "model-naive"), ...temperature],
      ]),
    ]);
    relayStderr(exact);
    console.log(exact.line || "e2e (train_check printed no result line)");
    problems.push(...phaseOneProblems(exact, masked));

    const reasons = failLines(neg.stderr);
    // One `FAIL: group g sample i …` line per flagged sample, plus summary lines (skipped step).
    const flaggedSamples = reasons.filter((l) => / sample \d+ /.test(l)).length;
    const flagged =
      neg.exitCode === 1 && Number(neg.fields["logprob_max_abs_diff"]) >= TOLERANCE && reasons.length > 0;
    console.log(
      `e2e-negative exit=${neg.exitCode} ${flagged ? "flagged" : "NOT-FLAGGED"} ` +
        `${neg.line.replace(/^e2e /, "")} flagged_samples=${flaggedSamples}/${naive.stats.samples} first_fail=${JSON.stringify(reasons[0] ?? "")}`,
    );
    if (!flagged) problems.push("the naive re-rendered samples were not flagged by the teacher-forced check");

    await client.close();
    for (const p of problems) console.error(`e2e FAIL: ${p}`);
    log(problems.length === 0 ? "PASS" : "FAIL");
    return problems.length === 0 ? 0 : 1;
  } finally {
    await engine?.stop();
    if (!args.keep) await rm(work, { recursive: true, force: true });
  }
}

function phaseOneProblems(r: TrainCheckResult, masked: number): string[] {
  const out: string[] = [];
  if (r.exitCode !== 0) out.push(`train_check exited ${r.exitCode}: ${failLines(r.stderr).join(" | ")}`);
  const maxDiff = Number(r.fields["logprob_max_abs_diff"]);
  if (!(maxDiff < TOLERANCE)) out.push(`logprob_max_abs_diff ${r.fields["logprob_max_abs_diff"]}`);
  if (Number(r.fields["masked_tokens"]) !== masked)
    out.push(`train_check counted ${r.fields["masked_tokens"]} masked tokens, envroll ${masked}`);
  if (!Number.isFinite(Number(r.fields["loss"]))) out.push(`loss ${r.fields["loss"]}`);
  if (!r.fields["weight_version"] || r.fields["weight_version"] === "none")
    out.push("the engine was not reloaded (weight_version none)");
  return out;
}

function failLines(stderr: string): string[] {
  return stderr.split("\n").filter((l) => l.startsWith("FAIL"));
}

/** train_check's diagnostics (reload and policy-shift numbers) belong in the e2e log. */
function relayStderr(r: TrainCheckResult): void {
  for (const l of r.stderr.split("\n")) if (l.trim()) log(`train_check: ${l}`);
}

async function writeJson(path: string, groups: MilesSample[][]): Promise<void> {
  await writeFile(path, JSON.stringify(groups));
}

main().then(
  (code) => {
    log(`wall ${((performance.now() - t0) / 1000).toFixed(1)}s`);
    process.exit(code);
  },
  (e: unknown) => {
    if (e instanceof SetupError) console.error(`e2e: ${e.message}`);
    else console.error(e instanceof Error ? (e.stack ?? e.message) : e);
    process.exit(1);
  },
);
