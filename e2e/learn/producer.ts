/**
 * Rollout groups generated continuously, not step by step: `concurrency` groups are always in
 * flight, and a step takes the first groups to finish. The others keep running through the
 * step's weight update (the engine pauses, swaps weights, continues), so their later turns are
 * sampled by the new version: the episodes span the update.
 */
import type { Client } from "../../packages/core/src/clients/client.ts";
import type { BatchGroup, GroupRunner } from "./schedule.ts";

export class GroupProducer {
  private serial = 0;
  private inFlight = new Set<Promise<void>>();
  private ready: BatchGroup[] = [];
  private waiter: (() => void) | null = null;
  private failure: unknown = null;
  private stopped = false;
  /** Tasks to run again (staleness `rerun`), ahead of new ones. */
  private reruns: number[] = [];

  constructor(
    private readonly run: GroupRunner,
    private readonly client: Client,
    private readonly numTasks: number,
    concurrency: number,
    private readonly groupsPerStep: number,
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
    const p: Promise<void> = this.run(serial, taskIndex, this.client).then(
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

  /** The engine serves a new version: nothing to do, the groups run freely. */
  pushed(_step: number): void {}

  /** The first groups to finish (in order of finishing), once there are a step's worth. */
  async take(_step: number): Promise<BatchGroup[]> {
    const n = this.groupsPerStep;
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
