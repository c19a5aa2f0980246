/**
 * Issue 30 item 3: the Python V1 host's cost. 200 reverse_text_v1 rollouts (verifiers' own
 * code, hosted in Python) at concurrency 32 against the same 200 tasks on the built-in TypeScript
 * reverse-text, same harness, same engine (its own process, reference policy), interleaved. Per
 * rollout in steady state (after a warm-up batch): wall, envroll CPU, and the host's CPU (from
 * /proc). The host's start-up (spawn, import verifiers and the module, `load()`) separately.
 *
 *   VERIFIERS_SRC=… MCP_SRC=… ENVROLL_TASKSET_PYTHON=… [PYTHONPATH=stand-ins] \
 *     node --import tsx bench/python-host.ts [--reps 3] [--harness default]
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeClient } from "../packages/cli/src/client-factory.ts";
import { type Environment, loadEnvironment } from "../packages/core/src/environment.ts";
import { loadConfig } from "../packages/core/src/loaders/config.ts";
import { sharedHost } from "../packages/core/src/python/host.ts";
import { builtinDatasetPath, readPrompts } from "../packages/core/src/tasksets/reverse-text/dataset.ts";
import { spawnTs, waitForLine } from "./lib/child.ts";

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1]! : dflt;
};
const REPS = Number(arg("--reps", "3"));
const HARNESS = arg("--harness", "default");
const N = 200;
const WARM = 32;
const CONCURRENCY = 32;
const src = process.env["VERIFIERS_SRC"];
const mcp = process.env["MCP_SRC"];
if (!src || !mcp) throw new Error("set VERIFIERS_SRC and MCP_SRC (see the header)");
const python = process.env["ENVROLL_TASKSET_PYTHON"] || "python3";
const path = [mcp, src, join(src, "environments", "reverse_text_v1")];

/** utime + stime of a process in seconds (Linux /proc; clock ticks are 100 Hz here). */
function procCpu(pid: number | null): number {
  if (pid === null) return 0;
  const f = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = f.slice(f.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

const tmp = mkdtempSync(join(tmpdir(), "envroll-bench-pyhost-"));
const prompts = await readPrompts(builtinDatasetPath("train"), N + WARM);
const rows = prompts.map((prompt) => `${JSON.stringify({ prompt })}\n`).join("");
mkdirSync(join(tmp, "data"));
writeFileSync(join(tmp, "data", "train.jsonl"), rows);
writeFileSync(join(tmp, "rows.jsonl"), rows);

const engine = spawnTs("bench/engine-child.ts");
const url = (await waitForLine(engine, /listening on (\S+)/))[1]!;

function toml(side: "ts" | "py"): string {
  return [
    'model = "Qwen/Qwen3-8B"',
    `client = { type = "train", base_url = "${url}" }`,
    `harness = { id = "${HARNESS}" }`,
    `max_concurrent = ${CONCURRENCY}`,
    side === "ts"
      ? `taskset = { id = "reverse-text", dataset_path = ${JSON.stringify(join(tmp, "rows.jsonl"))} }`
      : `taskset = { id = "reverse_text_v1", dataset_name = ${JSON.stringify(join(tmp, "data"))} }\npython = { executable = ${JSON.stringify(python)}, path = ${JSON.stringify(path)} }`,
  ].join("\n");
}

interface Side {
  env: Environment;
  startupWall: number;
  startupHostCpu: number;
}

async function open(side: "ts" | "py"): Promise<Side> {
  const t0 = performance.now();
  const env = await loadEnvironment(await loadConfig(toml(side)));
  const pid = side === "py" ? sharedHost({ python, path }).pid : null;
  return { env, startupWall: (performance.now() - t0) / 1000, startupHostCpu: procCpu(pid) };
}

async function batch(s: Side, side: "ts" | "py", from: number, count: number) {
  const client = makeClient(s.env.config.client, s.env.config.model);
  const pid = side === "py" ? sharedHost({ python, path }).pid : null;
  const [c0, h0, t0] = [cpu(), procCpu(pid), performance.now()];
  const summary = await s.env.run(
    Array.from({ length: count }, (_, i) => ({ taskIndex: from + i })),
    { client, concurrency: CONCURRENCY },
  );
  const out = {
    wall: (performance.now() - t0) / 1000,
    cpu: cpu() - c0,
    hostCpu: procCpu(pid) - h0,
    reward: summary.reward.mean,
    errors: summary.num_errors,
  };
  await client.close();
  return out;
}

const ts = await open("ts");
const py = await open("py");
const result: Record<string, unknown>[] = [];
await batch(ts, "ts", N, WARM);
await batch(py, "py", N, WARM);
for (let rep = 0; rep < REPS; rep++) {
  for (const [name, s] of [
    ["ts", ts],
    ["py", py],
  ] as const) {
    const r = await batch(s, name, 0, N);
    result.push({ rep, side: name, ...r });
    process.stderr.write(`${JSON.stringify(result.at(-1))}\n`);
  }
}
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const pick = (side: string, k: string) =>
  med(result.filter((r) => r["side"] === side).map((r) => r[k] as number));
const per = (s: number) => (s / N) * 1000;
const summary = {
  harness: HARNESS,
  rollouts: N,
  concurrency: CONCURRENCY,
  ts_ms_per_rollout_wall: per(pick("ts", "wall")),
  py_ms_per_rollout_wall: per(pick("py", "wall")),
  ts_cpu_ms_per_rollout: per(pick("ts", "cpu")),
  py_cpu_ms_per_rollout_envroll: per(pick("py", "cpu")),
  py_cpu_ms_per_rollout_host: per(pick("py", "hostCpu")),
  wall_ratio: pick("py", "wall") / pick("ts", "wall"),
  cpu_ratio: (pick("py", "cpu") + pick("py", "hostCpu")) / pick("ts", "cpu"),
  py_run_wall_s: pick("py", "wall"),
  py_startup_wall_s: py.startupWall,
  py_startup_host_cpu_s: py.startupHostCpu,
  ts_startup_wall_s: ts.startupWall,
  rewards: { ts: pick("ts", "reward"), py: pick("py", "reward") },
  errors: { ts: pick("ts", "errors"), py: pick("py", "errors") },
  load_avg: readFileSync("/proc/loadavg", "utf8").trim(),
};
process.stdout.write(`${JSON.stringify(summary, null, 1)}\n`);
await ts.env.close();
await py.env.close();
engine.kill("SIGTERM");
