/**
 * Ending everything an agent left running before its rollout is graded (issue 36).
 *
 * Killing a program's process group is not enough on the host: `setsid`, a double fork or a
 * `nohup … &` under a new session leaves the group and keeps running into the grading step
 * (rewriting the tests the grader is about to run). Without a cgroup or a PID namespace the only
 * thread that follows a process through those is its environment, which children inherit: every
 * program a host runtime starts carries a per-runtime marker variable, and reaping kills every
 * process of ours whose `/proc/<pid>/environ` holds it — again, until none is left, because a
 * process may fork while the scan runs. A process that cleared its environment (`env -i`) is still
 * caught while its working folder is inside the rollout's; one that did both escapes. The
 * sandbox's PID namespace has no such hole, which is why shell-giving harnesses default to it.
 */
import { readdir, readFile, readlink } from "node:fs/promises";
import { randomHex } from "../random.ts";
import { killGroup } from "./spawn.ts";

/** The variable name; its value is one runtime's tag. */
export const REAP_MARKER = "ENVROLL_RUNTIME_TAG";

export function newReapTag(): string {
  return randomHex(12);
}

async function tagged(needle: Buffer, workdir: string | null): Promise<number[]> {
  let entries: string[];
  try {
    entries = await readdir("/proc");
  } catch {
    return []; // no procfs (not Linux): only the process groups were killed
  }
  const self = process.pid;
  const found: number[] = [];
  await Promise.all(
    entries.map(async (name) => {
      const pid = Number(name);
      if (!Number.isInteger(pid) || pid === self) return;
      try {
        const env = await readFile(`/proc/${name}/environ`);
        if (env.includes(needle)) return void found.push(pid);
        // A process that cleared its environment (`env -i`) but still works in the rollout's
        // folder is the agent's too.
        if (workdir === null) return;
        const cwd = await readlink(`/proc/${name}/cwd`);
        if (cwd === workdir || cwd.startsWith(`${workdir}/`)) found.push(pid);
      } catch {
        // Gone, or not ours (another uid's environ is unreadable, and not the agent's).
      }
    }),
  );
  return found;
}

/**
 * Kills every live process carrying `REAP_MARKER=tag`, or working inside `workdir`, and waits
 * until none is left (or `timeoutMs` passed). Returns the distinct pids it killed.
 */
export async function reapTagged(tag: string, workdir: string | null, timeoutMs = 2000): Promise<number[]> {
  // The tag is random, so finding the assignment anywhere in the NUL-separated list is enough.
  const needle = Buffer.from(`${REAP_MARKER}=${tag}\0`);
  const killed = new Set<number>();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pids = await tagged(needle, workdir);
    // A zombie still shows its environ until reaped by its parent; it can no longer act.
    const live = [];
    for (const pid of pids) if (await running(pid)) live.push(pid);
    if (live.length === 0 || Date.now() > deadline) return [...killed];
    for (const pid of live) {
      killed.add(pid);
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Exited meanwhile.
      }
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function running(pid: number): Promise<boolean> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    // "pid (comm) S …": the state letter follows the last ')' (comm may contain one).
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

/**
 * The programs a runtime has in flight: their process groups (killed on stop or reap) and their
 * runs (awaited by reap, so a killed program's result has settled before grading starts).
 */
export class LivePrograms {
  private readonly groups = new Set<number>();
  private readonly runs = new Set<Promise<unknown>>();
  /** Whether any program was started (a runtime that never ran one has nothing to reap). */
  started = false;

  readonly track = (pid: number, alive: boolean): void => {
    if (alive) this.groups.add(pid);
    else this.groups.delete(pid);
  };

  add<T>(run: Promise<T>): Promise<T> {
    this.started = true;
    this.runs.add(run);
    void run.finally(() => this.runs.delete(run));
    return run;
  }

  killAll(): void {
    for (const pid of this.groups) killGroup(pid);
    this.groups.clear();
  }

  async settle(): Promise<void> {
    this.killAll();
    await Promise.allSettled([...this.runs]);
  }
}
