/**
 * The learning run's default schedule: a one-step pipeline that is reproducible. Batch j's
 * episodes are launched right after version j−2 is pushed; their first turn is sampled by
 * version j−2 and their later turns wait (the way a turn waits at a paused engine) until
 * version j−1 is served. Step j trains on batch j once it is complete and once batch j+1's first
 * turns are in, then pushes version j. So every episode after the first batch spans exactly one
 * weight update, and which version samples which turn never depends on timing: with seeded
 * weights and per-rollout sampling seeds a run is reproducible.
 *
 * (`--schedule free` is the other mode: groups run freely and the pause lands wherever the
 * engine is, which exercises the abort-and-resend path but is not reproducible.)
 */
import type { Client, ModelRequest, ModelResponse } from "../../packages/core/src/clients/client.ts";
import type { TraceRecord } from "../../packages/core/src/trace/record.ts";

/** The version the engine serves, as the driver knows it; turns wait on it. */
export class VersionGate {
  private version = 0;
  private waiters: { at: number; open: () => void }[] = [];

  get current(): number {
    return this.version;
  }

  set(v: number): void {
    this.version = v;
    const ready = this.waiters.filter((w) => w.at <= v);
    this.waiters = this.waiters.filter((w) => w.at > v);
    for (const w of ready) w.open();
  }

  atLeast(v: number): Promise<void> {
    if (this.version >= v) return Promise.resolve();
    return new Promise((open) => this.waiters.push({ at: v, open }));
  }
}

/** One batch's turn-1 bookkeeping: resolves once all its rollouts sampled their first turn. */
export class FirstTurns {
  readonly done: Promise<void>;
  private left: number;
  private resolve!: () => void;

  constructor(rollouts: number) {
    this.left = rollouts;
    this.done = new Promise((r) => {
      this.resolve = r;
    });
    if (rollouts <= 0) this.resolve();
  }

  /** A first turn came back. */
  settle(): void {
    if (--this.left === 0) this.resolve();
  }

  /** The batch ended: rollouts that never sampled a first turn will not send one now. */
  drain(): void {
    this.left = 0;
    this.resolve();
  }
}

/** A sampled turn's index in its episode: assistant messages already in the prompt. */
function turnIndex(req: ModelRequest): number {
  return req.messages.filter((m) => m.role === "assistant").length;
}

/**
 * The client batch `j` (1-based) rolls out through: turn 1 waits for version j−2, later turns
 * for j−1 (never below 0).
 */
export function pipelinedClient(inner: Client, gate: VersionGate, j: number, firsts: FirstTurns): Client {
  return {
    kind: inner.kind,
    async getResponse(req: ModelRequest): Promise<ModelResponse> {
      const first = turnIndex(req) === 0;
      await gate.atLeast(Math.max(0, first ? j - 2 : j - 1));
      try {
        return await inner.getResponse(req);
      } finally {
        if (first) firsts.settle();
      }
    },
    countTokens: inner.countTokens?.bind(inner),
    abort: (sessionId) => inner.abort(sessionId),
    endSession: inner.endSession?.bind(inner),
    // The shared inner client outlives every batch; the driver closes it once.
    close: async () => {},
  };
}

export interface BatchGroup {
  serial: number;
  taskIndex: number;
  traces: TraceRecord[];
}

/** Runs one group of rollouts for a task through the given client. */
export type GroupRunner = (
  serial: number,
  taskIndex: number,
  client: Client,
) => Promise<BatchGroup["traces"]>;

/** Batches for the pipelined schedule (see the top of this file). */
export class PipelinedBatches {
  private readonly batches = new Map<number, { groups: Promise<BatchGroup[]>; firsts: FirstTurns }>();
  private readonly gate = new VersionGate();
  private readonly reruns: number[] = [];

  constructor(
    private readonly run: GroupRunner,
    private readonly client: Client,
    private readonly numTasks: number,
    private readonly groupsPerStep: number,
    private readonly rollouts: number,
  ) {
    this.launch(1);
    this.launch(2);
  }

  private launch(j: number): void {
    const firsts = new FirstTurns(this.groupsPerStep * this.rollouts);
    const client = pipelinedClient(this.client, this.gate, j, firsts);
    const groups = Promise.all(
      Array.from({ length: this.groupsPerStep }, async (_, i) => {
        const serial = (j - 1) * this.groupsPerStep + i;
        const taskIndex = this.reruns.shift() ?? serial % this.numTasks;
        return { serial, taskIndex, traces: await this.run(serial, taskIndex, client) };
      }),
    );
    // A rollout that failed before its first turn never reports one: do not wait for it.
    groups.finally(() => firsts.drain()).catch(() => {});
    this.batches.set(j, { groups, firsts });
  }

  /** Batch `step`, complete, once the next batch's first turns are in (so the push may follow). */
  async take(step: number): Promise<BatchGroup[]> {
    const b = this.batches.get(step)!;
    const groups = await b.groups;
    await this.batches.get(step + 1)?.firsts.done;
    this.batches.delete(step);
    return groups;
  }

  /** The engine serves `version` = step now: later turns waiting on it go, the batch after next starts. */
  pushed(step: number): void {
    this.gate.set(step);
    this.launch(step + 2);
  }

  rerun(taskIndex: number): void {
    this.reruns.push(taskIndex);
  }

  get running(): number {
    return this.batches.size * this.groupsPerStep;
  }

  /** Releases every gate and waits for what is still running (abort it first to be quick). */
  async stop(): Promise<void> {
    this.gate.set(Number.MAX_SAFE_INTEGER);
    await Promise.allSettled([...this.batches.values()].map((b) => b.groups));
  }
}
