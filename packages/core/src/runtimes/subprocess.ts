/**
 * The subprocess runtime: programs run on the host in a fresh temporary working directory.
 *
 * Each program is started in its own process group (`detached`) so that a timeout or abort can
 * kill everything it spawned with one signal — killing only the direct child would leave
 * grandchildren (a shell's python, an agent's tool processes) running after the rollout ended.
 * The environment is an allowlist: host secrets (API keys in the parent env) do not leak into
 * model-written code unless the config forwards them by name.
 */
import { mkdtempSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { SandboxError } from "../errors.ts";
import { LivePrograms, newReapTag, REAP_MARKER, reapTagged } from "./reap.ts";
import type * as R from "./runtime.ts";
import { spawnProgram } from "./spawn.ts";

/** Inherited from the host environment by default: what programs need to find tools and decode text. */
const BASE_ENV = ["PATH", "HOME", "USER", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TERM", "SYSTEMROOT"];
const DEFAULT_OUTPUT_LIMIT = 1 << 20;

export interface SubprocessOptions {
  /** Per-stream cap on captured stdout/stderr bytes (the rest is discarded, the program keeps running). */
  outputLimitBytes?: number;
  /** Extra host variables to pass through by name (`harness.forward_env`). */
  forwardEnv?: readonly string[];
}

export class SubprocessRuntime implements R.Runtime {
  readonly kind = "subprocess";
  private dir: string | null = null;
  private started = false;
  private readonly live = new LivePrograms();
  /** Marks every process this runtime's programs start, detached or not (see reap.ts). */
  private tagValue: string | null = null;
  private readonly outputLimit: number;
  private readonly forwardEnv: readonly string[];

  constructor(options: SubprocessOptions = {}) {
    this.outputLimit = options.outputLimitBytes ?? DEFAULT_OUTPUT_LIMIT;
    this.forwardEnv = options.forwardEnv ?? [];
  }

  /**
   * The directory is created on first use, not in `start()`: most in-process rollouts (a chat
   * loop scored on its text) never touch the runtime, and a mkdtemp + rm per rollout would be
   * most of their overhead.
   */
  get workdir(): string {
    if (!this.started) throw new SandboxError("subprocess runtime used before start()");
    this.dir ??= mkdtempSync(join(tmpdir(), "envroll-"));
    return this.dir;
  }

  private async ensureDir(): Promise<string> {
    if (!this.started) throw new SandboxError("subprocess runtime used before start()");
    this.dir ??= await mkdtemp(join(tmpdir(), "envroll-"));
    return this.dir;
  }

  start(): void {
    this.started = true;
  }

  /** Made when a program first needs it: most in-process rollouts never start one. */
  private get tag(): string {
    this.tagValue ??= newReapTag();
    return this.tagValue;
  }

  reap(): Promise<R.ReapReport> | R.ReapReport {
    // Nothing was ever started: nothing to settle, kill or look for.
    if (!this.live.started) return { killed: 0, how: "marker" };
    return this.reapStarted();
  }

  private async reapStarted(): Promise<R.ReapReport> {
    await this.live.settle();
    const killed = await reapTagged(this.tag, this.dir);
    return { killed: killed.length, how: "marker" };
  }

  stop(): Promise<void> | void {
    this.live.killAll();
    // Nothing ever ran and no folder was made (an in-process rollout): nothing to wait for.
    if (!this.live.started && this.dir === null) {
      this.started = false;
      return;
    }
    return this.cleanUp();
  }

  private async cleanUp(): Promise<void> {
    if (this.live.started) await reapTagged(this.tag, this.dir);
    this.started = false;
    const dir = this.dir;
    this.dir = null;
    if (dir !== null) await rm(dir, { recursive: true, force: true });
  }

  private resolvePath(path: string): string {
    const full = resolve(this.workdir, path);
    const rel = relative(this.workdir, full);
    if (rel.startsWith("..") || isAbsolute(rel)) throw new SandboxError(`path escapes the workdir: ${path}`);
    return full;
  }

  async writeFile(path: string, data: string | Uint8Array): Promise<void> {
    await this.ensureDir();
    const full = this.resolvePath(path);
    await mkdir(dirname(full), { recursive: true });
    await writeFile(full, data);
  }

  async readFile(path: string): Promise<Uint8Array> {
    await this.ensureDir();
    return new Uint8Array(await readFile(this.resolvePath(path)));
  }

  private environment(extra: Record<string, string> | undefined): Record<string, string> {
    const env: Record<string, string> = {};
    for (const k of [...BASE_ENV, ...this.forwardEnv]) {
      const v = process.env[k];
      if (v !== undefined) env[k] = v;
    }
    env["TMPDIR"] = this.workdir;
    return { ...env, ...extra };
  }

  /** The host is visible as it is: `readOnly` paths need no showing. */
  interactiveCommand(argv: string[], env?: Record<string, string>): R.InteractiveCommand {
    if (argv.length === 0) throw new SandboxError("empty argv");
    // Tagged like `run`'s programs: an ACP agent started this way, and whatever it detaches, is
    // reaped before grading too (a colocated server started this way is closed before that).
    this.live.started = true;
    return { argv, env: { ...this.environment(env), [REAP_MARKER]: this.tag }, cwd: this.workdir };
  }

  async run(argv: string[], options: R.RunOptions = {}): Promise<R.ProgramResult> {
    if (argv.length === 0) throw new SandboxError("empty argv");
    await this.ensureDir();
    const run = spawnProgram(argv, {
      cwd: options.cwd ? this.resolvePath(options.cwd) : this.workdir,
      env: { ...this.environment(options.env), [REAP_MARKER]: this.tag },
      stdin: options.stdin,
      timeoutMs: options.timeoutMs,
      signal: options.signal,
      outputLimitBytes: this.outputLimit,
      killOnOutputLimit: false,
      track: this.live.track,
    });
    return this.live.add(run);
  }
}

export function createSubprocessRuntime(
  spec: R.RuntimeSpec,
  ctx: { forwardEnv?: readonly string[] } = {},
): R.Runtime {
  const limit = spec["output_limit_bytes"];
  return new SubprocessRuntime({
    outputLimitBytes: typeof limit === "number" ? limit : undefined,
    forwardEnv: ctx.forwardEnv,
  });
}
