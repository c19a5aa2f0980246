/** Shared helpers for the sandbox suite. */
import { readdirSync, readFileSync } from "node:fs";
import type { ProgramResult } from "../../src/runtimes/runtime.ts";
import { SandboxRuntime, type SandboxSpec } from "../../src/runtimes/sandbox.ts";

/** Pids whose command line contains `marker` (a leftover-process check that cannot match the test itself). */
export function processesWith(marker: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, "utf8").replaceAll("\0", " ");
      if (cmd.includes(marker)) pids.push(Number(name));
    } catch {
      // Exited while we looked.
    }
  }
  return pids;
}

/**
 * Live (non-zombie) pids owned by a uid (the sandbox identity). A killed bubblewrap can linger
 * briefly as a zombie re-parented to the host's init until that reaps it; it holds no resources.
 */
export function processesOfUid(uid: number): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const status = readFileSync(`/proc/${name}/status`, "utf8");
      const m = /^Uid:\s+(\d+)/m.exec(status);
      const zombie = /^State:\s+Z/m.test(status);
      if (m && Number(m[1]) === uid && !zombie) pids.push(Number(name));
    } catch {
      // Exited while we looked.
    }
  }
  return pids;
}

/** Writes `code` as solution.py in a fresh sandbox, runs it, stops the sandbox. */
export async function runPython(
  code: string,
  spec: Partial<SandboxSpec> = {},
  timeoutMs = 5000,
): Promise<ProgramResult & { workdir: string }> {
  const rt = new SandboxRuntime({ type: "sandbox", ...spec });
  await rt.start();
  try {
    await rt.writeFile("solution.py", code);
    const r = await rt.run(["python3", "solution.py"], { timeoutMs });
    return { ...r, workdir: rt.workdir };
  } finally {
    await rt.stop();
  }
}
