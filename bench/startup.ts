/**
 * Start-up of the `envroll` command, from source (tsx compiling at run time, as before the
 * build existed; `ENVROLL_FROM_SOURCE=1`) and built (dist/), alternated within each repetition:
 *
 * - `startup_help_ms_<mode>`: `envroll --help`, process spawn to exit;
 * - `startup_first_rollout_ms_<mode>`: `envroll eval reverse-text -n 1 -r 1 --engine URL`,
 *   spawn to the first `/generate` request reaching an engine in this process (config, taskset,
 *   tokenizer, preflight, render: everything before the first rollout's model call);
 * - `startup_first_rollout_cpu_ms_<mode>`: the CPU time the CLI process had used when that
 *   request arrived (from /proc, 10 ms ticks; Linux only) — the figure a loaded machine moves
 *   least;
 * - `startup_eval_cpu_ms_<mode>`: that eval's CPU time (user + system) to its exit, read by a
 *   preloaded module in the child (`--require`, so no timing code sits in the CLI, and a CommonJS
 *   one: an ES-module preload would start Node's ES-module loader, which the CLI does without);
 * - `readme_eval_wall_s_<mode>`: the README's first command, `envroll eval reverse-text -n 8 -r 4`
 *   (built-in engine in the CLI process), spawn to exit;
 * - `startup_node_floor_ms`: `node -e` of nothing but the CPU report, spawn to exit, in the CLI's
 *   environment: Node's own start-up, which every figure above includes. When the environment
 *   sets NODE_EXTRA_CA_CERTS, Node 20 parses that file's certificates at every start (on the
 *   machines measured, the system bundle: 146 certificates, ~80 % of the instructions of
 *   `node -e 0`), so `startup_node_floor_ms_without_extra_ca` takes it without that variable,
 *   and `startup_first_rollout_ms_built_without_extra_ca` the built first rollout without it
 *   (the main figure when the variable is not set).
 *
 * The built CLI is built first when it is missing or stale (otherwise the bin would silently
 * run from source in both modes).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { builtIsCurrent } from "../packages/core/build-stamp.mjs";
import { builtinReferenceBook } from "../packages/core/src/references.ts";
import { type PolicyFn, referencePolicy, startEngine } from "../packages/engine/src/index.ts";
import { cliBinPath, procCpuMs, ROOT, runNode, runTs } from "./lib/child.ts";
import { type BenchOptions, type Figure, median, note } from "./lib/report.ts";

/** What `npx envroll` runs. */
const BIN_PATH = cliBinPath();
const BIN = join(ROOT, "packages/cli", BIN_PATH);
const MODES = ["source", "built"] as const;
type Mode = (typeof MODES)[number];

interface Run {
  wallMs: number;
  cpuMs: number;
}

/**
 * Preloaded into each child: writes its CPU time to ENVROLL_BENCH_CPU_FILE as it exits. Also the
 * floor's `node -e` program: a process that runs nothing else.
 */
const CPU_REPORTER = `const { writeFileSync } = require("node:fs");
process.on("exit", () => { const u = process.cpuUsage(); writeFileSync(process.env.ENVROLL_BENCH_CPU_FILE, String((u.user + u.system) / 1000)); });
`;

async function runCli(
  mode: Mode,
  args: string[],
  dir: string,
  onSpawn?: (t0: number, pid: number | undefined) => void,
  baseEnv: NodeJS.ProcessEnv = process.env,
): Promise<Run> {
  const cpuFile = join(dir, `cpu-${process.hrtime.bigint()}`);
  const env = {
    ...baseEnv,
    ENVROLL_BENCH_CPU_FILE: cpuFile,
    ENVROLL_FROM_SOURCE: mode === "source" ? "1" : "0",
  };
  const opts = { cwd: dir, env, ...(onSpawn ? { onSpawn } : {}) };
  const { wallMs } = await runNode(["--require", join(dir, "cpu-reporter.cjs"), BIN, ...args], opts);
  return { wallMs, cpuMs: Number(readFileSync(cpuFile, "utf8")) };
}

async function runFloor(dir: string, env: NodeJS.ProcessEnv): Promise<Run> {
  const cpuFile = join(dir, `cpu-${process.hrtime.bigint()}`);
  const { wallMs } = await runNode(["-e", CPU_REPORTER], {
    cwd: dir,
    env: { ...env, ENVROLL_BENCH_CPU_FILE: cpuFile },
  });
  return { wallMs, cpuMs: Number(readFileSync(cpuFile, "utf8")) };
}

async function ensureBuilt(): Promise<void> {
  const dirs = ["packages/core", "packages/engine", "packages/cli"].map((d) => join(ROOT, d));
  if (dirs.every(builtIsCurrent)) return;
  note("startup: building dist/ (missing or older than src/)");
  await runTs(join(ROOT, "scripts/build.mjs"));
}

export async function startup(o: BenchOptions): Promise<Figure[]> {
  await ensureBuilt();
  const dir = mkdtempSync(join(tmpdir(), "envroll-bench-startup-"));
  writeFileSync(join(dir, "cpu-reporter.cjs"), CPU_REPORTER);
  const reference = referencePolicy((await builtinReferenceBook()).answer);
  let firstGenerate: number | null = null;
  let childPid: number | undefined;
  let firstGenerateCpu = Number.NaN;
  const policy: PolicyFn = (ctx) => {
    if (firstGenerate === null) {
      firstGenerate = performance.now();
      firstGenerateCpu = procCpuMs(childPid);
    }
    return reference(ctx);
  };
  const engine = await startEngine({ policy, latencyMs: 0, tokenLatencyMs: 0 });
  const help: Record<Mode, Run[]> = { source: [], built: [] };
  const first: Record<Mode, number[]> = { source: [], built: [] };
  const firstCpu: Record<Mode, number[]> = { source: [], built: [] };
  const evalCpu: Record<Mode, number[]> = { source: [], built: [] };
  const readme: Record<Mode, number[]> = { source: [], built: [] };
  const extraCa = process.env.NODE_EXTRA_CA_CERTS;
  const { NODE_EXTRA_CA_CERTS: _, ...withoutExtraCa } = process.env;
  const floor: Run[] = [];
  const firstBuiltWithoutCa: number[] = [];
  const floorWithoutCa: Run[] = [];
  /** `eval -n 1 -r 1` against the engine: spawn → first /generate, and CPU at that point. */
  const firstRollout = async (mode: Mode, env: NodeJS.ProcessEnv) => {
    let spawnedAt = 0;
    firstGenerate = null;
    const run = await runCli(
      mode,
      [
        "eval",
        "reverse-text",
        "-n",
        "1",
        "-r",
        "1",
        "--engine",
        engine.url,
        "--client.renderer",
        "qwen3",
        "-o",
        join(dir, "out"),
      ],
      dir,
      (t0, pid) => {
        spawnedAt = t0;
        childPid = pid;
      },
      env,
    );
    if (firstGenerate === null) throw new Error(`${mode}: the eval never reached /generate`);
    return { ...run, firstMs: (firstGenerate as number) - spawnedAt, firstCpuMs: firstGenerateCpu };
  };
  const reps = Math.max(o.reps, o.quick ? 2 : 5);
  try {
    for (let rep = 0; rep < reps; rep++) {
      // Alternate which mode goes first, so a load swing does not always land on one side.
      for (const mode of rep % 2 ? [...MODES].reverse() : MODES) {
        help[mode].push(await runCli(mode, ["--help"], dir));
        const run = await firstRollout(mode, process.env);
        first[mode].push(run.firstMs);
        firstCpu[mode].push(run.firstCpuMs);
        evalCpu[mode].push(run.cpuMs);
        const wall = await runCli(
          mode,
          ["eval", "reverse-text", "-n", "8", "-r", "4", "-o", join(dir, "out")],
          dir,
        );
        readme[mode].push(wall.wallMs / 1000);
      }
      // The built CLI's first rollout again without the variable (Node's CA parse taken out).
      if (extraCa) firstBuiltWithoutCa.push((await firstRollout("built", withoutExtraCa)).firstMs);
      floor.push(await runFloor(dir, process.env));
      if (extraCa) floorWithoutCa.push(await runFloor(dir, withoutExtraCa));
      note(
        `startup rep ${rep + 1}: first rollout source ${first.source.at(-1)!.toFixed(0)} ms (${firstCpu.source.at(-1)} ms CPU), built ${first.built.at(-1)!.toFixed(0)} ms (${firstCpu.built.at(-1)} ms CPU)`,
      );
    }
  } finally {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const how = (args: string) => `node packages/cli/${BIN_PATH} ${args} (ENVROLL_FROM_SOURCE=1 for source)`;
  const figures: Figure[] = [];
  for (const mode of MODES) {
    figures.push(
      {
        name: `startup_help_ms_${mode}`,
        value: median(help[mode].map((r) => r.wallMs)),
        unit: "ms",
        reps: help[mode].map((r) => r.wallMs),
        cpu_ms: median(help[mode].map((r) => r.cpuMs)),
        how: how("--help"),
      },
      {
        name: `startup_first_rollout_ms_${mode}`,
        value: median(first[mode]),
        unit: "ms",
        ...(mode === "built" ? { target: "<= 200", met: median(first[mode]) <= 200 } : {}),
        reps: first[mode],
        how: `${how("eval reverse-text -n 1 -r 1 --engine URL")}: spawn → first /generate`,
      },
      {
        name: `startup_first_rollout_cpu_ms_${mode}`,
        value: median(firstCpu[mode]),
        unit: "ms",
        reps: firstCpu[mode],
        how: `${how("eval reverse-text -n 1 -r 1 --engine URL")}: CLI CPU (/proc) at the first /generate`,
      },
      {
        name: `startup_eval_cpu_ms_${mode}`,
        value: median(evalCpu[mode]),
        unit: "ms",
        reps: evalCpu[mode],
        how: `${how("eval reverse-text -n 1 -r 1 --engine URL")}: CPU to exit`,
      },
      {
        name: `readme_eval_wall_s_${mode}`,
        value: median(readme[mode]),
        unit: "s",
        reps: readme[mode],
        how: how("eval reverse-text -n 8 -r 4"),
      },
    );
  }
  const floorFigure = (name: string, runs: Run[], how: string): Figure => ({
    name,
    value: median(runs.map((r) => r.wallMs)),
    unit: "ms",
    reps: runs.map((r) => r.wallMs),
    cpu_ms: median(runs.map((r) => r.cpuMs)),
    how,
  });
  figures.push(
    floorFigure(
      "startup_node_floor_ms",
      floor,
      `node -e (its CPU report only), spawn → exit, in the CLI's environment${extraCa ? ` (NODE_EXTRA_CA_CERTS=${extraCa})` : ""}`,
    ),
  );
  if (extraCa)
    figures.push(
      floorFigure(
        "startup_node_floor_ms_without_extra_ca",
        floorWithoutCa,
        "the same without NODE_EXTRA_CA_CERTS (not parsed at start)",
      ),
    );
  // Without the variable set, the main figure is already that measurement.
  const withoutCa = extraCa ? firstBuiltWithoutCa : first.built;
  figures.push({
    name: "startup_first_rollout_ms_built_without_extra_ca",
    value: median(withoutCa),
    unit: "ms",
    reps: withoutCa,
    how: `${how("eval reverse-text -n 1 -r 1 --engine URL")}: spawn → first /generate, built, ${extraCa ? "NODE_EXTRA_CA_CERTS removed from the CLI's environment" : "NODE_EXTRA_CA_CERTS not set (equal to startup_first_rollout_ms_built)"}`,
  });
  const ratio = (a: number[], b: number[]) => a.map((x, i) => x / b[i]!);
  const firstRatio = ratio(first.source, first.built);
  figures.push({
    name: "startup_first_rollout_source_over_built",
    value: median(firstRatio),
    unit: "ratio",
    reps: firstRatio,
  });
  return figures;
}
