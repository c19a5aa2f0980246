/**
 * `harness.runtime.type = "auto"`, the default: the runtime a harness gets when the config names
 * none. A harness that hands the model a shell (the coding agent's `bash`) gets the bubblewrap
 * sandbox when this host can make one — on the host, `find / -name traces.jsonl` lists the
 * running eval's own traces (answers included), the other rollouts' working folders, and
 * `/proc/<pid>/environ` of the environment's servers (their state credential). A harness that
 * runs an external agent program (command) gets the same sandbox with the network shared, so the
 * program still reaches the interception server; its program files are shown read-only. Where
 * bubblewrap cannot run it is the subprocess runtime, and the run says loudly, once, that the
 * model's tools are not isolated. Harnesses without tools run as before (subprocess, quiet).
 */

import type { RuntimeSpec } from "./runtime.ts";

/**
 * How a harness wants "auto" resolved (Harness.isolation): "sandbox" for in-process shells,
 * "program" for an external program that needs the network to reach the interception server,
 * "none" without tools.
 */
export type Isolation = "sandbox" | "program" | "none";

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

/**
 * For an agent program: the network shared (it must reach the interception server on this host;
 * a shell run in-process talks to nothing), an address-space limit that is no real limit,
 * because V8 reserves wasm memory far beyond what it uses (Node's fetch fails under 8 GiB), and
 * no wall clock of the sandbox's own: the program is the whole episode, bounded by the rollout's
 * timeout as on the host (the sandbox's 10 s default would kill every agent). Output past the
 * capture cap is dropped, as on the host, rather than killing the program.
 */
export const AUTO_PROGRAM_SANDBOX: RuntimeSpec = Object.freeze({
  ...AUTO_SANDBOX,
  network: true,
  memory_mb: 65536,
  processes: 512,
  cpu_s: 24 * 3600,
  timeout_s: 7 * 24 * 3600,
  // A chatty agent's log past the capture cap is cut, not a reason to kill the episode.
  kill_on_output_limit: false,
});

export interface AutoRuntime {
  spec: RuntimeSpec;
  /** Set when the model's tools run on the host: the warning to print at run start. */
  unisolated: string | null;
}

/**
 * `extra`: the auto table's own keys (`ro_bind`, host paths the program needs besides its files),
 * applied when the choice is the sandbox.
 */
export async function resolveAutoRuntime(
  harnessId: string,
  isolation: Isolation,
  extra: { ro_bind?: string[] } = {},
  probe: () => Promise<{ ok: true } | { ok: false; reason: string }> = hostProbe,
): Promise<AutoRuntime> {
  if (isolation === "none") return { spec: { type: "subprocess" }, unisolated: null };
  const hostWide =
    "this run's output folder (answers included), dataset files, other rollouts' working folders and the environment servers' credential in /proc";
  const probed = await probe();
  if (probed.ok)
    return {
      spec: { ...(isolation === "program" ? AUTO_PROGRAM_SANDBOX : AUTO_SANDBOX), ...extra },
      unisolated: null,
    };
  const gives = isolation === "program" ? "runs an agent program" : "gives the model a shell";
  return {
    spec: { type: "subprocess" },
    unisolated: `harness "${harnessId}" ${gives}, and the sandbox cannot run here (${probed.reason}): the model's tools run UNISOLATED on this host and can read ${hostWide}, and processes they detach are ended before grading only as far as their environment can be followed; install bubblewrap, or set harness.runtime.type = "subprocess" to accept this`,
  };
}

/** Whether bubblewrap can sandbox on this host (probed once per process). */
async function hostProbe(): Promise<{ ok: true } | { ok: false; reason: string }> {
  // Loaded here, not at the top: a run whose harness has no shell never loads the sandbox.
  const { probeSandbox } = await import("./sandbox/probe.ts");
  return probeSandbox({ bwrap: null, mode: "auto" });
}

const warned = new Set<string>();

/** Says once per process and harness that the model's tools run on the host. */
export function warnUnisolated(harnessId: string, message: string): void {
  if (warned.has(harnessId)) return;
  warned.add(harnessId);
  process.emitWarning(message, "EnvrollWarning");
}
