/**
 * Persistence of the train cursor: one JSON file per rollout step under the state dir,
 * `cursor-<rollout_id>.json` = the cursor after that step. A step's first request restores the
 * state saved after the step before it, so a trainer restarted from any checkpoint resumes
 * exactly there; refill requests of the same step continue in memory.
 */
import { mkdir, readdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type CursorState, freshCursorState, migrateCursorState, TaskCursor } from "./cursor.ts";

const FILE_RE = /^cursor-(\d+)\.json$/;

export interface CursorSettings {
  tasksetId: string;
  numTasks: number;
  shuffle: boolean;
  seed: number;
}

export class CursorStore {
  private current: TaskCursor | null = null;

  /** `dir` null keeps the cursor in memory only (no resume across restarts). */
  constructor(private readonly dir: string | null) {}

  /**
   * The cursor for a request of step `rolloutId`. `mode: "continue"` (a refill within a step)
   * keeps the cursor of that step (in memory, or its file after a restart); `"start"` restores the
   * state after step `rolloutId − 1`, from memory or the newest file at or below it.
   */
  async open(rolloutId: number, mode: "start" | "continue", settings: CursorSettings): Promise<TaskCursor> {
    const cur = this.current;
    if (mode === "continue" && cur && cur.state.rollout_id === rolloutId) return cur;
    // A refill after a restart continues from this step's own file; a new step from the last one's.
    const base = mode === "continue" ? rolloutId : rolloutId - 1;
    let state: CursorState | null = null;
    if (cur && cur.state.rollout_id === base) state = cur.snapshot();
    else state = await this.loadAtOrBelow(base);
    if (state) checkCompatible(state, settings);
    const cursor = new TaskCursor(
      state ?? freshCursorState(settings.tasksetId, settings.numTasks, settings.shuffle, settings.seed),
    );
    cursor.beginRollout(rolloutId);
    this.current = cursor;
    return cursor;
  }

  /** False once a later request has opened another step (a release would come too late). */
  isCurrent(cursor: TaskCursor): boolean {
    return this.current === cursor;
  }

  async save(cursor: TaskCursor): Promise<string | null> {
    if (!this.dir) return null;
    await mkdir(this.dir, { recursive: true });
    const path = join(this.dir, `cursor-${cursor.state.rollout_id}.json`);
    // Write-then-rename so a crash mid-write never leaves a truncated state file.
    const tmp = `${path}.${process.pid}.tmp`;
    await writeFile(tmp, `${JSON.stringify(cursor.snapshot(), null, 1)}\n`);
    await rename(tmp, path);
    return path;
  }

  private async loadAtOrBelow(rolloutId: number): Promise<CursorState | null> {
    if (!this.dir || rolloutId < 0) return null;
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return null;
    }
    let best = -1;
    for (const name of names) {
      const m = FILE_RE.exec(name);
      const id = m ? Number(m[1]) : -1;
      if (id <= rolloutId && id > best) best = id;
    }
    if (best < 0) return null;
    const path = join(this.dir, `cursor-${best}.json`);
    try {
      return migrateCursorState(JSON.parse(await readFile(path, "utf8")) as Record<string, unknown>);
    } catch (err) {
      throw new Error(`${path}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}

function checkCompatible(state: CursorState, s: CursorSettings): void {
  if (state.taskset_id !== s.tasksetId || state.num_tasks !== s.numTasks) {
    throw new Error(
      `saved task cursor is for taskset ${state.taskset_id} with ${state.num_tasks} tasks, but the ` +
        `service has ${s.tasksetId} with ${s.numTasks} tasks; use a fresh --state-dir`,
    );
  }
}
