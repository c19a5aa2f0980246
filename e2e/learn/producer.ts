/**
 * Rollout groups generated continuously, not step by step: `concurrency` groups are always in
 * flight, and a step takes the first groups to finish. The others keep running through the
 * step's weight update (the engine pauses, swaps weights, continues), so their later turns are
 * sampled by the new version: the episodes span the update.
 */
import type { TraceRecord } from "../../packages/core/src/trace/record.ts";

export interface FinishedGroup {
  serial: number;
  taskIndex: number;
  traces: TraceRecord[];
}

export type RunGroup = (serial: number, taskIndex: number) => Promise<TraceRecord[]>;

export class GroupProducer {
  private serial = 0;
  private inFlight = new Set<Promise<void>>();
  private ready: FinishedGroup[] = [];
  private waiter: (() => void) | null = null;
  private failure: unknown = null;
  private stopped = false;
  /** Tasks to run again (staleness `rerun`), ahead of new ones. */
  private reruns: number[] = [];

  constructor(
    private readonly run: RunGroup,
    private readonly numTasks: number,
    concurrency: number,
  ) {
    for (let i = 0; i < concurrency; i++) this.launch();
  }

  get running(): number {
    return this.inFlight.size;
  }

  private launch(): void {
    if (this.stopped) return;
    const serial = this.serial++;
    const taskIndex = this.reruns.shift() ?? serial % this.numTasks;
    const p: Promise<void> = this.run(serial, taskIndex).then(
      (traces) => {
        this.ready.push({ serial, taskIndex, traces });
      },
      (e: unknown) => {
        this.failure ??= e;
      },
    );
    const tracked = p.finally(() => {
      this.inFlight.delete(tracked);
      this.launch();
      this.waiter?.();
    });
    this.inFlight.add(tracked);
  }

  rerun(taskIndex: number): void {
    this.reruns.push(taskIndex);
  }

  /** The first `n` groups to finish (in order of finishing), once there are that many. */
  async take(n: number): Promise<FinishedGroup[]> {
    while (this.ready.length < n) {
      if (this.failure) throw this.failure;
      await new Promise<void>((r) => {
        this.waiter = r;
      });
      this.waiter = null;
    }
    if (this.failure) throw this.failure;
    return this.ready.splice(0, n);
  }

  /** Launches nothing more and waits for the groups in flight (abort them first to be quick). */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.allSettled([...this.inFlight]);
  }
}
