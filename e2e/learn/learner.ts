/**
 * The trainer process of the learning run (`python -m envroll_engine.learner`): one JSON line
 * in per step (samples file, the version to push), one JSON line out with the step's numbers.
 * It keeps the policy, Adam's state and recent versions' weights between steps.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { createInterface, type Interface } from "node:readline";
import { stop as stopChild } from "../../bench/lib/child.ts";
import { projectPython } from "../python.ts";

export interface LearnerStep {
  ok: boolean;
  errors?: string[];
  weight_version: string;
  logprob_max_abs_diff: number;
  masked_tokens: number;
  compared_by_version: Record<string, number>;
  trained_tokens: number;
  loss: number;
  train_s: number;
  update_s: number;
}

export class Learner {
  private readonly lines: AsyncIterator<string>;
  private stderr = "";

  private constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    rl: Interface,
  ) {
    this.lines = rl[Symbol.asyncIterator]();
    child.stderr.on("data", (d: Buffer) => {
      this.stderr = (this.stderr + d.toString()).slice(-4096);
    });
  }

  static async start(args: string[]): Promise<Learner> {
    const child = spawn(projectPython(), ["-m", "envroll_engine.learner", ...args], {
      stdio: ["pipe", "pipe", "pipe"],
    });
    const learner = new Learner(child, createInterface({ input: child.stdout }));
    const ready = await learner.next();
    if (!ready.ready) throw new Error(`learner did not start: ${JSON.stringify(ready)}`);
    return learner;
  }

  private async next(): Promise<Record<string, unknown>> {
    const r = await this.lines.next();
    if (r.done) throw new Error(`learner exited (${this.child.exitCode ?? "signal"}):\n${this.stderr}`);
    return JSON.parse(r.value) as Record<string, unknown>;
  }

  /** Trains on the samples at `path` and makes the engine at `engine` serve `version`. */
  async step(path: string, version: string, engine: string): Promise<LearnerStep> {
    this.child.stdin.write(`${JSON.stringify({ samples: path, version, engine })}\n`);
    const out = (await this.next()) as unknown as LearnerStep;
    if (!out.ok)
      throw new Error(`learner step to version ${version} failed: ${(out.errors ?? []).join("; ")}`);
    return out;
  }

  stop(): Promise<void> {
    // Closing stdin is the learner's signal to finish; it is killed if it has not after 10 s.
    return stopChild(this.child, 10_000, (c) => c.stdin?.end());
  }
}
