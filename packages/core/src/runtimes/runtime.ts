/**
 * Where a harness program and model-written code run.
 *
 * A runtime owns one working directory for one rollout. `run` never throws for a program that
 * fails, times out or is killed: those are results (`exitCode`, `timedOut`, `signal`), because a
 * failing model-written program is data for the reward, not an error of the rollout. It throws
 * only when the runtime itself is broken (a SandboxError).
 */

export interface ProgramResult {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  /** The wall clock ran out and the whole process group was killed. */
  timedOut: boolean;
  /** stdout or stderr was cut at the output cap. */
  outputTruncated: boolean;
  wallMs: number;
}

export interface RunOptions {
  /** Extra environment variables (the runtime decides what else is inherited). */
  env?: Record<string, string>;
  stdin?: string;
  /** Wall-clock limit for this program; the whole process group is killed when it runs out. */
  timeoutMs?: number;
  /** Working directory relative to the runtime's workdir. */
  cwd?: string;
  signal?: AbortSignal;
}

export interface Runtime {
  /** "subprocess", "sandbox", … */
  readonly kind: string;
  /** Absolute path of this rollout's working directory on the host (valid after start). */
  readonly workdir: string;
  /**
   * `start`, `stop` and `reap` may finish synchronously (return no promise) when there is
   * nothing to wait for: a single-turn rollout that never starts a program then costs no await.
   */
  start(): Promise<void> | void;
  /** Kills anything still running and removes the working directory. Idempotent. */
  stop(): Promise<void> | void;
  /**
   * Ends every process the runtime's programs started, however they detached (a new session, a
   * double fork), and resolves once none can act any more: called after the agent's program
   * exited and before grading, so nothing the agent left behind runs into the grader's step.
   * The workdir stays. A runtime without it cannot promise that (the rollout records so).
   */
  reap?(): Promise<ReapReport> | ReapReport;
  run(argv: string[], options?: RunOptions): Promise<ProgramResult>;
  /** Paths are relative to the workdir; escaping it is refused. */
  writeFile(path: string, data: string | Uint8Array): Promise<void>;
  readFile(path: string): Promise<Uint8Array>;
  /**
   * The command line, environment and host cwd that start `argv` in this runtime as a
   * long-lived process the caller spawns and talks to over stdio (a colocated MCP server). No
   * wall clock applies; the runtime's other limits do.
   */
  interactiveCommand?(
    argv: string[],
    env?: Record<string, string>,
    options?: InteractiveOptions,
  ): InteractiveCommand;
  /**
   * Whether a program of this runtime could open `hostPath` if it were shown inside (a sandbox
   * drops to an unprivileged user, who cannot pass a 0700 folder such as /root). Absent: the
   * runtime sees the host as it is.
   */
  readableInside?(hostPath: string): boolean;
}

export interface InteractiveOptions {
  /**
   * Host folders the program needs, shown read-only at the same path by a runtime that hides
   * the host (an agent's installed packages). Each must be `readableInside`.
   */
  readOnly?: readonly string[];
}

export interface InteractiveCommand {
  argv: string[];
  env: Record<string, string>;
  cwd: string;
}

export interface ReapReport {
  /** Processes found still running and killed (where the runtime can count them). */
  killed: number;
  /**
   * How descendants were found: a PID namespace ends them all; "marker" (an inherited variable,
   * or a working folder inside the rollout's) is best effort.
   */
  how: "pid-namespace" | "marker";
}

/** Config shape shared by runtimes (`harness.runtime` in the TOML). */
export interface RuntimeSpec {
  type: string;
  [key: string]: unknown;
}
