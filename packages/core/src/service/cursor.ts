/**
 * The exact train-task cursor.
 *
 * Upstream resumes at `rollout_id × rollout_batch_size`, which is wrong as soon as over-sampling
 * or dropped groups consume more tasks than the batch size. Here the cursor records what really
 * happened: a task is *handed out* when its group starts, *completed* when its group line reached
 * the client, and *returned* when its group was aborted (stream closed, over-sampling satisfied,
 * `/abort`). Returned tasks are handed out first next time, so across refills, restarts and
 * aborts no task runs twice and none is skipped.
 *
 * Task order: the identity, or a seeded permutation per epoch (`--rollout-shuffle`); the
 * permutation is recomputed from (seed, epoch), so the state stays small.
 */
import { mulberry32, shuffle as permute } from "../random.ts";

export interface CursorState {
  version: 1;
  taskset_id: string;
  num_tasks: number;
  shuffle: boolean;
  seed: number;
  /** The rollout step this state was saved after (-1: never used). */
  rollout_id: number;
  epoch: number;
  /** Next position in the current epoch's order. */
  offset: number;
  /** Handed out but not completed (aborted): handed out again before anything new. */
  returned: number[];
  /** Task indices completed during `rollout_id`, in completion order. */
  completed: number[];
  completed_total: number;
  handed_out_total: number;
}

export function freshCursorState(
  tasksetId: string,
  numTasks: number,
  shuffle: boolean,
  seed: number,
): CursorState {
  return {
    version: 1,
    taskset_id: tasksetId,
    num_tasks: numTasks,
    shuffle,
    seed,
    rollout_id: -1,
    epoch: 0,
    offset: 0,
    returned: [],
    completed: [],
    completed_total: 0,
    handed_out_total: 0,
  };
}

export function epochOrder(numTasks: number, shuffle: boolean, seed: number, epoch: number): number[] {
  const order = Array.from({ length: numTasks }, (_, i) => i);
  if (!shuffle) return order;
  return permute(order, mulberry32((seed ^ Math.imul(epoch + 1, 0x9e3779b1)) >>> 0));
}

export class TaskCursor {
  private order: number[];
  private readonly inFlight = new Set<number>();

  constructor(readonly state: CursorState) {
    this.order = epochOrder(state.num_tasks, state.shuffle, state.seed, state.epoch);
  }

  /** Starts a rollout step: the completion log restarts, positions carry over. */
  beginRollout(rolloutId: number): void {
    if (this.state.rollout_id !== rolloutId) {
      this.state.rollout_id = rolloutId;
      this.state.completed = [];
    }
  }

  take(): number {
    this.state.handed_out_total++;
    const back = this.state.returned.shift();
    if (back !== undefined) {
      this.inFlight.add(back);
      return back;
    }
    if (this.state.offset >= this.order.length) {
      this.state.epoch++;
      this.state.offset = 0;
      this.order = epochOrder(this.state.num_tasks, this.state.shuffle, this.state.seed, this.state.epoch);
    }
    const task = this.order[this.state.offset++];
    this.inFlight.add(task);
    return task;
  }

  complete(task: number): void {
    this.inFlight.delete(task);
    this.state.completed.push(task);
    this.state.completed_total++;
  }

  /**
   * Undoes `complete` for a group the client received but never used (it stopped reading once it
   * had enough): the task was not trained on, so it must run again rather than be skipped.
   */
  release(task: number): boolean {
    const i = this.state.completed.lastIndexOf(task);
    if (i < 0) return false;
    this.state.completed.splice(i, 1);
    this.state.completed_total--;
    this.state.returned.push(task);
    return true;
  }

  giveBack(task: number): void {
    this.inFlight.delete(task);
    this.state.returned.push(task);
  }

  /** The persisted form: anything still in flight counts as returned (it never reached the client). */
  snapshot(): CursorState {
    return structuredClone({ ...this.state, returned: [...this.state.returned, ...this.inFlight] });
  }
}
