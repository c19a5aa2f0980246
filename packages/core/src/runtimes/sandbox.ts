/**
 * The sandboxed runtime: model-written programs run under bubblewrap with every namespace
 * unshared (no network), a read-only view of /usr, a private workdir, rlimits (CPU, address
 * space, file size, open files, processes), an unprivileged uid, a wall clock that kills the
 * whole tree, and capped output. Details of the isolation are in sandbox/command.ts.
 *
 * Where bubblewrap cannot run, `start()` refuses with a SandboxError naming the reason — unless
 * the spec opts into `allow_unsandboxed = true`, which keeps the rlimits and uid drop but
 * isolates nothing else (a warning says so once per process).
 */
import { rm } from "node:fs/promises";
import { SandboxError } from "../errors.ts";
import { LivePrograms, newReapTag, REAP_MARKER, reapTagged } from "./reap.ts";
import type * as R from "./runtime.ts";
import { bwrapCommand, isRoot, unsandboxedCommand } from "./sandbox/command.ts";
import { type ProbeResult, probeSandbox, which } from "./sandbox/probe.ts";
import { type ProgramFiles, reachable, showProgramFiles } from "./sandbox/program-files.ts";
import { type SandboxSpec, SandboxSpecSchema } from "./sandbox/spec.ts";
import { createWorkdir, lexicalPath, readInside, writeInside } from "./sandbox/workdir.ts";
import { spawnProgram } from "./spawn.ts";

export { type SandboxSpec, SandboxSpecSchema } from "./sandbox/spec.ts";

export interface SandboxContext {
  /** Host variables passed through by name (`harness.forward_env`). */
  forwardEnv?: readonly string[];
  /** Host files shown read-only at the same path (the harness program's; see RuntimeContext). */
  readOnlyPaths?: readonly string[];
}

let warnedUnsandboxed = false;

export class SandboxRuntime implements R.Runtime {
  readonly kind = "sandbox";
  readonly spec: SandboxSpec;
  private dir: string | null = null;
  private probe: Extract<ProbeResult, { ok: true }> | null = null;
  private unsandboxed = false;
  private readonly live = new LivePrograms();
  /** Unsandboxed only: marks what the programs start, for reap (the PID namespace does it otherwise). */
  private readonly tag = newReapTag();
  private readonly forwardEnv: readonly string[];
  private readonly programFiles: readonly string[];
  private files: ProgramFiles | null = null;

  constructor(spec: Partial<SandboxSpec> | R.RuntimeSpec = {}, ctx: SandboxContext = {}) {
    const parsed = SandboxSpecSchema.safeParse(spec);
    if (!parsed.success)
      throw new SandboxError(
        `invalid sandbox runtime spec: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}`,
      );
    this.spec = parsed.data;
    this.programFiles = ctx.readOnlyPaths ?? [];
    this.forwardEnv = ctx.forwardEnv ?? [];
  }

  /** True when programs run without bubblewrap (explicit opt-in and bubblewrap unusable). */
  get isUnsandboxed(): boolean {
    return this.unsandboxed;
  }

  get workdir(): string {
    if (this.dir === null) throw new SandboxError("sandbox runtime used before start()");
    return this.dir;
  }

  async start(): Promise<void> {
    if (this.dir !== null) return;
    const probe = await probeSandbox({ bwrap: this.spec.bwrap, mode: this.spec.mode });
    if (probe.ok) {
      this.probe = probe;
    } else if (this.spec.allow_unsandboxed) {
      if (!which("prlimit") || (process.getuid?.() === 0 && !which("setpriv")))
        throw new SandboxError(`cannot run even unsandboxed: ${probe.reason}`);
      this.unsandboxed = true;
      if (!warnedUnsandboxed) {
        warnedUnsandboxed = true;
        process.emitWarning(
          `sandbox runtime: ${probe.reason}; running programs UNSANDBOXED (rlimits only) because allow_unsandboxed = true`,
          "SandboxWarning",
        );
      }
    } else {
      throw new SandboxError(
        `sandbox runtime unavailable: ${probe.reason}. Install bubblewrap, or set allow_unsandboxed = true to run programs as plain subprocesses with rlimits only (no isolation).`,
      );
    }
    this.dir = await createWorkdir(this.spec);
    if (!this.unsandboxed && this.programFiles.length > 0)
      this.files = await showProgramFiles(this.programFiles, this.spec);
  }

  /**
   * Each program runs in its own PID namespace: when it exits, or its group is killed, the kernel
   * kills everything left in the namespace (setsid and double forks included). Unsandboxed there
   * is no namespace, and the marker variable is followed instead.
   */
  async reap(): Promise<R.ReapReport> {
    await this.live.settle();
    if (!this.unsandboxed) return { killed: 0, how: "pid-namespace" };
    const killed = this.live.started ? await reapTagged(this.tag, this.dir) : [];
    return { killed: killed.length, how: "marker" };
  }

  async stop(): Promise<void> {
    this.live.killAll();
    if (this.unsandboxed && this.live.started) await reapTagged(this.tag, this.dir);
    const dir = this.dir;
    this.dir = null;
    if (dir !== null) await rm(dir, { recursive: true, force: true });
    await this.files?.remove();
    this.files = null;
  }

  writeFile(path: string, data: string | Uint8Array): Promise<void> {
    return writeInside(this.workdir, path, data, this.spec);
  }

  readFile(path: string): Promise<Uint8Array> {
    return readInside(this.workdir, path);
  }

  private environment(extra: Record<string, string> | undefined): Record<string, string> {
    const env: Record<string, string> = {
      PATH: "/usr/local/bin:/usr/bin:/bin",
      HOME: this.workdir,
      // Inside bubblewrap /tmp is private; unsandboxed (or where an old bubblewrap cannot make
      // /tmp writable) temporary files go to the workdir instead.
      TMPDIR: this.unsandboxed || !this.probe?.features.tmpfsPerms ? this.workdir : "/tmp",
      LANG: "C.UTF-8",
      PYTHONDONTWRITEBYTECODE: "1",
    };
    for (const k of this.forwardEnv) {
      const v = process.env[k];
      if (v !== undefined) env[k] = v;
    }
    return { ...env, ...extra };
  }

  private command(argv: string[], cwd: string, readOnly: readonly string[] = []): string[] {
    const spec = this.spec;
    if (this.unsandboxed)
      return unsandboxedCommand({ prlimit: which("prlimit")!, setpriv: which("setpriv") ?? "" }, spec, argv);
    const { mode, tools, features } = this.probe!;
    const binds = [...(this.files?.binds ?? []), ...readOnly.map((p) => [p, p] as const)];
    return bwrapCommand({ mode, tools, features, spec, workdir: this.workdir, cwd, argv, binds });
  }

  readableInside(hostPath: string): boolean {
    return this.unsandboxed || !isRoot() || reachable(hostPath, this.spec);
  }

  /**
   * bubblewrap passes its environment on, and the caller's spawn adds host variables of its own
   * (the MCP SDK adds HOME, LOGNAME, PATH, SHELL, TERM and USER), so each of those is set here.
   */
  interactiveCommand(
    argv: string[],
    env?: Record<string, string>,
    options: R.InteractiveOptions = {},
  ): R.InteractiveCommand {
    if (argv.length === 0) throw new SandboxError("empty argv");
    const readOnly = options.readOnly ?? [];
    for (const p of readOnly)
      if (!this.readableInside(p))
        throw new SandboxError(
          `${p} cannot be shown inside the sandbox: its user (uid ${this.spec.uid}) cannot reach it on the host`,
        );
    const base = { LOGNAME: "sandbox", USER: "sandbox", SHELL: "/bin/sh", TERM: "dumb" };
    if (this.unsandboxed) this.live.started = true;
    return {
      argv: this.command(argv, this.workdir, readOnly),
      env: { ...base, ...this.environment(env), ...(this.unsandboxed ? { [REAP_MARKER]: this.tag } : {}) },
      cwd: this.workdir,
    };
  }

  async run(argv: string[], options: R.RunOptions = {}): Promise<R.ProgramResult> {
    if (argv.length === 0) throw new SandboxError("empty argv");
    const workdir = this.workdir;
    const cwd = options.cwd ? lexicalPath(workdir, options.cwd) : workdir;
    const spec = this.spec;
    const command = this.command(argv, cwd);
    const env = this.environment(options.env);
    if (this.unsandboxed) env[REAP_MARKER] = this.tag;
    const run = spawnProgram(command, {
      // bubblewrap chdirs inside; the host-side cwd only matters for the unsandboxed fallback.
      cwd: this.unsandboxed ? cwd : workdir,
      env,
      stdin: options.stdin,
      timeoutMs: options.timeoutMs ?? spec.timeout_s * 1000,
      signal: options.signal,
      outputLimitBytes: spec.output_limit_bytes,
      killOnOutputLimit: spec.kill_on_output_limit,
      track: this.live.track,
    });
    return this.live.add(run);
  }
}

/** Registry factory (`harness.runtime = { type = "sandbox", … }`); see src/runtimes/index.ts. */
export function createSandboxRuntime(spec: R.RuntimeSpec, ctx: SandboxContext = {}): R.Runtime {
  return new SandboxRuntime(spec, ctx);
}
