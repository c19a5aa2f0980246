/**
 * `harness.runtime = { type = "sandbox", … }` (or a taskset's scoring runtime): the knobs of the
 * sandboxed runtime, with defaults sized for short model-written programs (code-golf): a few
 * seconds of CPU, 1 GiB of address space, no network.
 */
import { z } from "zod";

export const SandboxSpecSchema = z.strictObject({
  type: z.literal("sandbox").default("sandbox"),
  /**
   * Without bubblewrap the runtime refuses to start. With this set it instead runs programs as
   * plain subprocesses with the same rlimits (and the uid drop when root), warning once: no
   * filesystem or network isolation.
   */
  allow_unsandboxed: z.boolean().default(false),
  /** Wall clock per program when the caller gives none; the whole process tree is killed. */
  timeout_s: z.number().positive().default(10),
  /** RLIMIT_CPU (soft; SIGKILL one second later). */
  cpu_s: z.number().int().positive().default(10),
  /** RLIMIT_AS in MiB. */
  memory_mb: z.number().int().positive().default(1024),
  /** RLIMIT_FSIZE in MiB: the largest file a program may write. */
  file_size_mb: z.number().int().positive().default(64),
  /** RLIMIT_NOFILE. */
  open_files: z.number().int().positive().default(256),
  /** RLIMIT_NPROC: processes/threads of the sandbox user (per sandbox in userns mode). */
  processes: z.number().int().positive().default(64),
  /** Per-stream cap on captured stdout/stderr bytes. */
  output_limit_bytes: z
    .number()
    .int()
    .positive()
    .default(1 << 20),
  /** Kill the program once a stream passes the cap (a runaway printer would otherwise run to the wall clock). */
  kill_on_output_limit: z.boolean().default(true),
  /** Share the host network namespace (needed only by external harness programs). */
  network: z.boolean().default(false),
  /** The unprivileged identity programs run as (applied when envroll runs as root). */
  uid: z.number().int().nonnegative().default(65534),
  gid: z.number().int().nonnegative().default(65534),
  /** Extra host paths mounted read-only at the same place (e.g. a Python outside /usr). */
  ro_bind: z.array(z.string()).default([]),
  /** Path of the bubblewrap binary; null finds `bwrap` on PATH. */
  bwrap: z.string().nullable().default(null),
  /** Force a sandbox mode (see sandbox/command.ts); "auto" takes the first that works here. */
  mode: z.enum(["auto", "userns", "rootns"]).default("auto"),
  /** Size of the private /tmp tmpfs in MiB. */
  tmp_size_mb: z.number().int().positive().default(64),
});
export type SandboxSpec = z.output<typeof SandboxSpecSchema>;
