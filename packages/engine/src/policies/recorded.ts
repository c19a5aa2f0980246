/**
 * A recorded episode's model turns, answered by exact prompt: a prompt whose ids equal a
 * recorded turn's prompt gets that turn's ids and logprobs back.
 *
 * Rollouts of one group share their first prompt but not their samples, so a prompt can belong
 * to several recorded episodes. Each replayed episode follows one recording throughout: a
 * prompt that extends what an episode was served last continues that episode's recording; any
 * other prompt claims the first recording not yet followed. A prompt the recording never saw
 * means the episode has already diverged (a tool, a taskset or a template now produces
 * something else); it is answered with an empty turn, which ends most agents' episodes, and
 * counted so the caller can say where the replay left the recording.
 */
import type { PolicyFn } from "../types.ts";

export interface RecordedReply {
  /** The recorded episode (trace id) the turn belongs to. */
  episode: string;
  promptIds: readonly number[];
  ids: number[];
  logprobs: number[];
}

export interface RecordedPolicy {
  policy: PolicyFn;
  /** Prompts that matched no recorded turn so far. */
  readonly misses: number;
}

const key = (ids: readonly number[]) => `${ids.length}:${ids.join(",")}`;

function extendsServed(served: readonly number[], prompt: readonly number[]): boolean {
  if (served.length > prompt.length) return false;
  for (let i = 0; i < served.length; i++) if (served[i] !== prompt[i]) return false;
  return true;
}

export function recordedPolicy(turns: readonly RecordedReply[]): RecordedPolicy {
  const byPrompt = new Map<string, RecordedReply[]>();
  for (const t of turns) {
    const k = key(t.promptIds);
    const list = byPrompt.get(k);
    if (list) list.push(t);
    else byPrompt.set(k, [t]);
  }
  /** Per followed recording: the prompt and completion it was served last. */
  const followed = new Map<string, number[]>();
  const state = { misses: 0 };
  return {
    policy: (ctx) => {
      const candidates = byPrompt.get(key(ctx.promptIds));
      if (!candidates) {
        state.misses++;
        return { ids: [] };
      }
      const hit =
        candidates.find((c) => {
          const served = followed.get(c.episode);
          return served !== undefined && extendsServed(served, ctx.promptIds);
        }) ??
        candidates.find((c) => !followed.has(c.episode)) ??
        candidates[0]!;
      followed.set(hit.episode, [...ctx.promptIds, ...hit.ids]);
      return { ids: hit.ids, logprobs: hit.logprobs };
    },
    get misses() {
      return state.misses;
    },
  };
}
