/** rlimits as a `prlimit` command prefix (util-linux), from the spec. */
import type { SandboxSpec } from "./spec.ts";

const MIB = 1024 * 1024;

export function prlimitArgs(prlimit: string, spec: SandboxSpec): string[] {
  return [
    prlimit,
    // Soft limit sends SIGXCPU (fatal by default); the hard limit one second later is SIGKILL.
    `--cpu=${spec.cpu_s}:${spec.cpu_s + 1}`,
    `--as=${spec.memory_mb * MIB}`,
    `--fsize=${spec.file_size_mb * MIB}`,
    `--nofile=${spec.open_files}`,
    `--nproc=${spec.processes}`,
    // No core dumps: a crashing program must not write hundreds of MiB into the workdir.
    "--core=0",
    "--",
  ];
}

/** `setpriv` prefix that drops root to the sandbox identity (RLIMIT_NPROC is not enforced for root). */
export function setprivArgs(setpriv: string, spec: SandboxSpec): string[] {
  return [setpriv, `--reuid=${spec.uid}`, `--regid=${spec.gid}`, "--clear-groups", "--"];
}
