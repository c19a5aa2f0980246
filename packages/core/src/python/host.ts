/**
 * The Python taskset host: one `python -m envroll_v1host` per interpreter and search path, started
 * on first use and shared by every taskset, group and rollout of this envroll process. Requests
 * carry ids and run concurrently on the Python side, so one process serves a whole run.
 *
 * If the process dies, every request in flight fails with `PythonHostError` (a rollout error, so
 * only those rollouts are lost) and the next request starts a fresh process; tasksets loaded in
 * the dead one are loaded again on demand (`PythonHost.load` remembers how).
 */
import type * as ChildProcessModule from "node:child_process";
import type { ChildProcessByStdio } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { Readable, Writable } from "node:stream";
import { RolloutError } from "../errors.ts";
import { CORE_ROOT } from "../package-root.ts";

/** The folder holding the `envroll_v1host` Python package. */
export const HOST_PYTHONPATH = join(CORE_ROOT, "python");

/** The host process died or broke the protocol; the rollouts it was serving fail with this. */
export class PythonHostError extends RolloutError {}

/** An error the Python side answered with: V1's type name, message and Python traceback. */
export interface PythonErrorRecord {
  type: string;
  message: string;
  traceback?: string;
  path?: string;
}

export class PythonError extends Error {
  constructor(readonly record: PythonErrorRecord) {
    super(record.message);
    this.name = record.type;
  }
}

/** Answers the host's callbacks (a rollout's runtime lives here, in envroll). */
export type CallbackHandler = (op: string, msg: Record<string, unknown>) => Promise<unknown>;

export interface HostOptions {
  /** The interpreter (default: $ENVROLL_TASKSET_PYTHON, else `python3` on PATH). */
  python?: string | null;
  /** Folders put first on the host's sys.path (local environment modules). */
  path?: readonly string[];
}

export function hostPython(opt: string | null | undefined): string {
  return opt || process.env["ENVROLL_TASKSET_PYTHON"] || "python3";
}

interface Pending {
  resolve(v: unknown): void;
  reject(e: Error): void;
}

type Child = ChildProcessByStdio<Writable, Readable, Readable>;

export class PythonHost {
  readonly python: string;
  readonly path: readonly string[];
  private child: Child | null = null;
  private nextId = 0;
  private readonly pending = new Map<number, Pending>();
  private stderrTail = "";
  /** Starts of the process so far (1 after the first; a restart adds one). */
  starts = 0;
  /** Wall milliseconds of the latest start until its `hello` answered. */
  startMs = 0;
  private readonly callbackHandlers = new Set<CallbackHandler>();
  private generation = 0;

  constructor(opts: HostOptions = {}) {
    this.python = hostPython(opts.python);
    this.path = opts.path ?? [];
  }

  /** The process generation; a restart increments it (loaded handles are per generation). */
  get gen(): number {
    return this.generation;
  }

  onCallback(h: CallbackHandler): void {
    this.callbackHandlers.add(h);
  }

  private start(): Child {
    const env = { ...process.env };
    env["PYTHONPATH"] = [HOST_PYTHONPATH, ...this.path, env["PYTHONPATH"]].filter(Boolean).join(":");
    env["PYTHONUNBUFFERED"] = "1";
    // Loaded here: every eval imports this module, few host Python, and node:child_process (with
    // node:net and the handle-passing code under it) is ~5% of the CLI's start-up to load.
    const { spawn } = createRequire(import.meta.url)("node:child_process") as typeof ChildProcessModule;
    const child = spawn(this.python, ["-m", "envroll_v1host"], { stdio: ["pipe", "pipe", "pipe"], env });
    this.child = child;
    this.generation++;
    this.starts++;
    this.stderrTail = "";
    // An idle host must not keep envroll alive (it exits by itself when its stdin closes); a
    // host with requests in flight must, or Node would exit while awaiting its answers.
    this.setRef(child, false);
    let buf = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      buf += chunk;
      let nl = buf.indexOf("\n");
      while (nl >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line.trim()) this.onLine(child, line);
        nl = buf.indexOf("\n");
      }
    });
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-4000);
      if (process.env["ENVROLL_TASKSET_PYTHON_LOG"]) process.stderr.write(chunk);
    });
    child.stdin.on("error", () => {}); // a dead host is reported through "exit"/"error"
    const fail = (why: string) => {
      if (this.child !== child) return;
      this.child = null;
      const tail = this.stderrTail.trim().split("\n").slice(-5).join("\n");
      const err = new PythonHostError(
        `Python taskset host (${this.python}) ${why}${tail ? `:\n${tail}` : ""}`,
      );
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
    child.on("error", (e) => fail(`could not run: ${e.message}`));
    child.on("exit", (code, signal) => fail(`exited (${signal ?? `code ${code}`})`));
    return child;
  }

  private setRef(child: Child, on: boolean): void {
    for (const h of [child, child.stdin, child.stdout, child.stderr] as unknown as {
      ref?: () => void;
      unref?: () => void;
    }[])
      on ? h.ref?.() : h.unref?.();
  }

  private track(id: number, p: Pending): void {
    if (this.pending.size === 0 && this.child) this.setRef(this.child, true);
    this.pending.set(id, p);
  }

  private settle(id: number): Pending | undefined {
    const p = this.pending.get(id);
    if (!p) return undefined;
    this.pending.delete(id);
    if (this.pending.size === 0 && this.child) this.setRef(this.child, false);
    return p;
  }

  private onLine(child: Child, line: string): void {
    let msg: Record<string, unknown>;
    try {
      msg = JSON.parse(line);
    } catch {
      this.stderrTail += `\n[protocol] not JSON: ${line.slice(0, 200)}`;
      return;
    }
    if (typeof msg["cb"] === "number") {
      void this.answerCallback(child, msg);
      return;
    }
    const p = this.settle(msg["id"] as number);
    if (!p) return;
    if (msg["error"]) p.reject(new PythonError(msg["error"] as PythonErrorRecord));
    else p.resolve(msg["result"]);
  }

  private async answerCallback(child: Child, msg: Record<string, unknown>): Promise<void> {
    const op = String(msg["op"]);
    let reply: Record<string, unknown>;
    try {
      let result: unknown;
      let handled = false;
      for (const h of this.callbackHandlers) {
        result = await h(op, msg);
        if (result !== undefined) {
          handled = true;
          break;
        }
      }
      if (!handled) throw new Error(`no handler for callback ${op} of rollout ${String(msg["rollout"])}`);
      reply = { cb: msg["cb"], result };
    } catch (e) {
      const err = e instanceof Error ? e : new Error(String(e));
      reply = { cb: msg["cb"], error: { type: err.name, message: err.message } };
    }
    if (this.child === child) child.stdin.write(`${JSON.stringify(reply)}\n`);
  }

  /** Sends one request and waits for its answer (starting the process when none runs). */
  request<T = unknown>(op: string, payload: Record<string, unknown> = {}): Promise<T> {
    let child = this.child;
    if (!child) {
      child = this.start();
      const t0 = performance.now();
      const id = ++this.nextId;
      const hello = new Promise((resolve, reject) => this.track(id, { resolve, reject }));
      hello.then(
        () => {
          this.startMs = performance.now() - t0;
        },
        () => {},
      );
      child.stdin.write(`${JSON.stringify({ id, op: "hello" })}\n`);
    }
    const id = ++this.nextId;
    const answer = new Promise<T>((resolve, reject) =>
      this.track(id, { resolve: resolve as (v: unknown) => void, reject }),
    );
    child.stdin.write(`${JSON.stringify({ id, op, ...payload })}\n`);
    return answer;
  }

  /** Stops the process (in-flight requests fail); the next request starts a new one. */
  kill(): void {
    this.child?.kill("SIGKILL");
  }

  /** Closes stdin: the host exits once it has read everything. */
  close(): void {
    const c = this.child;
    if (c) c.stdin.end();
  }

  get pid(): number | null {
    return this.child?.pid ?? null;
  }
}

const hosts = new Map<string, PythonHost>();

/** The process-wide host for an interpreter and search path (started lazily, then reused). */
export function sharedHost(opts: HostOptions = {}): PythonHost {
  const key = JSON.stringify([hostPython(opts.python), opts.path ?? []]);
  let h = hosts.get(key);
  if (!h) {
    h = new PythonHost(opts);
    hosts.set(key, h);
  }
  return h;
}
