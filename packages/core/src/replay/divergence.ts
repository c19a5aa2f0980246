/**
 * Where a replayed episode first parts from its recording. The token ids of each branch are the
 * episode as the model saw and sampled it (tool outputs, user turns and templates included), so
 * the first differing id says both when (which turn) and what (which message) changed. Scores
 * are compared apart: a changed reward function re-scores an identical episode, which is the
 * point of replaying it, not a divergence.
 */
import type { BranchRecord, TraceRecord } from "../trace/record.ts";

export interface ScoreChange {
  /** `reward`, `rewards.<key>` or `metrics.<key>`. */
  key: string;
  recorded: number | null;
  now: number | null;
}

export interface Divergence {
  /** 1-based model turn the difference falls in or just before. */
  turn: number;
  branch: number;
  /** Token index in the branch where the ids first differ (-1: not a token difference). */
  index: number;
  /** Role of the message node holding that token in the recording (`tool`, `user`, `assistant`, …). */
  role: string | null;
  /** Up to 16 ids from `index` on, each side. */
  recordedIds: number[];
  nowIds: number[];
  /** One line on what differs. */
  detail: string;
}

export interface ReplayVerdict {
  divergence: Divergence | null;
  rescored: ScoreChange[];
}

const CONTEXT_IDS = 16;

function firstDifference(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return a.length === b.length ? -1 : n;
}

/** Turn of token `index`: 1 + the sampled runs that ended at or before it. */
function turnAt(b: BranchRecord, index: number): number {
  let turns = 1;
  for (let i = 1; i <= Math.min(index, b.sampled_mask.length - 1); i++)
    if (b.sampled_mask[i - 1] && !b.sampled_mask[i]) turns++;
  return turns;
}

/** Role of the node whose delta holds token `index` of branch `b`. */
function roleAt(trace: TraceRecord, b: BranchRecord, index: number): string | null {
  let at = 0;
  for (const n of b.node_indices) {
    const node = trace.nodes[n];
    at += node?.token_ids?.length ?? 0;
    if (index < at) return node?.message.role ?? null;
  }
  return null;
}

function tokenDivergence(recorded: TraceRecord, now: TraceRecord): Divergence | null {
  const count = Math.max(recorded.branches.length, now.branches.length);
  for (let k = 0; k < count; k++) {
    const a = recorded.branches[k];
    const b = now.branches[k];
    if (!a || !b)
      return {
        turn: a ? turnAt(a, 0) : 1,
        branch: k,
        index: -1,
        role: null,
        recordedIds: [],
        nowIds: [],
        detail: `the recording has ${recorded.branches.length} branch(es), the replay ${now.branches.length}`,
      };
    const i = firstDifference(a.token_ids, b.token_ids);
    if (i < 0) {
      // Same ids: the model's turns must also carry the same logprobs (what the trainer reads).
      const j = a.logprobs.findIndex((lp, n) => !Object.is(lp, b.logprobs[n]));
      if (j < 0) continue;
      return {
        turn: turnAt(a, j),
        branch: k,
        index: j,
        role: roleAt(recorded, a, j),
        recordedIds: [],
        nowIds: [],
        detail: `same ids, but the logprob of token ${j} differs (recorded ${a.logprobs[j]}, replayed ${b.logprobs[j]})`,
      };
    }
    const role = roleAt(recorded, a, i) ?? roleAt(now, b, i);
    const ended =
      i === a.token_ids.length
        ? "the replay went on"
        : i === b.token_ids.length
          ? "the replay stopped"
          : null;
    return {
      turn: turnAt(a, i),
      branch: k,
      index: i,
      role,
      recordedIds: a.token_ids.slice(i, i + CONTEXT_IDS),
      nowIds: b.token_ids.slice(i, i + CONTEXT_IDS),
      detail: ended
        ? `${ended} at token ${i} (recorded ${a.token_ids.length} tokens, replayed ${b.token_ids.length})`
        : `token ${i} differs${role ? ` inside a ${role} message` : ""}`,
    };
  }
  return null;
}

/** The episode's ending, as far as it does not depend on the reward functions. */
function ending(t: TraceRecord): string {
  const errors = t.errors.map((e) => e.type).join(",");
  return `stop ${t.stop_condition ?? "none"}${t.is_truncated ? " (truncated)" : ""}${errors ? `, errors ${errors}` : ""}`;
}

function scoreChanges(recorded: TraceRecord, now: TraceRecord): ScoreChange[] {
  const out: ScoreChange[] = [];
  const same = (x: number | null, y: number | null) => x === y || (Number.isNaN(x) && Number.isNaN(y));
  if (!same(recorded.reward, now.reward))
    out.push({ key: "reward", recorded: recorded.reward, now: now.reward });
  for (const group of ["rewards", "metrics"] as const) {
    const keys = new Set([...Object.keys(recorded[group]), ...Object.keys(now[group])]);
    for (const key of [...keys].sort()) {
      const x = recorded[group][key] ?? null;
      const y = now[group][key] ?? null;
      if (!same(x, y)) out.push({ key: `${group}.${key}`, recorded: x, now: y });
    }
  }
  return out;
}

export function compareEpisodes(recorded: TraceRecord, now: TraceRecord): ReplayVerdict {
  let divergence = tokenDivergence(recorded, now);
  if (!divergence && ending(recorded) !== ending(now))
    divergence = {
      turn: now.num_turns,
      branch: 0,
      index: -1,
      role: null,
      recordedIds: [],
      nowIds: [],
      detail: `the episode ended differently: recorded ${ending(recorded)}, replayed ${ending(now)}`,
    };
  return { divergence, rescored: scoreChanges(recorded, now) };
}
