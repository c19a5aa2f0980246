/**
 * A deliberately non-token-exact converter, for the negative phase of the end-to-end check.
 *
 * It does what stacks without a trace graph do: take the final conversation (messages), render
 * it once more with the chat template, mark the assistant spans of that rendering as trainable
 * and attach the logprobs the engine returned for each turn, position by position. It is as
 * careful as such a converter can be — a re-rendered token with no sampled logprob left gets
 * mask 0 instead of a made-up value — so whatever the teacher-forced check flags comes from the
 * re-rendering itself: the template drops or rewrites parts of earlier turns (e.g. `<think>`
 * blocks), decoded text re-tokenizes into different ids, and a truncated turn gains an
 * `<|im_end|>` that was never sampled. Every later turn's context then differs from what the
 * model actually saw, so the attached logprobs no longer belong to the tokens they sit on.
 */
import { branchToSample } from "../packages/core/src/miles/convert.ts";
import type { MilesSample } from "../packages/core/src/miles/sample.ts";
import type { Renderer } from "../packages/core/src/renderers/renderer.ts";
import type { TraceRecord } from "../packages/core/src/trace/record.ts";

export interface NaiveStats {
  samples: number;
  /** Samples whose re-rendered ids equal the sampled ones (a token-exact stack would make all). */
  identical: number;
  /** Sampled tokens that found no re-rendered position (dropped). */
  droppedLogprobs: number;
  /** Re-rendered assistant tokens with no sampled logprob (mask 0). */
  unmatchedPositions: number;
}

/** The sampled logprobs of each assistant turn of the main branch, in order. */
function turnLogprobs(trace: TraceRecord): number[][] {
  const branch = trace.branches[0]!;
  const out: number[][] = [];
  for (const i of branch.node_indices) {
    const node = trace.nodes[i]!;
    if (!node.sampled || !node.mask || !node.logprobs) continue;
    out.push(node.logprobs.filter((_, j) => node.mask![j]));
  }
  return out;
}

/** One trace → one sample built from a fresh rendering of its final messages. */
export function naiveSample(trace: TraceRecord, renderer: Renderer, stats: NaiveStats): MilesSample {
  // Start from the exact sample for every field that is not about tokens (reward, indices, …).
  const sample = branchToSample(trace, 0);
  const branch = trace.branches[0]!;
  const messages = branch.node_indices.map((i) => trace.nodes[i]!.message);
  const rendered = renderer.render(messages, { addGenerationPrompt: false });
  const perTurn = turnLogprobs(trace);

  const mask = new Array<number>(rendered.tokenIds.length).fill(0);
  const logprobs = new Array<number>(rendered.tokenIds.length).fill(0);
  let turn = -1;
  let lastMessage = -1;
  let k = 0;
  for (let p = 0; p < rendered.tokenIds.length; p++) {
    if (!rendered.sampledMask[p]) continue;
    const msg = rendered.messageIndices[p]!;
    if (msg !== lastMessage) {
      // A new assistant message: its logprobs are the next sampled turn's.
      if (turn >= 0) stats.droppedLogprobs += Math.max(0, (perTurn[turn]?.length ?? 0) - k);
      turn++;
      lastMessage = msg;
      k = 0;
    }
    const lp = perTurn[turn]?.[k++];
    if (lp === undefined) {
      stats.unmatchedPositions++;
      continue;
    }
    mask[p] = 1;
    logprobs[p] = lp;
  }
  if (turn >= 0) stats.droppedLogprobs += Math.max(0, (perTurn[turn]?.length ?? 0) - k);
  for (let t = turn + 1; t < perTurn.length; t++) stats.droppedLogprobs += perTurn[t]!.length;

  const first = mask.indexOf(1);
  if (first <= 0) throw new Error(`naive conversion of trace ${trace.id} found no trainable position`);
  stats.samples++;
  if (sameIds(rendered.tokenIds, branch.token_ids)) stats.identical++;
  sample.tokens = rendered.tokenIds.slice();
  sample.response_length = rendered.tokenIds.length - first;
  sample.loss_mask = mask.slice(first);
  sample.rollout_log_probs = logprobs.slice(first);
  return sample;
}

function sameIds(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** Groups of traces → groups of naive samples, keeping the exact run's group/sample indices. */
export function naiveGroups(
  groups: readonly TraceRecord[][],
  exact: readonly MilesSample[][],
  renderer: Renderer,
): { groups: MilesSample[][]; stats: NaiveStats } {
  const stats: NaiveStats = { samples: 0, identical: 0, droppedLogprobs: 0, unmatchedPositions: 0 };
  const out = groups.map((traces, g) =>
    traces.map((t, i) => {
      const s = naiveSample(t, renderer, stats);
      s.group_index = exact[g]![i]!.group_index;
      s.index = exact[g]![i]!.index;
      return s;
    }),
  );
  return { groups: out, stats };
}
