/**
 * `harness.runtime.type = "auto"`, the default: the runtime a harness gets when the config names
 * none. A harness that hands the model a shell (the coding agent's `bash`) gets the bubblewrap
 * sandbox when this host can make one — on the host, `find / -name traces.jsonl` lists the
 * running eval's own traces (answers included) and the other rollouts' working folders. Where
 * bubblewrap cannot run, or the harness runs an external agent program the sandbox would cut off
 * from the interception server, it is the subprocess runtime and the run says loudly, once, that
 * the model's tools are not isolated. Harnesses without tools run as before (subprocess, quiet).
 */

import type { RuntimeSpec } from "./runtime.ts";

/** How a harness wants "auto" resolved (Harness.isolation). */
export type Isolation = "sandbox" | "unisolated" | "none";

/**
 * The sandbox's defaults are sized for one short program (code-golf: 10 s of CPU, 1 GiB); a
 * coding agent's shell runs test suites and interpreters, so the automatic choice allows more.
 * The bash tool's own one-hour wall clock still applies per command.
 */
export const AUTO_SANDBOX: RuntimeSpec = Object.freeze({
  type: "sandbox",
  cpu_s: 600,
  memory_mb: 4096,
  processes: 256,
  tmp_size_mb: 512,
});

export interface AutoRuntime {
  spec: RuntimeSpec;
  /** Set when the model's tools run on the host: the warning to print at run start. */
  unisolated: string | null;
}

export async function resolveAutoRuntime(harnessId: string, isolation: Isolation): Promise<AutoRuntime> {
  if (isolation === "none") return { spec: { type: "subprocess" }, unisolated: null };
  const hostWide =
    "this run's output folder (answers included), dataset files and other rollouts' working folders";
  if (isolation === "unisolated")
    return {
      spec: { type: "subprocess" },
      unisolated: `harness "${harnessId}" runs its agent program, and any tool it gives the model, UNISOLATED on this host, where it can read ${hostWide}; set harness.runtime = { type = "sandbox", network = true } to contain it, or type = "subprocess" to accept this`,
    };
  // Loaded here, not at the top: a run whose harness has no shell never loads the sandbox.
  const { probeSandbox } = await import("./sandbox/probe.ts");
  const probe = await probeSandbox({ bwrap: null, mode: "auto" });
  if (probe.ok) return { spec: { ...AUTO_SANDBOX }, unisolated: null };
  return {
    spec: { type: "subprocess" },
    unisolated: `harness "${harnessId}" gives the model a shell, and the sandbox cannot run here (${probe.reason}): the model's tools run UNISOLATED on this host and can read ${hostWide}; install bubblewrap, or set harness.runtime.type = "subprocess" to accept this`,
  };
}

const warned = new Set<string>();

/** Says once per process and harness that the model's tools run on the host. */
export function warnUnisolated(harnessId: string, message: string): void {
  if (warned.has(harnessId)) return;
  warned.add(harnessId);
  process.emitWarning(message, "EnvrollWarning");
}
