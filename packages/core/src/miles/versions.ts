/**
 * Weight versions of a sample's turns, and what the trainer gets for an episode that outlived a
 * weight update (`partial_rollout` in the config).
 *
 * A live agent episode cannot be resumed from a token prefix (its harness, tools and sandbox
 * hold state), so envroll keeps it running across the update instead: turns sampled before the
 * update carry the old version, later ones the new. Every turn's logprobs are exact for the
 * policy that sampled it; the trainer decides how to weigh the older turns.
 */
import type { PartialRolloutConfig } from "../config/schema.ts";
import type { BranchRecord } from "../trace/record.ts";
import type { MilesSample } from "./sample.ts";

/** [start, end, version] over response positions, one per run of same-version sampled tokens. */
export type VersionSpan = [number, number, string];

/**
 * Runs of sampled tokens by version, in response coordinates (`first` = the first sampled
 * position of the branch). Unsampled tokens between two turns of one version join their run.
 */
export function versionSpans(branch: BranchRecord, first: number): VersionSpan[] {
  const spans: VersionSpan[] = [];
  for (let i = first; i < branch.token_ids.length; i++) {
    const v = branch.weight_versions[i];
    if (!branch.sampled_mask[i] || v == null) continue;
    const last = spans[spans.length - 1];
    if (last && last[2] === v) last[1] = i - first + 1;
    else spans.push([i - first, i - first + 1, v]);
  }
  return spans;
}

/** A version as a number, for staleness; versions must then be integers (as a trainer's step). */
export function versionNumber(v: string): number {
  const n = Number(v);
  if (!/^\d+$/.test(v) || !Number.isSafeInteger(n))
    throw new Error(`partial_rollout.max_staleness needs integer weight versions, got ${JSON.stringify(v)}`);
  return n;
}

/** How many versions the sample's oldest turn lags `current`. */
export function staleness(s: MilesSample, current: string): number {
  const vs = s.weight_versions;
  if (vs.length === 0) return 0;
  return versionNumber(current) - Math.min(...vs.map(versionNumber));
}

export interface VersionPolicyCounts {
  /** Samples with turns from more than one version. */
  mixed: number;
  /** Loss-masked tokens unmasked by `mixed_versions = "mask"`. */
  masked_out_tokens: number;
  /** Samples marked remove_sample by `mixed_versions = "drop"`. */
  dropped_mixed: number;
  /** Groups over max_staleness, dropped (and, with `rerun`, run again). */
  stale_groups: number;
}

export interface VersionPolicyResult {
  groups: MilesSample[][];
  /** Indices (into the input) of groups removed for staleness: the caller re-runs them on `rerun`. */
  stale: number[];
  counts: VersionPolicyCounts;
}

/**
 * Applies `partial_rollout` to a batch about to train the policy at version `current`:
 * groups over `max_staleness` leave the batch; in the rest, a mixed-version sample keeps every
 * turn (`keep`), keeps only `current`'s turns in its loss mask (`mask`), or is removed from the
 * loss (`drop`: Miles' remove_sample, so it still counts in its group's normalization).
 */
export function applyVersionPolicy(
  groups: readonly MilesSample[][],
  current: string,
  policy: PartialRolloutConfig,
): VersionPolicyResult {
  const counts: VersionPolicyCounts = { mixed: 0, masked_out_tokens: 0, dropped_mixed: 0, stale_groups: 0 };
  const kept: MilesSample[][] = [];
  const stale: number[] = [];
  groups.forEach((group, g) => {
    if (policy.max_staleness !== null && group.some((s) => staleness(s, current) > policy.max_staleness!)) {
      counts.stale_groups++;
      stale.push(g);
      return;
    }
    for (const s of group) {
      if (s.weight_versions.length < 2) continue;
      counts.mixed++;
      if (policy.mixed_versions === "drop") {
        s.remove_sample = true;
        counts.dropped_mixed++;
      } else if (policy.mixed_versions === "mask") {
        counts.masked_out_tokens += maskOtherVersions(s, current);
      }
    }
    kept.push(group);
  });
  return { groups: kept, stale, counts };
}

/** Zeroes the loss mask on tokens not sampled by `current`; returns how many it zeroed. */
function maskOtherVersions(s: MilesSample, current: string): number {
  const spans = s.metadata.envroll.version_spans ?? [];
  let n = 0;
  for (const [start, end, v] of spans) {
    if (v === current) continue;
    for (let i = start; i < end; i++) {
      if (s.loss_mask[i]) n++;
      s.loss_mask[i] = 0;
    }
  }
  return n;
}
