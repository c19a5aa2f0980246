/**
 * What a recorded episode needs to be played again: every sampled turn as the exact prompt ids
 * the engine was sent and the ids and logprobs it answered with.
 *
 * A trace branch is one token sequence that every turn of that branch extended (bridged turns
 * keep the sampled ids verbatim), so each maximal run of sampled tokens is one turn's
 * completion and everything before it is that turn's prompt. A turn that was fully re-rendered
 * starts a new branch, whose prefix is again exactly what was sent.
 */
import type { TraceRecord } from "../trace/record.ts";

export interface RecordedTurn {
  /** The trace (episode) the turn was sampled in. */
  episode: string;
  promptIds: number[];
  ids: number[];
  logprobs: number[];
}

/** The sampled turns of every branch of `trace` (a turn shared by two branches once). */
export function recordedTurns(trace: TraceRecord): RecordedTurn[] {
  const seen = new Set<string>();
  const out: RecordedTurn[] = [];
  for (const b of trace.branches) {
    const mask = b.sampled_mask;
    for (let i = 0; i < mask.length; i++) {
      if (!mask[i] || (i > 0 && mask[i - 1])) continue;
      let end = i;
      while (end < mask.length && mask[end]) end++;
      const promptIds = b.token_ids.slice(0, i);
      const key = promptKey(promptIds);
      if (!seen.has(key)) {
        seen.add(key);
        out.push({
          episode: trace.id,
          promptIds,
          ids: b.token_ids.slice(i, end),
          logprobs: b.logprobs.slice(i, end),
        });
      }
      i = end - 1;
    }
  }
  return out;
}

/** A map key for an exact id sequence (replay looks prompts up by identity, not similarity). */
export function promptKey(ids: readonly number[]): string {
  return `${ids.length}:${ids.join(",")}`;
}

/** Why a trace cannot be replayed at the token level, or null when it can. */
export function unreplayable(trace: TraceRecord): string | null {
  if (trace.branches.length === 0 || trace.branches.every((b) => b.token_ids.length === 0))
    return "it holds no token ids (recorded through a text-level client such as --openai); replay needs TrainClient traces";
  if (!trace.branches.some((b) => b.sampled_mask.some(Boolean))) return "it holds no sampled turn";
  return null;
}

/**
 * The recording a replayed trace followed: among `recorded` traces of its task, the one whose
 * first sampled turn it reproduced exactly (prompt, ids and logprobs; the replay engine serves
 * each episode from one recording), else the one with its rollout index. `taken` holds the
 * recordings already paired, so two replays never claim the same one.
 */
export function pairRecording(
  replayed: TraceRecord,
  recorded: readonly TraceRecord[],
  taken: Set<string>,
): TraceRecord | null {
  const same = recorded.filter((t) => t.task_index === replayed.task_index && !taken.has(t.id));
  const first = recordedTurns(replayed)[0];
  const equal = (a: readonly number[], b: readonly number[]) =>
    a.length === b.length && a.every((x, i) => Object.is(x, b[i]));
  const followed =
    first &&
    same.find((t) => {
      const r = recordedTurns(t)[0];
      return (
        r &&
        equal(r.promptIds, first.promptIds) &&
        equal(r.ids, first.ids) &&
        equal(r.logprobs, first.logprobs)
      );
    });
  const hit = followed || same.find((t) => t.rollout_index === replayed.rollout_index) || null;
  if (hit) taken.add(hit.id);
  return hit;
}
