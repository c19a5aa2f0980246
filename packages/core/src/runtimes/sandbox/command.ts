/**
 * The command line that runs a program inside bubblewrap.
 *
 * Two modes, chosen by probing (probe.ts):
 * - "userns" (preferred): bubblewrap runs unprivileged (`setpriv` drops root first) and unshares
 *   every namespace including the user namespace. The program's kernel uid is the sandbox uid, so
 *   RLIMIT_NPROC is enforced, and because prlimit runs *inside* the new user namespace the process
 *   count is charged per sandbox (ucounts), not shared by every sandbox of the same uid.
 * - "rootns": where unprivileged user namespaces are disabled, bubblewrap runs as root without a
 *   user namespace (net/pid/ipc/uts/cgroup are still unshared), keeps only CAP_SETUID/CAP_SETGID,
 *   and `setpriv` inside drops to the sandbox uid. Here RLIMIT_NPROC counts every process of that
 *   uid on the host, so concurrent sandboxes share the budget.
 *
 * The filesystem is /usr (read-only) with the /bin, /lib… links or binds the host has, a handful
 * of /etc files the dynamic loader needs, fresh /proc and /dev, a size-capped private /tmp, and
 * the rollout's workdir bound read-write at its host path. Nothing else of the host (/root,
 * /home, /work, the host /tmp) exists inside.
 */
import { existsSync, lstatSync, readlinkSync } from "node:fs";
import { prlimitArgs, setprivArgs } from "./limits.ts";
import type { SandboxSpec } from "./spec.ts";

export type SandboxMode = "userns" | "rootns";

export interface SandboxTools {
  bwrap: string;
  prlimit: string;
  setpriv: string;
}

/**
 * Options newer than bubblewrap 0.5 (Ubuntu 22.04 ships 0.6, Debian 12 0.8): used when the
 * installed version lists them in `--help`, left out otherwise (see the fallbacks below).
 */
export interface BwrapFeatures {
  /** --disable-userns (0.8): no nested user namespaces inside the sandbox. */
  disableUserns: boolean;
  /** --size for --tmpfs (0.7?): without it /tmp is an unsized tmpfs. */
  tmpfsSize: boolean;
  /** --perms for --tmpfs: without it /tmp may not be writable, so TMPDIR points at the workdir. */
  tmpfsPerms: boolean;
}

export const ALL_FEATURES: BwrapFeatures = { disableUserns: true, tmpfsSize: true, tmpfsPerms: true };

export function bwrapFeatures(helpText: string): BwrapFeatures {
  return {
    disableUserns: helpText.includes("--disable-userns"),
    tmpfsSize: helpText.includes("--size"),
    tmpfsPerms: helpText.includes("--perms"),
  };
}

const ROOT_LINKS = ["bin", "sbin", "lib", "lib64", "lib32", "libx32"];
const ETC_FILES = ["ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "localtime", "nsswitch.conf"];

export function isRoot(): boolean {
  return process.getuid?.() === 0;
}

function rootFilesystem(): string[] {
  const args = ["--ro-bind", "/usr", "/usr"];
  for (const name of ROOT_LINKS) {
    const path = `/${name}`;
    if (!existsSync(path)) continue;
    const st = lstatSync(path);
    if (st.isSymbolicLink()) args.push("--symlink", readlinkSync(path), path);
    else if (st.isDirectory()) args.push("--ro-bind", path, path);
  }
  for (const f of ETC_FILES) args.push("--ro-bind-try", `/etc/${f}`, `/etc/${f}`);
  return args;
}

export interface SandboxCommand {
  mode: SandboxMode;
  tools: SandboxTools;
  features: BwrapFeatures;
  spec: SandboxSpec;
  /** Host path of the workdir; also its path inside. */
  workdir: string;
  /** Working directory of the program (inside the workdir). */
  cwd: string;
  argv: readonly string[];
  /** Host files shown read-only: [source on the host, path inside]. */
  binds?: readonly (readonly [string, string])[];
}

export function bwrapCommand(c: SandboxCommand): string[] {
  const { spec, mode, tools, features } = c;
  const ns =
    mode === "userns"
      ? [
          "--unshare-all",
          ...(spec.network ? ["--share-net"] : []),
          // Explicit, because --disable-userns (no nested user namespaces) requires it.
          "--unshare-user",
          ...(features.disableUserns ? ["--disable-userns"] : []),
        ]
      : [
          "--unshare-ipc",
          "--unshare-pid",
          "--unshare-uts",
          "--unshare-cgroup-try",
          ...(spec.network ? [] : ["--unshare-net"]),
          "--cap-drop",
          "ALL",
          "--cap-add",
          "CAP_SETUID",
          "--cap-add",
          "CAP_SETGID",
        ];
  const bwrap = [
    tools.bwrap,
    ...ns,
    "--die-with-parent",
    "--new-session",
    "--hostname",
    "sandbox",
    ...rootFilesystem(),
    ...spec.ro_bind.flatMap((p) => ["--ro-bind-try", p, p]),
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    // A world-writable, size-capped /tmp: files written there count against host memory.
    ...(features.tmpfsPerms ? ["--perms", "1777"] : []),
    ...(features.tmpfsSize ? ["--size", String(spec.tmp_size_mb * 1024 * 1024)] : []),
    "--tmpfs",
    "/tmp",
    // After /tmp is mounted, so a program file under the host's /tmp is not hidden by it.
    ...(c.binds ?? []).flatMap(([from, to]) => ["--ro-bind", from, to]),
    "--bind",
    c.workdir,
    c.workdir,
    "--chdir",
    c.cwd,
    "--",
  ];
  const limits = prlimitArgs(tools.prlimit, spec);
  if (mode === "rootns") return [...bwrap, ...setprivArgs(tools.setpriv, spec), ...limits, ...c.argv];
  const drop = isRoot() ? setprivArgs(tools.setpriv, spec) : [];
  return [...drop, ...bwrap, ...limits, ...c.argv];
}

/** Without bubblewrap (explicit opt-in only): rlimits and the uid drop, nothing else. */
export function unsandboxedCommand(
  tools: Omit<SandboxTools, "bwrap">,
  spec: SandboxSpec,
  argv: readonly string[],
): string[] {
  const drop = isRoot() ? setprivArgs(tools.setpriv, spec) : [];
  return [...drop, ...prlimitArgs(tools.prlimit, spec), ...argv];
}
