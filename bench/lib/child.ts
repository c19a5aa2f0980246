/**
 * Child processes for the benchmarks: the engine runs in its own process (so the envroll
 * process's CPU time is envroll's alone), and the memory benchmark runs under `--expose-gc`.
 * Children run their TypeScript the way `npm run bench` runs its own: under the test suite's
 * loader (scripts/ts-loader), which strips types as the shipped bundle is built. tsx would also
 * wrap every named function and class in a `__name(…)` call (esbuild's keepNames), a cost the
 * shipped CLI never pays: 1.6–3.3 % of envroll's CPU per rollout in a profile of the throughput
 * bench, so the figures measured a development artifact.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** `--import` value for a child that runs TypeScript (see above). */
/**
 * The file a checkout's CLI package names as its `envroll` bin (what `npx envroll` runs),
 * relative to packages/cli of `root` (this repository by default).
 */
export function cliBinPath(root = ROOT): string {
  return JSON.parse(readFileSync(join(root, "packages/cli/package.json"), "utf8")).bin.envroll;
}

export const TS_LOADER = new URL("../../scripts/ts-loader/register.mjs", import.meta.url).href;

export function spawnTs(script: string, args: string[] = [], nodeFlags: string[] = []): ChildProcess {
  return spawn(process.execPath, [...nodeFlags, "--import", TS_LOADER, script, ...args], {
    cwd: ROOT,
    // stdin is a pipe the child can watch: it closes when this process dies, however it dies,
    // so a crashed run never leaves an engine behind.
    stdio: ["pipe", "pipe", "inherit"],
  });
}

/** Resolves with the first stdout line that matches, or rejects when the child exits first. */
export function waitForLine(
  child: ChildProcess,
  pattern: RegExp,
  timeoutMs = 60_000,
): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let buf = "";
    const timer = setTimeout(
      () => fail(new Error(`no line matching ${pattern} within ${timeoutMs} ms`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      buf += chunk.toString("utf8");
      for (const line of buf.split("\n")) {
        const m = line.match(pattern);
        if (m) {
          cleanup();
          resolve(m);
          return;
        }
      }
    };
    const onExit = (code: number | null) =>
      fail(new Error(`child exited (${code}) before printing ${pattern}`));
    const cleanup = () => {
      clearTimeout(timer);
      child.stdout?.off("data", onData);
      child.off("exit", onExit);
    };
    const fail = (e: Error) => {
      cleanup();
      reject(e);
    };
    child.stdout?.on("data", onData);
    child.once("exit", onExit);
  });
}

/** Runs a script to completion and returns its stdout (rejects on a non-zero exit). */
export function runTs(script: string, args: string[] = [], nodeFlags: string[] = []): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawnTs(script, args, nodeFlags);
    let out = "";
    child.stdout?.on("data", (c: Buffer) => {
      out += c.toString("utf8");
    });
    child.once("error", reject);
    child.once("exit", (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${script} exited with code ${code}`)),
    );
  });
}

/**
 * Asks a child to end (SIGTERM unless `ask` says otherwise, e.g. closing its stdin), waits for
 * its exit, and kills it after `graceMs`: the next benchmark or check starts on a quiet machine.
 * The e2e drivers stop their engines and learner through this too.
 */
export async function stop(
  child: ChildProcess,
  graceMs = 5_000,
  ask: (child: ChildProcess) => void = (c) => c.kill("SIGTERM"),
): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  ask(child);
  const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
}

/** CPU time (user + system, ms) a process has used so far, from /proc (Linux; NaN elsewhere). */
export function procCpuMs(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the ")" that closes the command name; utime and stime are the 12th and 13th.
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(f[11]) + Number(f[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return Number.NaN;
  }
}
/**
 * Minor page faults a process has taken so far, from /proc (Linux; NaN elsewhere). On the VMs
 * this project is measured on each one costs ~15 µs of CPU (a first touch of 11 MB: ~40 ms), so
 * the count is a steadier measure of start-up memory work than loaded CPU time.
 */
export function procMinorFaults(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[7]);
  } catch {
    return Number.NaN;
  }
}

/** USER_HZ: 100 on every mainstream Linux build. */
const CLOCK_TICKS = 100;

/**
 * Runs `node <args>` to its exit and resolves with its wall time (from spawn) and the last 2,000
 * characters of its output; a non-zero exit rejects with that tail.
 */
export function runNode(
  args: string[],
  opts: { cwd: string; env?: NodeJS.ProcessEnv; onSpawn?: (t0: number, pid: number | undefined) => void },
): Promise<{ wallMs: number; tail: string }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, {
      cwd: opts.cwd,
      stdio: ["ignore", "pipe", "pipe"],
      ...(opts.env ? { env: opts.env } : {}),
    });
    opts.onSpawn?.(t0, child.pid);
    let tail = "";
    const keep = (c: Buffer) => {
      tail = (tail + c.toString("utf8")).slice(-2000);
    };
    child.stdout?.on("data", keep);
    child.stderr?.on("data", keep);
    child.once("error", reject);
    child.once("exit", (code) => {
      const wallMs = performance.now() - t0;
      if (code !== 0) reject(new Error(`node ${args.join(" ")} exited with ${code}:\n${tail}`));
      else resolve({ wallMs, tail });
    });
  });
}
