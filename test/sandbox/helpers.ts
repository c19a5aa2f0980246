/** Shared helpers for the sandbox suite. */
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import type { ProgramResult } from "../../packages/core/src/runtimes/runtime.ts";
import { SandboxRuntime, type SandboxSpec } from "../../packages/core/src/runtimes/sandbox.ts";

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

/** A unique argv marker, so leftover processes of one run can be found by command line. */
export function newMarker(): string {
  return `envroll-marker-${randomBytes(6).toString("hex")}`;
}

/**
 * Writes `code` as solution.py in a fresh sandbox, runs `python3 solution.py <marker>` (the
 * marker is inherited by every forked child's command line), stops the sandbox.
 */
export async function runPython(
  code: string,
  spec: Partial<SandboxSpec> = {},
  timeoutMs = 5000,
): Promise<ProgramResult & { workdir: string; marker: string }> {
  const rt = new SandboxRuntime({ type: "sandbox", ...spec });
  const marker = newMarker();
  await rt.start();
  try {
    await rt.writeFile("solution.py", code);
    const r = await rt.run(["python3", "solution.py", marker], { timeoutMs });
    return { ...r, workdir: rt.workdir, marker };
  } finally {
    await rt.stop();
  }
}

/**
 * What is still running after the kernel has had time to tear down: polls for up to `graceMs`
 * (a SIGKILLed process can take a while to go on a loaded machine) and returns the pids left.
 * The leaks this catches live far longer than the grace (the probes sleep for 30 s and more).
 */
export async function leftovers(marker: string, graceMs = 5000): Promise<number[]> {
  const until = Date.now() + graceMs;
  for (;;) {
    const pids = processesWith(marker);
    if (pids.length === 0 || Date.now() >= until) return pids;
    await new Promise((res) => setTimeout(res, 100));
  }
}
