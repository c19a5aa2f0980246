/**
 * The exact train-task cursor.
 *
 * Upstream resumes at `rollout_id × rollout_batch_size`, which is wrong as soon as over-sampling
 * or dropped groups consume more tasks than the batch size. Here the cursor records what really
 * happened: a task is *handed out* when its group starts, *completed* when its group line reached
 * the client, and *returned* when its group was aborted (stream closed, over-sampling satisfied,
 * `/abort`) or released unused. So across refills, restarts and aborts no task runs twice and
 * none is skipped.
 *
 * What is handed out is a *slot*: the running index into the endless sequence of epochs
 * (`epoch × num_tasks + position`), the task being that position of that epoch's order. Slots
 * give each epoch's run of a task its own seed (`seed_base + slot × n`, as upstream's running
 * index does), and returned slots go out again lowest first — in their original order, so a
 * handed-back task keeps its place instead of queueing behind later ones.
 *
 * Task order: the identity, or a seeded permutation per epoch (`--rollout-shuffle`); the
 * permutation is recomputed from (seed, epoch), so the state stays small.
 */
import { mulberry32, shuffle as permute } from "../random.ts";

export interface CursorState {
  version: 2;
  taskset_id: string;
  num_tasks: number;
  shuffle: boolean;
  seed: number;
  /** The rollout step this state was saved after (-1: never used). */
  rollout_id: number;
  epoch: number;
  /** Next position in the current epoch's order. */
  offset: number;
  /** Slots handed out but not completed (aborted, released): handed out again first, ascending. */
  returned: number[];
  /** Task indices completed during `rollout_id`, in completion order. */
  completed: number[];
  completed_total: number;
  handed_out_total: number;
}

/** One hand-out: the task to run and the slot it occupies in the epoch sequence. */
export interface Taken {
  task: number;
  slot: number;
}

export function freshCursorState(
  tasksetId: string,
  numTasks: number,
  shuffle: boolean,
  seed: number,
): CursorState {
  return {
    version: 2,
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

function insertSorted(list: number[], value: number): void {
  let i = list.length;
  while (i > 0 && list[i - 1]! > value) i--;
  list.splice(i, 0, value);
}

export class TaskCursor {
  private order: number[];
  /** Slots handed out and neither completed nor returned yet. */
  private readonly inFlight = new Map<number, number>();
  /** The order of one other epoch (a slot returned across an epoch boundary). */
  private otherOrder: { epoch: number; order: number[] } | null = null;

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

  /** The task a slot stands for. */
  taskOf(slot: number): number {
    const n = this.state.num_tasks;
    const epoch = Math.floor(slot / n);
    if (epoch === this.state.epoch) return this.order[slot % n]!;
    if (this.otherOrder?.epoch !== epoch) {
      this.otherOrder = { epoch, order: epochOrder(n, this.state.shuffle, this.state.seed, epoch) };
    }
    return this.otherOrder.order[slot % n]!;
  }

  take(): Taken {
    this.state.handed_out_total++;
    let slot = this.state.returned.shift();
    if (slot === undefined) {
      if (this.state.offset >= this.order.length) {
        this.state.epoch++;
        this.state.offset = 0;
        this.order = epochOrder(this.state.num_tasks, this.state.shuffle, this.state.seed, this.state.epoch);
      }
      slot = this.state.epoch * this.state.num_tasks + this.state.offset++;
    }
    const taken = { task: this.taskOf(slot), slot };
    this.inFlight.set(slot, taken.task);
    return taken;
  }

  complete(t: Taken): void {
    this.inFlight.delete(t.slot);
    this.state.completed.push(t.task);
    this.state.completed_total++;
  }

  /**
   * Undoes `complete` for a group the client received but never used (it stopped reading once it
   * had enough): the task was not trained on, so it must run again rather than be skipped.
   */
  release(t: Taken): boolean {
    const i = this.state.completed.lastIndexOf(t.task);
    if (i < 0) return false;
    this.state.completed.splice(i, 1);
    this.state.completed_total--;
    insertSorted(this.state.returned, t.slot);
    return true;
  }

  giveBack(t: Taken): void {
    this.inFlight.delete(t.slot);
    insertSorted(this.state.returned, t.slot);
  }

  /** The persisted form: anything still in flight counts as returned (it never reached the client). */
  snapshot(): CursorState {
    const returned = [...this.state.returned];
    for (const slot of this.inFlight.keys()) insertSorted(returned, slot);
    return structuredClone({ ...this.state, returned });
  }
}

/**
 * A state saved before slots existed (version 1: `returned` held task indices). Each returned
 * task becomes the slot of its position in the current epoch's order, which is where it was
 * handed out unless it straddled an epoch boundary (then only its seed differs).
 */
export function migrateCursorState(raw: Record<string, unknown>): CursorState {
  const s = raw as unknown as CursorState & { version: number };
  if (s.version === 2) return s;
  if (s.version !== 1) throw new Error(`unknown cursor state version ${String(s.version)}`);
  const order = epochOrder(s.num_tasks, s.shuffle, s.seed, s.epoch);
  const returned = (s.returned as number[]).map((task) => s.epoch * s.num_tasks + order.indexOf(task));
  return { ...s, version: 2, returned: returned.sort((a, b) => a - b) };
}
