/**
 * Runs one command line in its own process group (for the subprocess and sandbox runtimes) and turns whatever happens into a
 * ProgramResult: exit, signal, wall-clock timeout, abort, output overflow. Nothing a program
 * does makes this throw.
 *
 * Why wait for 'exit' rather than 'close': a child that outlives its parent (double fork) keeps
 * the stdout pipe open, and 'close' would then wait for *it*. On 'exit' the group is killed and
 * the streams get a short grace period to drain before they are destroyed.
 */
import type { ProgramResult } from "./runtime.ts";

export interface SpawnOptions {
  cwd: string;
  env: Record<string, string>;
  stdin?: string;
  /** Wall-clock limit; null or undefined: none. */
  timeoutMs?: number | null;
  signal?: AbortSignal;
  outputLimitBytes: number;
  killOnOutputLimit: boolean;
  /** Called with the leader's pid while it runs (so the runtime can kill it on stop()). */
  track?(pid: number, alive: boolean): void;
}

const DRAIN_GRACE_MS = 200;

export function killGroup(pid: number): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // The group is already gone.
  }
}

export async function spawnProgram(argv: readonly string[], o: SpawnOptions): Promise<ProgramResult> {
  // Imported here: a run whose harness never starts a program (most evals) never loads
  // node:child_process, which was a visible part of the CLI's start-up.
  const { spawn } = await import("node:child_process");
  const started = performance.now();
  return new Promise((resolveRun) => {
    const child = spawn(argv[0]!, argv.slice(1), {
      cwd: o.cwd,
      env: o.env,
      detached: true,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const pid = child.pid;
    const kill = () => {
      if (pid !== undefined) killGroup(pid);
    };
    if (pid !== undefined) o.track?.(pid, true);
    const out = new Capture(o.outputLimitBytes);
    const err = new Capture(o.outputLimitBytes);
    let timedOut = false;
    let settled = false;
    const onOverflow = () => {
      if (o.killOnOutputLimit) kill();
    };
    const timer =
      o.timeoutMs != null
        ? setTimeout(() => {
            timedOut = true;
            kill();
          }, o.timeoutMs)
        : undefined;
    const onAbort = () => kill();
    o.signal?.addEventListener("abort", onAbort, { once: true });
    if (o.signal?.aborted) kill();
    child.stdout.on("data", (b: Buffer) => out.push(b) || onOverflow());
    child.stderr.on("data", (b: Buffer) => err.push(b) || onOverflow());
    child.stdin.on("error", () => {});
    child.stdin.end(o.stdin ?? "");

    const finish = (code: number | null, signal: string | null, extraErr = "") => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      o.signal?.removeEventListener("abort", onAbort);
      if (pid !== undefined) o.track?.(pid, false);
      resolveRun({
        exitCode: code,
        signal,
        stdout: out.text(),
        stderr: err.text() + extraErr,
        timedOut,
        outputTruncated: out.truncated || err.truncated,
        wallMs: performance.now() - started,
      });
    };
    child.on("error", (e) => {
      kill();
      finish(127, null, `${e.message}\n`);
    });
    child.on("exit", (code, signal) => {
      // Whatever the leader left behind in its group dies with it.
      kill();
      const done = () => {
        clearTimeout(grace);
        finish(code, signal ?? (timedOut ? "SIGKILL" : null));
      };
      // The pipes may already have closed before 'exit' fired; wait only for those still open.
      const open = [child.stdout, child.stderr].filter((s) => !s.closed);
      let remaining = open.length;
      const grace = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        done();
      }, DRAIN_GRACE_MS);
      if (remaining === 0) done();
      for (const s of open)
        s.once("close", () => {
          if (--remaining === 0) done();
        });
    });
  });
}

/** Keeps at most `limit` bytes of a stream. `push` returns false once the cap is passed. */
class Capture {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  truncated = false;
  constructor(private readonly limit: number) {}
  push(b: Buffer): boolean {
    const room = this.limit - this.size;
    if (b.length > room) {
      this.truncated = true;
      if (room > 0) {
        this.chunks.push(b.subarray(0, room));
        this.size += room;
      }
      return false;
    }
    this.chunks.push(b);
    this.size += b.length;
    return true;
  }
  text(): string {
    return Buffer.concat(this.chunks).toString("utf8");
  }
}
