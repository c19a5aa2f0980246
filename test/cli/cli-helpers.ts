/** Spawning the real CLI (packages/cli/bin/envroll.mjs) for end-to-end tests. */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const BIN = join(ROOT, "packages", "cli", "bin", "envroll.mjs");

/** `envroll eval` of `tasks` tasks × `rollouts` rollouts each (reverse-text unless named). */
export function evalArgs(tasks: number, rollouts: number, taskset = "reverse-text"): string[] {
  return ["eval", taskset, "-n", String(tasks), "-r", String(rollouts)];
}

/** The small eval most CLI tests run: reverse-text, 2 tasks × 2 rollouts. */
export const EVAL_2X2: readonly string[] = evalArgs(2, 2);

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface StartedCli {
  child: ChildProcess;
  done: Promise<CliResult>;
  /** What the child wrote so far. */
  output(): { stdout: string; stderr: string };
}

/** Collects a piped child's stdout and stderr; the getter returns what came so far. */
export function captureOutput(child: ChildProcess): () => { stdout: string; stderr: string } {
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d) => {
    stdout += d;
  });
  child.stderr!.on("data", (d) => {
    stderr += d;
  });
  return () => ({ stdout, stderr });
}

export function startCli(args: string[], cwd = ROOT): StartedCli {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, stdio: ["ignore", "pipe", "pipe"] });
  const output = captureOutput(child);
  const done = new Promise<CliResult>((resolve) => {
    child.on("close", (code, signal) => resolve({ code, signal, ...output() }));
  });
  return { child, done, output };
}

/** The URL a started `envroll serve` prints once it listens; rejects if it exits first. */
export function servedUrl(cli: StartedCli): Promise<string> {
  return new Promise((resolve, reject) => {
    cli.child.stdout!.on("data", () => {
      const m = /listening on (http:\/\/\S+)/.exec(cli.output().stdout);
      if (m) resolve(m[1]!);
    });
    void cli.done.then((r) => reject(new Error(`envroll serve exited ${r.code}: ${r.stderr}`)));
  });
}

export function runCli(args: string[], cwd = ROOT): Promise<CliResult> {
  return startCli(args, cwd).done;
}

/** The single run folder under `base` (outputs/<taskset>--<model>--<harness>/<run id>). */
export function onlyRunDir(base: string): string {
  const [combo, ...more] = readdirSync(base);
  if (!combo || more.length)
    throw new Error(`expected one combo folder in ${base}, got ${readdirSync(base)}`);
  const [run, ...others] = readdirSync(join(base, combo));
  if (!run || others.length) throw new Error(`expected one run folder in ${join(base, combo)}`);
  return join(base, combo, run);
}

export function lineCount(path: string): number {
  if (!existsSync(path)) return 0;
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "").length;
}

export async function waitFor(cond: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * waitFor on a started CLI: fails at once, with its output, when the CLI exits before `cond`
 * holds, and a timeout carries what it printed so far — a bare timeout says nothing of why.
 */
export async function waitWhileRunning(
  cli: StartedCli,
  cond: () => boolean,
  timeoutMs: number,
  what: string,
): Promise<void> {
  let exited: CliResult | null = null;
  void cli.done.then((r) => {
    exited = r;
  });
  const tail = (text: string) => text.slice(-3000);
  try {
    await waitFor(
      () => {
        if (exited)
          throw new Error(`exited (${exited.code ?? exited.signal}) before ${what}:\n${tail(exited.stderr)}`);
        return cond();
      },
      timeoutMs,
      what,
    );
  } catch (e) {
    if (exited) throw e;
    throw new Error(`${(e as Error).message}; the CLI's stderr so far:\n${tail(cli.output().stderr)}`);
  }
}
